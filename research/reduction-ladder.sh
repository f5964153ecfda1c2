#!/usr/bin/env bash
# research/reduction-ladder.sh [--build-only | --table-only] OUTDIR [-- DRIVER-ARGS...]:
# the textbook reduction ladder of handouts/07_reduction.md ("Measured"),
# one kernel a rung (research/ladder/rung*.cu), measured by this lab's own
# harness. Each rung is built as a stage's program is (make kernel EX=07
# KERNEL=...: inside the build's wall, linked with stage 07's harness), then
# run as make bench runs a solution (--quiet --json): checked at every size,
# then timed at n = 2^26 beside cudaMemcpy, cuBLAS SASUM and the interleaved
# baseline of the same run. Stage 07's solution is run last the same way,
# for comparison. DRIVER-ARGS go to every run (--n N, --seed S).
#
# OUTDIR gets:
#   build.log, machine.txt  the builds; nvidia-smi and nvcc --version
#   <rung>.json, <rung>.log each run's record (as make bench writes
#                           results/<stage>.json) and its output
#   solution.json, solution.log   the same for build/07_reduction/solution
#   ladder.tsv              the table of the runs, three lines a run: its
#                           kernel, and the cuBLAS SASUM and the copy timed
#                           beside it; columns what, rate, unit, median_ms,
#                           ratio_to_cublas, pct_of_reference (% of the copy),
#                           as tools/record-values.sh reads them
# Copied into a run folder of measurements/ named <gpu>-<date>-ladder
# (h100-2026-12-01-ladder: tools/record-values.sh takes the GPU and the date
# from the name), the records and the table are what the texts cite.
#
# --build-only: the builds alone (no GPU needed; CUDA_ARCH=90 in the
# environment builds for that architecture only). --table-only: ladder.tsv
# again from the records already in OUTDIR. With a GPU it takes about two
# minutes. Exit status: 0 done; 1 a build or a run failed (the message says
# which, and where its log is); 2 usage; 3 no GPU.
set -u
usage="usage: research/reduction-ladder.sh [--build-only | --table-only] OUTDIR [-- DRIVER-ARGS...]"
mode=all
case ${1:-} in --build-only | --table-only) mode=${1#--}; shift ;; esac
out=${1:-}
if [ -z "$out" ] || [ "${out#-}" != "$out" ]; then echo "$usage" >&2; exit 2; fi
shift
if [ $# -gt 0 ]; then
    [ "$1" = -- ] || { echo "$usage" >&2; exit 2; }
    shift
fi
mkdir -p "$out" || { echo "reduction-ladder: cannot make $out" >&2; exit 2; }
out=$(cd "$out" && pwd) || exit 2
cd "$(dirname "$0")/.." || exit 2
. tools/stages.sh
stage=$(stage_numbered 07)
rungs=$(ls research/ladder/rung*.cu 2>/dev/null)
[ -n "$rungs" ] || { echo "reduction-ladder: no research/ladder/rung*.cu" >&2; exit 2; }
make_args=(--no-print-directory -j"$(nproc)")
[ -n "${CUDA_ARCH:-}" ] && make_args+=("CUDA_ARCH=$CUDA_ARCH")

# ---- build: every rung, the solution, and the record reader
: >>"$out/build.log"
if [ "$mode" != table-only ]; then
    for src in $rungs; do
        make "${make_args[@]}" kernel EX=07 KERNEL="$src" >>"$out/build.log" 2>&1 ||
            { echo "reduction-ladder: $src does not build (make kernel EX=07 KERNEL=$src; $out/build.log)" >&2; exit 1; }
    done
    make "${make_args[@]}" "build/$stage/solution" >>"$out/build.log" 2>&1 ||
        { echo "reduction-ladder: build/$stage/solution does not build ($out/build.log)" >&2; exit 1; }
    echo "built $(echo "$rungs" | wc -l) rungs and the solution (build/$stage/kernels/, $out/build.log)"
fi
[ "$mode" = build-only ] && exit 0
make "${make_args[@]}" build/grader/grade >>"$out/build.log" 2>&1 ||
    { echo "reduction-ladder: build/grader/grade does not build ($out/build.log)" >&2; exit 1; }

# ---- runs: as make bench runs a stage's program
if [ "$mode" = all ]; then
    nvidia-smi -L 2>/dev/null | grep -q '^GPU' ||
        { echo "reduction-ladder: no GPU here (nvidia-smi -L lists none); --build-only builds alone" >&2; exit 3; }
    { nvidia-smi; nvcc --version; } >"$out/machine.txt" 2>&1
    failed=
    for src in $rungs solution; do
        name=$(basename "$src" .cu)
        bin=build/$stage/kernels/$name
        [ "$name" = solution ] && bin=build/$stage/solution
        "$bin" --quiet --json "$out/$name.json" "$@" >"$out/$name.log" 2>&1
        st=$?
        echo "$name: exit $st: $(grep -E '^  your kernel:' -A1 "$out/$name.log" | tr -s ' ' | tr '\n' ' ')"
        [ $st = 0 ] || failed="$failed $name"
    done
    [ -z "$failed" ] || { echo "reduction-ladder: failed:$failed (their logs in $out); no ladder.tsv written" >&2; exit 1; }
fi

# ---- the table: each record's kernels, read by the lab's one JSON reader
# (build/grader/grade --record-tsv: stage metric gpu date variant name rate
# median_ms), three lines a record: the kernel, its run's cuBLAS and copy
table_lines() { # record, what the kernel's line says
    build/grader/grade --record-tsv "$1" | awk -F'\t' -v what="$2" '
        function line(k, label) {
            printf "%s\t%.1f\t%s\t%s\t%.3f\t%.1f\n", label, rate[k], unit, ms[k],
                rate[k] / rate["cublas"], 100 * rate[k] / rate["memcpy"]
        }
        NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
        { k = $col["name"]; rate[k] = $col["rate"]; ms[k] = $col["median_ms"]; unit = $col["metric"] }
        END {
            if (!(("student" in rate) && rate["cublas"] > 0 && rate["memcpy"] > 0)) exit 1
            line("student", what)
            line("cublas", "cuBLAS SASUM, in the run of " what)
            line("memcpy", "cudaMemcpy D2D (read + write), in the run of " what)
        }'
}
names=$(for src in $rungs; do basename "$src" .cu; done; echo solution)
for name in $names; do
    [ -f "$out/$name.json" ] || { echo "reduction-ladder: no record $out/$name.json" >&2; exit 1; }
done
rows=$(for name in $names; do
    table_lines "$out/$name.json" "$name" ||
        { echo "reduction-ladder: $out/$name.json lacks the kernel, cuBLAS or the copy" >&2; exit 1; }
done) || exit 1
gpus=$(for name in $names; do build/grader/grade --record-tsv "$out/$name.json" | awk -F'\t' 'NR > 1 { print $3 }'; done |
       sort -u | paste -sd ';' -)
{
    echo "# The textbook reduction ladder (handouts/07_reduction.md) measured by the"
    echo "# lab's harness, research/reduction-ladder.sh: $gpus, runs of"
    echo "# $(date -u -r "$out/solution.json" '+%Y-%m-%d %H:%M UTC'). One line a kernel of each run: the rung"
    echo "# (research/ladder/<rung>.cu, record <rung>.json) or stage 07's solution"
    echo "# (solution.json), then the cuBLAS SASUM and the copy timed in the same run;"
    echo "# ratio_to_cublas and pct_of_reference (% of the copy) against those of its run."
    printf '# what\trate\tunit\tmedian_ms\tratio_to_cublas\tpct_of_reference\n'
    echo "$rows"
} >"$out/ladder.tsv"
echo "the ladder: $out/ladder.tsv"
awk -F'\t' '/^# what/ { sub(/^# /, "") } !/^#/ && !/ in the run of / {
    printf "%-26s %8s %-5s %10s %8s %6s\n", $1, $2, $3, $4, $5, $6 }' "$out/ladder.tsv"
