#!/usr/bin/env bash
# records2dat.sh: turn one run record (results/<stage>.json) into a gnuplot data file.
#
#   tools/records2dat.sh results/03_tiled.json > build/plots/03_tiled.dat
#
# Output: "# key: value" header lines (stage, metric, gpu, date, title), then
# one line "name rate" per kernel, in the order of the record.
#
# It reads the record's lines from build/grader/grade --record-tsv (the
# lab's one JSON reader, common/jsonread.c; grader/recordtsv.c says what
# counts as a kernel: any object with a string "name" and a number "rate"),
# made first where it is not up to date.
set -u
if [ $# -ne 1 ] || [ ! -f "$1" ]; then
    echo "usage: tools/records2dat.sh RECORD.json (one run record; prints gnuplot data)" >&2
    exit 2
fi
root=$(cd "$(dirname "$0")/.." && pwd)
grade=$root/build/grader/grade
if [ ! -x "$grade" ] || [ -n "$(find "$root/grader" "$root/common" -name '*.[ch]' -newer "$grade" | head -n 1)" ]; then
    # (not the jobserver of a make that runs this script: its descriptors are not ours)
    MAKEFLAGS= make -s --no-print-directory -C "$root" build/grader/grade >&2 || exit 2
fi
tsv=$("$grade" --record-tsv "$1") || {
    echo "records2dat: no kernel entries with a name and a rate in $1" >&2
    exit 1
}

awk -F'\t' -v stage_from_file="$(basename "$1" .json)" '
NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
function get(k,    v) { v = $col[k]; return v == "-" ? "" : v }
{
    stage = get("stage"); metric = get("metric"); gpu = get("gpu"); date = get("date")
    n = $col["name"]
    # a record of a solution: its kernel is the solution, not a student kernel
    if (n == "student" && get("variant") == "solution") n = "solution"
    gsub(/ /, "_", n)
    rows[++nrows] = n " " $col["rate"]
}
END {
    if (stage == "") stage = stage_from_file
    title = stage
    if (gpu != "") title = title ", " gpu
    if (date != "") title = title ", " date
    print "# stage: " stage
    print "# metric: " metric
    print "# gpu: " gpu
    print "# date: " date
    print "# title: " title
    print "# name rate"
    for (r = 1; r <= nrows; r++) print rows[r]
}' <<<"$tsv"
