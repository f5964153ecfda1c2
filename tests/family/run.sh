#!/usr/bin/env bash
# tests/family/run.sh: a family is one place (part of make check). In a copy
# of the lab, a toy family (a 1D stencil: tests/family/toy/, its contract
# toy/common/stencil.h, its family file, a skeleton, a solution and its lines of
# stages.tsv) is added as 09_stencil, and
#   - the files that differ from the lab's are counted and named ("a new
#     family touched N files: ..."): at most 5;
#   - make builds its programs (the CPU emulation's; the judge's and its
#     runner's, which pass its call on), make grade on the CPU says the
#     solution is correct and the skeleton wrong, and make class CHECK=1
#     names them "correct (emulated)" and "skeleton";
#   - two faults planted: a stage of a family without its files is refused
#     when make reads stages.tsv, and a family file without the emulator's
#     sizes is named when its emulated program runs.
# Ends with "N passed, N failed". Needs nvcc (the pre-run checks compile
# each kernel.cu); the CPU only.
set -u
cd "$(dirname "$0")/../.." || exit 2
. tests/lib.sh
lab=$(pwd)
toy=tests/family/toy
echo "== a new family: the toy stencil, 09_stencil"
if ! command -v "${NVCC:-nvcc}" >/dev/null; then
    skip "a new family: nvcc is not here"
    totals
    exit
fi
if [ ! -f "$toy/solutions/09_stencil/kernel.cu" ]; then
    skip "a new family: its solution is not part of a student release"
    totals
    exit
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
new=$tmp/lab
lab_copy "$new"
cp -r "$toy/common" "$toy/exercises" "$toy/solutions" "$new/"
cat "$toy/stages.tsv" >>"$new/stages.tsv"

touched=$(cd "$new" && find . -path ./build -prune -o -type f -print | sed 's|^\./||' | sort |
          while read -r f; do cmp -s "$f" "$lab/$f" || echo "$f"; done)
n=$(grep -c . <<<"$touched")
check "a new family touched $n files: $(echo $touched) (at most 5)" "$([ "$n" -le 5 ]; ok)" "$touched"

out=$(make -C "$new" -s -j2 build/09_stencil/solution-emu build/09_stencil/exercise-emu 2>&1)
check "make builds its emulated programs" $? "$out"
out=$(make -C "$new" -s -j2 build/09_stencil/solution-judge build/09_stencil/solution-runner 2>&1); st=$?
check "make builds its judge and runner: the call passed on from its header's LAB_CONTRACT alone" \
    "$([ $st = 0 ] && nm "$new/build/09_stencil/solution-judge" | grep -q ' T _Z7stencilPKfPfi$'; ok)" "$out"

out=$(make -C "$new" --no-print-directory grade EMU=1 EX=09 GRADE_SRC=solutions 2>&1)
check "make grade on the CPU: the solution is correct" \
    "$(grep -q '^09_stencil  *correct' <<<"$out" && grep -q '^1 of 1 stages correct on the CPU' <<<"$out"; ok)" "$out"
out=$(make -C "$new" --no-print-directory grade EMU=1 EX=09 2>&1); st=$?
check "make grade on the CPU: the skeleton is wrong, its outputs never written" \
    "$([ $st != 0 ] && grep -q '^09_stencil  *wrong: n=1024 FAILED .*never written' <<<"$out"; ok)" "$out"

if [ -d "$new/grader/class" ]; then
    mkdir -p "$tmp/sub/ana/09_stencil" "$tmp/sub/ben/09_stencil"
    cp "$toy/solutions/09_stencil/kernel.cu" "$tmp/sub/ana/09_stencil/"
    cp "$toy/exercises/09_stencil/kernel.cu" "$tmp/sub/ben/09_stencil/"
    out=$(make -C "$new" --no-print-directory class SUBMISSIONS="$tmp/sub" OUT="$tmp/class" CHECK=1 EX=09 2>&1); st=$?
    book=$(cat "$tmp/class/gradebook.csv" 2>&1)
    check "make class CHECK=1: the solution correct (emulated), the skeleton named" \
        "$([ $st = 0 ] && grep -q '^ana,correct (emulated),' <<<"$book" && grep -q '^ben,skeleton,' <<<"$book"; ok)" \
        "$out; $book"
else
    skip "make class CHECK=1: grader/class is not part of a student release"
fi

sed 's/^\(stage\t09_stencil\t\)stencil/\1nosuch/; s/^figure\tstencil/figure\tnosuch/' "$new/stages.tsv" >"$new/bad.tsv"
out=$(cd "$new" && awk -v out="$tmp" -f tools/stages-gen.awk bad.tsv 2>&1); st=$?
check "a stage of a family without its files: stages.tsv is refused, the missing files named" \
    "$([ $st = 1 ] && grep -q 'the family nosuch has no common/nosuch.h' <<<"$out" &&
       grep -q 'the family nosuch has no common/nosuch_family.cu' <<<"$out"; ok)" "$out"
sed -i '/^    \.emu = {/,/},$/d' "$new/common/stencil_family.cu"
out=$(make -C "$new" -s build/09_stencil/solution-emu build/confine/confine 2>&1 &&
      "$new/build/confine/confine" -- "$new/build/09_stencil/solution-emu" 2>&1); st=$?
check "a family file without the emulator's sizes: its program says so (exit 2), no default taken" \
    "$([ $st = 2 ] && grep -q "the family 'stencil' gives the CPU emulation no counted sizes" <<<"$out"; ok)" "$out"
totals
