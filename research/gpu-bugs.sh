#!/usr/bin/env bash
# research/gpu-bugs.sh [OUTDIR]: on a GPU, what a student sees of the nine
# typical bugs of issue 48 (stages 03 and 07: a missing barrier, no bounds
# check, an early return before a barrier, a read of shared memory never
# written, and 07's race in the tree step), each the lab's own kernel:
#
#   a missing barrier:     tests/emu/matmul_tiled_no_second_barrier.cu,
#                          tests/emu/reduce_chunks_no_second_barrier.cu
#   no bounds check:       tests/fixtures/matmul_no_bounds_check.cu,
#                          tests/emu/reduce_no_bounds_check.cu
#   an early return:       tests/emu/matmul_tiled_early_return.cu,
#                          tests/emu/reduce_early_return.cu
#   shared never written:  tests/emu/matmul_tiled_uninitialized_shared.cu,
#                          tests/emu/reduce_uninitialized_shared.cu
#   a tree step's race:    tests/emu/reduce_warp_tree_no_syncwarp.cu
#
# and two more the GPU hides: 07's tree ended by a warp without
# __syncwarp() (tests/emu/reduce_warp_steps_no_syncwarp.cu) and 03's
# missing second barrier of tests/grader/kernels/missing_barrier. The table
# BUGS below says how the GPU shows each (grader/emulated.c):
#   shown:  wrong on the GPU: make run EX=NN fails and names the cause (the
#           CPU emulation's finding), make grade EX=NN loses the
#           correctness points and its lost-points line names the cause;
#   hidden: correct on the GPU: make run passes (it emulates a wrong run
#           only), make grade keeps every correctness point and warns (the
#           warning line, grade.json's warning) with the cause;
#   lesson: 03, whose lesson is its barriers: make grade loses the
#           correctness points and names the cause whether or not the GPU
#           showed it; make run names it where the GPU showed it.
# The out-of-bounds and racy ones also run make run EX=NN SANITIZE=1:
# memcheck and racecheck both run, and the tool the table names reports it.
# Then the solutions of 03 and 07 (every point, no warning), and the
# solutions of every stage graded twice with their emulated programs and
# twice without (built, then removed: make grade PREBUILT=1), alternately:
# no warning, and the grades with take no more than 5% longer (grade.json's
# seconds, the faster of each two).
# Each kernel as exercises/NN_*/kernel.cu of one copy of the lab (its build
# copied too), one stage graded at a time. Every log under OUTDIR (default
# build/gpu-bugs); each check one line, "ok NAME" or "FAIL NAME", then
# "N passed, N failed". Builds the lab first (make all).
set -u
cd "$(dirname "$0")/.." || exit 2
lab=$(pwd)
out=$(realpath -m "${1:-build/gpu-bugs}")
rm -rf "$out"
mkdir -p "$out"
passed=0 failed=0
check() {
    if [ "$2" = 0 ]; then passed=$((passed + 1)); echo "ok   $1"; else failed=$((failed + 1)); echo "FAIL $1"; fi
}
# what a student sees: a run's lines that say something
show() { grep -E "$2" "$1" | cut -c1-300 | sed 's/^/    | /'; }

t0=$SECONDS
make -s -j"$(nproc)" all build/grader/grade build/confine/confine build/confine/objcheck >"$out/build.log" 2>&1 ||
    { echo "FAIL make all (see $out/build.log)"; echo "0 passed, 1 failed"; exit 1; }
copy=$out/lab
mkdir -p "$copy"
tar --exclude=./build/gpu-bugs --exclude=./.git -cf - . | tar -xf - -C "$copy"

# student FILE [STAGE]: FILE as the kernel.cu of the copy's stage (03_tiled)
student() { cp "$lab/$1" "$copy/exercises/${2:-03_tiled}/kernel.cu"; }
in_copy() { (cd "$copy" && "$@") </dev/null; } # not the table the loop below reads

# NAME;STAGE;KIND;FILE;CAUSE;TOOL, a line a bug: FILE as STAGE's kernel.cu;
# KIND shown, hidden or lesson (above); CAUSE, a pattern of what the CPU
# emulation names; TOOL, a pattern of what compute-sanitizer reports (-:
# no SANITIZE=1 run)
BUGS="\
03-barrier;03_tiled;shown;tests/emu/matmul_tiled_no_second_barrier.cu;a race on shared memory;Race reported|hazard
03-bounds;03_tiled;shown;tests/fixtures/matmul_no_bounds_check.cu;past the end of (A|B|C);Invalid __global__ read
03-early-return;03_tiled;lesson;tests/emu/matmul_tiled_early_return.cu;a thread returned before a barrier;-
03-never-written;03_tiled;shown;tests/emu/matmul_tiled_uninitialized_shared.cu;which no thread of its block has written;-
03-barrier-hidden;03_tiled;lesson;tests/grader/kernels/missing_barrier/kernel.cu;a race on shared memory;-
07-barrier;07_reduction;hidden;tests/emu/reduce_chunks_no_second_barrier.cu;a race on shared memory;Race reported|hazard
07-bounds;07_reduction;shown;tests/emu/reduce_no_bounds_check.cu;past the end of in;Invalid __global__ read
07-early-return;07_reduction;hidden;tests/emu/reduce_early_return.cu;a thread returned before a barrier;-
07-never-written;07_reduction;shown;tests/emu/reduce_uninitialized_shared.cu;which no thread of its block has written;-
07-tree-race;07_reduction;hidden;tests/emu/reduce_warp_tree_no_syncwarp.cu;two lanes of one warp;Race reported|hazard
07-warp-steps;07_reduction;hidden;tests/emu/reduce_warp_steps_no_syncwarp.cu;two lanes of one warp;-"

# warned LOG GRADE_DIR STAGE: make grade's warning line, and a stage's
# warning in grade.json (tools/json.sh flat: the lab's JSON reader)
warned() {
    grep -q "^  $3: correct on the GPU, but the CPU emulation of your kernel names" "$1" &&
        tools/json.sh flat "$2/grade.json" | grep -q $'^stages\\.[0-9]*\\.warning\tcorrect on the GPU, but the CPU emulation'
}
# tsv GRADE_DIR STAGE FIELD: a field of grade.tsv's line of STAGE
tsv() {
    awk -F'\t' -v s="$2" -v f="$3" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i } NR > 1 && $1 == s { print $c[f] }' \
        "$1/grade.tsv" 2>/dev/null
}

# run_checks NAME STAGE KIND CAUSE: make run EX=NN on the GPU
run_checks() {
    local log=$out/$1-run.log st
    in_copy make run EX="${2%%_*}" >"$log" 2>&1
    st=$?
    show "$log" 'FAILED|wrong|CPU emulation|all results match'
    case $3 in
        hidden) check "$1: make run passes on the GPU (it emulates a wrong run only)" \
                    "$([ $st = 0 ] && ! grep -q 'CPU emulation of your kernel' "$log"; echo $?)" ;;
        shown) check "$1: make run fails on the GPU and names the cause on the CPU emulation" \
                   "$([ $st != 0 ] && grep -qE "^the CPU emulation of your kernel names the cause: .*$4" "$log"; echo $?)" ;;
        lesson) check "$1: make run names the cause where the GPU shows the bug ($([ $st = 0 ] && echo 'passed on the GPU' ||
                    echo 'wrong on the GPU'))" \
                    "$([ $st = 0 ] || grep -qE "^the CPU emulation of your kernel names the cause: .*$4" "$log"; echo $?)" ;;
    esac
}

# grade_checks NAME STAGE KIND CAUSE: make grade EX=NN, the one stage
grade_checks() {
    local log=$out/$1-grade.log points max
    in_copy make grade EX="${2%%_*}" HINTS=0 >"$log" 2>&1
    show "$log" "^$2 |^  $2|^    - The CPU emulation"
    points=$(tsv "$copy" "$2" points) max=$(tsv "$copy" "$2" max_points)
    case $3 in
        hidden) check "$1: make grade: correct on the GPU, every correctness point, and a warning with the cause \
($points/$max)" \
                    "$([ "$(tsv "$copy" "$2" correct)" = true ] && warned "$log" "$copy" "$2" &&
                       grep -qE "^  $2: correct on the GPU, but the CPU emulation of your kernel names .*$4" "$log"
                       echo $?)" ;;
        shown) check "$1: make grade loses the correctness points, its lost-points line names the cause ($points/$max)" \
                   "$([ "$(tsv "$copy" "$2" correct)" = false ] &&
                      grep -qE "^    - The CPU emulation of your kernel names the cause: .*$4" "$log"; echo $?)" ;;
        lesson) check "$1: make grade loses the correctness points and names the cause, whether or not the GPU \
showed it ($points/$max)" \
                    "$([ "$(tsv "$copy" "$2" correct)" = false ] &&
                       grep -qE "CPU emulation of your kernel names .*$4" "$log"; echo $?)" ;;
    esac
}

# sanitize_checks NAME STAGE TOOL: make run EX=NN SANITIZE=1
sanitize_checks() {
    local log=$out/$1-sanitize.log
    in_copy make run EX="${2%%_*}" SANITIZE=1 >"$log" 2>&1
    show "$log" 'LAB_EXACT_BUFFERS|=========.*(Invalid|Race|hazard|SUMMARY)' | head -n 12
    check "$1: make run SANITIZE=1 runs memcheck and racecheck" \
        "$([ "$(grep -c '^LAB_EXACT_BUFFERS=1 .*--tool' "$log")" = 2 ]; echo $?)"
    check "$1: compute-sanitizer names it ($3)" "$(grep -qE "$3" "$log"; echo $?)"
}

while IFS=";" read -r name stage kind file cause tool; do
    echo "== $name: $file, $kind on the GPU ($((SECONDS - t0)) s)"
    student "$file" "$stage"
    run_checks "$name" "$stage" "$kind" "$cause"
    grade_checks "$name" "$stage" "$kind" "$cause"
    [ "$tool" = - ] || sanitize_checks "$name" "$stage" "$tool"
done <<<"$BUGS"

for stage in 03_tiled 07_reduction; do
    echo "== the solution of $stage ($((SECONDS - t0)) s)"
    student "solutions/$stage/kernel.cu" "$stage"
    start=$SECONDS
    in_copy make grade EX="${stage%%_*}" HINTS=0 >"$out/$stage-grade.log" 2>&1
    show "$out/$stage-grade.log" "^$stage "
    check "$stage solution: every point ($(tsv "$copy" "$stage" points)/$(tsv "$copy" "$stage" max_points), \
$((SECONDS - start)) s with its build)" \
        "$([ -n "$(tsv "$copy" "$stage" points)" ] && [ "$(tsv "$copy" "$stage" points)" = "$(tsv "$copy" "$stage" max_points)" ]; echo $?)"
    check "$stage solution: emulated, and no warning" \
        "$(grep -q "^\[1/1\] $stage: .*on the CPU emulation\.\.\. correct" "$out/$stage-grade.log" &&
           ! grep -q '^Warnings:' "$out/$stage-grade.log"; echo $?)"
done

echo "== the solutions of every stage, with their emulated programs and without ($((SECONDS - t0)) s)"
for s in "$lab"/solutions/*/; do student "solutions/$(basename "$s")/kernel.cu" "$(basename "$s")"; done
for round in 1 2; do
    in_copy make grade HINTS=0 >"$out/with-$round.log" 2>&1
    cp "$copy/grade.json" "$out/with-$round.json"
    rm -f "$copy"/build/*/exercise-emu
    in_copy make grade HINTS=0 PREBUILT=1 >"$out/without-$round.log" 2>&1
    cp "$copy/grade.json" "$out/without-$round.json"
done
seconds() { tools/json.sh get "$1" seconds 2>/dev/null; }
with=$(for r in 1 2; do seconds "$out/with-$r.json"; done | sort -n | head -n 1)
without=$(for r in 1 2; do seconds "$out/without-$r.json"; done | sort -n | head -n 1)
check "the solutions: every stage emulated, no warning, the same points with and without" \
    "$([ "$(grep -c '^\[.*: .*on the CPU emulation\.\.\. correct' "$out/with-1.log")" = "$(ls -d "$lab"/solutions/*/ | wc -l)" ] &&
       ! grep -q '^Warnings:' "$out"/with-*.log && ! grep -q 'CPU emulation' "$out"/without-*.log &&
       [ "$(grep -h '^total' "$out"/with-*.log "$out"/without-*.log | sort -u | wc -l)" = 1 ]; echo $?)"
check "the solutions' grade with the emulation takes no more than 5% longer (the faster of two: $with s against $without s)" \
    "$(awk -v a="$with" -v b="$without" 'BEGIN { exit !(a != "" && b > 0 && a <= 1.05 * b) }'; echo $?)"
echo "$passed passed, $failed failed ($((SECONDS - t0)) s; logs in $out)"
[ $failed = 0 ]
