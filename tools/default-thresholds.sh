#!/usr/bin/env bash
# tools/default-thresholds.sh: the default threshold rows, made from the GPUs'.
#
#   tools/default-thresholds.sh [RUBRIC [TABLE]]
#                               (default: grader/rubric.tsv and stages.tsv)
#
# A GPU without threshold rows of its own is graded with the `default` rows
# (and a warning), which stages.tsv holds. They follow the rule of the
# calibrated rows: make calibrate sets each GPU's rows in RUBRIC from the
# tiers' reference kernels, and this sets each tier's default to the most
# lenient of those rows (the lowest for a >= tier, the highest for <=; the
# last row of a GPU counts, as for the grader). A tier that no GPU has rows
# for keeps its default. Run it after calibrating on each GPU the lab knows.
# Rewrites the default rows where they are (TABLE, or RUBRIC for a rubric of
# its own), keeping every other line, and prints one line per default it
# changes.
set -eu
rubric=${1:-grader/rubric.tsv}
table=${2:-stages.tsv}
[ -f "$rubric" ] || { echo "default-thresholds: no rubric $rubric" >&2; exit 2; }
[ -f "$table" ] || { echo "default-thresholds: no table $table" >&2; exit 2; }
new=$(mktemp "$rubric.XXXXXX")
trap 'rm -f "$new"' EXIT
for target in "$table" "$rubric"; do
    awk -F'\t+' -v OFS='\t' '
        FNR == 1 { file++ }
        # the rubric and the table tell the tiers and the GPU rows; the third file is rewritten
        file < 3 {
            if ($1 == "tier") at_most[$2 SUBSEP $3] = $6 == "<="
            if (file == 1 && $1 == "threshold" && $4 != "default") { value[$2 SUBSEP $3 SUBSEP $4] = $5; gpus[$2 SUBSEP $3] = 1 }
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
        { print }' "$rubric" "$table" "$target" >"$new"
    cmp -s "$new" "$target" || cat "$new" >"$target"
done
