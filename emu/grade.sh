#!/usr/bin/env bash
# emu/grade.sh STAGE...: make grade on the CPU emulation (emu/emu.mk): each
# stage's kernel.cu (exercises/, or what the one intake took in of
# GRADE_SRC=dir: build/grader/take, into GRADE_SRC_COPY) built
# inside the build's wall, then run through the one launcher (judge/launch.sh:
# the grade's pre-run checks, the wall, a time limit, the verdict from the
# checks' record); one table of what is correct, and, of a correct stage,
# whether its technique is there (emu/technique.cc: "padding missing: ...").
# No speed and no points: nothing here is written where a grade's points
# are (grade.json, results.json, a gradebook). Exit 0 when every stage is
# correct, 1 otherwise, 3 when the intake refused GRADE_SRC (one line: why).
# Logs in build/emu-grade/.
set -u
cd "$(dirname "$0")/.." || exit 2
MAKE=${MAKE:-make}
LIMIT_S=${EMU_LIMIT_S:-120}
logs=build/emu-grade
mkdir -p "$logs"

# where each stage's program is, and which kernel.cu it is made of
program() {
    if [ -n "${GRADE_SRC:-}" ]; then echo "$EMU_GRADE_DIR/$1-emu"; else echo "build/$1/exercise-emu"; fi
}
source_of() {
    if [ -n "${GRADE_SRC:-}" ]; then echo "$GRADE_SRC_COPY/$1/kernel.cu"; else echo "exercises/$1/kernel.cu"; fi
}
# make -n grade runs this script all the same (its recipe names $(MAKE)):
# then the build's commands are shown, as make -n shows them, and each
# run's, and nothing is taken in, built or run (MAKEFLAGS' first word
# holds the one-letter options)
dry_run() {
    case ${MAKEFLAGS:-} in -* | '') return 1 ;; esac
    [[ ${MAKEFLAGS%% *} == *n* ]]
}

# a run goes through the one launcher (judge/launch.sh): the pre-run
# checks, the wall, the verdict from the record; exercises/ is the caller's own
own=--own
[ -n "${GRADE_SRC:-}" ] && own=""

# GRADE_SRC= comes in through the one intake: a copy of each stage's
# kernel.cu is what is built (make -n: the command shown, nothing taken)
if [ -n "${GRADE_SRC:-}" ]; then
    take=(build/grader/take "$GRADE_SRC" "$GRADE_SRC_COPY" "$@")
    if dry_run; then
        echo "${take[*]}"
    else
        said=$("${take[@]}")
        case $? in
            0 | 4) ;;
            *)  echo "make grade: GRADE_SRC=$GRADE_SRC is not graded: $said"
                exit 3 ;;
        esac
    fi
fi

# the build: one make -k, so that one stage that does not compile stops no other
targets=()
for s in "$@"; do
    [ -f "$(source_of "$s")" ] && targets+=("$(program "$s")")
done
if dry_run; then
    [ ${#targets[@]} -gt 0 ] && $MAKE -k --no-print-directory ${GRADE_SRC:+GRADE_SRC="$GRADE_SRC"} "${targets[@]}"
    for s in "$@"; do
        [ -f "$(source_of "$s")" ] && echo "judge/launch.sh --stage $s --object $(program "$s").check.o --emulated $own --limit $LIMIT_S -- $(program "$s") >$logs/$s.log 2>&1"
    done
    exit 0
fi
# side by side, one job a core; each build step's line as it starts, the
# rest (the compiler's messages, which the table below quotes) in build.log
if [ ${#targets[@]} -gt 0 ]; then
    echo "the programs of ${#targets[@]} stages, for the CPU (make -k -j$(nproc); its messages in $logs/build.log)"
    $MAKE -k -j"$(nproc)" --no-print-directory ${GRADE_SRC:+GRADE_SRC="$GRADE_SRC"} "${targets[@]}" 2>&1 |
        tee "$logs/build.log" | grep --line-buffered -E '^  [A-Z]+ +[^ ]'
fi

# one sentence of a failing run: the emulator's first finding, else the
# error, else the line that explains the first failed check, else the
# launcher's verdict (grader/sentence.c)
sentence() { build/grader/grade --sentence "$1"; }

# the skeleton as handed out: a release's own copy (.lab/skeletons, made by
# make release), else the committed one
is_skeleton() {
    if [ -f ".lab/skeletons/$1/kernel.cu" ]; then
        cmp -s ".lab/skeletons/$1/kernel.cu" "$2"
    else
        git cat-file -e "HEAD:exercises/$1/kernel.cu" 2>/dev/null && git show "HEAD:exercises/$1/kernel.cu" | cmp -s - "$2"
    fi
}
correct=0 total=0
printf '\n%-22s %s\n' "stage" "on the CPU"
for s in "$@"; do
    total=$((total + 1))
    src=$(source_of "$s") prog=$(program "$s") log=$logs/$s.log
    if [ ! -f "$src" ]; then
        wanted=$src
        [ -n "${GRADE_SRC:-}" ] && wanted="$GRADE_SRC/$s/kernel.cu (nor $GRADE_SRC/exercises/$s/kernel.cu)"
        printf '%-22s %s\n' "$s" "not submitted: there is no $wanted"
        continue
    fi
    if [ ! -f "$prog.check.o" ] || [ "$prog.check.o" -ot "$src" ]; then
        why=$(grep -m 3 -E 'error' "$logs/build.log" | grep -F "$s/" | head -n 2 | tr '\n' ' ')
        printf '%-22s %s\n' "$s" "did not compile: ${why:-see $logs/build.log}"
        continue
    fi
    judge/launch.sh --stage "$s" --object "$prog.check.o" --emulated $own --limit "$LIMIT_S" -- "$prog" >"$log" 2>&1
    st=$?
    if [ $st = 0 ]; then
        correct=$((correct + 1))
        # the launcher's verdict, from the record: the stage's technique there or missing (emu/technique.cc)
        technique=$(tail -n 1 "$log" | sed -n 's/^verdict: correct; //p')
        printf '%-22s %s\n' "$s" "correct${technique:+; $technique}"
    elif [ $st = 6 ] || [ $st = 5 ]; then
        printf '%-22s %s\n' "$s" "$(head -n 1 "$log" | sed 's/^launch: //')"
    elif [ $st = 2 ]; then
        why=$(grep -m 3 -E 'error' "$logs/build.log" | grep -F "$s/" | head -n 2 | tr '\n' ' ')
        printf '%-22s %s\n' "$s" "did not compile for the CPU: ${why:-see $logs/build.log}"
    elif [ -z "${GRADE_SRC:-}" ] && is_skeleton "$s" "$src"; then
        printf '%-22s %s\n' "$s" "still the skeleton: fill in its TODO(lab) parts (exercises/$s/README.md)"
    else
        printf '%-22s %s\n' "$s" "wrong: $(sentence "$log") (make run EX=${s%%_*})"
    fi
done
echo
echo "$correct of $total stages correct on the CPU; speed and points need a GPU (logs: $logs/)"
[ $correct = $total ]
