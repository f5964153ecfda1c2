#!/usr/bin/env bash
# diagnosis of 07's judged bias: the empty batch through the echo runner (as graded) vs through the student's own runner (LAB_EMPTY_STUDENT, a diagnostic patch), traced; in-process for the events
set -u
O=${OUT:-/tmp/out}; W=/tmp/w26; mkdir -p $O $W
R=$(pwd); export PATH=/usr/local/cuda/bin:$PATH; T0=$SECONDS
log() { echo "$(date -u +%T) +$((SECONDS-T0))s $*" | tee -a $O/session26.log; }
git apply .gpu/exp-empty-student.patch || { log "patch failed"; exit 1; }
make -s -j12 all build/grader/grade build/confine/confine build/confine/objcheck build/grader/take > $W/build.log 2>&1; log "built $?"
g() { # OUT EX JUDGE [ENV]
  (cd $R && env LAB_JUDGE_TRACE=1 $4 timeout 90 make -s run EX=$2 SOLUTION=1 JUDGE=$3 > $1.log 2>&1)
  echo "$(grep -E "your kernel: .* batches" $1.log | grep -o 'this clock.*' | cut -c1-150)"
  grep -E "judge trace: .*batches" $1.log | grep -v "your kernel" | sed 's/judge trace: //; s/(what it adds.*subtracted);//' | cut -c1-120
  grep -E "server trace" $1.log | cut -c1-200
}
for ex in 07 05; do
for r in 1 2 3 4; do for e in echo student; do
  v=X=1; [ $e = student ] && v=LAB_EMPTY_STUDENT=1
  log "$ex judged empty=$e $r: $(g $W/t-$ex-$e-$r $ex 1 $v)"
done; done
for r in 1 2; do log "$ex in-process $r: $(g $W/t-$ex-here-$r $ex 0 X=1)"; done
done
git apply -R .gpu/exp-empty-student.patch
cd $W && tar czf $O/logs26.tgz --exclude='*.o' --exclude='build' --exclude='*.fatbin' . 2>/dev/null; ls $O
