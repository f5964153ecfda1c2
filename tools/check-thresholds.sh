#!/usr/bin/env bash
# check-thresholds.sh: every threshold a stage's text quotes must be one of
# that stage's rows in the rubric (make docs-check runs it), so that a
# README cannot go on quoting what an earlier calibration wrote.
#
#   tools/check-thresholds.sh [--rubric FILE] [FILE...]
#
# FILEs (default: exercises/*/README.md and handouts/NN_*.md) belong to the
# stage their path names (exercises/07_reduction/README.md, handouts/
# 07_reduction.md). In each sentence (or clause: text up to . ; : ! ?) that
# speaks of a threshold or of calibrating, each number followed by x or %
# (1.32x, 88.4%; not a size such as 8192x8192) must equal a threshold row
# of the stage: any GPU's in the rubric (default grader/rubric.tsv) or its
# default in stages.tsv, within the rounding of the digits it shows. The simplest way
# to keep a text right is to quote none: `make grade` prints the
# thresholds a kernel missed.
#
# Prints "file:line: what" for each number that fits no row, and exits 1
# if there was any; 2 on bad usage.
set -u
rubric=grader/rubric.tsv
files=()
while [ $# -gt 0 ]; do
    case $1 in
    --rubric) rubric=${2:-}; shift 2 ;;
    -h | --help) sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    -*) echo "check-thresholds: unknown option $1 (try --help)" >&2; exit 2 ;;
    *) files+=("$1"); shift ;;
    esac
done
[ -f "$rubric" ] || { echo "check-thresholds: no rubric $rubric" >&2; exit 2; }
if [ ${#files[@]} = 0 ]; then
    for f in exercises/*/README.md handouts/[0-9][0-9]_*.md; do
        [ -f "$f" ] && files+=("$f")
    done
fi
status=0
for f in "${files[@]}"; do
    [ -f "$f" ] || { echo "check-thresholds: $f: no such file" >&2; exit 2; }
    # the stage the path names: .../07_reduction/README.md or .../07_reduction.md
    [[ $f =~ (^|/)([0-9][0-9]_[A-Za-z0-9_]+)(/README)?\.md$ ]] || continue
    stage=${BASH_REMATCH[2]}
    values=$(awk -F'\t+' -v s="$stage" '$1 == "threshold" && $2 == s { print $5 }' "$rubric" \
             $([ -f stages.tsv ] && echo stages.tsv) | tr '\n' ' ')
    awk -v values="$values" -v file="$f" '
        # does the number q, as the text shows it, fit a row within its rounding?
        function fits(q,    i, d, tol) {
            d = index(q, ".") ? length(q) - index(q, ".") : 0
            tol = 0.5 * 10 ^ -d + 1e-9
            for (i = 1; i <= nv; i++) if (v[i] - q <= tol && q - v[i] <= tol) return 1
            return 0
        }
        function check(c, line,    rest, q, after) {
            if (tolower(c) !~ /threshold|calibrat/) return
            rest = c
            while (match(rest, /[0-9][0-9.]*[x%]/)) {
                q = substr(rest, RSTART, RLENGTH - 1)
                after = substr(rest, RSTART + RLENGTH, 1)
                rest = substr(rest, RSTART + RLENGTH)
                # a size (8192x8192), not a ratio
                if (after ~ /[0-9A-Za-z]/) continue
                if (!fits(q)) {
                    printf "%s:%d: %s quoted beside a threshold is no threshold of %s in the rubric\n", file, line, q, stage
                    bad = 1
                }
            }
        }
        BEGIN { nv = split(values, v, " ") }
        /^[[:space:]]*$/ { check(clause, NR); clause = ""; next }
        # a clause runs to . ; : ! or ? before a blank or the end of a line
        {
            text = $0
            while (match(text, /[.;:!?]( |$)/)) {
                # (check() matches too: keep where this clause ends)
                end = RSTART + RLENGTH
                check(clause " " substr(text, 1, RSTART), NR)
                clause = ""
                text = substr(text, end)
            }
            clause = clause " " text
        }
        END { check(clause, NR); exit bad }' stage="$stage" "$f" || status=1
done
exit $status
