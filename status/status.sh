#!/usr/bin/env bash
# status/status.sh: where a student stands (make status [EX="01 03"]).
#
# For each stage, one line:
#   - still the skeleton: exercises/<stage>/kernel.cu is the file as handed out
#     (.lab/skeletons/<stage>/kernel.cu in a release; git's HEAD in the
#     instructors' copy);
#   - does not compile: the compiler's first error, one line (nvcc compiles
#     it inside the wall, as make grade does: without a GPU, for the
#     emulator's pre-run checks alone, compiled_by_nvcc);
#   - compiles, and whether it is correct: on the GPU where there is one
#     (the stage's checks, --check-only), else on the CPU emulator where the
#     lab has one (build/<stage>/exercise-emu), else it says what would tell;
#     either run through the one launcher (judge/launch.sh), whose verdict
#     comes from the checks' record;
#     on the CPU a stage whose program has not changed since the last make
#     status is not run again: its verdict is repeated, marked (unchanged);
#   - the points of the last make grade (grade.json), and whether the
#     kernel changed since.
# Each line starts with its stage's name as soon as that stage's turn
# comes. Builds what it needs; writes nothing but build/. Exit status 0, 2 for a
# stage that does not exist.
set -u
cd "$(dirname "$0")/.." || exit 2
. tools/stages.sh
stages=$(printf '%s\n' $LAB_STAGES)
if [ -n "${1:-}" ]; then
    picked=""
    for want in $1; do
        w=$want
        case $w in [1-9]) w=0$w ;; esac
        s=$(grep -m 2 "^$w" <<<"$stages")
        [ "$(grep -c . <<<"$s")" = 1 ] || { echo "status: no single stage matches '$want'; the stages are: $(echo $stages)" >&2; exit 2; }
        picked="$picked$s"$'\n'
    done
    stages=${picked%$'\n'}
fi
make=${MAKE:-make}
log=build/status.log
mkdir -p build

# the skeleton as handed out, or nothing where the lab cannot tell
skeleton_of() {
    if [ -f ".lab/skeletons/$1/kernel.cu" ]; then
        cat ".lab/skeletons/$1/kernel.cu"
    elif git rev-parse -q --verify HEAD >/dev/null 2>&1; then
        git show "HEAD:exercises/$1/kernel.cu" 2>/dev/null
    fi
}

# the first error of a stage's build in make's messages (one make per stage)
first_error() {
    grep -m 1 -E 'error|undefined reference' "$1" | sed -E 's/^.*(exercises\/[^ ]*kernel\.cu)/\1/' | cut -c1-120
}

# points of the last make grade for stage $1: "6/10", or "" when none
points_of() {
    [ -f grade.json ] || return 0
    awk -v s="$1" '
        /"stage":/ { here = index($0, "\"" s "\"") > 0 }
        here && /"points":/ && !p { gsub(/[^0-9.]/, "", $2); p = $2 }
        here && /"max_points":/ && !m { gsub(/[^0-9.]/, "", $2); m = $2 }
        END { if (p != "" && m != "") print p "/" m }' FS=: grade.json
}

# launch OBJECT PROGRAM [--emulated | ARG...]: the stage's checks through the
# one launcher (judge/launch.sh: the grade's pre-run checks, the wall, the
# verdict from the record); its output in $out, its status in $st
launch() {
    local object=$1 program=$2 emulated=""
    shift 2
    [ "${1:-}" = --emulated ] && emulated=--emulated && shift
    out=$(judge/launch.sh --stage "$s" --object "$object" $emulated --own -- "$program" "$@" 2>&1)
    st=$?
    return $st
}
# the launcher's last line, the verdict, without its first words
verdict_of() { tail -n 1 <<<"$1" | sed -E 's/^(verdict|launch): (wrong: |refused: )?//' | cut -c1-80; }

have_gpu=0
nvidia-smi -L 2>/dev/null | grep -q '^GPU' && have_gpu=1

# What nvcc compiles to say whether stage $1 compiles: the stage's program
# on a GPU; without one, where the lab has the CPU emulator, the object of
# the emulator's pre-run checks (one architecture, and nothing linked),
# which the emulated run needs anyway: one nvcc a stage, not two.
compiled_by_nvcc() {
    if [ -n "$emulated" ]; then
        echo "build/$1/exercise-emu.check.o"
    else
        echo "build/$1/exercise"
    fi
}

# The CPU emulator's verdict on stage $s, in $state: its program runs only
# when it is newer than the verdict the last make status kept
# (build/<stage>/exercise-emu.status); a kept one says "(unchanged)".
emulated_state() {
    local kept=build/$s/exercise-emu.status
    if [ "$kept" -nt "build/$s/exercise-emu" ]; then
        state="$(cat "$kept") (unchanged)"
        unchanged=1
        return
    fi
    launch "build/$s/exercise-emu.check.o" "build/$s/exercise-emu" --emulated
    case $st in
        0) state="correct (on the CPU emulator: no points until make grade on a GPU)" ;;
        4) state="compiles; the CPU emulator refuses a construct of it: $(verdict_of "$out")" ;;
        *) state="compiles, wrong on the CPU emulator: $(verdict_of "$out")" ;;
    esac
    echo "$state" >"$kept"
}

unchanged=""
echo "stage                  state                                                        last make grade"
for s in $stages; do
    k=exercises/$s/kernel.cu
    state=""
    emulated=""
    [ $have_gpu = 0 ] && $make -n -s "build/$s/exercise-emu" >/dev/null 2>&1 && emulated=1
    # the stage's name at once, its state when it is known
    printf '%-22s ' "$s"
    if [ ! -f "$k" ]; then
        state="no $k: copy it back from .lab/skeletons/$s/ to start again"
    elif skel=$(skeleton_of "$s") && [ -n "$skel" ] && [ "$skel" = "$(cat "$k")" ]; then
        state="still the skeleton: fill in its TODO(lab) parts"
    elif ! $make --no-print-directory -s "$(compiled_by_nvcc "$s")" >"$log" 2>&1; then
        state="does not compile: $(first_error "$log")"
    elif [ $have_gpu = 1 ]; then
        # the GPU's run confined as a grade's: make grade EX=<stage> says more
        if launch "build/$s/exercise.o" "build/$s/exercise" --check-only; then
            state="correct (on the GPU)"
        else
            state="compiles, wrong on the GPU: $(verdict_of "$out")"
        fi
    elif [ -n "$emulated" ]; then
        if ! $make --no-print-directory -s "build/$s/exercise-emu" >"$log" 2>&1; then
            state="compiles; the CPU emulator cannot build it: $(first_error "$log")"
        else
            emulated_state
        fi
    else
        state="compiles (correctness needs a GPU or the CPU emulator)"
    fi
    pts=$(points_of "$s")
    if [ -z "$pts" ]; then
        pts="-"
    elif [ -f "$k" ] && [ "$k" -nt grade.json ]; then
        pts="$pts (before your last edit)"
    fi
    printf '%-60s %s\n' "$state" "$pts"
done
[ -n "$unchanged" ] && echo "(unchanged: not run again, its program being the one the last make status ran; make run EX=NN runs it)"
[ -f grade.json ] || echo "(no grade.json yet: make grade gives the points)"
