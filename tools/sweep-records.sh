#!/usr/bin/env bash
# tools/sweep-records.sh: what the lab's records measured for a stage's knob,
# for a student whose make sweep cannot run here (no GPU): tools/sweep.sh
# prints it before it exits 3.
#
#   tools/sweep-records.sh [--records DIR] [--arch CC] STAGE KNOB
#
# The records are the tables of make sweep's runs, DIR/<run>/sweeps.tsv
# (DIR: default measurements), read through tools/record-values.sh: their
# rows for STAGE at KNOB=<value>, each with its rate and median time. The
# GPU of a run is named by its make bench records (DIR/<run>/*.json: the
# GPU's name and compute capability), else by the run's folder name. The
# run shown is the newest (by the date in its folder's name) of those made
# on a GPU of compute capability CC (--arch 90: the Makefile's COURSE_ARCH,
# which make sweep passes as LAB_COURSE_ARCH), else of any GPU, which it
# then says; runs of the same newest date are all shown. For each: every
# value's time and rate, which value was fastest and how many times the
# others' rate it reached, and that these are the solution's times.
# Where no run swept STAGE's KNOB, one line says so.
#
# Exit status: 0 a record shown; 1 none; 2 bad arguments.
set -u
usage() { echo "usage: tools/sweep-records.sh [--records DIR] [--arch CC] STAGE KNOB" >&2; exit 2; }
records=measurements arch=
while [ $# -gt 0 ]; do
    case $1 in
    --records) [ $# -ge 2 ] || usage; records=$2; shift 2 ;;
    --arch) [ $# -ge 2 ] || usage; arch=$2; shift 2 ;;
    -h | --help) sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    -*) echo "sweep-records: unknown option $1 (try --help)" >&2; exit 2 ;;
    *) break ;;
    esac
done
if [ $# != 2 ] || [ -z "$1" ] || [ -z "$2" ]; then usage; fi
stage=$1 knob=$2
[[ -z $arch || $arch =~ ^[0-9]+\.?[0-9]$ ]] ||
    { echo "sweep-records: --arch $arch: a compute capability is 90 or 9.0 (the Makefile's COURSE_ARCH)" >&2; exit 2; }
tools=$(dirname "$0")

# "folder<TAB>name<TAB>cc" of each run with a sweeps.tsv: the GPU its first
# make bench record names (name and cc of the record's "gpu" object, read
# by tools/json.sh flat: the lab's JSON reader)
gpus() {
    local run
    for run in "$records"/*/sweeps.tsv; do
        [ -f "$run" ] || continue
        run=${run%/sweeps.tsv}
        "$tools/json.sh" flat --names "$run"/*.json 2>/dev/null | awk -F'\t' -v run="${run##*/}" '
        $2 ~ /(^|\.)gpu\.[^.]+$/ { in_gpu = 1; if ($2 ~ /\.(name|cc)$/) got[$2 ~ /\.cc$/] = $3; next }
        in_gpu { exit }
        END { if (in_gpu) print run "\t" got[0] "\t" got[1] }'
    done
}

# the record-values lines of the sweeps (none where DIR is not: a copy without records)
values=
if [ -d "$records" ]; then
    values=$("$tools/record-values.sh" --records "$records" 2>&1) || { echo "sweep-records: $values" >&2; exit 2; }
fi
# the GPUs, then the values: one awk chooses the runs and prints them
gpus | awk -F'\t' -v dir="$records" -v stage="$stage" -v knob="$knob" -v arch="${arch//./}" '
FILENAME == "-" { name[$1] = $2; cc[$1] = $3; next }
$1 !~ /\/sweeps\.tsv$/ { next }
$2 == "gpu" || $2 == "date" { meta[$1, $2] = $3; next }
index($4, stage " " knob "=") != 1 { next }
{
    split($4, key, " "); value = substr(key[2], length(knob) + 2); src = $1
    if (!((src, value) in seen)) { seen[src, value] = 1; nv[src]++; val[src, nv[src]] = value }
    if (key[3] == "median_ms") ms[src, value] = $3
    else if (key[3] == "rate") { rate[src, value] = $3; unit[src] = $2 }
}
# the run of src: its folder name; its GPU: the JSON records name, else the folder
function run(src) { sub(/\/sweeps\.tsv$/, "", src); sub(/.*\//, "", src); return src }
function gpu(src) { return name[run(src)] != "" ? name[run(src)] : meta[src, "gpu"] }
# the compute capability of the course GPU as the records write it: 90 is 9.0
function course(src) { return arch != "" && cc[run(src)] == want }
BEGIN { if (arch != "") want = substr(arch, 1, length(arch) - 1) "." substr(arch, length(arch)) }
function show(src,    i, v, best, r, worse, sep) {
    printf "  on an %s (%s%s), %s, %s:\n", gpu(src), cc[run(src)] == "" ? "compute capability unknown" : "compute capability " cc[run(src)],
        course(src) ? ", as the course\047s GPU" : "", meta[src, "date"], src
    best = ""
    for (i = 1; i <= nv[src]; i++) {
        v = val[src, i]; r = rate[src, v] + 0
        printf "    %-16s %10s ms %10s %s\n", knob "=" v, ms[src, v], rate[src, v], unit[src]
        if (best == "" || r > rate[src, best] + 0) best = v
    }
    for (i = 1; i <= nv[src]; i++) {
        v = val[src, i]
        if (v != best && rate[src, v] > 0) { worse = worse sep sprintf("%.2fx %s=%s\047s", rate[src, best] / rate[src, v], knob, v); sep = ", " }
    }
    printf "  %s=%s was fastest%s.\n", knob, best, worse == "" ? "" : ", its rate " worse
}
END {
    for (src in nv) { any = 1; if (course(src)) on_course = 1 }
    if (!any) { printf "sweep: no record of a sweep of %s\047s %s on any GPU (%s/*/sweeps.tsv)\n", stage, knob, dir; exit 1 }
    for (src in nv) if (!on_course || course(src)) { d = meta[src, "date"]; if (d > newest) newest = d }
    printf "sweep: what the lab\047s records measured for %s instead (the solution\047s kernel at each %s):\n", stage, knob
    if (arch != "" && !on_course) printf "  (no record was made on a GPU of the course\047s compute capability, %s)\n", want
    n = 0
    for (src in nv) if ((!on_course || course(src)) && meta[src, "date"] == newest) shown[++n] = src
    for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (shown[j] < shown[i]) { t = shown[i]; shown[i] = shown[j]; shown[j] = t }
    for (i = 1; i <= n; i++) show(shown[i])
    printf "  Your kernel may differ: these are the solution\047s times; make sweep on a GPU times yours.\n"
}' - <(printf '%s\n' "$values")
