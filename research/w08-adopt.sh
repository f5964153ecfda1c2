#!/usr/bin/env bash
# research/w08-adopt.sh GPU VALUE DATE: adopt a threshold of stage 08's tier
# that research/w08-tier.sh measured (its last line), on one GPU:
#
#   research/w08-adopt.sh 'NVIDIA H100 80GB HBM3' 84.6 2026-11-28
#
# Sets that GPU's 08 row in grader/rubric.tsv (with a comment naming the
# reference kernel and the date), the default row in stages.tsv
# (tools/default-thresholds.sh: the most lenient GPU's), and the
# "Calibrated: ..." sentence of exercises/08_warptiling/README.md for
# that GPU (an H100 or an H200). Run it once a GPU; then make docs-check,
# commit, and record the run in MEASUREMENTS.md (w08-tier.sh's OUTDIR
# under measurements/).
set -eu
cd "$(dirname "$0")/.."
[ $# = 3 ] || { echo "usage: research/w08-adopt.sh GPU VALUE DATE" >&2; exit 2; }
gpu=$1 value=$2 date=$3
[[ $value =~ ^[0-9]+(\.[0-9]+)?$ ]] || { echo "w08-adopt: VALUE '$value' is not a number" >&2; exit 2; }
[[ $date =~ ^[0-9]{4}-[0-9]{2}-[0-9]{2}$ ]] || { echo "w08-adopt: DATE '$date' is not YYYY-MM-DD" >&2; exit 2; }
case $gpu in
    *H100*) short=H100 ;;
    *H200*) short=H200 ;;
    *) echo "w08-adopt: '$gpu': the README's sentence names an H100 and an H200 only; edit it by hand" >&2; exit 2 ;;
esac
grep -q "^threshold	08_warptiling	pass	$gpu	" grader/rubric.tsv ||
    { echo "w08-adopt: grader/rubric.tsv has no 08 row for '$gpu' (make calibrate writes the first)" >&2; exit 2; }

# the GPU's row and the comment just above it, if that comment is 08's
new=$(mktemp grader/rubric.tsv.XXXXXX)
trap 'rm -f "$new"' EXIT
awk -F'\t' -v OFS='\t' -v g="$gpu" -v v="$value" -v d="$date" '
    pending != "" { if (!($1 == "threshold" && $2 == "08_warptiling" && $4 == g)) print pending; pending = "" }
    /^# 08: / { pending = $0; next }
    $1 == "threshold" && $2 == "08_warptiling" && $3 == "pass" && $4 == g {
        print "# 08: make calibrate EX=08 on " d " (research/w08-tier.sh): 0.9 of its reference kernel, references/08_warptiling/kernel.cu"
        $5 = v
    }
    { print }
    END { if (pending != "") print pending }
' grader/rubric.tsv >"$new"
mv "$new" grader/rubric.tsv
trap - EXIT
tools/default-thresholds.sh
sed -i -E "s/[0-9.]+ on an $short \([0-9]{4}-[0-9]{2}-[0-9]{2}\)/$value on an $short ($date)/" exercises/08_warptiling/README.md
grep -n "08_warptiling	pass	$gpu" grader/rubric.tsv
grep -n "Calibrated:" exercises/08_warptiling/README.md
