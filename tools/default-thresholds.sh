#!/usr/bin/env bash
# tools/default-thresholds.sh: the rubric's default rows, made from its GPUs'.
#
#   tools/default-thresholds.sh [RUBRIC]      (default: grader/rubric.tsv)
#
# A GPU without threshold rows of its own is graded with the `default` rows
# (and a warning). They follow the rule of the calibrated rows: make
# calibrate sets each GPU's rows from the tiers' reference kernels, and this
# sets each tier's default to the most lenient of those rows (the lowest
# for a >= tier, the highest for <=; the last row of a GPU counts, as for
# the grader). A tier that no GPU has rows for keeps its default. Run it
# after calibrating on each GPU the lab knows. Rewrites RUBRIC in place,
# keeping every other line, and prints one line per default it changes.
set -eu
rubric=${1:-grader/rubric.tsv}
[ -f "$rubric" ] || { echo "default-thresholds: no rubric $rubric" >&2; exit 2; }
new=$(mktemp "$rubric.XXXXXX")
trap 'rm -f "$new"' EXIT
awk -F'\t+' -v OFS='\t' '
    # the first pass collects, the second rewrites
    FNR == NR {
        if ($1 == "tier") at_most[$2 SUBSEP $3] = $6 == "<="
        if ($1 == "threshold" && $4 != "default") { value[$2 SUBSEP $3 SUBSEP $4] = $5; gpus[$2 SUBSEP $3] = 1 }
        next
    }
    $1 == "threshold" && $4 == "default" && ($2 SUBSEP $3) in gpus {
        best = ""
        for (k in value) {
            split(k, part, SUBSEP)
            if (part[1] != $2 || part[2] != $3) continue
            v = value[k]
            if (best == "" || (at_most[$2 SUBSEP $3] ? v + 0 > best + 0 : v + 0 < best + 0)) best = v
        }
        if (best + 0 != $5 + 0) printf "%s %s: default %s -> %s\n", $2, $3, $5, best > "/dev/stderr"
        $5 = best
    }
    { print }' "$rubric" "$rubric" >"$new"
cat "$new" >"$rubric"
