#!/usr/bin/env bash
# #43's last figure: stage 07 judged, new vs e4aa29c, 8 rounds alternating; then 2 full judged grades each, alternating; then gpu-fixtures references (time left)
set -u
O=${OUT:-/tmp/out}; W=/tmp/w25; mkdir -p $O $W
R=$(pwd); export PATH=/usr/local/cuda/bin:$PATH; T0=$SECONDS
log() { echo "$(date -u +%T) +$((SECONDS-T0))s $*" | tee -a $O/session25.log; }
left() { echo $((${LIMIT:-580} - (SECONDS-T0))); }
nvidia-smi -L | tee -a $O/session25.log
(make -s -j12 all build/grader/grade build/confine/confine build/confine/objcheck build/grader/take > $W/build-new.log 2>&1; echo "new $?" >> $W/built) &
(cd .old && make -s -j4 $(sed -n 's/^grade: //p' Makefile) > $W/build-old.log 2>&1; echo "old $?" >> $W/built) &
wait; log "built: $(tr '\n' ' ' < $W/built)"
grade() { # TREE OUTDIR [STAGE]
  (cd $1 && tools/grade-build.sh --src solutions --judge ${3:-} >$2.build.log 2>&1 && timeout 100 build/grader/grade --src solutions --judge --out $2 ${3:-} > $2.log 2>&1); echo $?
}
fig() { python3 -c "import json;s=json.load(open('$1/grade.json'))['stages']
for x in s: print(x['stage'], x['points'], [(t.get('field'), t.get('value')) for t in x.get('tiers', [])])" 2>&1 | tail -3; }
for r in 1 2 3 4 5 6 7 8; do for t in new old; do
  [ $((r % 2)) = 0 ] && t=$([ $t = new ] && echo old || echo new)
  d=$R; [ $t = old ] && d=$R/.old
  rc=$(grade $d $W/g07-$t-$r 07_reduction); log "07 $t $r: rc $rc $(fig $W/g07-$t-$r)"
done; done
research/compare-grades.sh $W/g07-old-? -- $W/g07-new-? > $O/g07-compare.md 2>&1; cat $O/g07-compare.md
for r in 1 2; do for t in old new; do
  [ $(left) -lt 60 ] && break
  d=$R; [ $t = old ] && d=$R/.old
  s=$(date +%s%N); rc=$(grade $d $W/ab-$t-$r)
  log "ab $t run $r: rc $rc $(( ($(date +%s%N) - s) / 1000000 )) ms $(grep -E '^total' $W/ab-$t-$r.log | tr -s ' ')"
done; done
research/compare-grades.sh $W/ab-old-? -- $W/ab-new-? > $O/ab-compare.md 2>&1; cat $O/ab-compare.md
[ $(left) -gt 90 ] && { timeout $(( $(left) - 10 )) tests/grader/gpu-fixtures.sh references > $W/fix-ref.log 2>&1; log "references: $? $(tail -n 1 $W/fix-ref.log)"; grep -E "^FAIL" -A3 $W/fix-ref.log | cut -c1-300 | head -20; }
for f in $W/g07-* $W/ab-*; do [ -d $f ] && cp $f/grade.json $O/$(basename $f).json 2>/dev/null; done
cd $W && tar czf $O/logs25.tgz --exclude='*.o' --exclude='build' --exclude='*.fatbin' --exclude='trees' . 2>/dev/null; ls $O | head -50
