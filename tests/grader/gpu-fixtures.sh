#!/usr/bin/env bash
# tests/grader/gpu-fixtures.sh: the grader on a GPU (tests/grader/run.sh calls
# it when a GPU is here; it can also run alone, from anywhere).
#
#   1. the solutions, graded as submissions, score full marks, and grading
#      every stage (kernels built from scratch) takes under 60 s
#   2. the skeletons (exercises/ as handed out), graded by the judge, score no speed points and
#      neither crash nor hang
#   3. each kernel in tests/grader/kernels/, graded as 03_tiled, loses the
#      points it should, for the reason it should (a grid of n / 16 blocks
#      gets the hint that names n=1 and the rounded-up grid; one block of one
#      warp, stopped at a 20 s limit while timing, keeps its correctness
#      points with a reason naming the size it was timing)
#   4. the attacks of tests/grader/attacks/ score 0 when the judge grades
#      them (--judge), for the reason they should where they name one, and
#      in the harness's own process all but those marked judge-only (the
#      holes the judge closes): among them stage 08's solution in half
#      precision on the calls not checked in full, and stage 07's reading
#      15/16 of its input; the solutions score full marks with the judge;
#      one marked earns-own (stage 07's sums done before the clock starts)
#      earns no more than its own kernel does alone
#   5. a correct stage that misses a tier runs twice (and once with --once),
#      and a naive baseline kept by one grade (--baselines) serves the next
#   6. each speed tier's reference kernel (stages.tsv), graded by
#      the judge (--reference TIER), earns its tier and every tier before it,
#      and no tier after it; the plain kernels of tests/grader/honest/ earn
#      the pass tier
#   7. with compute-sanitizer: the missing barrier is found with its line, and
#      the solutions stay clean under SANITIZE=1 (memcheck cannot see the
#      out-of-bounds write: it lands in the harness's guard zone, inside the
#      allocation; the guard check catches it)
#
# tests/grader/gpu-fixtures.sh [SECTION...] runs only those sections (the
# names are in want's calls below). Ends with "N passed, N failed[, N skipped]".
set -u
cd "$(dirname "$0")/../.." || exit 2
# SECTION...: only those (solutions skeletons faults attacks judged
# again references sanitize); none: all
only=" $* "
want() { [ "$only" = "  " ] || [[ $only == *" $1 "* ]]; }

FAIL_LINES=20
. tests/lib.sh
. tools/stages.sh
summary() {
    totals
    exit
}

if ! nvidia-smi -L 2>/dev/null | grep -q '^GPU'; then
    skip "the grader on a GPU: no GPU here"
    summary
fi
out=build/tests/grader-gpu
mkdir -p "$out"
make -s build/grader/grade || exit 2
[ -x build/tests/grader/check ] && [ -x build/tests/grader/json ] || tests/grader/programs.sh build/tests/grader || exit 2
q=build/tests/grader/check
stage=$(stage_numbered 03)
have_sanitizer=0
command -v compute-sanitizer >/dev/null 2>&1 && have_sanitizer=1
get() { "${q%/check}/json" get "$1/grade.json" "$2" 2>/dev/null; }
nstages() { get "$1" stages; }

if want solutions; then
echo "== the solutions score full marks"
rm -rf build/grade-src "$out/solutions"
start=$(date +%s)
built_grade --src solutions --out "$out/solutions" >"$out/solutions.log" 2>&1
st=$?
elapsed=$(($(date +%s) - start))
check "grading the solutions runs (exit 0)" "$([ $st = 0 ]; echo $?)" "$(tail -n 30 "$out/solutions.log")"
n=$(nstages "$out/solutions")
for ((i = 0; i < ${n:-0}; i++)); do
    s=$(get "$out/solutions" "stages.$i.stage")
    p="$(get "$out/solutions" "stages.$i.points")/$(get "$out/solutions" "stages.$i.max_points")"
    check "$s: the solution scores full marks ($p)" \
        "$([ "${p%/*}" = "${p#*/}" ]; echo $?)" \
        "$(get "$out/solutions" "stages.$i.reason"); $(get "$out/solutions" "stages.$i.note"); $(get "$out/solutions" "stages.$i.advice.0")"
done
check "a whole make grade, kernels built from scratch, takes under 60 s (${elapsed} s)" \
    "$([ "$elapsed" -lt 60 ]; echo $?)"
sed -n '/^stage /,/^total/p' "$out/solutions.log"

fi
if want skeletons; then
echo "== the skeletons, graded by the judge (make grade's default), score no speed points, and neither crash nor hang"
rm -rf "$out/skeletons"
built_grade --judge --out "$out/skeletons" >"$out/skeletons.log" 2>&1
st=$?
check "grading the skeletons runs (exit 0)" "$([ $st = 0 ]; echo $?)" "$(tail -n 30 "$out/skeletons.log")"
n=$(nstages "$out/skeletons")
for ((i = 0; i < ${n:-0}; i++)); do
    s=$(get "$out/skeletons" "stages.$i.stage")
    reason=$(get "$out/skeletons" "stages.$i.reason")
    speed=0
    for ((k = 0; k < $(get "$out/skeletons" "stages.$i.tiers"); k++)); do
        speed=$((speed + $(get "$out/skeletons" "stages.$i.tiers.$k.points")))
    done
    check "$s: the skeleton scores no speed points and fails cleanly ($reason)" \
        "$([ $speed = 0 ] && ! grep -qE 'crashed|timed out|refused|did not compile|result record|not valid JSON' <<<"$reason"; echo $?)"
done

fi
if want faults; then
echo "== kernels with one deliberate fault each, graded as 03_tiled"
# a rubric whose time limit stops the slow kernel while it is being timed
sed 's/^setting[[:space:]]*limit_s[[:space:]].*/setting\tlimit_s\t20/' grader/rubric.tsv >"$out/rubric-20s.tsv"
# kernel   grade options   expected points   phrase in the reason   sanitizer must name kernel.cu
while IFS='|' read -r name opts expect phrase line; do
    opts=${opts//@out/$out}
    case $name in '#'* | '') continue ;; esac
    if [ "$opts" = --sanitize ] && [ $have_sanitizer = 0 ]; then
        skip "$name: compute-sanitizer is not installed"
        continue
    fi
    sub=$out/sub-$name
    rm -rf "$sub" "$out/report-$name"
    mkdir -p "$sub/$stage"
    cp "tests/grader/kernels/$name/kernel.cu" "$sub/$stage/kernel.cu"
    # shellcheck disable=SC2086  # opts is empty or one option
    built_grade --src "$sub" $opts --out "$out/report-$name" "$stage" >"$out/$name.log" 2>&1
    st=$?
    r=$out/report-$name
    reason=$(get "$r" stages.0.reason)
    ok=1
    [ $st = 0 ] || ok=0
    case $expect in
        zero) [ "$(get "$r" stages.0.points)" = 0 ] || ok=0 ;;
        no-correctness) [ "$(get "$r" stages.0.correct_points)" = 0 ] || ok=0 ;;
        correctness-only) [ "$(get "$r" stages.0.points)" = "$(get "$r" stages.0.correct_points)" ] &&
                          [ "$(get "$r" stages.0.correct_points)" -gt 0 ] || ok=0 ;;
    esac
    [ -z "$phrase" ] || grep -qF -- "$phrase" <<<"$reason" || ok=0
    [ "$line" != yes ] || get "$r" stages.0.sanitizer | grep -q 'kernel\.cu:[0-9]' || ok=0
    check "$name: ${expect/-/ } points${phrase:+ (\"$phrase\")}${line:+, the sanitizer names the line}" \
        "$([ $ok = 1 ]; echo $?)" "$(tail -n 25 "$out/$name.log")"
done <<'EOF'
cublas_call||zero|refused: kernel.cu uses cublas|
side_stream||zero|refused: kernel.cu uses cudaStreamCreateWithFlags|
result_caching||zero|depend on state left by an earlier call|
clobbered_input||zero|changed its input arrays|
out_of_bounds||zero|wrote outside its output array|
missing_barrier|--sanitize|no-correctness||yes
zero_grid||zero|the launch at n=1 was refused before your kernel ran|
slow_one_block|--rubric @out/rubric-20s.tsv|correctness-only|every check passed; timed out while timing n=4096|
EOF

fi
if want attacks; then
echo "== attacks (tests/grader/attacks/), graded by the judge (--judge)"
# Each attack scores 0 when the judge grades it, and graded in the harness's
# own process, but those marked judge-only (judge/README.md). Beside an
# attack's kernel.cu: `stage`, the number of the stage it is graded as (03
# when there is none); `reason`, a phrase the judged reason must hold;
# `may-be-refused`, when a build that refuses it is a right answer too
# (else refused by the symbol policy it would prove nothing); `earns-own`,
# below. An attack with a wrapper.cu instead of a kernel.cu wraps the
# stage's solution (or, where a `wraps` file names it, `references`: the
# tier's reference kernel): its contract function, renamed
# solution_<name>, comes first, then wrapper.cu, which defines the contract
# function.
# An attack marked earns-own (work done off the clock) is graded beside its
# own kernel (the same file with LAB_ATTACK_OFF defined), by the judge and
# in the harness's process: it must earn no more than that kernel, which
# must earn its correctness points (or the comparison proves nothing).
earns_own() { # NAME STAGE KERNEL
    local name=$1 as=$2 kernel=$3 side how p_att p_own st1 st2
    mkdir -p "$out/own-$name/$as"
    { echo '#define LAB_ATTACK_OFF'; cat "$kernel"; } >"$out/own-$name/$as/kernel.cu"
    for side in judge inproc; do
        how=--judge
        [ $side = inproc ] && how=""
        rm -rf "$out/attack-$side-$name" "$out/own-$side-$name"
        built_grade $how --src "$out/attack-$name" --out "$out/attack-$side-$name" "$as" >"$out/attack-$side-$name.log" 2>&1
        st1=$?
        built_grade $how --src "$out/own-$name" --out "$out/own-$side-$name" "$as" >"$out/own-$side-$name.log" 2>&1
        st2=$?
        p_att=$(get "$out/attack-$side-$name" stages.0.points)
        p_own=$(get "$out/own-$side-$name" stages.0.points)
        check "attack $name: graded as $as ($side), it earns no more than its own kernel ($p_att <= $p_own; its own: $(get "$out/own-$side-$name" stages.0.reason))" \
            "$([ $st1 = 0 ] && [ $st2 = 0 ] && [ "${p_own:-0}" -gt 0 ] && [ "${p_att:-99}" -le "$p_own" ]; echo $?)" \
            "$(tail -n 12 "$out/attack-$side-$name.log"; tail -n 6 "$out/own-$side-$name.log")"
    done
}
for dir in tests/grader/attacks/*/; do
    name=$(basename "$dir")
    num=$(cat "$dir/stage" 2>/dev/null || echo 03)
    as=$(stage_numbered "$num")
    wraps=$(cat "$dir/wraps" 2>/dev/null || echo solutions)
    if [ -e "$dir/wrapper.cu" ] && [ ! -e "$wraps/$as/kernel.cu" ]; then
        skip "attack $name: it wraps $wraps/$as, which is not here"
        continue
    fi
    sub=$out/attack-$name
    rm -rf "$sub" "$out/attack-report-$name"
    mkdir -p "$sub/$as"
    if [ -e "$dir/wrapper.cu" ]; then
        fn=$(stage_family "$as")
        { echo "#define $fn solution_$fn"; cat "$wraps/$as/kernel.cu"; echo "#undef $fn"; cat "$dir/wrapper.cu"; } \
            >"$sub/$as/kernel.cu"
    else
        cp "$dir/kernel.cu" "$sub/$as/kernel.cu"
    fi
    if [ -e "$dir/earns-own" ]; then
        earns_own "$name" "$as" "$sub/$as/kernel.cu"
        continue
    fi
    built_grade --judge --src "$sub" --out "$out/attack-report-$name" "$as" >"$out/attack-$name.log" 2>&1
    st=$?
    # (refused by the symbol policy it would prove nothing: it must run; but
    # one marked may-be-refused, whose object the lab may refuse to link)
    reason=$(get "$out/attack-report-$name" stages.0.reason)
    phrase=$(cat "$dir/reason" 2>/dev/null)
    runs=1
    [ -e "$dir/may-be-refused" ] && runs=0
    check "attack $name: graded as $as by the judge, it $([ $runs = 1 ] && echo "runs and ")scores 0 ($reason)" \
        "$([ $st = 0 ] && [ "$(get "$out/attack-report-$name" stages.0.points)" = 0 ] &&
           { [ $runs = 0 ] || ! grep -q '^refused' <<<"$reason"; } && grep -qF -- "$phrase" <<<"$reason"; echo $?)" \
        "$(tail -n 25 "$out/attack-$name.log")"
    # in the harness's own process too, but those marked judge-only: the
    # holes the judge closes (the file says which)
    [ -e "$dir/judge-only" ] && continue
    built_grade --src "$sub" --out "$out/attack-inproc-$name" "$as" >"$out/attack-inproc-$name.log" 2>&1
    st=$?
    check "attack $name: graded in the harness's process, it scores 0 ($(get "$out/attack-inproc-$name" stages.0.reason))" \
        "$([ $st = 0 ] && [ "$(get "$out/attack-inproc-$name" stages.0.points)" = 0 ]; echo $?)" \
        "$(tail -n 25 "$out/attack-inproc-$name.log")"
done
fi
if want judged; then
echo "== the solutions, graded by the judge (--judge), score full marks"
rm -rf "$out/judged"
built_grade --judge --src solutions --out "$out/judged" >"$out/judged.log" 2>&1
n=$(nstages "$out/judged")
check "grading the solutions with the judge runs (exit 0, $n stages)" "$([ "${n:-0}" -gt 0 ]; echo $?)" \
    "$(tail -n 30 "$out/judged.log")"
for ((i = 0; i < ${n:-0}; i++)); do
    s=$(get "$out/judged" "stages.$i.stage")
    p="$(get "$out/judged" "stages.$i.points")/$(get "$out/judged" "stages.$i.max_points")"
    check "$s: judged, the solution scores full marks ($p)" "$([ "${p%/*}" = "${p#*/}" ]; echo $?)" \
        "$(get "$out/judged" "stages.$i.reason"); $(get "$out/judged" "stages.$i.advice.0")"
done

fi
if want again; then
echo "== a missed tier runs a second time under the judge; a kept baseline serves a later grade"
# 03's solution against a rubric whose speed tier it cannot reach: the
# stage runs twice and keeps 6 of 10, the note says so; with --once, once
rm -rf "$out/again" "$out/again-once" "$out/kept" "$out/kept-later"
# (its default row is in stages.tsv: one at the end of this rubric wins over it)
awk -F'\t' 'BEGIN { OFS = "\t" } $1 == "threshold" && $2 == "'"$stage"'" && $3 == "pass" { $5 = 100000 } { print }
    END { print "threshold", "'"$stage"'", "pass", "default", 100000 }' grader/rubric.tsv >"$out/unreachable.tsv"
built_grade --judge --src solutions --rubric "$out/unreachable.tsv" --out "$out/again" "$stage" >"$out/again.log" 2>&1
check "judged: a missed tier runs the stage again (\"once more...\", 6/10, both runs in the note)" \
    "$(grep -qE "once more\.\.\. (on the CPU emulation\.\.\. )?correct" "$out/again.log" && [ "$(get "$out/again" stages.0.points)" = 6 ] &&
       grep -q 'ran a second time: 6/10, then 6/10' <<<"$(get "$out/again" stages.0.note)"; echo $?)" \
    "$(tail -n 20 "$out/again.log")"
built_grade --judge --once --src solutions --rubric "$out/unreachable.tsv" --out "$out/again-once" "$stage" \
    >"$out/again-once.log" 2>&1
check "judged: --once runs it once (6/10, no second run)" \
    "$(! grep -q "once more" "$out/again-once.log" && [ "$(get "$out/again-once" stages.0.points)" = 6 ]; echo $?)" \
    "$(tail -n 20 "$out/again-once.log")"
first=$(stages_of matmul | sed -n 1p)
second=$(stages_of matmul | sed -n 2p)
built_grade --judge --src solutions --baselines "$out/kept.tsv" --out "$out/kept" "$first" >"$out/kept.log" 2>&1
check "judged: --baselines: $first's grade keeps the naive baseline it timed (matmul, this GPU, n=4096)" \
    "$(awk -F'\t' '$1 == "matmul" && $3 > 0 && $4 == "n=4096" { ok = 1 } END { exit !ok }' "$out/kept.tsv" 2>/dev/null; echo $?)" \
    "$(cat "$out/kept.tsv" 2>/dev/null); $(tail -n 5 "$out/kept.log")"
built_grade --judge --src solutions --baselines "$out/kept.tsv" --out "$out/kept-later" "$second" \
    >"$out/kept-later.log" 2>&1
p="$(get "$out/kept-later" stages.0.points)/$(get "$out/kept-later" stages.0.max_points)"
check "judged: --baselines: a later grade of $second, handed that baseline, scores full marks ($p)" \
    "$([ -n "${p%/*}" ] && [ "${p%/*}" = "${p#*/}" ] && [ "$(wc -l <"$out/kept.tsv")" = 1 ]; echo $?)" \
    "$(tail -n 20 "$out/kept-later.log")"
fi
if want references; then
echo "== each tier's reference kernel, graded by the judge, earns its tier and none after it"
# the tiers in the table's order: a reference of tier k earns tiers 0..k
tiers=$(awk -F'\t+' '$1 == "tier" && !seen[$3]++ { print $3 }' stages.tsv)
for tier in $tiers; do
    rm -rf "$out/reference-$tier"
    built_grade --judge --reference "$tier" --out "$out/reference-$tier" >"$out/reference-$tier.log" 2>&1
    r=$out/reference-$tier
    n=$(nstages "$r")
    check "grading the reference kernels of tier $tier runs (exit 0, ${n:-0} stages)" "$([ "${n:-0}" -gt 0 ]; echo $?)" \
        "$(tail -n 30 "$out/reference-$tier.log")"
    for ((i = 0; i < ${n:-0}; i++)); do
        s=$(get "$r" "stages.$i.stage")
        # a stage whose tiers end before this one has no reference for it
        grep -q '^no reference kernel' <<<"$(get "$r" "stages.$i.reason")" && continue
        earned="" ok=0
        reached=0
        for ((k = 0; k < $(get "$r" "stages.$i.tiers"); k++)); do
            name=$(get "$r" "stages.$i.tiers.$k.name") p=$(get "$r" "stages.$i.tiers.$k.points")
            earned="$earned $name=$p/$(get "$r" "stages.$i.tiers.$k.max_points")"
            # its own tier and those before it: full points; those after: none
            if [ $reached = 0 ]; then [ "$p" = "$(get "$r" "stages.$i.tiers.$k.max_points")" ] || ok=1
            else [ "$p" = 0 ] || ok=1; fi
            [ "$name" = "$tier" ] && reached=1
        done
        check "$s: the $tier tier's reference earns it and no tier after it ($earned)" "$ok" \
            "$(get "$r" "stages.$i.reason"); $(get "$r" "stages.$i.note"); $(get "$r" "stages.$i.advice.0")"
    done
done
# plain kernels written as students write them (a 32 x 32 tiled product, a
# two-launch grid-stride reduction with scalar loads) earn the pass tier
rm -rf "$out/honest"
# shellcheck disable=SC2046 # the stages, one word each
built_grade --judge --src tests/grader/honest --out "$out/honest" $(ls tests/grader/honest) >"$out/honest.log" 2>&1
n=$(nstages "$out/honest")
for ((i = 0; i < ${n:-0}; i++)); do
    check "tests/grader/honest: $(get "$out/honest" "stages.$i.stage") earns the pass tier" \
        "$([ "$(get "$out/honest" "stages.$i.tiers.0.points")" = "$(get "$out/honest" "stages.$i.tiers.0.max_points")" ]; echo $?)" \
        "$(get "$out/honest" "stages.$i.reason"); $(get "$out/honest" "stages.$i.note"); $(get "$out/honest" "stages.$i.advice.0")"
done
fi
if want sanitize; then
echo "== SANITIZE=1 finds nothing in the solutions"
if [ $have_sanitizer = 0 ]; then
    skip "compute-sanitizer is not installed"
else
    rm -rf "$out/sanitized"
    built_grade --src solutions --sanitize --out "$out/sanitized" >"$out/sanitized.log" 2>&1
    n=$(nstages "$out/sanitized")
    for ((i = 0; i < ${n:-0}; i++)); do
        s=$(get "$out/sanitized" "stages.$i.stage")
        check "$s: the solution is clean under memcheck and racecheck" \
            "$([ -z "$(get "$out/sanitized" "stages.$i.sanitizer")" ] &&
               [ "$(get "$out/sanitized" "stages.$i.correct")" = true ]; echo $?)" \
            "$(get "$out/sanitized" "stages.$i.sanitizer") $(get "$out/sanitized" "stages.$i.reason")"
    done
fi
fi
summary
