# tools/stages.sh: the stages' facts for a script, which sources it from the
# lab's root (. tools/stages.sh). It makes build/stages.env where that is
# missing or older than stages.tsv (make build/stages.env: the one reader of
# stages.tsv, tools/stages-gen.awk), sources it (LAB_STAGES, LAB_FAMILIES,
# LAB_FAMILY_<stage>, LAB_KNOB_<stage>, LAB_SWEEP_<stage>, LAB_LESSON_<stage>)
# and adds:
#   stage_numbered NN   the stage whose folder begins with NN_ (03: 03_tiled)
#   stage_family STAGE  its family
#   stages_of FAMILY    the family's stages, in the table's order
# A script that cannot have them stops here, saying why.
if [ ! -f build/stages.env ] || [ stages.tsv -nt build/stages.env ] || [ tools/stages-gen.awk -nt build/stages.env ]; then
    # (not the jobserver of a make that runs this script: its descriptors are not ours)
    MAKEFLAGS= make -s --no-print-directory build/stages.env >&2 ||
        { echo "$0: cannot make build/stages.env from stages.tsv" >&2; exit 2; }
fi
. build/stages.env
stage_numbered() {
    local s
    for s in $LAB_STAGES; do
        case $s in "$1"_*) echo "$s"; return 0 ;; esac
    done
    return 1
}
stage_family() { local v=LAB_FAMILY_$1; echo "${!v:-}"; }
stages_of() {
    local s v
    for s in $LAB_STAGES; do
        v=LAB_FAMILY_$s
        [ "${!v}" = "$1" ] && echo "$s"
    done
    return 0
}
