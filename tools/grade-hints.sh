#!/usr/bin/env bash
# tools/grade-hints.sh: after make grade, the hardware counters of each stage
# that passed its checks, as hints: a few lines each, not scored.
#
#   tools/grade-hints.sh GRADE_TSV     (grade.tsv, beside grade.json)
#
# make grade runs this for one stage (EX=NN) by default, for every stage with
# HINTS=1, never with HINTS=0: Nsight Compute takes 10-30 s a stage. The
# counters come from build/<stage>/exercise beside the solution's (or the
# values in profile/expected.tsv in a student release); tools/profile.sh
# says in one line when ncu is missing or its counters are restricted.
set -u
cd "$(dirname "$0")/.." || exit 2
report=${1:?usage: tools/grade-hints.sh GRADE_TSV}
[ -f "$report" ] || exit 0

# the stages whose checks passed: grade.tsv's lines (grader/report.c names
# its columns in its header line)
correct=$(awk -F'\t' 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
    $col["correct"] == "true" { print $col["stage"] }' "$report")
[ -n "$correct" ] || exit 0

echo
echo "hardware counters of your kernels (hints, not scored; Nsight Compute, clocks at base):"
for s in $correct; do
    bin=build/$s/exercise
    [ -x "$bin" ] || continue
    ref=()
    [ -x "build/$s/solution" ] && ref=("build/$s/solution")
    echo "  $s:"
    out=$(tools/profile.sh --brief "$s" "$bin" "${ref[@]}" 2>&1)
    sed 's/^/    /' <<<"$out"
    # no ncu, or restricted counters: one line said so; the others would too
    grep -q "hardware counters: skipped" <<<"$out" && break
done
exit 0
