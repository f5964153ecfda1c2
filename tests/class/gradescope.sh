# tests/class/gradescope.sh: make gradescope, and the bundle's gradescope/setup.sh and
# run_autograder in a stand-in for Gradescope's layout (AUTOGRADER_ROOT:
# source/, submission/, results/), without a GPU: sourced by
# tests/class/run.sh (its variables and helpers: lab, tmp, stages, s1, s2,
# mk), whose counts it adds to.
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
    make -s build/gradescope/json-check >/dev/null 2>&1
    # a sample submission: stage 1 solved, stage 2 not compiling, the rest not sent
    mk "$ag/submission/work/exercises/$s1/kernel.cu" "solutions/$s1/kernel.cu"
    mkdir -p "$ag/submission/work/exercises/$s2"
    sed '0,/;$/s/;$//' "solutions/$s2/kernel.cu" >"$ag/submission/work/exercises/$s2/kernel.cu"
    out=$(AUTOGRADER_ROOT=$ag "$ag/source/run_autograder" 2>&1); st=$?
    res=$ag/results/results.json
    valid=$(build/gradescope/json-check "$res" score tests leaderboard output 2>&1)
    check "run_autograder without a GPU: a valid results.json (the lab's JSON reader), no points, saying why" \
        "$([ $st = 0 ] && [ -z "$valid" ] && grep -q '^  "score": 0,' "$res" && grep -q 'No GPU on this runner: no points' "$res"; ok)" \
        "exit $st; $valid; $out; $(cat "$res" 2>&1)"
    check "results.json: a test per stage in order, the compile error, those not sent 'not submitted', a leaderboard" \
        "$([ "$(grep -o '"name": "[0-9][^"]*"' "$res" | grep -v ' (' | cut -d'"' -f4 | tr '\n' ' ')" = "$(echo $stages) " ] &&
           grep -q "\"$s2\".*does not compile: exercises/$s2/kernel.cu" "$res" &&
           [ "$(grep -c 'not submitted: 0 points' "$res")" = $(($(wc -l <<<"$stages") - 2)) ] &&
           grep -q "\"name\": \"$s1 (not timed: no GPU)\", \"value\": 0" "$res"; ok)" "$(cat "$res")"
    # the lab's one intake (build/grader/take): a zip made on macOS, __MACOSX/ beside the student's folder
    rm -rf "$ag/submission" && mk "$ag/submission/ann-lab/exercises/$s1/kernel.cu" "solutions/$s1/kernel.cu" &&
        mkdir -p "$ag/submission/__MACOSX/ann-lab/exercises/$s1" && : >"$ag/submission/__MACOSX/ann-lab/exercises/$s1/._kernel.cu" &&
        : >"$ag/submission/ann-lab/.DS_Store"
    out=$(AUTOGRADER_ROOT=$ag "$ag/source/run_autograder" 2>&1); st=$?
    check "run_autograder: a macOS zip (__MACOSX/ beside the student's folder) is the student's submission" \
        "$([ $st = 0 ] && grep -q "\"name\": \"$s1\", \"score\": 0, \"max_score\": [0-9]*, \"status\": \"passed\"" "$res" &&
           grep -q "stages: $s1;" <<<"$out"; ok)" "$out; $(cat "$res")"
    # a kernel.cu alone: refused with the layout wanted, where the bundle has every stage
    rm -rf "$ag/submission" && mk "$ag/submission/kernel.cu" "solutions/$s1/kernel.cu"
    out=$(AUTOGRADER_ROOT=$ag "$ag/source/run_autograder" 2>&1); st=$?
    check "run_autograder: a kernel.cu alone, in a bundle of every stage, is refused with the layout wanted" \
        "$([ $st = 0 ] && grep -q 'a kernel.cu alone does not say its stage: submit it as exercises/NN_name/kernel.cu' "$res" &&
           grep -q '"tests": \[\]' "$res"; ok)" "$out; $(cat "$res")"
    # ... and taken as the stage's where the bundle is one stage's (make gradescope EX=NN: its stages file)
    out=$(make --no-print-directory gradescope DEST="$gs/one" EX="${s1%%_*}" 2>&1); st=$?
    one=$(unzip -p "$gs/one/autograder.zip" stages 2>&1)
    check "make gradescope EX=NN: a bundle for one stage (its stages file names it)" "$([ $st = 0 ] && [ "$one" = "$s1" ]; ok)" \
        "exit $st: $out; stages: $one"
    printf '%s\n' "$s1" >"$ag/source/stages"
    out=$(AUTOGRADER_ROOT=$ag "$ag/source/run_autograder" 2>&1); st=$?
    rm -f "$ag/source/stages"
    check "run_autograder in a bundle for one stage: a kernel.cu alone is that stage's, the only test" \
        "$([ $st = 0 ] && [ "$(grep -c '"status": ' "$res")" = 1 ] &&
           grep -q "\"name\": \"$s1\", \"score\": 0, \"max_score\": [0-9]*, \"status\": \"passed\"" "$res"; ok)" "$out; $(cat "$res")"
    # a submission whose exercises/ is a link (inside it): refused, nothing built
    rm -rf "$ag/submission" && mkdir -p "$ag/submission/real/$s1" && cp "solutions/$s1/kernel.cu" "$ag/submission/real/$s1/" &&
        ln -s real "$ag/submission/exercises"
    out=$(AUTOGRADER_ROOT=$ag "$ag/source/run_autograder" 2>&1); st=$?
    check "run_autograder: a link on a submitted path is refused (the class intake's rule), in a valid results.json" \
        "$([ $st = 0 ] && [ -z "$(build/gradescope/json-check "$res" score tests)" ] &&
           grep -q "a link on its path" "$res" && grep -q '"tests": \[\]' "$res"; ok)" "$out; $(cat "$res")"
fi
