#!/usr/bin/env bash
# research/w08-variants.sh [--cpu] OUTDIR: the candidates for stage 08's
# solution (research/experiments/w08/, whose README says what each changes
# and what it is predicted to do) against the solution, in one command.
#
# On a GPU (about 2 minutes on an H200): every row of VARIANTS below built
# as research/experiments/warptile.cu with the row's file in the solution's
# place (-DKERNEL_FILE, nvcc -O3, the row's -arch and flags, ptxas -v), the
# builds in parallel; then ROUNDS rounds (default 3), each running every row
# once in the table's order, the solution first (base, v1, v2, ..., base,
# v1, ...), so that the GPU's drift falls on all of them. Each run checks
# at n = 1, 17, 129, 260, 1000, 1024 and N against cuBLAS, then times N
# (default 4096) alternating with cuBLAS SGEMM (medians of 31 calls). A
# row that does not build, fails a check or runs past 30 s is said so in the
# table and not run again; the others go on. Past BUDGET_S seconds (default
# 210) no new run starts. OUTDIR gets each build's and run's log,
# variants.tsv (a line a row: its % of cuBLAS in each round, the median,
# the median's difference from base's in points, registers and spills,
# the checks) and table.txt, which is also printed.
#
# --cpu (no GPU needed, about a minute): every row compiled for sm_90 alone
# (registers and spills from ptxas -v), the bench built with each, and each
# row's file run on the CPU emulation (make explain's build of a KERNEL=
# file: build/08_warptiling/kernels/<name>-emu, through judge/launch.sh)
# at EMU_SIZES with two seeds, plus the rows of CPU_ONLY (the block order
# with groups small enough for the emulated sizes); OUTDIR/cpu.tsv.
#
# Exit status: 0 when every row built and passed its checks, 1 when one did
# not, 2 for bad arguments, 3 for no GPU (without --cpu).
set -u
cd "$(dirname "$0")/.." || exit 2
cpu=0
if [ "${1:-}" = --cpu ]; then cpu=1; shift; fi
out=${1:?usage: research/w08-variants.sh [--cpu] OUTDIR}
mkdir -p "$out/bin" || exit 2
out=$(cd "$out" && pwd)
N=${N:-4096}
ROUNDS=${ROUNDS:-3}
BUDGET_S=${BUDGET_S:-210}
EMU_SIZES=${EMU_SIZES:-256,1,17,255,33,100,260,512,700}
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
[ -x "$NVCC" ] || { echo "w08-variants: no nvcc (put the CUDA Toolkit's bin/ on PATH, or NVCC=...)" >&2; exit 2; }
t0=$(date +%s)
stamp() { printf '[%3d s] %s\n' $(($(date +%s) - t0)) "$*"; }

# name, -arch, file, flags: the solution first, as base
VARIANTS='
base        sm_90  solutions/08_warptiling/kernel.cu
v1          sm_90  research/experiments/w08/v1_fragbuf.cu
v1-bk16     sm_90  research/experiments/w08/v1_fragbuf.cu      -DBK=16
v2          sm_90  research/experiments/w08/v2_raster_nc.cu
v2-nc-only  sm_90  research/experiments/w08/v2_raster_nc.cu    -DGROUP=0
v3          sm_90  research/experiments/w08/v3_cpasync.cu
v3-s2       sm_90  research/experiments/w08/v3_cpasync.cu      -DSTAGES=2
v3-s4       sm_90  research/experiments/w08/v3_cpasync.cu      -DSTAGES=4
v3-bk16     sm_90  research/experiments/w08/v3_cpasync.cu      -DBK=16 -DSTAGES=2
v4          sm_90  research/experiments/w08/v4_fragbuf_all.cu
base-native native solutions/08_warptiling/kernel.cu
'
# on the CPU only: groups of 2 block rows, so that the emulated sizes (a
# grid of up to 6 block rows) have several groups and a short last one
CPU_ONLY='
v2-group2   sm_90  research/experiments/w08/v2_raster_nc.cu    -DGROUP=2
v4-group2   sm_90  research/experiments/w08/v4_fragbuf_all.cu  -DGROUP=2
'

# registers and spilled bytes of the kernel's two instances, from ptxas -v:
# "fast/edge registers<TAB>spilled bytes (stores + loads)"
resources() {
    awk '/Function properties for .*matmul_warptile/ { edge = /ILb1E/; want = 1; next }
         want && /spill stores/ { spill += $5 + $9 }
         want && /Used [0-9]+ registers/ { r[edge] = $5; want = 0 }
         END { printf "%s/%s\t%d", r[0] == "" ? "?" : r[0], r[1] == "" ? "?" : r[1], spill }' "$1"
}

# the bench with one row's kernel in the solution's place
build_bench() { # name arch file flags...
    local name=$1 arch=$2 file=$3
    shift 3
    "$NVCC" -O3 -std=c++17 -arch="$arch" -Icommon -Xptxas -v -DKERNEL_FILE="\"$PWD/$file\"" "$@" \
        -o "$out/bin/$name" research/experiments/warptile.cu -lcublas >"$out/build-$name.log" 2>&1
}

# a TSV file as aligned columns, where column(1) is
show() { if command -v column >/dev/null; then column -t -s $'\t' "$1"; else cat "$1"; fi; }

# the fast instance's machine code, where cuobjdump is: its instructions of
# each kind that matters here (the tile step's loop body is there once)
sass_counts() { # binary sass-file
    command -v cuobjdump >/dev/null || { echo "-"; return; }
    cuobjdump -sass "$1" 2>&1 | awk '/Function : / { on = /matmul_warptileILb0E/ } on' >"$2"
    [ -s "$2" ] || { echo "-"; return; }
    awk '{ for (i = 1; i <= NF; i++) { op = $i; sub(/\..*/, "", op); sub(/;$/, "", op); c[op]++ } }
         END { printf "%d/%d/%d/%d/%d/%d", c["FFMA"], c["LDS"], c["STS"], c["LDG"], c["LDGSTS"], c["BAR"] }' "$2"
}

median() { tr ' ' '\n' | grep . | sort -g | awk '{ v[NR] = $1 } END { if (NR) printf "%.1f", NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# ---------------------------------------------------------------- --cpu
cpu_checks() {
    local status=0 name arch file flags res emu seed said bin
    printf 'variant\tfile\tflags\tregisters fast/edge\tspilled bytes\tbench builds\temulation\n' >"$out/cpu.tsv"
    while read -r name arch file flags; do
        if [ -z "$name" ] || [ "$arch" != sm_90 ]; then continue; fi
        # shellcheck disable=SC2086 # flags are words
        "$NVCC" -O3 -std=c++17 -arch=sm_90 -Icommon -Xptxas -v $flags -c -o "$out/bin/$name.o" "$file" \
            </dev/null >"$out/ptxas-$name.log" 2>&1 && res=$(resources "$out/ptxas-$name.log") || res="no build	-"
        # shellcheck disable=SC2086
        if build_bench "$name" sm_90 "$file" $flags </dev/null; then said=yes; else said=no status=1; fi
        emu=ok
        # make explain rebuilds a KERNEL= file when it changes, not when its
        # KERNEL_FLAGS do: the previous row's objects go first
        bin=build/08_warptiling/kernels/$(basename "$file" .cu)
        rm -f "$bin-emu" "$bin-emu.o" "$bin-emu.check.o"
        make -s explain EX=08 KERNEL="$file" KERNEL_FLAGS="$flags" </dev/null >"$out/emu-$name-build.log" 2>&1 || emu="no build"
        for seed in 1 2; do
            [ "$emu" = ok ] || break
            judge/launch.sh --stage 08_warptiling --object "$bin-emu.check.o" --emulated \
                --source "$bin.src/08_warptiling/kernel.cu" -- "$bin-emu" --sizes "$EMU_SIZES" --seed "$seed" \
                </dev/null >"$out/emu-$name-seed$seed.log" 2>&1
            grep -q '^verdict: correct' "$out/emu-$name-seed$seed.log" || emu="FAILED (seed $seed)"
        done
        [ "$emu" = ok ] && [ "${res#no build}" = "$res" ] || status=1
        printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "$file" "${flags:--}" "$res" "$said" "$emu" >>"$out/cpu.tsv"
        stamp "$name: registers/spills $res, bench builds: $said, emulation at $EMU_SIZES: $emu"
    done <<<"$VARIANTS$CPU_ONLY"
    show "$out/cpu.tsv" | tee "$out/table.txt"
    return $status
}

if [ $cpu = 1 ]; then
    cpu_checks
    exit $?
fi

# ---------------------------------------------------------------- the GPU
nvidia-smi -L >/dev/null 2>&1 || { echo "w08-variants: no GPU here (nvidia-smi -L fails); --cpu checks without one" >&2; exit 3; }
{
    echo "date: $(date -u '+%Y-%m-%d %H:%M UTC')"
    if c=$(git rev-parse --short HEAD 2>/dev/null); then
        echo "commit: $c$(git diff --quiet HEAD 2>/dev/null || echo ' (with changes)')"
    else
        echo "commit: unknown (no git repository here)"
    fi
    nvidia-smi -L
    nvidia-smi --query-gpu=driver_version,clocks.max.sm --format=csv,noheader
    "$NVCC" --version | tail -1
    echo "N $N, rounds $ROUNDS"
} | tee "$out/machine.txt"

stamp "building $(grep -c . <<<"$VARIANTS") variants in parallel"
while read -r name arch file flags; do
    [ -n "$name" ] || continue
    # shellcheck disable=SC2086
    (build_bench "$name" "$arch" "$file" $flags; echo $? >"$out/build-$name.rc") </dev/null &
done <<<"$VARIANTS"
wait
declare -A state pcts res sass
names=()
while read -r name arch file flags; do
    [ -n "$name" ] || continue
    names+=("$name")
    res[$name]=$(resources "$out/build-$name.log")
    if [ "$(cat "$out/build-$name.rc")" = 0 ]; then state[$name]=ok; else state[$name]="no build"; fi
    sass[$name]=-
    [ "${state[$name]}" = ok ] && sass[$name]=$(sass_counts "$out/bin/$name" "$out/sass-$name.txt")
    stamp "$name: built ${state[$name]}, registers fast/edge and spilled bytes: ${res[$name]}"
done <<<"$VARIANTS"

for round in $(seq 1 "$ROUNDS"); do
    for name in "${names[@]}"; do
        [ "${state[$name]}" = ok ] || continue
        if [ $(($(date +%s) - t0)) -ge "$BUDGET_S" ]; then
            stamp "past $BUDGET_S s: no more runs (round $round)"
            break 2
        fi
        log=$out/run-$name-$round.log
        timeout 30 "$out/bin/$name" "$N" </dev/null >"$log" 2>&1
        rc=$?
        pct=$(grep -o '[0-9.]*% of cuBLAS' "$log" | tr -d '% ofcuBLAS')
        if [ $rc != 0 ] || ! grep -q '^checks: all passed' "$log" || [ -z "$pct" ]; then
            state[$name]="FAILED (round $round, exit $rc: $(grep -m1 -E 'WRONG|error|failed' "$log" | cut -c1-60))"
        else
            pcts[$name]="${pcts[$name]:-} $pct"
        fi
        stamp "round $round $name: ${pct:-no time} ${state[$name]}"
    done
done

base_median=$(median <<<"${pcts[base]:-}")
{
    printf 'variant\tflags\t%% of cuBLAS at %s, round by round\tmedian\tvs base (points)\tregisters fast/edge\tspilled bytes\tSASS FFMA/LDS/STS/LDG/LDGSTS/BAR\tchecks\n' "$N"
    while read -r name arch file flags; do
        [ -n "$name" ] || continue
        p=${pcts[$name]:-}
        p=${p# }
        m=$(median <<<"$p")
        d=$( [ -n "$m" ] && [ -n "$base_median" ] && awk -v a="$m" -v b="$base_median" 'BEGIN { printf "%+.1f", a - b }')
        printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "${flags:--} ($arch)" "${p:--}" "${m:--}" \
            "${d:--}" "${res[$name]}" "${sass[$name]}" "${state[$name]}"
    done <<<"$VARIANTS"
} >"$out/variants.tsv"
show "$out/variants.tsv" | tee "$out/table.txt"
stamp "done; logs in $out"
for name in "${names[@]}"; do [ "${state[$name]}" = ok ] || exit 1; done
exit 0
