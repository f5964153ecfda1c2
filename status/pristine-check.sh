#!/usr/bin/env bash
# status/pristine-check.sh: make check in a student release. The lab's own
# tests expect the skeletons as handed out (each has its TODO(lab) parts,
# fails its checks cleanly on a GPU), so they run on a copy of the lab,
# build/pristine, whose exercises/ are .lab/skeletons/: whatever the student
# has done to exercises/ (finished, half done, not compiling), make check
# tests the lab. The student's own files: make status, make grade.
#
# The copy is kept between runs (files synced with their dates, so make
# rebuilds only what changed); its build/ starts as a copy of this one's,
# less the stages' programs, which were built from the student's files.
set -u
cd "$(dirname "$0")/.." || exit 2
[ -d .lab/skeletons ] || { echo "pristine-check: no .lab/skeletons here: run make check in a student release" >&2; exit 2; }
copy=build/pristine
echo "make check: the lab's own tests, on the skeletons as handed out ($copy);"
echo "your exercises/ are not tested here: make status and make grade tell where you stand"
mkdir -p "$copy"
if [ ! -d "$copy/build" ] && [ -d build ]; then
    mkdir -p "$copy/build"
    for f in build/*; do
        case ${f#build/} in
            pristine | [0-9]* | status.log | grade-* | check-logs) ;;
            *) cp -a "$f" "$copy/build/" ;;
        esac
    done
fi
# the lab's files as they are here, but build outputs, reports, and the
# student's kernel.cu files, which the skeletons as handed out replace
find . \( -path ./build -o -path ./.git -o -path ./.lab -o -path ./results \) -prune \
    -o \( -type f -o -type l \) ! -path './exercises/*/kernel.cu' ! -name grade.json ! -name results.json \
    ! -name grade.tsv -printf '%P\0' | tar --null --no-recursion -T - -cf - | tar -xpf - -C "$copy"
for d in .lab/skeletons/*/; do
    s=$(basename "$d")
    mkdir -p "$copy/exercises/$s"
    cmp -s "$d/kernel.cu" "$copy/exercises/$s/kernel.cu" || cp -p "$d/kernel.cu" "$copy/exercises/$s/kernel.cu"
done
# what the tests need built first, side by side (one job a core), then the tests
make --no-print-directory -C "$copy" -j"$(nproc)" check-build || exit
exec make --no-print-directory -C "$copy" check
