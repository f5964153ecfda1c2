#!/usr/bin/env bash
# tests/class/release.sh: make release, and make check and make grade in the
# release; a suite of make check (tests/run.sh), which runs it beside the
# other class tests; ends with "N passed, N failed[, N skipped]". Run alone:
#   bash tests/class/release.sh
# The release's make check runs the suites that can differ there (those of
# in_release below): those that run the release's make, whose targets and
# messages change in a student release (RELEASE: no solutions/), or read
# what the release leaves out, edits (the Markdown files' instructors'
# blocks), renames (.lab/skeletons) or makes (stage 05's baseline as an
# object). The others (the wall, the link, the judge, the layout, the unit
# tests, a toy family, ...) run programs and scripts that ship unchanged on
# inputs of their own; in the release they would run the same code on the
# same bytes, less the checks of what it leaves out, which they skip: the
# instructors' copy's make check has run them already.
in_release='emu|launcher|tables|docs|loop|messages|policy|profile|docs-check|drivers|stages|gpu'
cd "$(dirname "$0")/../.." && . tests/class/lib.sh && class_alone || exit 2
# ============================================================ make release
echo "== make release"
rel=$tmp/release
out=$(make --no-print-directory release DEST="$rel" 2>&1)
check "make release DEST=dir: exit 0 and a line saying what it made" \
    "$(grep -q "^release: [0-9]* files" <<<"$out"; ok)" "$out"
found=$(cd "$rel" && find . \( -name .git -o -path ./solutions -o -path ./build -o -path ./results \
    -o -name grade.json -o -name results.json \) -print)
check "the release has no solutions/, .git, build/, results/ or grade reports" "$([ -z "$found" ]; ok)" "$found"
found=$(cd "$rel" && ls -d INSTRUCTORS.md references tools/release.sh research grader/class gradescope tests/class tests/slurm \
    tests/grader .ci 2>/dev/null)
check "the release leaves out the instructors' guide and tools, the research/ folder, their tests, the grader's tests and the CI" "$([ -z "$found" ]; ok)" "$found"
# the lab's files as make release lists them: HEAD's, or (a copy whose git
# tracks nothing) every file but build outputs
lab_files() {
    if [ -n "$(git ls-files 2>/dev/null | head -n 1)" ]; then
        git ls-tree -r --name-only HEAD
    else
        find . \( -path ./.git -o -path ./build -o -path ./results -o -path ./class-grades \) -prune \
            -o \( -type f -o -type l \) ! -name grade.json ! -name results.json -printf '%P\n'
    fi
}
want=$( (lab_files | grep -vE '^(solutions/|references/|INSTRUCTORS\.md$|tools/release\.sh$|grader/class/|gradescope/|tests/class/|tests/slurm/|tests/grader/|tests/fixtures/[^/]*\.cu$|tests/fixtures/expect\.tsv$|tests/emu/|common/transpose_unpadded\.cu$|\.ci/|research/)';
    echo common/transpose_unpadded.o; echo common/transpose_unpadded-emu.o; for s in $stages; do echo ".lab/skeletons/$s/kernel.cu"; done) | sort)
have=$(cd "$rel" && find . \( -type f -o -type l \) | sed 's|^\./||' | sort)
check "the release holds exactly the committed files, less those, stage 05's baseline as an object, the skeletons as handed out" \
    "$([ "$want" = "$have" ]; ok)" "$(diff <(echo "$want") <(echo "$have"))"

# A release from a tree with an answer typed into a skeleton and not
# committed: HEAD's skeleton ships, and one line names the change (in a
# clone of this commit, with this lab's stage 05 object, so nothing is
# compiled; the clone shares no working tree with the lab).
dirty=$tmp/dirty-lab
if git clone -q "$lab" "$dirty" 2>/dev/null && git -C "$dirty" checkout -q "$(git rev-parse HEAD)" 2>/dev/null &&
    mkdir -p "$dirty/build/release" &&
    cp build/release/transpose_unpadded.o "$dirty/build/release/" 2>/dev/null; then
    first=$(head -n 1 <<<"$stages")
    cp "solutions/$first/kernel.cu" "$dirty/exercises/$first/kernel.cu"
    out=$("$dirty/tools/release.sh" "$tmp/release-dirty" 2>&1); st=$?
    check "a release from a tree with an uncommitted answer ships HEAD's skeleton, and names the change in one line" \
        "$([ $st = 0 ] && cmp -s "exercises/$first/kernel.cu" "$tmp/release-dirty/exercises/$first/kernel.cu" &&
           [ "$(grep -c "uncommitted changes left out.*exercises/$first/kernel.cu" <<<"$out")" = 1 ] &&
           cmp -s "exercises/$first/kernel.cu" "$tmp/release-dirty/.lab/skeletons/$first/kernel.cu"; ok)" "exit $st; $out"
    rm -rf "$dirty" "$tmp/release-dirty"
else
    skip "a release from a tree with uncommitted changes: cannot clone the lab here (not a git checkout?)"
fi

# Near-solutions: no file outside handouts/ and slides/ shares more than 3
# consecutive lines, or any answer line, with a solution (the fixtures and
# stage 05's baseline source are left out for that).
found=$(tests/class/answer-overlap.sh . "$rel" 2>&1); st=$?
check "no file of the release comes close to a solution (tests/class/answer-overlap.sh)" "$([ $st = 0 ]; ok)" "$found"
sed -n '/^__global__/,/^}/p' solutions/04_transpose/kernel.cu | head -n 14 | tail -n 6 >"$rel/tests/planted.cu"
found=$(tests/class/answer-overlap.sh . "$rel" 2>&1); st=$?
rm -f "$rel/tests/planted.cu"
check "the overlap check finds 6 lines of a solution planted in a test file" \
    "$([ $st = 1 ] && grep -q '^tests/planted.cu: [0-9]* consecutive lines' <<<"$found"; ok)" "$found"
grep -F '[TILE + 1]' solutions/05_bank_conflicts/kernel.cu | head -n 1 >"$rel/common/planted.h"
found=$(tests/class/answer-overlap.sh . "$rel" 2>&1); st=$?
rm -f "$rel/common/planted.h"
check "the overlap check finds a single answer line planted in common/" \
    "$([ $st = 1 ] && grep -q '^common/planted.h:1: an answer line' <<<"$found"; ok)" "$found"
# (but the lines around the stage table, which make tables and make check read)
found=$(grep -nE 'solutions/|SOLUTION=|diff -r|INSTRUCTORS|calibrate|make (release|class|profile-expected)|<!--' "$rel/README.md" |
        grep -vE '^[0-9]+:<!-- (stages: made by make tables from stages\.tsv|/stages) -->$')
check "the release's README names no solutions or instructors' targets, and says where to start" \
    "$([ -z "$found" ] && grep -q '^## Start here' "$rel/README.md"; ok)" "$found"
out=$(make --no-print-directory release DEST="$rel" 2>&1); st=$?
check "make release refuses a folder that is not empty" "$([ $st != 0 ] && grep -q "not empty" <<<"$out"; ok)" "$out"
out=$(make --no-print-directory release DEST="$tmp/release-git" GIT=1 2>&1)
commits=$(git -C "$tmp/release-git" rev-list --all 2>/dev/null | wc -l)
blobs=$(for f in solutions/*/kernel.cu; do
    git -C "$tmp/release-git" cat-file -e "$(git hash-object "$f")" 2>/dev/null && echo "$f"
done)
check "GIT=1: a fresh repository with one commit and no solution in it" \
    "$([ "$commits" = 1 ] && [ -z "$blobs" ] && [ -z "$(git -C "$tmp/release-git" status --porcelain)" ]; ok)" \
    "$out; commits: $commits; solutions found: $blobs"

# Build the release with the lab's objects (dates kept, so make rebuilds
# only what differs), after removing the solutions' outputs; one exercise
# is compiled again from its source.
arch=$(grep -o 'code=sm_[0-9]*' build/flags.txt 2>/dev/null | sed 's/code=sm_//' | sort -u | tr '\n' ' ')
grep -q -- '-arch=native' build/flags.txt 2>/dev/null && arch=native
if [ -d build ]; then
    cp -a build "$rel/build"
    find "$rel/build" -name 'solution*' -exec rm -rf {} +
fi
first=$(head -n 1 <<<"$stages")
touch "$rel/exercises/$first/kernel.cu"
out=$(make --no-print-directory -C "$rel" ${arch:+CUDA_ARCH="$arch"} 2>&1); st=$?
check "the release builds (make): every exercise, no solution, says it is a student release" \
    "$([ $st = 0 ] && grep -q "student release" <<<"$out" && grep -q "exercises/$first/kernel.cu" <<<"$out" &&
       [ -z "$(find "$rel/build" -name 'solution*')" ] &&
       [ "$(ls "$rel"/build/*/exercise | wc -l)" = "$(wc -l <<<"$stages")" ]; ok)" "$out"
out=$(make --no-print-directory -C "$rel" run EX="$first" SOLUTION=1 2>&1); st=$?
check "make run SOLUTION=1 in the release says plainly that it is a student release" \
    "$([ $st != 0 ] && grep -q "this is a student release" <<<"$out"; ok)" "$out"
out=$(make --no-print-directory -C "$rel" release DEST="$tmp/again" 2>&1; make --no-print-directory -C "$rel" class SUBMISSIONS=x 2>&1;
    make --no-print-directory -C "$rel" calibrate 2>&1)
check "make release, make class and make calibrate in the release say why they cannot run there" \
    "$([ "$(grep -c "instructors' copy" <<<"$out")" = 2 ] && grep -q "this student release has neither" <<<"$out" &&
       [ "$(grep -c 'Error 2$' <<<"$out")" = 3 ]; ok)" "$out"
if [ $have_gpu = 0 ]; then
    out=$(make --no-print-directory -C "$rel" grade 2>&1); st=$?
    check "make grade in the release, no GPU here: the CPU emulation, each skeleton told it is still the skeleton, no points" \
        "$([ $st != 0 ] && grep -q "on the CPU emulation" <<<"$out" &&
           [ "$(grep -c 'still the skeleton' <<<"$out")" = "$(wc -l <<<"$stages")" ] && ! grep -q 'points' <<<"$(sed -e 's/speed and points need a GPU//' -e 's/no speed, no points//' <<<"$out")"; ok)" "$out"
    out=$(make --no-print-directory -C "$rel" grade EMU=0 2>&1); st=$?
    check "make grade EMU=0 in the release: no GPU here, so one line saying so and the grader's status 3" \
        "$([ $st != 0 ] && grep -q "no NVIDIA GPU" <<<"$out" && grep -q 'Error 3$' <<<"$out"; ok)" "$out"
else
    out=$(make --no-print-directory -C "$rel" grade EX="$first" 2>&1); st=$?
    check "make grade EX=$first in the release grades the skeleton (exit 0, grade.json)" \
        "$([ $st = 0 ] && [ -f "$rel/grade.json" ]; ok)" "$out"
fi
# make status tells a finished stage, one that does not compile and a
# skeleton apart (the first two stages changed, the third not)
s1=$first s2=$(sed -n 2p <<<"$stages") s3=$(sed -n 3p <<<"$stages")
cp "solutions/$s1/kernel.cu" "$rel/exercises/$s1/kernel.cu"
sed '0,/;$/s/;$//' "solutions/$s2/kernel.cu" >"$rel/exercises/$s2/kernel.cu"
out=$(make --no-print-directory -C "$rel" ${arch:+CUDA_ARCH="$arch"} status EX="$s1 $s2 $s3" 2>&1); st=$?
if [ $have_gpu = 1 ]; then done1="correct (on the GPU)"; else done1="compiles (correctness needs a GPU or the CPU emulator)"; fi
make -n -s -C "$rel" "build/$s1/exercise-emu" >/dev/null 2>&1 && [ $have_gpu = 0 ] && done1="correct (on the CPU emulator"
check "make status in the release: a finished stage, a compile error (its first line), a skeleton" \
    "$([ $st = 0 ] && grep -qF "$s1 $(printf '%*s' $((22 - ${#s1})) '')$done1" <<<"$out" &&
       grep -qE "^$s2 +does not compile: exercises/$s2/kernel.cu\([0-9]+\): error" <<<"$out" &&
       grep -qE "^$s3 +still the skeleton" <<<"$out"; ok)" "$out"
if [ $have_gpu = 0 ] && make -n -s -C "$rel" "build/$s1/exercise-emu" >/dev/null 2>&1; then
    out=$(make --no-print-directory -C "$rel" ${arch:+CUDA_ARCH="$arch"} status EX="$s1" 2>&1); st=$?
    check "make status again, nothing changed: the emulator's verdict kept, marked (unchanged), and said why" \
        "$([ $st = 0 ] && grep -qE "^$s1 +correct \(on the CPU emulator.*\(unchanged\)" <<<"$out" &&
           grep -q '^(unchanged: not run again' <<<"$out"; ok)" "$out"
    touch "$rel/exercises/$s1/kernel.cu"
    out=$(make --no-print-directory -C "$rel" ${arch:+CUDA_ARCH="$arch"} status EX="$s1" 2>&1); st=$?
    check "make status after an edit: the stage runs again (not marked unchanged)" \
        "$([ $st = 0 ] && grep -qE "^$s1 +correct \(on the CPU emulator" <<<"$out" && ! grep -q 'unchanged' <<<"$out"; ok)" "$out"
fi
# make check in the release tests the lab, whatever the student did: here
# with every stage finished from the solutions (its copy of the skeletons,
# build/pristine, starts from this lab's build, so nothing is compiled)
for s in $stages; do cp "solutions/$s/kernel.cu" "$rel/exercises/$s/kernel.cu"; done
if [ -d build ]; then
    mkdir -p "$rel/build/pristine" && cp -a build "$rel/build/pristine/build"
    find "$rel/build/pristine/build" -name 'solution*' -exec rm -rf {} +
    # not a grade's copies of this lab (their links point here), as
    # status/pristine-check.sh leaves them out
    rm -rf "$rel/build/pristine/build/"grade-*
fi
out=$(make --no-print-directory -C "$rel" ${arch:+CUDA_ARCH="$arch"} check T="$in_release" 2>&1); st=$?
check "make check passes in a release whose stages are all finished: it tests the skeletons as handed out, says what it skips" \
    "$([ $st = 0 ] && grep -q "^skip  solutions: none here (a student release)" <<<"$out" &&
       grep -q "on the skeletons as handed out" <<<"$out" && grep -qE '^[0-9]+ passed, 0 failed' <<<"$out" &&
       [ "$(grep -c '^== ' <<<"$out")" = "$(tr '|' '\n' <<<"$in_release" | wc -l)" ]; ok)" \
    "$(grep -E '^skip|passed' <<<"$out"; grep -E -A6 '^FAIL' <<<"$out" | cut -c1-300)"
rm -rf "$rel/build/pristine"

totals
