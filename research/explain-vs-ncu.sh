#!/usr/bin/env bash
# research/explain-vs-ncu.sh OUT: make explain's counts (the CPU emulation,
# emu/explain.cc) beside Nsight Compute's for the same launch at the same
# size, on a GPU: global load and store requests and sectors, shared load and
# store instructions and wavefronts, and the ratios make explain prints.
#
# The kernels, each at make explain's size (matmul n=256, transpose
# 256x256), one call under ncu (--profile-from-start off, the driver's
# --profile: the call that make profile measures):
#   01 solution          threadIdx.x on columns, 16 x 16 threads
#   01 rows              threadIdx.x on rows (tests/fixtures/matmul_rows_mapped.cu)
#   03 solution          shared tiles, broadcast reads of As
#   04 solution          the [32][32] tile: stage 05's unpadded baseline
#   05 padded 32x33      tests/emu/transpose_tile_padded.cu, built with make kernel EX=05
#   05 solution          the [64][65] tile
#   06 solution          float4 loads and shared reads
#
# OUT gets a table, one row a count: kernel, size, what, make explain's,
# ncu's (the same table goes to the terminal); OUT.d/ the logs, the
# reports and the raw pages. Run from a lab built with make all (it builds
# what else it needs: the fixture, the padded kernel, the emulated
# programs). NCU picks the ncu (default: on PATH, else beside nvcc).
# Exit status: 0 done; 1 a build, a measurement or a parse failed (the
# message says which, and its log); 2 usage; 3 no GPU or no ncu.
set -u
out=${1:-}
if [ $# != 1 ] || [ "${out#-}" != "$out" ]; then echo "usage: research/explain-vs-ncu.sh OUT" >&2; exit 2; fi
mkdir -p "$(dirname "$out")" && : >"$out" || { echo "explain-vs-ncu: cannot write $out" >&2; exit 2; }
out=$(cd "$(dirname "$out")" && pwd)/$(basename "$out")
logs=$out.d
mkdir -p "$logs" || exit 2
cd "$(dirname "$0")/.." || exit 2
. tools/stages.sh
s1=$(stage_numbered 01) s3=$(stage_numbered 03) s4=$(stage_numbered 04) s5=$(stage_numbered 05)
s6=$(stage_numbered 06)
fail() { echo "explain-vs-ncu: $*" >&2; exit 1; }

nvidia-smi -L 2>/dev/null | grep -q '^GPU' || { echo "explain-vs-ncu: no GPU here (nvidia-smi -L lists none)" >&2; exit 3; }
# ncu: NCU, else on PATH, else in the toolkit's bin folder as nvcc names it
toolkit_bin=$(nvcc -dryrun -c -x cu /dev/null -o /dev/null 2>&1 | sed -n 's/^#\$ _HERE_=//p' | head -n 1)
ncu=${NCU:-$(command -v ncu 2>/dev/null || echo "$toolkit_bin/ncu")}
[ -x "$ncu" ] || { echo "explain-vs-ncu: no ncu (NCU=/path/to/ncu, or on PATH, or beside nvcc)" >&2; exit 3; }

padded=tests/emu/transpose_tile_padded.cu
{
    make --no-print-directory "build/$s1/solution" "build/$s3/solution" "build/$s4/solution" "build/$s5/solution" \
        "build/$s6/solution" build/fixtures/matmul_rows_mapped &&
        make --no-print-directory kernel EX=05 KERNEL=$padded &&
        make --no-print-directory "build/$s1/solution-emu" "build/$s3/solution-emu" "build/$s4/solution-emu" \
            "build/$s5/solution-emu" "build/$s6/solution-emu" build/fixtures/matmul_rows_mapped-emu \
            build/fixtures/transpose_tile_padded-emu
} >"$logs/build.log" 2>&1 || fail "the build failed ($logs/build.log)"

metrics=(l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum
         l1tex__t_requests_pipe_lsu_mem_global_op_st.sum l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum
         smsp__inst_executed_op_shared_ld.sum l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum
         smsp__inst_executed_op_shared_st.sum l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum)
# our names for them, in that order, and for make explain's sums
keys=(gld_requests gld_sectors gst_requests gst_sectors shld_inst shld_wavefronts shst_inst shst_wavefronts)

# ncu's raw page (every field quoted; numbers may hold thousands commas),
# each metric summed over the launches of the call: "key value" lines
ncu_sums() {
    awk -v names="${metrics[*]}" -v keys="${keys[*]}" '
    !/^"/ { next }
    { line = substr($0, 2, length($0) - 2); n = split(line, f, /","/) }
    !header++ { for (i = 1; i <= n; i++) col[f[i]] = i; next }
    f[1] == "" || f[1] !~ /^[0-9]+$/ { next }
    {
        launches++
        m = split(names, name, " "); split(keys, key, " ")
        for (i = 1; i <= m; i++) { v = f[col[name[i]]]; gsub(/,/, "", v); sum[key[i]] += v }
    }
    END {
        if (!launches) exit 1
        for (k in sum) printf "%s %.0f\n", k, sum[k]
        printf "launches %d\n", launches
    }'
}

# make explain's table summed by memory and direction: "key value" lines
explain_sums() {
    awk '
    /^  [^ ]+  +(global|shared) +(load|store) / {
        k = ($2 == "global" ? "g" : "sh") ($3 == "load" ? "ld" : "st")
        if (match($0, /(requests|instructions) +[0-9]+/)) { split(substr($0, RSTART, RLENGTH), a, / +/); req[k] += a[2] }
        if (match($0, /(sectors|wavefronts) +[0-9]+/)) { split(substr($0, RSTART, RLENGTH), b, / +/); units[k] += b[2] }
    }
    END {
        printf "gld_requests %d\ngld_sectors %d\ngst_requests %d\ngst_sectors %d\n", req["gld"], units["gld"], req["gst"], units["gst"]
        printf "shld_inst %d\nshld_wavefronts %d\nshst_inst %d\nshst_wavefronts %d\n", req["shld"], units["shld"], req["shst"], units["shst"]
    }'
}

value() { awk -v k="$1" '$1 == k { print $2 }' <<<"$2"; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "-" }'; }

gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -n 1)
{
    echo "# make explain (the CPU emulation, emu/explain.cc) beside Nsight Compute, the same"
    echo "# launch at the same size: $gpu, $("$ncu" --version | tail -n 1), $(date -u +%Y-%m-%d)"
    echo "# (research/explain-vs-ncu.sh). Counts are of the whole launch; the ratios are"
    echo "# sectors per request and wavefronts per instruction."
    printf '# kernel\tsize\twhat\texplain\tncu\n'
} >"$out"

# compare NAME SIZE GPU-PROGRAM EMULATED-PROGRAM
compare() {
    local name=$1 size=$2 gpu_bin=$3 emu_bin=$4 emu ncu_page ncu_sum k
    emu=$("$emu_bin" --explain --sizes "$size" 2>&1 | tee "$logs/explain-$name.log" | explain_sums)
    grep -q 'what the memory system sees' "$logs/explain-$name.log" ||
        fail "make explain counted nothing for $name ($logs/explain-$name.log)"
    rm -f "$logs/ncu-$name.ncu-rep"
    "$ncu" --profile-from-start off --metrics "$(IFS=,; echo "${metrics[*]}")" --export "$logs/ncu-$name" \
        --force-overwrite "$gpu_bin" --sizes "$size" --n "$size" --profile >"$logs/ncu-$name.log" 2>&1
    if [ ! -s "$logs/ncu-$name.ncu-rep" ] && grep -qi 'metric' "$logs/ncu-$name.log" &&
        [ "${metrics[4]}" = smsp__inst_executed_op_shared_ld.sum ]; then
        # an ncu that knows the shared instructions by their SASS name only
        metrics[4]=smsp__sass_inst_executed_op_shared_ld.sum metrics[6]=smsp__sass_inst_executed_op_shared_st.sum
        echo "# ncu refused smsp__inst_executed_op_shared_*: the shared instructions are smsp__sass_inst_executed_op_shared_*" |
            tee -a "$out"
        compare "$@"
        return
    fi
    [ -s "$logs/ncu-$name.ncu-rep" ] || fail "ncu measured nothing for $name ($logs/ncu-$name.log)"
    ncu_page=$logs/ncu-$name.csv
    "$ncu" --import "$logs/ncu-$name.ncu-rep" --csv --page raw --print-units base >"$ncu_page" 2>>"$logs/ncu-$name.log" ||
        fail "ncu could not read its report of $name ($logs/ncu-$name.log)"
    ncu_sum=$(ncu_sums <"$ncu_page") || fail "no launch in ncu's page of $name ($ncu_page)"
    for k in "${keys[@]}"; do
        printf '%s\t%s\t%s\t%s\t%s\n' "$name" "$size" "$k" "$(value "$k" "$emu")" "$(value "$k" "$ncu_sum")"
    done >>"$out"
    for k in gld:sectors gst:sectors shld:wavefronts shst:wavefronts; do
        local base=${k%%:*} units=${k#*:} req=requests per=request
        [ "${base#sh}" != "$base" ] && req=inst per=instruction
        printf '%s\t%s\t%s_%s_per_%s\t%s\t%s\n' "$name" "$size" "$base" "$units" "$per" \
            "$(ratio "$(value "${base}_$units" "$emu")" "$(value "${base}_$req" "$emu")")" \
            "$(ratio "$(value "${base}_$units" "$ncu_sum")" "$(value "${base}_$req" "$ncu_sum")")"
    done >>"$out"
    echo "$name: done ($(value launches "$ncu_sum") launch(es) under ncu)"
}

compare "01-solution" 256 "build/$s1/solution" "build/$s1/solution-emu"
compare "01-rows" 256 build/fixtures/matmul_rows_mapped build/fixtures/matmul_rows_mapped-emu
compare "03-solution" 256 "build/$s3/solution" "build/$s3/solution-emu"
compare "04-solution-32x32" 256x256 "build/$s4/solution" "build/$s4/solution-emu"
compare "05-padded-32x33" 256x256 "build/$s5/kernels/transpose_tile_padded" build/fixtures/transpose_tile_padded-emu
compare "05-solution-64x65" 256x256 "build/$s5/solution" "build/$s5/solution-emu"
compare "06-solution" 256 "build/$s6/solution" "build/$s6/solution-emu"
echo
grep '^#' "$out"
grep -v '^#' "$out" | { column -t -s $'\t' 2>/dev/null || cat; }
echo "table: $out (logs, reports and raw pages: $logs/)"
