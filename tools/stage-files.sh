#!/usr/bin/env bash
# tools/stage-files.sh: the files each stage needs, and which are missing.
#
#   tools/stage-files.sh [STAGE...]      (default: every stage of stages.tsv)
#
# A stage of an existing family is its line in stages.tsv and these:
#   exercises/<stage>/kernel.cu    the skeleton, its edit points marked TODO(lab)
#   exercises/<stage>/README.md    the exercise
#   solutions/<stage>/kernel.cu    the answer (the instructors' copy only)
#   grader/rubric.tsv              a "stage <stage>" line, with its tiers
# and its family's file, common/<family>_family.cu. make check runs this
# (tests/run.sh); the rubric's tiers need their reference kernels in
# references/tiers.tsv, which the grader's tests check.
# Prints one line per missing file ("03_tiled: no solutions/03_tiled/kernel.cu");
# exit 0 when none is missing, 1 otherwise.
set -u
cd "$(dirname "$0")/.." || exit 2
. tools/stages.sh
[ $# -gt 0 ] || set -- $LAB_STAGES
missing=0
lack() { echo "$1: $2"; missing=1; }
for s in "$@"; do
    family=$(stage_family "$s")
    if [ -z "$family" ]; then
        lack "$s" "no line in stages.tsv"
    elif [ ! -f "common/${family}_family.cu" ]; then
        lack "$s" "no family file common/${family}_family.cu for its family $family"
    fi
    for f in "exercises/$s/kernel.cu" "exercises/$s/README.md"; do
        [ -f "$f" ] || lack "$s" "no $f"
    done
    # a student release has no solutions/
    [ ! -d solutions ] || [ -f "solutions/$s/kernel.cu" ] || lack "$s" "no solutions/$s/kernel.cu"
    grep -q "^stage[[:space:]]\+$s[[:space:]]" grader/rubric.tsv 2>/dev/null ||
        lack "$s" "no line 'stage<TAB>$s<TAB>points' in grader/rubric.tsv"
done
exit $missing
