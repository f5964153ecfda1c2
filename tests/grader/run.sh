#!/usr/bin/env bash
# tests/grader/run.sh: the grader's tests that need no GPU (part of make check).
#
# Unit tests of the grader's parts (tests/grader/check.c), then ONE run of the
# grader over stand-in programs that crash, hang, flood their output, forge a
# record on stdout, exit early, write broken or lying records, and over
# objects that use or define forbidden symbols (tests/grader/policy/, and the
# cuBLAS and side-stream kernels of tests/grader/kernels/). Each must get its
# points and its reason, and the grader must survive all of them at once.
# (Kernels that include header-only libraries, and every solution and
# skeleton: tests/grader/library.sh, a suite of its own.)
# Its parts in files of their own, sourced where they run: tsv.sh (grade.tsv
# against grade.json), resources.sh (the sentence about registers and spills), again.sh (a second run),
# emulated.sh (a wrong kernel's CPU emulation),
# calibrate.sh (make calibrate's arithmetic) and links.sh (a submission's
# links). The grader on the real stages, which grades in the lab's own
# build/ and so runs alone: tests/grader/stages.sh, a suite of its own.
# Where a GPU is, tests/grader/gpu-fixtures.sh runs too. Ends with
# "N passed, N failed[, N skipped]". Run from anywhere; needs
# build/grader/grade (make build/grader/grade).
set -u
cd "$(dirname "$0")/../.." || exit 2

. tests/lib.sh
. tools/stages.sh

CC=${CC:-cc}
NVCC=${NVCC:-nvcc}
out=build/tests/grader
mkdir -p "$out/bin" "$out/obj"

echo "== grader: unit tests"
# the test programs: tests/grader/programs.sh (gpu-fixtures.sh builds them so
# too), with the CC the caller gave, if any: a CC of its own would reach the
# make of the helper library, which would then build every C object of
# build/common again for it, and again for the next make without it, while
# other suites link with them
if ! tests/grader/programs.sh "$out" 2>"$out/cc.log"; then
    fail "grader: the test programs compile" "$(cat "$out/cc.log")"
    echo; echo "$passed passed, $failed failed"; exit 1
fi
while read -r word name; do
    case $word in
        ok) pass "$name" ;;
        FAIL) fail "$name" ;;
        *) printf '%s %s\n' "$word" "$name" ;;
    esac
done < <(LAB_TEST_FAKE=$out/fake "$out/check" unit)

. tests/grader/resources.sh
. tests/grader/json.sh

# ------------------------------------------------------------------ programs
# One stand-in driver (fake_driver.c) under many names: its name is its
# behaviour, and names starting policy_ behave well, so that only the
# policy can fail them. Policy fixtures: C objects (any C compiler), CUDA objects (nvcc, no GPU needed)
objects=""
for f in tests/grader/policy/*.c; do
    o=$out/obj/$(basename "$f" .c).o
    [ "$o" -nt "$f" ] || $CC -O2 -c "$f" -o "$o" 2>>"$out/cc.log"
done
have_nvcc=0
command -v "$NVCC" >/dev/null 2>&1 && have_nvcc=1
cu_sources="tests/grader/policy/defines_event_timer.cu tests/grader/policy/host_thread.cu
            tests/grader/policy/device_sync.cu tests/grader/kernels/cublas_call/kernel.cu
            tests/grader/kernels/side_stream/kernel.cu"
if [ $have_nvcc = 1 ]; then
    for f in $cu_sources; do
        name=$(basename "$f" .cu)
        [ "$name" = kernel ] && name=$(basename "$(dirname "$f")")
        o=$out/obj/$name.o
        [ "$o" -nt "$f" ] || "$NVCC" -O1 -std=c++17 -arch=sm_90 -Icommon -c "$f" -o "$o" 2>>"$out/cc.log"
    done
fi

# name   binary   object   expected points/max   phrase in the reason or note
expectations="good|good||10/10|
other_gpu|other_gpu||10/10|
slow|slow||6/10|
implausible|implausible||6/10|faster than the memory system
disturbed|disturbed||6/10|flagged: the judge's own GPU work ran slower while your code was idle
missing_field|missing_field||7/10|the rubric and the driver disagree
wrong|wrong||0/10|wrong result at n=17: 289 of 289 elements wrong (289 never written)
partial_tile|partial_tile||0/10|correct at n=256, wrong at n=17: the last, partial tile (289 of 289 elements wrong)
reads_output|reads_output||0/10|wrong result at n=17: 289 of 289 elements wrong, every one NaN though the inputs hold none
clobber|clobber||0/10|changed its input arrays
last_call_wrong|last_call_wrong||0/10|output of the last timed call is wrong
cuda_error|cuda_error||0/10|cudaErrorIllegalAddress
no_memory|no_memory||0/10|ran out of GPU memory
crash|crash||0/10|crashed: segmentation fault (SIGSEGV)
abort|abort||0/10|crashed: abort (SIGABRT)
hang|hang||0/10|timed out after 3 s (a hang? an infinite loop?)
slow_timing|slow_timing||6/10|every check passed; timed out while timing n=4096 after 3 s: your kernel is correct but too slow to time
hang_checking|hang_checking||0/10|timed out while checking n=1025 after 3 s (a hang, or a kernel far too slow at that size)
crash_checking|crash_checking||0/10|crashed while checking n=17: segmentation fault (SIGSEGV)
crash_timing|crash_timing||6/10|every check passed; crashed while timing n=4096: segmentation fault (SIGSEGV)
progress_flood|progress_flood||6/10|every check passed; crashed while timing n=4096
cuda_error_timing|cuda_error_timing||6/10|every check passed; the run stopped while timing n=4096: your kernel failed in a timed call
hang_child|hang_child||10/10|
escape|escape||10/10|
flood|flood||10/10|
flood_forever|flood_forever||0/10|timed out after 3 s
forge|forge||0/10|without the harness's result record
early_exit|early_exit||0/10|without the harness's result record
invalid_record|invalid_record||0/10|not valid JSON
status_mismatch|status_mismatch||0/10|exit status 1, but its record says 0
wrong_stage|wrong_stage||0/10|for stage '01_naive'
huge_record|huge_record||0/10|more than 1048576 bytes
deep_json|deep_json||0/10|nested deeper than
unrubricked|unrubricked||6/6|has no entry for unrubricked
policy_write|good|uses_write|0/10|uses write: writes to a descriptor
policy_fopen|good|opens_file|0/10|uses fopen: opens a file
policy_system|good|runs_shell|0/10|uses system: runs a shell command
policy_exit|good|ends_process|0/10|uses _exit: ends the process
policy_c_helper|good|c_helper|0/10|defines helper: a function with C linkage
policy_syscall|good|raw_syscall|0/10|raw system call"
if [ $have_nvcc = 1 ]; then
    expectations="$expectations
policy_event_timer|good|defines_event_timer|0/10|defines cudaEventElapsedTime: replaces a CUDA runtime function
policy_thread|good|host_thread|0/10|starts a host thread
policy_sync|good|device_sync|0/10|uses cudaDeviceSynchronize: waits for the GPU
policy_cublas|good|cublas_call|0/10|calls cuBLAS
policy_stream|good|side_stream|0/10|uses cudaStreamCreateWithFlags: uses a stream"
else
    skip "policy on CUDA objects: $NVCC is not here"
fi

# the test rubric: every stage gets correctness (6), pass (3, % of reference)
# and stretch (1, speedup); the test GPU has thresholds of its own
rubric=$out/rubric.tsv
{
    printf 'setting\tlimit_s\t3\nsetting\tcorrect_points\t6\nsetting\targs\t--budget-ms 300\n'
    while IFS='|' read -r name _; do
        [ "$name" = unrubricked ] && continue
        printf 'stage\t%s\t6\n' "$name"
        printf 'tier\t%s\tpass\t3\ttiming.pct_of_reference\t>=\t%%\tGo faster.\n' "$name"
        printf 'tier\t%s\tstretch\t1\ttiming.speedup_vs_baseline\t>=\tx\tGo even faster.\n' "$name"
        printf 'threshold\t%s\tpass\tdefault\t20\nthreshold\t%s\tstretch\tdefault\t4\n' "$name" "$name"
        printf 'threshold\t%s\tpass\tTest GPU 9000\t40\nthreshold\t%s\tstretch\tTest GPU 9000\t6\n' "$name" "$name"
    done <<<"$expectations"
} >"$rubric"

echo "== grader: one run over every stand-in program"
args=()
names=()
while IFS='|' read -r name bin obj _; do
    ln -sf ../fake "$out/bin/$name"
    spec="$name=$out/bin/$name"
    [ -n "$obj" ] && spec="$spec:$out/obj/$obj.o:common/matmul.h"
    args+=(--program "$spec")
    names+=("$name")
done <<<"$expectations"
rm -rf "$out/reports" "$out/escaped-by-a-run"
start=$(date +%s)
build/grader/grade --lab . --rubric "$rubric" --seed 42 --out "$out/reports" "${args[@]}" >"$out/grade.log" 2>&1
status=$?
elapsed=$(($(date +%s) - start))
check "grader: survives every program in one run (exit 0)" "$([ $status = 0 ]; echo $?)" "$(tail -n 30 "$out/grade.log")"
check "grader: the whole run is quick (${elapsed} s; four programs cost their 3 s limit)" "$([ "$elapsed" -lt 30 ]; echo $?)"

get() { "$out/json" get "$out/reports/grade.json" "$1" 2>/dev/null; }
i=0
while IFS='|' read -r name _ _ expect phrase; do
    points="$(get "stages.$i.points")/$(get "stages.$i.max_points")"
    said="$(get "stages.$i.reason") $(get "stages.$i.note")"
    ok=1
    [ "$(get "stages.$i.stage")" = "$name" ] || ok=0
    [ "$points" = "$expect" ] || ok=0
    [ -z "$phrase" ] || grep -qF -- "$phrase" <<<"$said" || ok=0
    check "grader: $name scores $expect${phrase:+ (\"$phrase\")}" "$([ $ok = 1 ]; echo $?)" \
        "got $points: $said"
    i=$((i + 1))
done <<<"$expectations"

# details the table above does not show
if [ "$(get confined)" = true ]; then
    check "grader: confined runs: a run's file write is refused, and the reports say confined" \
        "$([ ! -e "$out/escaped-by-a-run" ] && grep -q '^confined: ' <<<"$(get confinement)"; echo $?)" \
        "$(ls "$out" | head)"
else
    check "grader: unconfined runs: the note says why, the reports say not confined" \
        "$(grep -q 'the runs are not confined here' "$out/grade.log" && grep -q 'not confined' "$out/grade.log"; echo $?)" \
        "$(head -n 5 "$out/grade.log")"
    skip "grader: confined runs: this machine cannot confine ($(get confinement))"
fi
idx() { local k=0; for n in "${names[@]}"; do [ "$n" = "$1" ] && echo $k && return; k=$((k + 1)); done; }
s=$(idx other_gpu)
check "grader: an unknown GPU falls back to the default thresholds, with a warning naming the stage" \
    "$([ "$(get "stages.$s.default_thresholds")" = true ] &&
       grep -q "has no thresholds for this GPU (Some Other GPU) for other_gpu: the rubric's default rows" "$out/grade.log"
       echo $?)" "$(grep warning "$out/grade.log")"
s=$(idx good)
check "grader: a known GPU uses its own thresholds" \
    "$([ "$(get "stages.$s.default_thresholds")" = false ] && [ "$(get "stages.$s.tiers.0.threshold")" = 40 ]; echo $?)"
s=$(idx slow)
check "grader: a missed tier comes with the rubric's advice and the numbers" \
    "$(get "stages.$s.advice.0" | grep -qF 'Go faster. (timing.pct_of_reference: you have 5%, pass needs >= 40%)'; echo $?)" \
    "$(get "stages.$s.advice.0")"
s=$(idx slow_timing)
check "grader: correct but too slow to time: the advice gives the time per call, the table no speed" \
    "$(get "stages.$s.advice.0" | grep -qF 'Your kernel needs 5234 ms per call at n=4096' &&
       [ "$(get "stages.$s.correct")" = true ] && [ "$(get "stages.$s.tiers.0.points")" = 0 ] &&
       grep -q '^slow_timing .* 6/10  (not timed: no speed points)$' "$out/grade.log"; echo $?)" \
    "$(get "stages.$s.advice.0"; grep '^slow_timing' "$out/grade.log")"
s=$(idx hang_checking)
check "grader: a hang while checking shows the output's tail and no correctness" \
    "$([ "$(get "stages.$s.correct")" = false ] && get "stages.$s.output_tail" | grep -q "fake driver 'hang_checking'"; echo $?)"
s=$(idx implausible)
check "grader: an impossible time is flagged, not scored" "$([ "$(get "stages.$s.flagged")" = true ]; echo $?)"
s=$(idx disturbed)
check "grader: times the judge's canaries saw disturbed are flagged, not scored, with advice" \
    "$([ "$(get "stages.$s.flagged")" = true ] && [ "$(get "stages.$s.tiers.0.points")" = 0 ] &&
       get "stages.$s.advice.0" | grep -q 'GPU busy between the calls'; echo $?)" "$(get "stages.$s.note")"
s=$(idx partial_tile)
check "grader: right on whole tiles, wrong on a partial one: the advice names the bounds tests and the zero fill" \
    "$(get "stages.$s.advice.0" | grep -q 'right when the size is a multiple of its tile.*bounds tests'; echo $?)" \
    "$(get "stages.$s.advice.0")"
s=$(idx reads_output)
check "grader: every element NaN though written: the advice asks whether the kernel reads its output first" \
    "$(get "stages.$s.advice.0" | grep -q 'does your kernel read its output before writing it'; echo $?)" \
    "$(get "stages.$s.advice.0")"
s=$(idx flood)
check "grader: 100 MB of output is drained, only its tail kept" \
    "$([ "$(get "stages.$s.output_bytes")" -ge 104857600 ] && [ "$(get "stages.$s.output_tail" | wc -c)" -le 17000 ]; echo $?)"
s=$(idx hang_child)
check "grader: a child left behind does not hold the grader (under 3 s)" \
    "$(awk -v t="$(get "stages.$s.seconds")" 'BEGIN { exit !(t < 3) }'; echo $?)"
s=$(idx crash)
check "grader: a failing stage's output is kept for the report" \
    "$(get "stages.$s.output_tail" | grep -q "fake driver 'crash'"; echo $?)"
check "grader: the table, the advice and the seed are printed" \
    "$(grep -q '^total ' "$out/grade.log" && grep -q 'Where points were lost' "$out/grade.log" &&
       grep -q 'make grade SEED=42' "$out/grade.log"; echo $?)" "$(tail -n 20 "$out/grade.log")"
check "grader: progress is printed per stage" \
    "$([ "$(grep -c '^\[[0-9]*/[0-9]*\] ' "$out/grade.log")" = ${#names[@]} ]; echo $?)"

r=$out/reports/results.json
rtests=$("$out/json" get "$r" tests 2>/dev/null)
check "grader: results.json is Gradescope's format (score, execution_time, tests[])" \
    "$([ "$rtests" = ${#names[@]} ] && "$out/json" get "$r" score >/dev/null &&
       "$out/json" get "$r" execution_time >/dev/null &&
       [ "$("$out/json" get "$r" tests.0.status)" = passed ] &&
       [ "$("$out/json" get "$r" tests.5.status)" = failed ] &&
       "$out/json" get "$r" tests.5.output >/dev/null &&
       [ "$("$out/json" get "$r" tests.0.max_score)" = 10 ]; echo $?)" "tests: $rtests"
check "grader: grade.json's total is the sum of the stages" \
    "$(total=0; for ((k = 0; k < ${#names[@]}; k++)); do total=$((total + $(get "stages.$k.points"))); done
       [ "$(get score)" = "$total" ]; echo $?)"

. tests/grader/tsv.sh

echo "== grader: comparing two sets of grading runs (research/compare-grades.sh)"
cmp=$out/compare
rm -rf "$cmp"; mkdir -p "$cmp/a1" "$cmp/a2" "$cmp/b1" "$cmp/b2"
cp "$out/reports/grade.json" "$cmp/a1/"; cp "$out/reports/grade.json" "$cmp/a2/"
sed 's/"value": 50,\{0,1\}$/"value": 51/' "$out/reports/grade.json" >"$cmp/b1/grade.json"
sed 's/"value": 50,\{0,1\}$/"value": 52/' "$out/reports/grade.json" >"$cmp/b2/grade.json"
o=$(research/compare-grades.sh "$cmp/a1" "$cmp/a2" -- "$cmp/b1" "$cmp/b2" 2>&1); st=$?
check "compare-grades: per stage and tier, the medians, the second against the first, the spreads" \
    "$([ $st = 0 ] && grep -qF '| good | timing.pct_of_reference | 50 (2) | 51.5 (2) | +3.0% | 0.0% | 1.9% |' <<<"$o"; echo $?)" "$o"
o=$(research/compare-grades.sh "$cmp/a1" -- "$cmp/nothing" 2>&1); st=$?
check "compare-grades: a folder without grade.json: exit 2" "$([ $st = 2 ] && grep -q 'no grade.json' <<<"$o"; echo $?)" "$o"

echo "== grader: a baseline timed by one stage serves the next stages of its family"
# baseline_offer's record offers its baseline (421.5 ms at n=4096);
# baseline_take is right only when handed exactly that (--baseline-ms,
# --baseline-at), and offers nothing itself
bl=$out/baseline
rm -rf "$bl"
mkdir -p "$bl"
for name in baseline_offer baseline_take; do ln -sf ../fake "$out/bin/$name"; done
printf 'setting\tlimit_s\t5\nstage\tbaseline_offer\t6\nstage\tbaseline_take\t6\n' >"$bl/rubric.tsv"
build/grader/grade --lab . --rubric "$bl/rubric.tsv" --seed 7 --out "$bl/both" \
    --program "baseline_offer=$out/bin/baseline_offer" --program "good=$out/bin/good" \
    --program "baseline_take=$out/bin/baseline_take" >"$bl/both.log" 2>&1
check "grader: a later stage of the family gets the baseline's time and size (past one that offers none)" \
    "$(grep -qE '^\[3/3\] baseline_take: correct' "$bl/both.log"; echo $?)" "$(cat "$bl/both.log")"
build/grader/grade --lab . --rubric "$bl/rubric.tsv" --seed 7 --out "$bl/alone" \
    --program "baseline_take=$out/bin/baseline_take" >"$bl/alone.log" 2>&1
check "grader: with no earlier stage that timed it, no baseline is handed on" \
    "$(grep -qE '^\[1/1\] baseline_take: wrong result.*0/6' "$bl/alone.log"; echo $?)" "$(cat "$bl/alone.log")"

# --baselines FILE (make class, one file a worker): a grade writes the
# baseline it timed; a later grade on the same GPU reuses it; a malformed
# line is no baseline
build/grader/grade --lab . --rubric "$bl/rubric.tsv" --seed 7 --out "$bl/first" --baselines "$bl/kept.tsv" \
    --program "baseline_offer=$out/bin/baseline_offer" >"$bl/first.log" 2>&1
check "grader: --baselines: the baseline a grade timed is written to the file" \
    "$([ "$(cat "$bl/kept.tsv" 2>/dev/null)" = "$(printf 'programs\tTest GPU 9000\t421.5\tn=4096')" ]; echo $?)" \
    "file: $(cat "$bl/kept.tsv" 2>/dev/null); $(cat "$bl/first.log")"
build/grader/grade --lab . --rubric "$bl/rubric.tsv" --seed 7 --out "$bl/later" --baselines "$bl/kept.tsv" \
    --program "baseline_take=$out/bin/baseline_take" >"$bl/later.log" 2>&1
check "grader: --baselines: a later grade on the same GPU is handed the kept baseline, the file unchanged" \
    "$(grep -qE '^\[1/1\] baseline_take: correct' "$bl/later.log" && [ "$(wc -l <"$bl/kept.tsv")" = 1 ]; echo $?)" \
    "$(cat "$bl/later.log"; cat "$bl/kept.tsv")"
printf 'programs\tTest GPU 9000\t-1\tn=4096\nprograms\tTest GPU 9000\t421.5\n' >"$bl/bad.tsv"
build/grader/grade --lab . --rubric "$bl/rubric.tsv" --seed 7 --out "$bl/bad" --baselines "$bl/bad.tsv" \
    --program "baseline_take=$out/bin/baseline_take" >"$bl/bad.log" 2>&1
check "grader: --baselines: a negative time or a line without its size hands nothing on" \
    "$(grep -qE '^\[1/1\] baseline_take: wrong result' "$bl/bad.log"; echo $?)" "$(cat "$bl/bad.log")"

. tests/grader/again.sh

. tests/grader/emulated.sh

. tests/grader/calibrate.sh

echo "== grader: SANITIZE=1 with a stand-in compute-sanitizer"
# It reports a race in kernel.cu for sanitize_race, one in a library's
# kernel for sanitize_library, and nothing for sanitize_clean.
fakebin=$out/fakebin
mkdir -p "$fakebin"
cat >"$fakebin/compute-sanitizer" <<'SANITIZER'
#!/bin/sh
tool=$2 program=$(basename "$7")
echo "========= COMPUTE-SANITIZER"
case $tool/$program in
racecheck/sanitize_race)
    echo "========= Error: Race reported between Write access at matmul_tiled(const float *)+0x1c0 in /lab/exercises/03_tiled/kernel.cu:37"
    echo "=========     and Read access at matmul_tiled(const float *)+0x2e0 in /lab/exercises/03_tiled/kernel.cu:41 [6144 hazards]"
    echo "========= RACECHECK SUMMARY: 1 hazard displayed (1 error, 0 warnings)"
    exit 99 ;;
racecheck/sanitize_library)
    echo "========= Error: Race reported between Write access at sgemm_kernel+0x1c0"
    echo "========= RACECHECK SUMMARY: 1 hazard displayed (1 error, 0 warnings)"
    exit 99 ;;
esac
echo "========= ERROR SUMMARY: 0 errors"
SANITIZER
chmod +x "$fakebin/compute-sanitizer"
zrubric=$out/sanitize-rubric.tsv
printf 'setting\tlimit_s\t3\nsetting\tsanitize_limit_s\t5\n' >"$zrubric"
zargs=()
for name in sanitize_race sanitize_library sanitize_clean; do
    ln -sf ../fake "$out/bin/$name"
    printf 'stage\t%s\t6\n' "$name" >>"$zrubric"
    printf 'tier\t%s\tpass\t4\ttiming.pct_of_reference\t>=\t%%\tGo faster.\n' "$name" >>"$zrubric"
    printf 'threshold\t%s\tpass\tdefault\t20\n' "$name" >>"$zrubric"
    zargs+=(--program "$name=$out/bin/$name")
done
rm -rf "$out/sanitize"
PATH=$fakebin:$PATH build/grader/grade --sanitize --rubric "$zrubric" --seed 5 --out "$out/sanitize" \
    "${zargs[@]}" >"$out/sanitize.log" 2>&1
st=$?
zget() { "$out/json" get "$out/sanitize/grade.json" "$1" 2>/dev/null; }
check "sanitize: a race in kernel.cu costs the correctness points, named with its lines" \
    "$([ $st = 0 ] && [ "$(zget stages.0.correct_points)" = 0 ] && [ "$(zget stages.0.points)" = 4 ] &&
       zget stages.0.sanitizer | grep -qF 'exercises/03_tiled/kernel.cu:37, exercises/03_tiled/kernel.cu:41' &&
       zget stages.0.advice.0 | grep -qF 'SEED=5 SANITIZE=1'; echo $?)" "$(cat "$out/sanitize.log")"
check "sanitize: an error in a library's kernel is noted, not scored" \
    "$([ "$(zget stages.1.points)" = 10 ] && zget stages.1.note | grep -q 'compute-sanitizer (not scored)'; echo $?)" \
    "$(zget stages.1.note)"
check "sanitize: a clean kernel keeps every point" "$([ "$(zget stages.2.points)" = 10 ]; echo $?)"

. tests/grader/links.sh

echo "== grader: a student's kernel.cu reaching out of its run in a class (tests/grader/attacks/class_escape)"
# The attack's constructor runs before the driver's main, so it is tried here
# without a GPU: in a class's layout (OUT/work/NAME, the gradebook and the
# other students two folders up), once unconfined, where it must reach the
# gradebook (or the test proves nothing), then as make grade runs it.
esc=$out/escape
if [ $have_nvcc = 1 ] && [ -f build/common/matmul_family.o ] && build/confine/confine --probe >/dev/null 2>&1; then
    rm -rf "$esc"; mkdir -p "$esc/class/work/mallory" "$esc/class/students/alice"
    objs=$(make -s --no-print-directory objects-matmul)
    if $NVCC -std=c++17 -Icommon -c tests/grader/attacks/class_escape/kernel.cu -o "$esc/kernel.o" 2>"$esc/cc.log" &&
       $CC -O2 -D_GNU_SOURCE -DLAB_STAGE_NAME='"01_naive"' -DLAB_VARIANT_NAME='"exercise"' -DLAB_KNOB_TEXT='""' \
           -c common/build_info.c -o "$esc/info.o" 2>>"$esc/cc.log" &&
       $NVCC "$esc/kernel.o" "$esc/info.o" $objs -o "$esc/class/work/mallory/exercise" -lcublas 2>>"$esc/cc.log"; then
        reset_class() {
            printf 'student,total\nalice,20\n' >"$esc/class/gradebook.csv"
            printf 'alice,20\n' >"$esc/class/students/alice/row.csv"
            rm -f "$esc/class/planted-by-a-student"
        }
        reset_class
        (cd "$esc/class/work/mallory" && ./exercise >/dev/null 2>&1)
        grep -q mallory "$esc/class/gradebook.csv" && [ -e "$esc/class/planted-by-a-student" ]
        reached=$?
        reset_class
        before=$(cat "$esc/class/gradebook.csv" "$esc/class/students/alice/row.csv" | md5sum)
        confine_bin=$(pwd)/build/confine/confine
        (cd "$esc/class/work/mallory" && "$confine_bin" --read . -- ./exercise >/dev/null 2>&1)
        after=$(cat "$esc/class/gradebook.csv" "$esc/class/students/alice/row.csv" | md5sum)
        if [ $reached != 0 ]; then
            skip "class escape: the attack does not reach the gradebook here even unconfined"
        else
            check "class escape: confined, the gradebook, another student's row and the class folder stay as they were" \
                "$([ "$before" = "$after" ] && [ ! -e "$esc/class/planted-by-a-student" ]; echo $?)" \
                "$(cat "$esc/class/gradebook.csv" "$esc/class/students/alice/row.csv"; ls "$esc/class")"
        fi
    else
        fail "class escape: the attack builds with the lab's driver" "$(cat "$esc/cc.log")"
    fi
else
    skip "class escape: needs nvcc, a built lab (build/common) and a machine that confines"
fi

echo "== grader: could not run"
# a class run asks for confinement: where it is impossible, exit 5 and one line
nolab=$out/no-confine-lab
rm -rf "$nolab"; mkdir -p "$nolab/grader"
cp grader/rubric.tsv grader/allowed-symbols.txt "$nolab/grader/"
o=$(build/grader/grade --lab "$nolab" --require-confinement --program "good=$out/bin/good" 2>&1); st=$?
check "grader: --require-confinement where confine is missing: exit 5, one line saying why" \
    "$([ $st = 5 ] && grep -q 'cannot confine the runs here' <<<"$o" && grep -q 'UNCONFINED=1' <<<"$o"; echo $?)" "exit $st: $o"
o=$(build/grader/grade --lab "$nolab" --require-confinement --unconfined --program "good=$out/bin/good" \
    --out "$out/unconfined" 2>&1); st=$?
check "grader: --require-confinement --unconfined grades, and the reports say not confined" \
    "$([ $st = 0 ] && [ "$("$out/json" get "$out/unconfined/grade.json" confined)" = false ] &&
       "$out/json" get "$out/unconfined/results.json" output | grep -q 'NOT confined'; echo $?)" "exit $st: $o"
# the GPU must work inside the confinement: a lab whose GPU probe works only
# unconfined (a stand-in that writes a file) is "not confined", with why
if build/confine/confine --probe >/dev/null 2>&1; then
    gpulab=$out/gpu-probe-lab
    rm -rf "$gpulab"; mkdir -p "$gpulab/grader" "$gpulab/build/confine"
    cp grader/rubric.tsv grader/allowed-symbols.txt "$gpulab/grader/"
    cp build/confine/confine "$gpulab/build/confine/"
    printf '#!/bin/sh\n[ "$1" = --files ] && { echo /bin/sh; exit 0; }\nif (echo x >"%s/probe-wrote") 2>/dev/null; then echo "the GPU works"; exit 0; fi\necho "the GPU does not work here: a test"; exit 1\n' \
        "$gpulab" >"$gpulab/build/confine/cuda-probe"
    chmod +x "$gpulab/build/confine/cuda-probe"
    o=$(build/grader/grade --lab "$gpulab" --require-confinement --program "good=$out/bin/good" 2>&1); st=$?
    check "grader: a GPU that works only unconfined: not confined (exit 5 for a class), saying why" \
        "$([ $st = 5 ] && grep -q 'the GPU works here, but not inside the confinement' <<<"$o"; echo $?)" \
        "exit $st: $o"
    # --probed (make class, after a worker's first student): the GPU check
    # is not made again (the probe only lists the driver's files)
    rm -f "$gpulab/probe-wrote"
    o=$(build/grader/grade --lab "$gpulab" --require-confinement --probed --program "good=$out/bin/good" \
        --out "$out/probed" 2>&1); st=$?
    check "grader: --probed: the GPU checks are not made again (the probe does not run); confined, graded" \
        "$([ $st = 0 ] && [ ! -e "$gpulab/probe-wrote" ] && [ "$("$out/json" get "$out/probed/grade.json" confined)" = true ]; echo $?)" \
        "exit $st: $o"
fi
o=$(build/grader/grade --require-confinement --sanitize --program "good=$out/bin/good" 2>&1); st=$?
check "grader: a confined class run with --sanitize is refused (exit 2): the sanitizer cannot run confined" \
    "$([ $st = 2 ] || [ $st = 5 ]; echo $?)" "exit $st: $o"
# a bonus stage (the rubric's "bonus" line): scored like the others, beside
# the total and not in it; an autograder's score counts it as extra credit
brubric=$out/bonus-rubric.tsv
{
    grep -v '^bonus' "$rubric"
    printf 'stage\tpolicy_extra\t6\n'
    printf 'tier\tpolicy_extra\tpass\t3\ttiming.pct_of_reference\t>=\t%%\tGo faster.\n'
    printf 'tier\tpolicy_extra\tstretch\t1\ttiming.speedup_vs_baseline\t>=\tx\tGo even faster.\n'
    printf 'threshold\tpolicy_extra\tpass\tdefault\t20\nthreshold\tpolicy_extra\tstretch\tdefault\t4\n'
    printf 'bonus\tpolicy_extra\n'
} >"$brubric"
rm -rf "$out/bonus"
ln -sf ../fake "$out/bin/policy_extra" # (a policy_* name: the fake driver's good run)
o=$(build/grader/grade --lab . --rubric "$brubric" --seed 42 --out "$out/bonus" --unconfined \
    --program "good=$out/bin/good" --program "policy_extra=$out/bin/policy_extra" 2>&1); st=$?
bget() { "$out/json" get "$out/bonus/$1" "$2" 2>/dev/null; }
check "grader: a bonus stage is scored and shown beside the total, not in it (results.json: extra credit, max_score 0)" \
    "$([ $st = 0 ] && grep -q '^total  *10/10$' <<<"$o" && grep -q '^bonus  *10/10 ' <<<"$o" &&
       grep -q '^policy_extra (bonus) ' <<<"$o" && [ "$(bget grade.json score)" = 10 ] &&
       [ "$(bget grade.json max_score)" = 10 ] && [ "$(bget grade.json bonus_score)" = 10 ] &&
       [ "$(bget grade.json stages.1.bonus)" = true ] && [ "$(bget results.json score)" = 20 ] &&
       [ "$(bget results.json tests.1.score)" = 10 ] && [ "$(bget results.json tests.1.max_score)" = 0 ] &&
       [ "$(bget results.json tests.0.max_score)" = 10 ]; echo $?)" \
    "exit $st: $o"

build/grader/grade --bogus >/dev/null 2>&1
check "grader: an unknown option exits 2" "$([ $? = 2 ]; echo $?)"
out2=$(build/grader/grade 99_nothing 2>&1); st=$?
check "grader: an unknown stage exits 2 and lists the stages" \
    "$([ $st = 2 ] && grep -q "no stage matches '99_nothing'" <<<"$out2"; echo $?)" "$out2"
if nvidia-smi -L 2>/dev/null | grep -q '^GPU'; then
    skip "grader without a GPU: there is one here"
else
    if [ -x build/confine/cuda-probe ]; then
        out2=$(timeout 60 build/confine/cuda-probe --ipc 2>&1); st=$?
        check "grader: no GPU: the judge's CUDA IPC probe says it does not work, in one line, exit 1" \
            "$([ $st = 1 ] && [ "$(wc -l <<<"$out2")" = 1 ] && grep -q '^CUDA IPC does not work here: ' <<<"$out2"; echo $?)" \
            "exit $st: $out2"
    else
        skip "grader: the judge's CUDA IPC probe: build/confine/cuda-probe is not built"
    fi
fi

echo "== grader: on the GPU (tests/grader/gpu-fixtures.sh)"
if nvidia-smi -L 2>/dev/null | grep -q '^GPU'; then
    tests/grader/gpu-fixtures.sh >"$out/gpu.log" 2>&1
    sed '$d' "$out/gpu.log" | grep -E '^(ok|FAIL|skip) |^      '
    read -r gp _ gf _ gs _ < <(tail -n 1 "$out/gpu.log" | tr -d ,)
    passed=$((passed + ${gp:-0})) failed=$((failed + ${gf:-1})) skipped=$((skipped + ${gs:-0}))
else
    skip "grader on the GPU: no GPU here (solutions, skeletons and fault kernels are graded there)"
fi

totals
