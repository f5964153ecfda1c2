#!/usr/bin/env bash
# research/emulated-warnings.sh: how often the CPU emulation would warn of a
# kernel correct on the GPU that has no bug (grader/README.md, "What
# happens to one stage", step 6); on the CPU, no GPU needed.
#
#   research/emulated-warnings.sh [--seeds N] OUT
#
# Builds the emulated program of every honest kernel the lab has: each
# stage's solution at every value of its knob (make sweep's), the
# instructors' reference kernels, the independent students of
# tests/class/similarity/, tests/grader/honest/, the rungs of
# research/ladder/, research/experiments/warptile_independent.cu, and the
# correct kernels of tests/emu/ and tests/fixtures/ (their expect.tsv, and
# make explain's padded tile);
# and, to see that the warning comes where it should, the kernels whose
# race a GPU hides: tests/emu/reduce_early_return.cu,
# tests/emu/reduce_chunks_no_second_barrier.cu,
# tests/emu/reduce_warp_steps_no_syncwarp.cu, the missing second barrier
# of tests/grader/kernels/, and the textbook's lockstep last warp that
# tests/class/similarity/07_reduction/pasted.cu pastes. Each runs as a
# grade runs it after a correct GPU run (build/grader/grade --emulated-check:
# the family's small sizes, the grade's time limit), once per seed 1..N
# (default 10: the seed changes the order the threads run in). OUT/runs.tsv
# has a line a run (kernel, stage, kind, seed, seconds, the finding or -),
# OUT/<kernel>.log each run's output; the summary says, for the honest
# kernels and for the bugs, how many kernels and runs, and how many warned.
set -u
cd "$(dirname "$0")/.." || exit 2
seeds=10
[ "${1:-}" = --seeds ] && { seeds=$2; shift 2; }
[ $# = 1 ] || { echo "usage: research/emulated-warnings.sh [--seeds N] OUT" >&2; exit 2; }
out=$1
[ "$(uname -m)" = x86_64 ] || { echo "emulated-warnings: the CPU emulation runs on x86-64 only" >&2; exit 3; }
mkdir -p "$out"
. build/stages.env 2>/dev/null || { make -s build/stages.env && . build/stages.env; } || exit 2
make -s build/grader/grade build/grader/take build/confine/confine build/emu/bin/rewrite >"$out/build.log" 2>&1 ||
    { echo "emulated-warnings: the grader does not build (see $out/build.log)" >&2; exit 2; }
printf 'kernel\tstage\tkind\tseed\tseconds\tfinding\n' >"$out/runs.tsv"

# measure LABEL STAGE KIND PROGRAM: the runs of one built program
measure() {
    local label=$1 stage=$2 kind=$3 program=$4 seed t0 ms said
    for ((seed = 1; seed <= seeds; seed++)); do
        t0=$(date +%s%N)
        said=$(build/grader/grade --emulated-check "$stage" "$program" "$seed" --own) ||
            said="error: build/grader/grade --emulated-check ended with status $?"
        ms=$((($(date +%s%N) - t0) / 1000000))
        printf '%s\t%s\t%s\t%s\t%d.%03d\t%s\n' "$label" "$stage" "$kind" "$seed" $((ms / 1000)) $((ms % 1000)) \
            "$(cut -c1-300 <<<"${said:-"-"}" | tr '\t' ' ')" >>"$out/runs.tsv"
        echo "seed $seed: ${said:-nothing named}" >>"$out/$label.log"
    done
}

# built STAGE KIND LABEL TARGET: make TARGET (an emulated program), then measure it
built() {
    local stage=$1 kind=$2 label=$3 target=$4
    shift 4
    rm -f "$out/$label.log"
    if make -s "$@" "$target" >>"$out/build.log" 2>&1; then
        measure "$label" "$stage" "$kind" "$target"
    else
        printf '%s\t%s\t%s\t-\t-\tno emulated program (see build.log)\n' "$label" "$stage" "$kind" >>"$out/runs.tsv"
    fi
}

# kernel_file KIND STAGE FILE: any kernel file, as make explain KERNEL= builds it
kernel_file() {
    local kind=$1 stage=$2 f=$3 name
    name=$(basename "$f" .cu)
    [ "$name" = kernel ] && name=$(basename "$(dirname "$f")")
    built "$stage" "$kind" "$stage-$name" "build/$stage/kernels/$(basename "$f" .cu)-emu" EX="${stage%%_*}" KERNEL="$f"
}

# the family's stage a tests/emu or tests/fixtures kernel is run as
stage_of() {
    case $(basename "$1") in matmul_*) echo 03_tiled ;; transpose_*) echo 04_transpose ;; reduce_*) echo 07_reduction ;; esac
}

for s in $LAB_STAGES; do
    built "$s" honest "$s-solution" "build/$s/solution-emu"
    knob=LAB_SWEEP_$s
    for v in ${!knob}; do built "$s" honest "$s-solution-k$v" "build/$s/k$v/solution-emu"; done
    [ -f "references/$s/kernel.cu" ] && built "$s" honest "$s-reference" "build/$s/reference-emu"
done
for f in tests/class/similarity/03_tiled/*.cu; do kernel_file honest 03_tiled "$f"; done
for f in tests/class/similarity/07_reduction/indep_*.cu; do kernel_file honest 07_reduction "$f"; done
kernel_file honest 03_tiled tests/grader/honest/03_tiled/kernel.cu
for f in research/ladder/*.cu; do kernel_file honest 07_reduction "$f"; done
kernel_file honest 08_warptiling research/experiments/warptile_independent.cu
# the correct kernels of tests/emu and tests/fixtures (status 0 in their expect.tsv)
for f in $(awk -F'\t' '$2 == 0 { print "tests/emu/" $1 ".cu" }' tests/emu/expect.tsv) \
         $(awk -F'\t' '$2 == 0 { print "tests/fixtures/" $1 ".cu" }' tests/fixtures/expect.tsv); do
    kernel_file honest "$(stage_of "$f")" "$f"
done
kernel_file honest 05_bank_conflicts tests/emu/transpose_tile_padded.cu
for d in slow_one_block result_caching; do kernel_file honest 03_tiled "tests/grader/kernels/$d/kernel.cu"; done
kernel_file honest 07_reduction tests/grader/library/cg_tiles.cu

for f in tests/emu/reduce_early_return.cu tests/emu/reduce_chunks_no_second_barrier.cu \
         tests/emu/reduce_warp_steps_no_syncwarp.cu tests/class/similarity/07_reduction/pasted.cu; do
    kernel_file bug 07_reduction "$f"
done
kernel_file bug 03_tiled tests/grader/kernels/missing_barrier/kernel.cu

# per kind: kernels, those without a program, runs, runs and kernels warned
awk -F'\t' 'NR > 1 {
        k = $3; kind[k] = 1
        if (!(($3, $1) in seen)) { seen[$3, $1] = 1; nk[k]++ }
        if ($4 == "-") { nu[k]++; next }
        runs[k]++; t[k] += $5
        if ($6 ~ /^error: /) errors[k]++
        else if ($6 != "-") { warned[k]++; if (!(($3, $1) in hit)) { hit[$3, $1] = 1; nw[k]++ } }
    }
    END {
        for (k in kind)
            printf "%s: %d kernels (%d without an emulated program), %d runs, %d runs warned (%d kernels), " \
                   "%d runs in error, %.2f s a run\n", k, nk[k], nu[k], runs[k], warned[k], nw[k], errors[k],
                   runs[k] ? t[k] / runs[k] : 0
    }' "$out/runs.tsv" | sort
