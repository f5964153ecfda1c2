#!/usr/bin/env bash
# tools/profile.sh: hardware counters of one call of a kernel, in plain words,
# beside a reference's. Behind `make profile EX=NN`; make grade calls it with
# --brief for a few lines of hints.
#
#   tools/profile.sh [--brief] STAGE BINARY [REFERENCE] [-- DRIVER-ARGS...]
#   tools/profile.sh --expected STAGE BINARY [-- DRIVER-ARGS...]
#
# BINARY is one of a stage's programs (build/03_tiled/exercise, a knob build,
# ...). It runs under Nsight Compute (ncu) with --profile: its checks first,
# then one call of the kernel between cudaProfilerStart and cudaProfilerStop,
# the only part ncu measures (--profile-from-start off): not cuBLAS, not the
# fills, not the baseline. REFERENCE, when given, is measured the same way
# (make profile passes the stage's solution where solutions/ exists). Without
# it the reference values come from profile/expected.tsv, for this stage and
# GPU; --expected (make profile-expected) measures BINARY and stores its
# values there.
#
# Environment: NCU (the ncu to use; default: ncu on PATH, else next to nvcc),
# PROFILE_DIR (reports; default build/profile), PROFILE_EXPECTED (the stored
# values; default profile/expected.tsv).
#
# Exit status: 0 the counters were shown, or they cannot be measured here (no
# ncu, counters restricted to administrators: one line says so); 1 the
# program failed its checks or crashed, or ncu measured nothing; 2 usage;
# 3 no GPU. With --expected, anything short of a measurement exits 1.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")

usage() {
    echo "usage: tools/profile.sh [--brief] STAGE BINARY [REFERENCE] [-- DRIVER-ARGS...]" >&2
    echo "       tools/profile.sh --expected STAGE BINARY [-- DRIVER-ARGS...]" >&2
    exit 2
}

mode=full
case ${1:-} in
    --brief) mode=brief; shift ;;
    --expected) mode=expected; shift ;;
esac
[ $# -ge 2 ] || usage
stage=$1 bin=$2
shift 2
ref=""
if [ $# -gt 0 ] && [ "$1" != -- ]; then
    ref=$1
    shift
fi
if [ $# -gt 0 ]; then
    [ "$1" = -- ] || usage
    shift
fi
driver_args=("$@")
[ "$mode" = expected ] && [ -n "$ref" ] && usage
for b in "$bin" $ref; do
    [ -x "$b" ] || { echo "error: $b is not a program here (build it first: make)" >&2; exit 2; }
done

out=${PROFILE_DIR:-build/profile}
expected=${PROFILE_EXPECTED:-$root/profile/expected.tsv}
ex=${stage%%_*}
mkdir -p "$out" || exit 2

# ------------------------------------------------------------ finding ncu
if [ -n "${NCU:-}" ]; then
    ncu=$NCU
elif ! ncu=$(command -v ncu); then
    ncu=$(dirname "$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)")/ncu
fi
if [ ! -x "$ncu" ]; then
    echo "hardware counters: skipped, Nsight Compute (ncu) is not installed here; it comes with the" \
         "full CUDA Toolkit (if it is installed elsewhere: make profile NCU=/path/to/ncu)"
    [ "$mode" = expected ] && exit 1
    exit 0
fi
metrics=$(awk -v list=1 -f "$here/ncu_raw.awk" </dev/null)
base_metrics=$(awk -v list=base -f "$here/ncu_raw.awk" </dev/null)
ncu_version=$("$ncu" --version 2>/dev/null | awk '/Version/ { print $2; exit }')

# json_value KEY FILE: the first value of KEY in a record (the drivers write
# one key per line); tsv_value KEY FILE: the value of KEY in a summary.
json_value() {
    awk -v key="\"$1\":" '$1 == key {
        v = $0; sub(/^[^:]*: */, "", v); sub(/,$/, "", v); gsub(/^"|"$/, "", v); print v; exit
    }' "$2" 2>/dev/null
}
tsv_value() {
    awk -F'\t' -v key="$1" '$1 == key { print $2; exit }' "$2" 2>/dev/null
}

# measure BINARY NAME: run BINARY under ncu and leave in $out: NAME.log (the
# output of ncu and of the program), NAME.json (the program's record),
# NAME.ncu-rep (the report, for the Nsight Compute window), NAME.csv (its raw
# page) and NAME.tsv (the summary, tools/ncu_raw.awk). Returns 0 measured,
# 10 counters restricted, 11 the program failed, 12 no GPU, 13 nothing
# measured.
measure() {
    local bin=$1 base=$out/$2 status
    local asked=$metrics
    rm -f "$base.log" "$base.json" "$base.ncu-rep" "$base.csv" "$base.tsv"
    # clocks locked to base (ncu's default, said here so the output's note
    # holds whatever a config file says)
    while :; do
        "$ncu" --profile-from-start off --clock-control base --metrics "$asked" \
            --export "$base" --force-overwrite \
            "$bin" --profile --json "$base.json" ${driver_args[@]+"${driver_args[@]}"} >"$base.log" 2>&1
        # an ncu that does not know an optional metric refuses them all: ask
        # again without them (the access width then comes from the stage)
        [ "$asked" != "$base_metrics" ] && [ ! -s "$base.ncu-rep" ] &&
            grep -qi "failed to find metric\|metric.*not \(found\|supported\|available\)" "$base.log" || break
        asked=$base_metrics
    done
    grep -q ERR_NVGPUCTRPERM "$base.log" && return 10
    status=$(json_value exit_status "$base.json")
    if [ -z "$status" ]; then
        grep -q "no usable CUDA GPU" "$base.log" && return 12
        return 11
    fi
    [ "$status" = 3 ] && return 12
    [ "$status" = 0 ] || return 11
    [ -s "$base.ncu-rep" ] || return 13
    # the C locale, so that numbers come with a decimal point
    LC_ALL=C "$ncu" --import "$base.ncu-rep" --csv --page raw --print-units base \
        >"$base.csv" 2>>"$base.log"
    {
        awk -f "$here/ncu_raw.awk" "$base.csv"
        printf 'gpu\t%s\n' "$(json_value name "$base.json")"
        printf 'size\t%s\n' "$(json_value profiled_size "$base.json")"
        printf 'knob\t%s\n' "$(json_value knob "$base.json")"
        printf 'ncu\t%s\n' "$ncu_version"
    } >"$base.tsv"
    [ "$(tsv_value launches "$base.tsv")" -gt 0 ] || return 13
    return 0
}

# Say why BINARY (measured as NAME) gave no counters; one line in brief mode.
explain() {
    local code=$1 bin=$2 base=$out/$3 message
    case $code in
    10)
        echo "hardware counters: skipped, this machine lets only administrators read the GPU's" \
             "performance counters (ERR_NVGPUCTRPERM); an administrator can allow all users (nvidia" \
             "module option NVreg_RestrictProfilingToAdminUsers=0) or run ncu as root / with CAP_SYS_ADMIN"
        ;;
    11)
        message=$(json_value message "$base.json")
        echo "hardware counters: nothing to profile, $bin failed" \
             "(${message:-it ended without a record}); make it pass its checks first: make run EX=$ex"
        if [ "$mode" != brief ]; then
            grep -v '^==' "$base.log" | tail -n 15 | sed 's/^/  /'
            echo "(the whole output: $base.log)"
        fi
        ;;
    12)
        echo "hardware counters: no usable CUDA GPU here; run on a machine with an NVIDIA GPU"
        ;;
    13)
        echo "hardware counters: ncu measured no kernel in the profiled call of $bin"
        if [ "$mode" != brief ]; then
            grep '^==\(ERROR\|WARNING\)==' "$base.log" | head -n 5 | sed 's/^/  /'
            echo "(the whole output: $base.log)"
        fi
        ;;
    esac
}

# the exit status that goes with each reason
status_of() {
    case $1 in
    10) [ "$mode" = expected ] && echo 1 || echo 0 ;;
    12) echo 3 ;;
    *) echo 1 ;;
    esac
}

# build/03_tiled/k32/exercise -> 03_tiled-k32-exercise
name_of() {
    local n=${1#./}
    n=${n##*build/}
    n=${n#/}
    echo "${n//\//-}"
}

# ------------------------------------------------------------ measuring
yours=$(name_of "$bin")
[ "$mode" = full ] && echo "profiling $bin under Nsight Compute: its checks, then one call..."
measure "$bin" "$yours"
code=$?
if [ $code != 0 ]; then
    explain $code "$bin" "$yours"
    exit "$(status_of $code)"
fi
gpu=$(tsv_value gpu "$out/$yours.tsv")

# ------------------------------------------------ storing (--expected)
if [ "$mode" = expected ]; then
    tmp=$(mktemp) || exit 1
    {
        if [ -f "$expected" ]; then
            grep '^#' "$expected"
        else
            echo "# The solutions' hardware counters, for make profile where solutions/ is absent."
            echo "# Written by make profile-expected (tools/profile.sh --expected) on each GPU;"
            echo "# one line per stage, GPU and key: stage, gpu, key, value."
        fi
        {
            [ -f "$expected" ] && awk -F'\t' -v s="$stage" -v g="$gpu" \
                '!/^#/ && NF >= 4 && !($1 == s && $2 == g)' "$expected"
            awk -F'\t' -v s="$stage" -v g="$gpu" \
                '$1 !~ /_(sectors|requests|wavefronts|inst|bytes)$/ { print s "\t" g "\t" $1 "\t" $2 }' \
                "$out/$yours.tsv"
            printf '%s\t%s\tdate\t%s\n' "$stage" "$gpu" "$(date +%Y-%m-%d)"
        } | LC_ALL=C sort -s -t "$(printf '\t')" -k1,1 -k2,2
    } >"$tmp" && mv "$tmp" "$expected" || exit 1
    echo "stored the counters of $bin for $stage on $gpu in $expected"
    exit 0
fi

# ------------------------------------------------------- the reference
reftsv=$out/$yours.reference
: >"$reftsv"
if [ -n "$ref" ]; then
    refname=$(name_of "$ref")
    [ "$refname" = "$yours" ] && refname=$refname-reference
    [ "$mode" = full ] && echo "profiling the reference, $ref..."
    measure "$ref" "$refname"
    code=$?
    if [ $code = 0 ]; then
        cp "$out/$refname.tsv" "$reftsv"
        ref_label=$ref
    else
        ref_label="$ref could not be measured (see $out/$refname.log)"
    fi
else
    # this GPU's stored values, else those of the first GPU listed
    if [ -f "$expected" ]; then
        awk -F'\t' -v s="$stage" -v g="$gpu" '!/^#/ && $1 == s && $2 == g { print $3 "\t" $4 }' \
            "$expected" >"$reftsv"
        [ -s "$reftsv" ] || awk -F'\t' -v s="$stage" \
            '!/^#/ && $1 == s { if (g == "") g = $2; if ($2 == g) print $3 "\t" $4 }' \
            "$expected" >"$reftsv"
    fi
    if [ -s "$reftsv" ]; then
        ref_gpu=$(tsv_value gpu "$reftsv")
        ref_label="the solution, stored in ${expected#"$root"/} ($(tsv_value date "$reftsv")"
        if [ "$ref_gpu" != "$gpu" ]; then
            ref_label="$ref_label, on $ref_gpu: occupancy and DRAM differ between GPUs)"
        else
            ref_label="$ref_label)"
        fi
        [ "$(tsv_value size "$reftsv")" != "$(tsv_value size "$out/$yours.tsv")" ] &&
            ref_label="$ref_label, at $(tsv_value size "$reftsv")"
    else
        ref_label="none: no solution here, and no stored values for $stage (instructors: make profile-expected)"
    fi
fi

# ------------------------------------------------------------ the report
[ "$mode" = full ] && echo
awk -v mode="$mode" -v ex="$ex" -v yours_label="$bin" -v ref_label="$ref_label" \
    -v report="$out/$yours.ncu-rep" -f "$here/profile_report.awk" "$out/$yours.tsv" "$reftsv"
exit 0
