#!/usr/bin/env bash
# research/gpu-bugs.sh [OUTDIR]: on a GPU, what a student sees of two typical
# bugs of stage 03 (grader/emulated.c, and SANITIZE=1 in the Makefile):
#   a missing barrier   tests/emu/matmul_tiled_no_second_barrier.cu
#   no bounds check     tests/fixtures/matmul_no_bounds_check.cu
# each as exercises/03_tiled/kernel.cu of a copy of the lab (its build
# copied too): make run EX=03, make grade EX=03 (the CPU emulation's
# finding under the GPU's verdict), make run EX=03 SANITIZE=1 (memcheck and
# racecheck both run, memcheck names the read past A); then the solutions
# of 03 and 07 graded the same way: every point, and no emulation said.
# Every log under OUTDIR (default build/gpu-bugs); each check one line,
# "ok NAME" or "FAIL NAME", then "N passed, N failed". Builds the lab first
# (make all). Under 3 minutes on an H200.
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

for stage in 03_tiled 07_reduction; do
    echo "== the solution of $stage ($((SECONDS - t0)) s)"
    student "solutions/$stage/kernel.cu" "$stage"
    start=$SECONDS
    in_copy make grade EX="${stage%%_*}" HINTS=0 >"$out/$stage-grade.log" 2>&1
    show "$out/$stage-grade.log" "^$stage "
    line=$(awk -F'\t' -v s="$stage" '$1 == s' "$copy/grade.tsv" 2>/dev/null)
    check "$stage solution: every point ($(cut -f3,4 <<<"$line" | tr '\t' /), $((SECONDS - start)) s with its build)" \
        "$([ -n "$line" ] && [ "$(cut -f3 <<<"$line")" = "$(cut -f4 <<<"$line")" ]; echo $?)"
    check "$stage solution: no emulation run, nothing said of it" \
        "$(! grep -q 'CPU emulation' "$out/$stage-grade.log"; echo $?)"
done
echo "$passed passed, $failed failed ($((SECONDS - t0)) s; logs in $out)"
[ $failed = 0 ]
