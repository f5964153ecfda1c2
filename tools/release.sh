#!/usr/bin/env bash
# tools/release.sh: the student release of the lab (make release DEST=dir).
#
#   tools/release.sh [--git] DEST
#
# Copies the files git tracks (as they are in the working tree, dates kept)
# into DEST, which must be new or empty, leaving out what is not for students:
#
#   solutions/           the answers
#   INSTRUCTORS.md       the instructors' guide
#   tools/release.sh     this script
#   grader/class.sh      class grading, and its parts in grader/class/
#   tests/class/         its tests (they grade copies of the solutions)
#   tests/slurm/         the test cluster for class grading
#   tests/grader/        the grader's own tests: some of their wrong-on-purpose
#                        kernels are a solution with one fault put in
#   .ci/                 the lab's own CI
#
# Nothing untracked comes along: no build/, results/, grade reports or
# worktree leftovers. The result is a plain tree with no .git, so no history
# can leak; --git makes DEST a fresh repository with one commit instead.
# Everything else stays, including the grader and its rubric, the deliberately
# wrong kernels of tests/fixtures/ and the reference counters of
# profile/expected.tsv; the Makefile and make check adapt to the missing
# solutions/.
set -euo pipefail

usage() { echo "usage: tools/release.sh [--git] DEST" >&2; exit 2; }
die() { echo "release: $*" >&2; exit 1; }

git_repo=0
[ "${1:-}" = --git ] && { git_repo=1; shift; }
[ $# = 1 ] && [ -n "$1" ] || usage
dest=$1

lab=$(cd "$(dirname "$0")/.." && pwd)
# a git checkout that tracks files ships those; anything else (an unpacked
# archive, a copy whose .git tracks nothing) ships every file but build outputs
in_git=0
[ -n "$(git -C "$lab" ls-files 2>/dev/null | head -n 1)" ] && in_git=1

# Paths left out, as prefixes of the tracked paths (see the header for why).
left_out='(solutions/|INSTRUCTORS\.md$|tools/release\.sh$|grader/class\.sh$|grader/class/|tests/class/|tests/slurm/|tests/grader/|\.ci/)'

if [ -e "$dest" ] && [ -n "$(ls -A "$dest" 2>/dev/null)" ]; then
    die "$dest exists and is not empty; remove it or name a new folder"
fi
mkdir -p "$dest"
dest=$(cd "$dest" && pwd)
case $dest/ in
    "$lab"/solutions/* | "$lab"/.git/*) die "$dest is inside the lab's solutions/ or .git/" ;;
esac

# The lab's files: in a git checkout the tracked files that exist (a file
# deleted but not yet committed is not shipped); in a copy without .git (an
# unpacked archive of the lab) every file but what the build and the grader
# make, which .gitignore lists. Minus the left-out paths; tar keeps dates
# and modes.
lab_files() {
    if [ $in_git = 1 ]; then
        git ls-files -z
    else
        find . \( -path ./.git -o -path ./build -o -path ./results -o -path ./class-grades \) -prune \
            -o \( -type f -o -type l \) ! -name grade.json ! -name results.json -printf '%P\0'
    fi
}
(
    cd "$lab"
    lab_files | grep -zvE "^$left_out" | while IFS= read -r -d '' f; do
        if [ -e "$f" ] || [ -L "$f" ]; then printf '%s\0' "$f"; fi
    done | tar --null --no-recursion -T - -cf - | tar -xpf - -C "$dest"
)

files=$(find "$dest" -type f | wc -l)
if [ $in_git = 1 ]; then
    # a checkout with no commit yet has no HEAD: say so rather than stop
    commit=$(git -C "$lab" rev-parse --short HEAD 2>/dev/null || echo "(none yet)")
    changed=$(git -C "$lab" status --porcelain --untracked-files=no 2>/dev/null | grep -vE "^.. $left_out" || true)
    echo "release: $files files of commit $commit in $dest (no solutions/, no instructors' tools)"
else
    changed="" commit="a copy without git history"
    echo "release: $files files in $dest (no solutions/, no instructors' tools; git tracks no file of $lab, so every file but build outputs was copied)"
fi
if [ -n "$changed" ]; then
    echo "release: note: these files have uncommitted changes; the release has them as they are now:"
    sed 's/^.. /  /' <<<"$changed"
fi

if [ $git_repo = 1 ]; then
    # the instructor's own name when git knows it, else the lab's
    ident=()
    git -C "$lab" config user.name >/dev/null || ident+=(-c user.name="CUDA memory lab")
    git -C "$lab" config user.email >/dev/null || ident+=(-c user.email="lab@localhost")
    git -C "$dest" -c init.defaultBranch=main init -q
    git -C "$dest" add -A
    git -C "$dest" "${ident[@]}" commit -q -m "CUDA memory lab: student release" \
        -m "Made by make release from commit $commit$([ -n "$changed" ] && echo " with uncommitted changes")."
    echo "release: $dest is a git repository with one commit"
fi
