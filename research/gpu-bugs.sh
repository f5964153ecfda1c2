#!/usr/bin/env bash
# research/gpu-bugs.sh [OUTDIR]: on a GPU, what a student sees of typical
# bugs (grader/emulated.c, and SANITIZE=1 in the Makefile):
#   1. two bugs of stage 03 that the GPU shows: a missing barrier
#      (tests/emu/matmul_tiled_no_second_barrier.cu) and no bounds check
#      (tests/fixtures/matmul_no_bounds_check.cu): make run EX=03, make
#      grade EX=03 (the CPU emulation's finding under the GPU's verdict),
#      make run EX=03 SANITIZE=1 (memcheck and racecheck both run,
#      memcheck names the read past A);
#   2. three bugs of stage 07 that the GPU hides
#      (tests/emu/reduce_chunks_no_second_barrier.cu,
#      tests/emu/reduce_early_return.cu,
#      tests/emu/reduce_warp_steps_no_syncwarp.cu): make grade EX=07 finds each
#      correct, keeps every correctness point, and warns (the warning line,
#      grade.json's warning); and stage 03's missing second barrier that
#      the GPU hides (tests/grader/kernels/missing_barrier): its
#      correctness points lost, 03's lesson being its barriers;
#   3. the solutions of 03 and 07: every point, no warning;
#   4. the solutions of every stage graded twice with their emulated
#      programs and twice without (built, then removed: make grade
#      PREBUILT=1), alternately: no warning, and the grades with take no
#      more than 5% longer (grade.json's seconds, the faster of each two).
# Each as exercises/NN_*/kernel.cu of a copy of the lab (its build copied
# too). Every log under OUTDIR (default build/gpu-bugs); each check one
# line, "ok NAME" or "FAIL NAME", then "N passed, N failed". Builds the lab
# first (make all).
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
in_copy() { (cd "$copy" && "$@"); }

for bug in barrier bounds; do
    case $bug in
        barrier) student tests/emu/matmul_tiled_no_second_barrier.cu; cause='a race on shared memory'
                 tool='Race reported|hazard' ;;
        bounds) student tests/fixtures/matmul_no_bounds_check.cu; cause='past the end of (A|B|C)'
                tool='Invalid __global__ read' ;;
    esac
    echo "== the $bug bug ($((SECONDS - t0)) s)"
    in_copy make run EX=03 >"$out/$bug-run.log" 2>&1
    show "$out/$bug-run.log" 'FAILED|wrong|CPU emulation'
    check "$bug: make run EX=03 names the cause on the CPU emulation" \
        "$(grep -qE "^the CPU emulation of your kernel names the cause: .*$cause" "$out/$bug-run.log"; echo $?)"
    in_copy make grade EX=03 HINTS=0 >"$out/$bug-grade.log" 2>&1
    show "$out/$bug-grade.log" '^  03_tiled|^    - '
    check "$bug: make grade EX=03 loses the points and names the cause" \
        "$(grep -qE "^    - The CPU emulation of your kernel names the cause: .*$cause" "$out/$bug-grade.log" &&
           grep -qE '^03_tiled.* 0/' "$out/$bug-grade.log"; echo $?)"
    in_copy make run EX=03 SANITIZE=1 >"$out/$bug-sanitize.log" 2>&1
    show "$out/$bug-sanitize.log" 'LAB_EXACT_BUFFERS|=========.*(Invalid|Race|hazard|SUMMARY)'
    check "$bug: make run EX=03 SANITIZE=1 runs memcheck and racecheck" \
        "$([ "$(grep -c '^LAB_EXACT_BUFFERS=1 .*--tool' "$out/$bug-sanitize.log")" = 2 ]; echo $?)"
    check "$bug: compute-sanitizer names it ($tool)" "$(grep -qE "$tool" "$out/$bug-sanitize.log"; echo $?)"
done

# warned LOG GRADE_DIR STAGE: make grade's warning line, and the stage's
# warning in grade.json (one key a line)
warned() {
    grep -q "^  $3: correct on the GPU, but the CPU emulation of your kernel names" "$1" &&
        grep -q '"warning": "correct on the GPU, but the CPU emulation' "$2/grade.json"
}
# tsv GRADE_DIR STAGE FIELD: a field of grade.tsv's line of STAGE
tsv() {
    awk -F'\t' -v s="$2" -v f="$3" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i } NR > 1 && $1 == s { print $c[f] }' \
        "$1/grade.tsv" 2>/dev/null
}

for bug in reduce_chunks_no_second_barrier reduce_early_return reduce_warp_steps_no_syncwarp; do
    echo "== stage 07, a bug the GPU hides: $bug ($((SECONDS - t0)) s)"
    student "tests/emu/$bug.cu" 07_reduction
    in_copy make grade EX=07 HINTS=0 >"$out/$bug-grade.log" 2>&1
    show "$out/$bug-grade.log" '^07_reduction |^  07_reduction: '
    check "$bug: correct on the GPU, every correctness point, and a warning ($(tsv "$copy" 07_reduction points)/$(tsv \
        "$copy" 07_reduction max_points))" \
        "$([ "$(tsv "$copy" 07_reduction correct)" = true ] && warned "$out/$bug-grade.log" "$copy" 07_reduction; echo $?)"
done
echo "== stage 03, its lesson the barriers: a missing second barrier ($((SECONDS - t0)) s)"
student tests/grader/kernels/missing_barrier/kernel.cu
in_copy make grade EX=03 HINTS=0 >"$out/barrier03-grade.log" 2>&1
show "$out/barrier03-grade.log" '^03_tiled |^  03_tiled'
check "03 missing second barrier: no correctness points, the race named, whether or not the GPU showed it" \
    "$([ "$(tsv "$copy" 03_tiled correct)" = false ] && grep -q 'race on shared memory' "$out/barrier03-grade.log"; echo $?)"

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
seconds() { sed -n 's/^ *"seconds": \([0-9.]*\),*$/\1/p' "$1" | head -n 1; }
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
