#!/usr/bin/env bash
# record-values.sh: what the lab's records hold, one value a line, for
# tools/check-numbers.sh (and for a person asking what a record says).
#
#   tools/record-values.sh [--records DIR] [--profile DIR]
#
# Prints "record<TAB>kind<TAB>value<TAB>key" lines. The record is named as the texts
# name it: measurements/<run>/<file> (DIR given by --records, default
# measurements) or profile/<file> (--profile, default profile). Kinds:
#   GFLOP/s, GB/s, s   a rate or a time in seconds
#   ms                 a kernel's median time
#   %                  a ratio of two rates of one record, in percent, and a
#                      record's own percentages (pct_*, occupancy, conflicts
#                      per instruction, a "P% of" in a table's what column)
#   x                  a ratio of two rates of one record (speedups)
#   sectors, wavefronts, conflicts
#                      Nsight Compute's counters of a profile table
#   hazards            compute-sanitizer racecheck's count, in a table whose
#                      unit column says hazards
#   registers          a profile table's registers, and "N registers" in a
#                      table's what column
#   gpu, date          whose record it is and when (H200, 2026-11-21): from
#                      the folder's name <gpu>-<date>[-...], or a profile
#                      table's gpu column and date rows
# The key names the value within its record, as a text's binding names it
# (tools/check-numbers.sh): in make bench's JSON "<kernel> rate", "<kernel>
# median_ms", "<kernel>/<kernel>" (a ratio, x and %) and the timing's own
# fields (pct_of_reference, speedup_vs_baseline, ratio_to_cublas); in a
# table "<row> <column>", the row its what column, or its stage and knob
# ("08_warptiling BK=8 rate"); in a profile table "<stage> <gpu> <key>";
# in ncu's output the metric's name; across a run "<stage>/<stage>".
# One more record per run folder, measurements/<run>: the ratios (x) of the
# solutions' rates across its files, each stage's bench record and the rows
# of its sweeps (a speedup of one stage's solution over another's).
#
# The records: the JSON files of make bench (each kernel's "rate" and
# "median_ms" in the record's "metric", and the timing's pct_*, speedup_*
# and ratio_to_cublas fields); *.tsv tables under measurements/ whose
# "# "-heading names their columns (rate or value, unit, median_ms,
# pct_of_reference, speedup_vs_baseline, ratio_to_cublas, knob; what; a
# value's unit is its kind: GB/s, sectors, hazards); and profile tables:
# profile/*.tsv and measurements/*/profile.tsv, "stage, gpu, key, value"
# lines as make profile-expected writes them; and Nsight Compute's own
# output, measurements/*/ncu-*.txt, for its percentages (metric lines whose
# unit is %).
set -u
records=measurements
profile=profile
while [ $# -gt 0 ]; do
    case $1 in
    --records) records=${2:-}; shift 2 ;;
    --profile) profile=${2:-}; shift 2 ;;
    -h | --help) sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "record-values: unknown argument $1 (try --help)" >&2; exit 2 ;;
    esac
done
[ -d "$records" ] || { echo "record-values: no records folder $records" >&2; exit 2; }

# the name a text gives a file of DIR: measurements/... or profile/...
awk_common='
function cited(path, dir, as) { return as substr(path, length(dir) + 1) }
function folder(src) { sub(/\/[^\/]*$/, "", src); return src }
# "h200-2026-11-21-late" -> gpu H200 and date 2026-11-21
function run_gpu_date(src,    run) {
    run = folder(src); sub(/.*\//, "", run)
    if (match(run, /^[a-z][0-9]+/)) print src "\tgpu\t" toupper(substr(run, RSTART, RLENGTH)) "\tgpu"
    if (match(run, /20[0-9][0-9]-[01][0-9]-[0-3][0-9]/)) print src "\tdate\t" substr(run, RSTART, RLENGTH) "\tdate"
}
function gpu_token(name) { return match(name, /[A-Z][0-9][0-9][0-9]?[A-Z]?/) ? substr(name, RSTART, RLENGTH) : name }
'

{
# ---- the JSON records of make bench (tools/json.sh flat: the lab's JSON reader)
find "$records" -name '*.json' -print0 | sort -z | xargs -0 -r "$(dirname "$0")/json.sh" flat --names |
    awk -F'\t' -v dir="$records" "$awk_common"'
function flush(    i, j) {
    if (src == "") return
    for (i = 1; i <= nk; i++) {
        print src "\t" unit "\t" rate[i] "\t" kname[i] " rate"
        if (ms[i] != "") print src "\tms\t" ms[i] "\t" kname[i] " median_ms"
        for (j = 1; j <= nk; j++) if (rate[j] > 0) {
            print src "\tx\t" rate[i] / rate[j] "\t" kname[i] "/" kname[j]
            print src "\t%\t" 100 * rate[i] / rate[j] "\t" kname[i] "/" kname[j]
        }
        if (kname[i] == "student") print folder(src) "\tsolution " unit "\t" rate[i] "\t" stage
    }
    run_gpu_date(src)
}
$1 != file { flush(); file = $1; src = cited(file, dir, "measurements"); unit = ""; nk = 0
             stage = src; sub(/.*\//, "", stage); sub(/\.json$/, "", stage) }
{ key = $2; sub(/.*\./, "", key) }
$2 ~ /(^|\.)gpu\.name$/ { print src "\tgpu\t" gpu_token($3) "\tgpu"; next }
key == "metric" { unit = $3 }
key ~ /^pct_of_[a-z]+$/ { print src "\t%\t" $3 "\t" key }
key ~ /^(speedup_vs_[a-z]+|ratio_to_cublas)$/ { print src "\tx\t" $3 "\t" key }
key == "name" { nk++; kname[nk] = $3; ms[nk] = ""; rate[nk] = 0 }
key == "median_ms" { ms[nk] = $3 }
key == "rate" { rate[nk] = $3 }
END { flush() }'

# ---- tables: measurements/*/*.tsv, profile tables ----------------------------
{ find "$records" -name '*.tsv' -print0; [ -d "$profile" ] && find "$profile" -name '*.tsv' -print0; } | sort -z |
    xargs -0 -r awk -F'\t' -v dir="$records" -v pdir="$profile" "$awk_common"'
FNR == 1 {
    src = index(FILENAME, pdir "/") == 1 ? cited(FILENAME, pdir, "profile") : cited(FILENAME, dir, "measurements")
    is_profile = src ~ /^profile\// || FILENAME ~ /\/profile\.tsv$/
    split("", col)
    if (src ~ /^measurements\//) run_gpu_date(src)
}
# a profile table: stage, gpu, key, value
is_profile && !/^#/ && NF >= 4 {
    gpu = gpu_token($2)
    key = $1 " " gpu " " $3
    if (!seen[src, gpu]++) print src "\tgpu\t" gpu "\tgpu"
    if ($3 == "date") print src "\tdate\t" $4 "\tdate"
    else if ($4 !~ /^[0-9.]+$/) next
    else if ($3 ~ /_spr$/) print src "\tsectors\t" $4 "\t" key
    else if ($3 ~ /_wpi$/) print src "\twavefronts\t" $4 "\t" key
    else if ($3 ~ /_conflicts$/) print src "\tconflicts\t" $4 "\t" key
    else if ($3 ~ /_cpi$/) { print src "\tconflicts\t" $4 "\t" key; print src "\t%\t" 100 * $4 "\t" key }
    else if ($3 == "occupancy" || $3 == "theoretical" || $3 == "dram") print src "\t%\t" $4 "\t" key
    else if ($3 == "registers") print src "\tregisters\t" $4 "\t" key
    next
}
is_profile { next }
# a table of other numbers: its heading names the columns
/^# *[a-z_]+\t/ {
    sub(/^# */, "")
    split("", col)
    for (i = 1; i <= NF; i++) col[$i] = i
    next
}
/^#/ || NF == 0 { next }
{
    # the row: its what, or its stage and knob, or its first column
    row = ("what" in col) ? $(col["what"]) : ("stage" in col) ? $(col["stage"]) (("knob" in col) ? " " $(col["knob"]) : "") : $1
    vname = ("rate" in col) ? "rate" : ("value" in col) ? "value" : ""
    vcol = vname == "" ? 0 : col[vname]
    if (vcol && ("unit" in col)) {
        v = $vcol; gsub(/,/, "", v); u = $(col["unit"])
        print src "\t" u "\t" v "\t" row " " vname
        if (("knob" in col) && (u == "GFLOP/s" || u == "GB/s")) print folder(src) "\tsolution " u "\t" v "\t" row
    }
    if ("pct_of_reference" in col) print src "\t%\t" $(col["pct_of_reference"]) "\t" row " pct_of_reference"
    if ("speedup_vs_baseline" in col) print src "\tx\t" $(col["speedup_vs_baseline"]) "\t" row " speedup_vs_baseline"
    if ("ratio_to_cublas" in col) print src "\tx\t" $(col["ratio_to_cublas"]) "\t" row " ratio_to_cublas"
    if ("median_ms" in col) print src "\tms\t" $(col["median_ms"]) "\t" row " median_ms"
    if (("what" in col) && match($(col["what"]), /[0-9.]+% of/)) print src "\t%\t" substr($(col["what"]), RSTART, RLENGTH - 4) + 0 "\t" row
    if (("what" in col) && match($(col["what"]), /[0-9]+ registers/)) print src "\tregisters\t" substr($(col["what"]), RSTART, RLENGTH - 10) + 0 "\t" row
}'
# ---- Nsight Compute's own output, measurements/*/ncu-*.txt: its percentages
find "$records" -name 'ncu-*.txt' -print0 | sort -z | xargs -0 -r awk -v dir="$records" "$awk_common"'
FNR == 1 { src = cited(FILENAME, dir, "measurements"); run_gpu_date(src); split("", nth) }
$1 ~ /__/ && $(NF - 1) == "%" && $NF ~ /^[0-9][0-9,.]*$/ {
    v = $NF; gsub(/,/, "", v)
    print src "\t%\t" v "\t" $1 (nth[$1]++ ? " #" nth[$1] : "")
}'
} | awk -F'\t' '
# the solutions of a run against each other: ratios of the same unit
$2 ~ /^solution / { n[$1, $2]++; v[$1, $2, n[$1, $2]] = $3; w[$1, $2, n[$1, $2]] = $4; key[$1, $2] = 1; next }
{ print }
END {
    for (k in key) {
        split(k, f, SUBSEP)
        for (i = 1; i <= n[k]; i++) for (j = 1; j <= n[k]; j++)
            if (v[k, j] > 0) print f[1] "\tx\t" v[k, i] / v[k, j] "\t" w[k, i] "/" w[k, j]
    }
}'
