#!/usr/bin/env bash
# research/profile-records.sh [--build-only] OUTDIR: on a GPU, what the texts
# give as counted from the indices, measured, as records that
# tools/record-values.sh reads:
#
#   sectors   Nsight Compute's global load and store sectors per request
#             (l1tex__t_{sectors,requests}_pipe_lsu_mem_global_op_{ld,st}.sum)
#             of the drivers' baselines, the row-mapped matmul_rows_naive
#             (build/01_naive/solution --n 2048) and transpose_naive
#             (build/04_transpose/solution, 8192 x 8192): one launch each
#             (--kernel-name, --launch-count 1), during the timing, at the
#             timed size; and beside them the solutions' own kernels, the
#             one call at the same size that make profile measures
#             (--profile-from-start off, the driver's --profile)
#   hazards   compute-sanitizer --tool racecheck, as make run EX=03
#             SANITIZE=1 runs it (--check-only --sizes 17,100 --n 128), on
#             stage 03's solution and on a copy of it without its second
#             __syncthreads() (build/research/no_second_barrier.cu, built
#             with make kernel EX=03)
#
# OUTDIR gets:
#   profile.tsv      the counters in the form of profile/expected.tsv: stage
#                    (with the kernel), gpu, key, value; keys g{ld,st}_spr
#                    sectors per request, g{ld,st}_sectors and _requests the
#                    counts, kernel, launches, size, ncu, date
#   racecheck.tsv    what, value, unit (hazards, errors, warnings): each
#                    run's RACECHECK SUMMARY
#   ncu-<name>.log, .csv, .ncu-rep   each ncu run: its output, its raw page
#                    (--page raw --print-units base) and its report
#   racecheck-<name>.log  each sanitizer run's output
#   no_second_barrier.cu  the kernel without its second barrier
#   build.log, machine.txt  the builds; nvidia-smi, nvcc, ncu and
#                    compute-sanitizer versions
# Copied into a run folder of measurements/ named <gpu>-<date>[-...], the
# tables are records that the texts can cite (profile.tsv is read as a
# profile table for its name).
#
# NCU and SANITIZER pick the tools (default: on PATH, else beside nvcc).
# --build-only: the builds alone (no GPU needed; CUDA_ARCH=90 in the
# environment builds for that architecture only). With a GPU it takes about
# two minutes. Exit status: 0 done; 1 a build, a measurement or a parse
# failed (the message says which, and where its log is); 2 usage; 3 no GPU
# or no tool.
set -u
usage="usage: research/profile-records.sh [--build-only] OUTDIR"
build_only=0
[ "${1:-}" = --build-only ] && { build_only=1; shift; }
out=${1:-}
if [ $# != 1 ] || [ "${out#-}" != "$out" ]; then echo "$usage" >&2; exit 2; fi
mkdir -p "$out" || { echo "profile-records: cannot make $out" >&2; exit 2; }
out=$(cd "$out" && pwd) || exit 2
cd "$(dirname "$0")/.." || exit 2
. tools/stages.sh
s1=$(stage_numbered 01) s3=$(stage_numbered 03) s4=$(stage_numbered 04)
make_args=(--no-print-directory -j"$(nproc)")
[ -n "${CUDA_ARCH:-}" ] && make_args+=("CUDA_ARCH=$CUDA_ARCH")
fail() { echo "profile-records: $*" >&2; exit 1; }

# ---- build: the two solutions, stage 03's solution and its copy without
# the second barrier (the second line that is only a __syncthreads(), the
# one after the multiply-adds)
variant=build/research/no_second_barrier.cu
mkdir -p build/research
awk -v src="solutions/$s3/kernel.cu" 'NR == 1 { print "/* " src " without its second __syncthreads(), made by research/profile-records.sh for racecheck */" }
    /^[ \t]*__syncthreads\(\);[ \t]*$/ { n++; if (n == 2) next } { print }' "solutions/$s3/kernel.cu" >"$variant"
if [ "$(grep -c '__syncthreads();' "solutions/$s3/kernel.cu")" != 2 ] || [ "$(grep -c '__syncthreads();' "$variant")" != 1 ]; then
    fail "solutions/$s3/kernel.cu does not have the two barriers this script removes the second of"
fi
cp "$variant" "$out/"
make "${make_args[@]}" "build/$s1/solution" "build/$s3/solution" "build/$s4/solution" >"$out/build.log" 2>&1 ||
    fail "the solutions do not build ($out/build.log)"
make "${make_args[@]}" kernel EX=03 KERNEL="$variant" >>"$out/build.log" 2>&1 ||
    fail "$variant does not build (make kernel EX=03 KERNEL=$variant; $out/build.log)"
nobarrier=build/$s3/kernels/no_second_barrier
echo "built build/$s1/solution, build/$s4/solution, build/$s3/solution and $nobarrier ($out/build.log)"
[ $build_only = 1 ] && exit 0

nvidia-smi -L 2>/dev/null | grep -q '^GPU' ||
    { echo "profile-records: no GPU here (nvidia-smi -L lists none); --build-only builds alone" >&2; exit 3; }
tool() { # a tool's path: on PATH, else beside nvcc
    local nvcc_dir
    nvcc_dir=$(dirname "$(command -v nvcc 2>/dev/null || echo /usr/local/cuda/bin/nvcc)")
    command -v "$1" 2>/dev/null || { [ -x "$nvcc_dir/$1" ] && echo "$nvcc_dir/$1"; }
}
ncu=${NCU:-$(tool ncu)}
sanitizer=${SANITIZER:-$(tool compute-sanitizer)}
if [ -z "$ncu" ] || [ -z "$sanitizer" ]; then
    echo "profile-records: needs ncu and compute-sanitizer (NCU=, SANITIZER=, or on PATH)" >&2; exit 3
fi
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -n 1)
ncu_version=$("$ncu" --version | tail -n 1 | sed 's/^[^0-9]*//')
today=$(date -u +%Y-%m-%d)
{ nvidia-smi; nvcc --version; "$ncu" --version; "$sanitizer" --version; } >"$out/machine.txt" 2>&1

# ---- sectors: one ncu run a kernel, its raw page summed into profile.tsv
metrics=l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum
metrics=$metrics,l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum,l1tex__t_requests_pipe_lsu_mem_global_op_st.sum
# the raw page: a row of column names, a row of units, a row a launch; every
# field quoted, a field may hold commas (a kernel's arguments, thousands)
summarize() { # stage label, size text; the page on stdin
    awk -v stage="$1" -v size="$2" -v gpu="$gpu" -v ncu="$ncu_version" -v date="$today" '
    function split_csv(line, f,    n, i, c, quoted, cur) {
        n = 0; cur = ""; quoted = 0
        for (i = 1; i <= length(line); i++) {
            c = substr(line, i, 1)
            if (quoted && c == "\"" && substr(line, i + 1, 1) == "\"") { cur = cur c; i++ }
            else if (c == "\"") quoted = !quoted
            else if (c == "," && !quoted) { f[++n] = cur; cur = "" }
            else cur = cur c
        }
        f[++n] = cur
        return n
    }
    function put(key, value) { printf "%s\t%s\t%s\t%s\n", stage, gpu, key, value }
    !/^"/ { next }
    {
        n = split_csv($0, f)
        if (!header++) { for (i = 1; i <= n; i++) col[f[i]] = i; next }
        if (f[col["ID"]] == "") next
        launches++; kernel = f[col["Kernel Name"]]
        for (m in want) { v = f[col[want[m]]]; gsub(/,/, "", v); sum[m] += v }
    }
    BEGIN {
        want["gld_sectors"] = "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"
        want["gld_requests"] = "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"
        want["gst_sectors"] = "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"
        want["gst_requests"] = "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum"
    }
    END {
        if (!launches || !(sum["gld_requests"] > 0) || !(sum["gst_requests"] > 0)) exit 1
        put("kernel", kernel); put("launches", launches); put("size", size)
        for (m in want) put(m, sprintf("%.0f", sum[m]))
        put("gld_spr", sprintf("%.2f", sum["gld_sectors"] / sum["gld_requests"]))
        put("gst_spr", sprintf("%.2f", sum["gst_sectors"] / sum["gst_requests"]))
        put("ncu", ncu); put("date", date)
    }'
}
measure() { # name, stage label, size text, then ncu's selection, --, the program and its arguments
    local name=$1 stage=$2 size=$3 select=() lines
    shift 3
    while [ $# -gt 0 ] && [ "$1" != -- ]; do select+=("$1"); shift; done
    shift
    "$ncu" "${select[@]}" --metrics "$metrics" --export "$out/ncu-$name" --force-overwrite "$@" \
        >"$out/ncu-$name.log" 2>&1
    [ -s "$out/ncu-$name.ncu-rep" ] || fail "ncu measured nothing for $name ($out/ncu-$name.log)"
    "$ncu" --import "$out/ncu-$name.ncu-rep" --csv --page raw --print-units base >"$out/ncu-$name.csv" \
        2>>"$out/ncu-$name.log" || fail "ncu could not read its report of $name ($out/ncu-$name.log)"
    lines=$(summarize "$stage" "$size" <"$out/ncu-$name.csv") ||
        fail "no launch with global loads and stores in $out/ncu-$name.csv"
    printf '%s\n' "$lines" >>"$out/profile.tsv.part"
    echo "$name: $(awk -F'\t' '$3 ~ /_spr$/ { printf "%s %s ", $3, $4 }' <<<"$lines")"
}
rm -f "$out/profile.tsv.part"
# the baselines: the first launch of the kernel, in the timing; --budget-ms
# keeps the rest of the timing short
measure 01-rows "$s1, baseline matmul_rows_naive (threadIdx.x on rows, 16 x 16 threads), n = 2048" n=2048 \
    --kernel-name matmul_rows_naive --launch-count 1 -- "build/$s1/solution" --n 2048 --sizes 17 --budget-ms 100
measure 01-columns "$s1, solution matmul_naive (threadIdx.x on columns, 16 x 16 threads), n = 2048" n=2048 \
    --profile-from-start off -- "build/$s1/solution" --n 2048 --sizes 17 --profile
measure 04-naive "$s4, baseline transpose_naive (32 x 8 threads, 4 elements each), 8192 x 8192" 8192x8192 \
    --kernel-name transpose_naive --launch-count 1 -- "build/$s4/solution" --sizes 64 --budget-ms 100
measure 04-tiled "$s4, solution (tile [32][32], 32 x 8 threads), 8192 x 8192" 8192x8192 \
    --profile-from-start off -- "build/$s4/solution" --sizes 64 --profile
{
    echo "# Nsight Compute counters of the drivers' baseline kernels and of the"
    echo "# solutions' beside them, $gpu, ncu $ncu_version, $today"
    echo "# (research/profile-records.sh; clocks at base, ncu's default), in the form of"
    echo "# profile/expected.tsv: stage (with the kernel), gpu, key, value. g{ld,st}_spr:"
    echo "# global load / store sectors per request, the sums of"
    echo "# l1tex__t_sectors_pipe_lsu_mem_global_op_{ld,st}.sum over those of"
    echo "# l1tex__t_requests_pipe_lsu_mem_global_op_{ld,st}.sum (g{ld,st}_sectors, _requests)."
    cat "$out/profile.tsv.part"
} >"$out/profile.tsv" && rm -f "$out/profile.tsv.part"

# ---- hazards: racecheck as make run EX=03 SANITIZE=1 runs it
race_args=(--check-only --sizes "17,100" --n 128)
rows=
for name in solution no_second_barrier; do
    bin=build/$s3/solution
    what="$s3 solution (TILE 32)"
    [ $name = no_second_barrier ] && { bin=$nobarrier; what="$s3 solution (TILE 32) without its second __syncthreads()"; }
    "$sanitizer" --tool racecheck --error-exitcode 1 "$bin" "${race_args[@]}" >"$out/racecheck-$name.log" 2>&1
    summary=$(grep -m 1 'RACECHECK SUMMARY' "$out/racecheck-$name.log") ||
        fail "no RACECHECK SUMMARY in $out/racecheck-$name.log"
    echo "racecheck, $name: ${summary#*SUMMARY: }"
    # "RACECHECK SUMMARY: 3 hazards displayed (3 errors, 0 warnings)"
    rows=$rows$(sed -E 's/.*SUMMARY: ([0-9]+) hazards? displayed \(([0-9]+) errors?, ([0-9]+) warnings?\).*/\1 \2 \3/' \
        <<<"$summary" | awk -v what="$what" 'NF == 3 && $1 ~ /^[0-9]+$/ {
            printf "%s, hazards displayed\t%s\thazards\n%s, of them errors\t%s\terrors\n%s, of them warnings\t%s\twarnings\n",
                what, $1, what, $2, what, $3 }')$'\n'
    grep -qF "$what, hazards displayed" <<<"$rows" || fail "cannot read the counts of: $summary"
done
{
    echo "# compute-sanitizer --tool racecheck ($("$sanitizer" --version | sed -n 's/^Version \([0-9.]*\).*/\1/p' | head -n 1)), $gpu,"
    echo "# $today (research/profile-records.sh): its summary line for stage 03's"
    echo "# solution and for a copy without the second __syncthreads()"
    echo "# (no_second_barrier.cu), each run as make run EX=03 SANITIZE=1 runs"
    echo "# racecheck: ${race_args[*]}."
    printf '# what\tvalue\tunit\n'
    printf '%s' "$rows"
} >"$out/racecheck.tsv"
echo "records: $out/profile.tsv, $out/racecheck.tsv"
