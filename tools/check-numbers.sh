#!/usr/bin/env bash
# check-numbers.sh: every measured number quoted in the lab's texts must be in
# the lab's records (make docs-check runs it).
#
#   tools/check-numbers.sh [--records DIR] [FILE...]
#
# The records (default measurements/): the JSON files that make bench
# writes (each kernel's "rate", in the record's "metric"), and *.tsv tables
# of what no JSON holds (sweeps.tsv: make sweep's tables; other.tsv: other
# measured numbers), whose "rate" or "value" column and "unit" column count.
#
# FILEs (default: README.md, INSTRUCTORS.md, MEASUREMENTS.md, grader/README.md,
# exercises/*/README.md, handouts/*.md, slides/*.md) are searched for rates
# and times: a number (1,234 or 1234.5; a range 3558-3645 is two) followed
# by GFLOP/s or GB/s, the first number of each cell of a Markdown table's
# column whose heading names GFLOP/s or GB/s, and a number with a decimal
# point followed by " s".
# Each must equal a record of its unit within the rounding of the digits it
# shows (37,865 GFLOP/s fits 37864.5; 4.4 fits 4.43 only for ratios, which
# are not checked); after "about" or "~", within 1%.
#
# Numbers of other kernels or earlier runs, which no record of the lab's
# holds, are labelled as such in the text, and the paragraph or table that
# holds them follows the line <!-- numbers: other kernels --> (any text
# after "numbers:"; a blank line between them is fine, and keeps a table a
# table); the check skips that paragraph or table, up to its blank line.
#
# Prints one line per number that fits no record, "file:line: what", and
# exits 1 if there was any; 2 on bad usage.
set -u
records=measurements
files=()
while [ $# -gt 0 ]; do
    case $1 in
    --records) records=${2:-}; shift 2 ;;
    -h | --help) sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    -*) echo "check-numbers: unknown option $1 (try --help)" >&2; exit 2 ;;
    *) files+=("$1"); shift ;;
    esac
done
[ -d "$records" ] || { echo "check-numbers: no records folder $records" >&2; exit 2; }
if [ ${#files[@]} = 0 ]; then
    for f in README.md INSTRUCTORS.md MEASUREMENTS.md grader/README.md exercises/*/README.md \
        handouts/*.md slides/*.md; do
        [ -f "$f" ] && files+=("$f")
    done
fi
for f in "${files[@]}"; do [ -f "$f" ] || { echo "check-numbers: $f: no such file" >&2; exit 2; }; done

# the records as "unit<TAB>value" lines
values=$(
    find "$records" -name '*.json' -print0 | xargs -0 -r awk '
        FNR == 1 { unit = "" }
        /"metric":/ { unit = $2; gsub(/[",]/, "", unit) }
        /"rate":/ && unit != "" { v = $2; gsub(/,/, "", v); print unit "\t" v }'
    find "$records" -name '*.tsv' -print0 | xargs -0 -r awk -F'\t' '
        FNR == 1 { col = 0; ucol = 0 }
        /^# *[a-z_]+\t/ {
            sub(/^# */, "")
            for (i = 1; i <= NF; i++) {
                if ($i == "rate" || $i == "value") col = i
                if ($i == "unit") ucol = i
            }
            next
        }
        /^#/ || NF == 0 { next }
        col && ucol { print $ucol "\t" $col }'
)
[ -n "$values" ] || { echo "check-numbers: no rates in $records (JSON records or *.tsv tables)" >&2; exit 2; }

awk -v values="$values" '
function num(s) { gsub(/,/, "", s); return s + 0 }
function decimals(s) { return index(s, ".") ? length(s) - index(s, ".") : 0 }
# does the quoted text q (digits as shown) fit a record of this unit?
function fits(q, unit, approx,    v, tol, i, best, d) {
    v = num(q)
    tol = approx ? v * 0.01 : 0.5 * 10 ^ -decimals(q) + 1e-9
    best = ""
    for (i = 1; i <= n; i++) {
        if (u[i] != unit) continue
        d = r[i] - v; if (d < 0) d = -d
        if (d <= tol) return ""
        if (best == "" || d < bestd) { best = r[i]; bestd = d }
    }
    return best == "" ? "no record has that unit" : "nearest record " best
}
function check(q, unit, approx,    why) {
    why = fits(q, unit, approx)
    if (why != "") { printf "%s:%d: %s %s is in no record of the lab (%s)\n", FILENAME, FNR, q, unit, why; bad = 1 }
}
BEGIN {
    m = split(values, lines, "\n")
    for (i = 1; i <= m; i++) { split(lines[i], f, "\t"); if (f[1] != "") { n++; u[n] = f[1]; r[n] = f[2] + 0 } }
    number = "[0-9][0-9,]*(\\.[0-9]+)?"
}
FNR == 1 { skipping = 0; split("", colunit) }
/^<!-- numbers:/ { skipping = 1; next }
skipping == 1 && /^[ \t]*$/ { next }
skipping == 1 { skipping = 2 }
skipping == 2 && /^[ \t]*$/ { skipping = 0 }
skipping { next }
!/^ *\|/ { split("", colunit) }
# a table: the heading row says which columns hold rates; the rows beneath
# are checked cell by cell
/^ *\|/ {
    k = split($0, cells, "|")
    if ($0 ~ /^ *\|[- :|]+\| *$/) next
    if (!length(colunit)) {
        for (j = 2; j < k; j++)
            if (cells[j] ~ /(GFLOP\/s|GB\/s)/ && cells[j] !~ /[0-9]/) colunit[j] = cells[j] ~ /GFLOP/ ? "GFLOP/s" : "GB/s"
        if (length(colunit)) next
    } else {
        for (j in colunit)
            if (match(cells[j], "^ *(about |~)?" number) && cells[j] !~ /(GFLOP\/s|GB\/s)/) {
                t = substr(cells[j], RSTART, RLENGTH); sub(/^ */, "", t)
                approx = t ~ /^(about |~)/; sub(/^(about |~)/, "", t)
                check(t, colunit[j], approx)
            }
    }
}
{
    line = $0
    while (match(line, "(about |~)?" number "( ?- ?" number ")? ?(GFLOP/s|GB/s)")) {
        t = substr(line, RSTART, RLENGTH); line = substr(line, RSTART + RLENGTH)
        approx = t ~ /^(about |~)/; sub(/^(about |~)/, "", t)
        unit = t; sub(/^[^G]*/, "", unit)
        sub(/ ?G.*$/, "", t)
        k = split(t, qs, / ?- ?/)
        for (j = 1; j <= k; j++) check(qs[j], unit, approx)
    }
    line = $0
    while (match(line, "(^|[^0-9.,])[0-9]+\\.[0-9]+ s([ ,.;:)]|$)")) {
        t = substr(line, RSTART, RLENGTH); line = substr(line, RSTART + RLENGTH)
        sub(/^[^0-9]/, "", t); sub(/ s.*$/, "", t)
        check(t, "s", 0)
    }
}
END { exit bad }' "${files[@]}"
