#!/usr/bin/env bash
# research/compare-grades.sh: the scored ratios of two sets of grading runs, side
# by side, as a Markdown table: for every stage and tier field, the median of
# each set, how far the second's median is from the first's, and each set's
# spread ((max - min) / median over its runs). Used to compare the judge's
# timing with the drivers' event timing (judge/README.md, "The judge"):
# the issue asks for ratios within 3% and a spread under 2%.
#
#   research/compare-grades.sh DIR... -- DIR...     (each DIR holds a grade.json)
#
# Exit status 0; 2 when a set is empty or a grade.json is missing.
set -u
first=() second=() side=1
for a in "$@"; do
    if [ "$a" = -- ]; then side=2; continue; fi
    [ -f "$a/grade.json" ] || { echo "compare-grades: no grade.json in $a" >&2; exit 2; }
    if [ $side = 1 ]; then first+=("$a/grade.json"); else second+=("$a/grade.json"); fi
done
[ ${#first[@]} -gt 0 ] && [ ${#second[@]} -gt 0 ] ||
    { echo "usage: research/compare-grades.sh DIR... -- DIR... (a grade.json in each)" >&2; exit 2; }

# "SET<TAB>stage<TAB>field<TAB>value" for every graded tier of every file
# (tools/json.sh flat: the lab's JSON reader)
json=$(dirname "$0")/../tools/json.sh
values() {
    local set=$1 f
    shift
    for f in "$@"; do
        "$json" flat "$f" | awk -F'\t' -v set="$set" '
            $1 ~ /^stages\.[0-9]+\.stage$/ { stage = $2 }
            $1 ~ /^stages\.[0-9]+\.tiers\.[0-9]+\.field$/ { field = $2 }
            $1 ~ /^stages\.[0-9]+\.tiers\.[0-9]+\.value$/ && $2 != "null" { print set "\t" stage "\t" field "\t" $2 }'
    done
}

{ values 1 "${first[@]}"; values 2 "${second[@]}"; } | awk -F'\t' '
    function median(list, n,   a, i, j, t) {
        n = split(list, a, " ")
        for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j - 1] > a[j]; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
        return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
    }
    function spread(list,   a, n, i, lo, hi, m) {
        n = split(list, a, " "); lo = hi = a[1]
        for (i = 2; i <= n; i++) { if (a[i] < lo) lo = a[i]; if (a[i] > hi) hi = a[i] }
        m = median(list)
        return m > 0 ? 100 * (hi - lo) / m : 0
    }
    { key = $2 "\t" $3; if (!(key in seen)) { seen[key] = 1; order[++n] = key }
      vals[$1, key] = vals[$1, key] " " $4; count[$1, key]++ }
    END {
        print "| stage | field | first (median of runs) | second (median) | second vs first | spread first | spread second |"
        print "|---|---|---|---|---|---|---|"
        for (i = 1; i <= n; i++) {
            k = order[i]; split(k, p, "\t")
            if (!((1 SUBSEP k) in vals) || !((2 SUBSEP k) in vals)) continue
            m1 = median(vals[1, k]); m2 = median(vals[2, k])
            d = m1 > 0 ? 100 * (m2 / m1 - 1) : 0
            printf "| %s | %s | %.4g (%d) | %.4g (%d) | %+.1f%% | %.1f%% | %.1f%% |\n", p[1], p[2], m1, count[1, k],
                   m2, count[2, k], d, spread(vals[1, k]), spread(vals[2, k])
        }
    }'
