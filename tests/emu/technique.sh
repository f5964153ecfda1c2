#!/usr/bin/env bash
# tests/emu/technique.sh: the CPU emulation's word on each stage's technique
# (emu/technique.cc, the technique lines of stages.tsv), on the kernels of
# tests/emu/technique.tsv: the solutions and the tiers' reference kernels,
# present; three wrong techniques a stage (stage 05 unpadded, 03 without
# tiles, 06 without coarsening, 07 interleaved, ...), each correct with its
# technique named missing; and kernels that are wrong, of which it says
# nothing. Each runs through the one launcher (judge/launch.sh, as make
# grade on the CPU runs it), whose verdict takes the words from the run's
# record; then make grade on the CPU itself, on stage 05's unpadded tile.
# Each run's output in TECHNIQUE_LOGS/<stage>-<name>.log (default
# build/check-logs/technique; research/technique-agreement.sh reads them).
# Needs make emu-all. Ends with "N passed, N failed".
set -u
cd "$(dirname "$0")/../.." || exit 2
. tests/lib.sh

logdir=${TECHNIQUE_LOGS:-build/check-logs/technique}
mkdir -p "$logdir"
table=tests/emu/technique.tsv

# each kernel's verdict: its log's last line, "verdict: ..."
echo "== each kernel's word: present, missing, none where the stage has no technique lines, none when wrong"
while IFS=$'\t' read -r name stage file flags word phrase tier evidence; do
    case $name in '#'* | '') continue ;; esac
    prog=build/$stage/technique/$name-emu log=$logdir/$stage-$name.log
    judge/launch.sh --stage "$stage" --object "$prog.check.o" --emulated --own -- "$prog" >"$log" 2>&1
    st=$?
    verdict=$(tail -n 1 "$log")
    case $word in
        present | missing) got=$([ $st = 0 ] && grep -qF "$phrase" <<<"$verdict" &&
                                 grep -qE "^verdict: correct; [^:]* $word: " <<<"$verdict"; ok) ;;
        wrong) got=$([ $st != 0 ] && grep -qE '^verdict: (wrong|refused): ' <<<"$verdict" && grep -qF "$phrase" "$log"; ok) ;;
        *) got=$([ $st = 0 ] && [ "$verdict" = "verdict: correct" ]; ok) ;;
    esac
    check "$stage, $name ($file${flags#-}): ${word/-/correct, no technique lines}, says '$phrase'" \
        "$got" "exit $st; $verdict"
done <"$table"

echo "== make grade on the CPU: stage 05 with stage 04's unpadded tile"
src=$(mktemp -d)
trap 'rm -rf "$src"' EXIT
mkdir -p "$src/05_bank_conflicts"
cp solutions/04_transpose/kernel.cu "$src/05_bank_conflicts/kernel.cu"
out=$(make --no-print-directory grade EMU=1 EX=05 GRADE_SRC="$src" 2>&1)
check "05_bank_conflicts: correct, and the padding named missing with its count, in the grade's table" \
    "$(grep -qE '^05_bank_conflicts +correct; padding missing: each read of tile at kernel.cu:51 takes 32 wavefronts \(ideal 1\)$' \
       <<<"$out"; ok)" "$out"

totals
