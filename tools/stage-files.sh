#!/usr/bin/env bash
# tools/stage-files.sh: the files each stage needs, and which are missing.
#
#   tools/stage-files.sh [STAGE...]      (default: every stage of stages.tsv)
#
# A stage of an existing family is five files, no more:
#   stages.tsv                     its lines: stage, against, todo, points
#                                  (and its tiers, their default thresholds
#                                  and reference kernels, sizes if its own)
#   exercises/<stage>/kernel.cu    the skeleton, its edit points marked TODO(lab)
#   exercises/<stage>/README.md    the exercise
#   solutions/<stage>/kernel.cu    the answer (the instructors' copy only)
#   handouts/<stage>.md            its handout
# Its family's file, common/<family>_family.cu, is there already; the stage
# tables of README.md and handouts/README.md are made from stages.tsv (make
# tables), and the grader and the Makefile read stages.tsv.
# make check runs this (tests/run.sh), and tests/tables/run.sh adds a stage
# to a copy of the lab with these five files alone.
# Prints one line per missing file or line ("03_tiled: no solutions/03_tiled/kernel.cu");
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
        lack "$s" "no line in stages.tsv: stage<TAB>$s<TAB>family<TAB>knob<TAB>sweep<TAB>lesson"
    elif [ ! -f "common/${family}_family.cu" ]; then
        lack "$s" "no family file common/${family}_family.cu for its family $family"
    fi
    for kind in points against todo; do
        v=LAB_${kind^^}_$s
        [ -n "${!v:-}" ] || lack "$s" "no line in stages.tsv: $kind<TAB>$s<TAB>..."
    done
    for f in "exercises/$s/kernel.cu" "exercises/$s/README.md" "handouts/$s.md"; do
        [ -f "$f" ] || lack "$s" "no $f"
    done
    # a student release has no solutions/
    [ ! -d solutions ] || [ -f "solutions/$s/kernel.cu" ] || lack "$s" "no solutions/$s/kernel.cu"
done
exit $missing
