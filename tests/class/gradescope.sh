#!/usr/bin/env bash
# tests/class/gradescope.sh: make gradescope, and the bundle's gradescope/setup.sh and
# run_autograder in a stand-in for Gradescope's layout (AUTOGRADER_ROOT:
# source/, submission/, results/), without a GPU, then as on a runner with
# one (tests/class/gpu-runner/: stand-ins for nvidia-smi and make grade);
# a suite of make check (tests/run.sh); ends with "N passed, N failed[, N
# skipped]". Run alone:
#   bash tests/class/gradescope.sh
cd "$(dirname "$0")/../.." && . tests/class/lib.sh && class_alone || exit 2
echo "== make gradescope: the bundle, and run_autograder on a sample submission"
gs=$tmp/gradescope
out=$(make --no-print-directory gradescope DEST="$gs" 2>&1); st=$?
check "make gradescope DEST=dir: exit 0, autograder.zip" "$([ $st = 0 ] && [ -s "$gs/autograder.zip" ]; ok)" "$out"
out=$(make --no-print-directory gradescope 2>&1); st=$?
check "make gradescope without DEST: exit 2 and what to give" "$([ $st = 2 ] && grep -q "DEST=dir" <<<"$out"; ok)" "$out"
if ! command -v unzip >/dev/null; then
    skip "run_autograder in Gradescope's layout: unzip is not installed here (apt-get install unzip)"
elif ! command -v nvcc >/dev/null; then
    skip "run_autograder in Gradescope's layout: nvcc is not installed here"
else
    ag=$tmp/autograder
    mkdir -p "$ag/source" && (cd "$ag/source" && unzip -q "$gs/autograder.zip")
    names=$(cd "$ag/source" && find . -maxdepth 1 ! -name . | sort | tr '\n' ' ')
    check "the bundle: setup.sh, run_autograder (executable), lab/ a student release with no solutions, with its intake (grader/intake/)" \
        "$([ "$names" = "./lab ./run_autograder ./setup.sh " ] && [ -f "$ag/source/lab/grader/intake/submission.c" ] && [ -x "$ag/source/run_autograder" ] &&
           [ -x "$ag/source/setup.sh" ] && [ ! -e "$ag/source/lab/solutions" ] && [ -d "$ag/source/lab/.lab/skeletons" ]; ok)" \
        "$names"
    out=$(AUTOGRADER_ROOT=$ag "$ag/source/setup.sh" 2>&1); st=$?
    check "setup.sh builds the lab once (no GPU: what a stage's runner links with)" "$([ $st = 0 ]; ok)" "$(tail -n 5 <<<"$out")"
    # a sample submission: stage 1 solved, stage 2 not compiling, a missing
    # barrier in 07 (the solution without the barrier between the tree's
    # steps), the rest not sent
    s7=$(grep -m 1 -E '^07_' <<<"$stages")
    mk "$ag/submission/work/exercises/$s1/kernel.cu" "solutions/$s1/kernel.cu"
    mkdir -p "$ag/submission/work/exercises/$s2" "$ag/submission/work/exercises/$s7"
    sed '0,/;$/s/;$//' "solutions/$s2/kernel.cu" >"$ag/submission/work/exercises/$s2/kernel.cu"
    awk '/^ *__syncthreads\(\); *$/ && ++n == 2 { next } { print }' "solutions/$s7/kernel.cu" \
        >"$ag/submission/work/exercises/$s7/kernel.cu"
    out=$(AUTOGRADER_ROOT=$ag "$ag/source/run_autograder" 2>&1); st=$?
    res=$ag/results/results.json
    valid=$(tools/json.sh check "$res" score tests leaderboard output 2>&1)
    said=$(json_get "$res" output)
    check "run_autograder without a GPU: a valid results.json (the lab's JSON reader), no points; the output says what it checked and that points need the course's GPU" \
        "$([ $st = 0 ] && [ -z "$valid" ] && [ "$(json_get "$res" score)" = 0 ] &&
           grep -q "no points: the points, for correctness and for speed, need the course's GPU" <<<"$said" &&
           grep -q "built as a grade builds it (2 of 3 built)" <<<"$said"; ok)" \
        "exit $st; $valid; $out; $(cat "$res" 2>&1)"
    check "results.json: a test per stage in order, the compile error, those not sent 'not submitted'" \
        "$([ "$(json_rows "$res" tests name | tr '\n' ' ')" = "$(echo $stages) " ] &&
           json_rows "$res" tests name output | grep -q "^$s2${tab}does not compile: exercises/$s2/kernel.cu" &&
           [ "$(json_rows "$res" tests output | grep -c '^not submitted: 0 points')" = $(($(wc -l <<<"$stages") - 3)) ]; ok)" "$(cat "$res")"
    check "without a GPU every test is 0 of 0 points, and each passed one says why (the course's GPU gives them)" \
        "$([ "$(json_rows "$res" tests max_score | grep -cx 0)" = "$(wc -l <<<"$stages")" ] &&
           [ -z "$(json_rows "$res" tests status output | grep "^passed${tab}" | grep -v "No points from this runner: it has no GPU")" ] &&
           json_rows "$res" tests status | grep -qx passed; ok)" "$(cat "$res")"
    if make -n -s "build/$s1/exercise-emu" "build/$s7/exercise-emu" >/dev/null 2>&1; then
        check "without a GPU, on the CPU emulator: $s1 correct, the missing barrier in $s7 named; never 'this runner has neither'" \
            "$(json_rows "$res" tests name status output | grep -q "^$s1${tab}passed${tab}correct on the CPU emulator" &&
               json_rows "$res" tests name status output | grep -q "^$s7${tab}failed${tab}wrong on the CPU emulator: a race on shared memory, partial\[" &&
               grep -q "and its checks ran on the CPU emulator (1 correct, 1 wrong)" <<<"$said" &&
               ! tools/json.sh flat "$res" | grep -q "this runner has neither"; ok)" "$(cat "$res")"
    else
        skip "run_autograder on the CPU emulator: the lab has no emulation of $s1 and $s7"
    fi
    # the leaderboard's columns: a stage each, named by its first tier's field, on either runner
    board() { json_rows "$1" leaderboard name; }
    names=$(for s in $stages; do awk -F'\t' -v s="$s" '$1 == "tier" && $2 == s { print s " (" $5 ")"; exit }' stages.tsv; done)
    check "without a GPU, the leaderboard: a column a stage, named by its first tier's field, 0 (not timed)" \
        "$([ "$(board "$res")" = "$names" ] && [ -z "$(json_rows "$res" leaderboard value | grep -vx 0)" ] &&
           ! json_get "$res" visibility; ok)" "$(cat "$res")"
    # as on a runner with a GPU: its results.json as the grader wrote it, the
    # leaderboard's columns the same, the bonus stage not in the maximum,
    # shown to students after the due date unless the bundle says otherwise
    bonus=$(awk -F'\t' '$1 == "bonus" { print $2; exit }' stages.tsv)
    rm -rf "$ag/submission" && mk "$ag/submission/$s1/kernel.cu" "solutions/$s1/kernel.cu"
    gpu_run() { PATH=$lab/tests/class/gpu-runner:$PATH GPU_RUNNER_MAKE=$(command -v make) AUTOGRADER_ROOT=$ag "$ag/source/run_autograder" 2>&1; }
    out=$(gpu_run); st=$?
    valid=$(tools/json.sh check "$res" score tests leaderboard output visibility 2>&1)
    check "as on a runner with a GPU: the grader's tests, the leaderboard's columns as without one, the first tier's figure, visible after the due date" \
        "$([ $st = 0 ] && [ -z "$valid" ] && [ "$(board "$res")" = "$names" ] &&
           json_rows "$res" leaderboard name value | grep -q "^$s1 (.*)${tab}12.5$" && [ "$(json_get "$res" visibility)" = after_due_date ] &&
           [ "$(json_rows "$res" leaderboard value | grep -vcx 0)" = 1 ]; ok)" \
        "exit $st; $valid; $out; $(cat "$res")"
    check "as on a runner with a GPU: a stage not sent counts its points in the maximum, the bonus stage ($bonus) does not" \
        "$(json_rows "$res" tests name score max_score status | grep -q "^$s2${tab}0${tab}[1-9][0-9]*${tab}failed$" &&
           [ -n "$bonus" ] && json_rows "$res" tests name score max_score status | grep -q "^$bonus${tab}0${tab}0${tab}failed$"; ok)" "$(cat "$res")"
    out=$(make --no-print-directory gradescope DEST="$gs/vis" VISIBILITY=visible 2>&1; echo "exit $?"
        make --no-print-directory gradescope DEST="$gs/bad" VISIBILITY=soon 2>&1; echo "exit $?")
    vis=$(unzip -p "$gs/vis/autograder.zip" visibility 2>&1)
    printf 'visible\n' >"$ag/source/visibility"
    gpu_run >/dev/null
    rm -f "$ag/source/visibility"
    check "make gradescope VISIBILITY=visible: the bundle's visibility file, which a GPU runner's results.json follows; VISIBILITY=soon: exit 2" \
        "$([ "$vis" = visible ] && [ "$(json_get "$res" visibility)" = visible ] && grep -q "^exit 2$" <<<"$out" &&
           grep -q "VISIBILITY=soon: one of visible, hidden, after_due_date, after_published" <<<"$out" && [ ! -e "$gs/bad/autograder.zip" ]; ok)" \
        "$out; $vis; $(head -n 5 "$res")"
    # the lab's one intake (build/grader/take): a zip made on macOS, __MACOSX/ beside the student's folder
    rm -rf "$ag/submission" && mk "$ag/submission/ann-lab/exercises/$s1/kernel.cu" "solutions/$s1/kernel.cu" &&
        mkdir -p "$ag/submission/__MACOSX/ann-lab/exercises/$s1" && : >"$ag/submission/__MACOSX/ann-lab/exercises/$s1/._kernel.cu" &&
        : >"$ag/submission/ann-lab/.DS_Store"
    out=$(AUTOGRADER_ROOT=$ag "$ag/source/run_autograder" 2>&1); st=$?
    check "run_autograder: a macOS zip (__MACOSX/ beside the student's folder) is the student's submission" \
        "$([ $st = 0 ] && json_rows "$res" tests name score max_score status | grep -q "^$s1${tab}0${tab}[0-9]*${tab}passed$" &&
           grep -q "stages: $s1;" <<<"$out"; ok)" "$out; $(cat "$res")"
    # a kernel.cu alone: refused with the layout wanted, where the bundle has every stage
    rm -rf "$ag/submission" && mk "$ag/submission/kernel.cu" "solutions/$s1/kernel.cu"
    out=$(AUTOGRADER_ROOT=$ag "$ag/source/run_autograder" 2>&1); st=$?
    check "run_autograder: a kernel.cu alone, in a bundle of every stage, is refused with the layout wanted" \
        "$([ $st = 0 ] && json_get "$res" output | grep -q 'a kernel.cu alone does not say its stage: submit it as exercises/NN_name/kernel.cu' &&
           [ "$(json_get "$res" tests)" = 0 ]; ok)" "$out; $(cat "$res")"
    # ... and taken as the stage's where the bundle is one stage's (make gradescope EX=NN: its stages file)
    out=$(make --no-print-directory gradescope DEST="$gs/one" EX="${s1%%_*}" 2>&1); st=$?
    one=$(unzip -p "$gs/one/autograder.zip" stages 2>&1)
    check "make gradescope EX=NN: a bundle for one stage (its stages file names it)" "$([ $st = 0 ] && [ "$one" = "$s1" ]; ok)" \
        "exit $st: $out; stages: $one"
    printf '%s\n' "$s1" >"$ag/source/stages"
    out=$(AUTOGRADER_ROOT=$ag "$ag/source/run_autograder" 2>&1); st=$?
    rm -f "$ag/source/stages"
    check "run_autograder in a bundle for one stage: a kernel.cu alone is that stage's, the only test" \
        "$([ $st = 0 ] && [ "$(json_get "$res" tests)" = 1 ] &&
           json_rows "$res" tests name score max_score status | grep -q "^$s1${tab}0${tab}[0-9]*${tab}passed$"; ok)" "$out; $(cat "$res")"
    # a submission whose exercises/ is a link (inside it): refused, nothing built
    rm -rf "$ag/submission" && mkdir -p "$ag/submission/real/$s1" && cp "solutions/$s1/kernel.cu" "$ag/submission/real/$s1/" &&
        ln -s real "$ag/submission/exercises"
    out=$(AUTOGRADER_ROOT=$ag "$ag/source/run_autograder" 2>&1); st=$?
    check "run_autograder: a link on a submitted path is refused (the class intake's rule), in a valid results.json" \
        "$([ $st = 0 ] && tools/json.sh check "$res" score tests 2>/dev/null &&
           json_get "$res" output | grep -q "a link on its path" && [ "$(json_get "$res" tests)" = 0 ]; ok)" "$out; $(cat "$res")"
fi

totals
