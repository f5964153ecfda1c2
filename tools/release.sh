#!/usr/bin/env bash
# tools/release.sh: the student release of the lab (make release DEST=dir).
#
#   tools/release.sh [--git] [--class] DEST
#
# Copies the files of the last commit (HEAD, never the working tree) into
# DEST, which must be new or empty, less what is not for students (the
# paths of left_out below: the answers, the instructors' and maintainers'
# tools, the tests that hold answers); a family's compiled files ship as
# objects. Every Markdown file loses its instructors' blocks, and the
# release stops if its README still names the solutions. --git makes DEST a
# fresh repository with one commit; otherwise it is a plain tree with no
# .git. measurements/ ships: make sweep without a GPU shows its sweeps
# (tools/sweep-records.sh); --class leaves it out too, for the lab a class
# is graded with (make class: OUT/lab, copied for each student), where
# make grade never reads those records, most of the lab's files. What
# ships, what does not and why:
# INSTRUCTORS.md, "3. Make the student release".
set -euo pipefail

usage() { echo "usage: tools/release.sh [--git] [--class] DEST" >&2; exit 2; }
die() { echo "release: $*" >&2; exit 1; }

git_repo=0 class=0
case ${1:-} in -h | --help) echo "usage: tools/release.sh [--git] [--class] DEST (INSTRUCTORS.md, \"3. Make the student release\")"; exit 0 ;; esac
[ "${1:-}" = --git ] && { git_repo=1; shift; }
[ "${1:-}" = --class ] && { class=1; shift; }
[ $# = 1 ] && [ -n "$1" ] && [ "${1#-}" = "$1" ] || usage
dest=$1

lab=$(cd "$(dirname "$0")/.." && pwd)
# a git checkout that tracks files ships those; anything else (an unpacked
# archive, a copy whose .git tracks nothing) ships every file but build outputs
in_git=0
[ -n "$(git -C "$lab" ls-files 2>/dev/null | head -n 1)" ] && in_git=1

# the families' compiled files (LAB_COMPILED: stages.tsv's compiled lines)
make --no-print-directory -s -C "$lab" build/stages.env >&2 || die "cannot make build/stages.env from stages.tsv"
. "$lab/build/stages.env"
# Paths left out, as prefixes of the tracked paths (INSTRUCTORS.md, "3. Make
# the student release", says why each).
left_out='(solutions/|references/|INSTRUCTORS\.md$|tools/release\.sh$|grader/class/|gradescope/|tests/class/|tests/slurm/|tests/grader/|tests/fixtures/[^/]*\.cu$|tests/fixtures/expect\.tsv$|tests/emu/|\.ci/|research/'
for c in $LAB_COMPILED; do left_out="$left_out|common/$c\.cu$"; done
[ $class = 0 ] || left_out="$left_out|measurements/"
left_out="$left_out)"

if [ -e "$dest" ] && [ -n "$(ls -A "$dest" 2>/dev/null)" ]; then
    die "$dest exists and is not empty; remove it or name a new folder"
fi
mkdir -p "$dest"
dest=$(cd "$dest" && pwd)
case $dest/ in
    "$lab"/solutions/* | "$lab"/.git/*) die "$dest is inside the lab's solutions/ or .git/" ;;
esac

# The lab's files: in a git checkout those of HEAD, through git archive
# (the commit's bytes); in a copy without .git (an
# unpacked archive of the lab) every file but what the build and the grader
# make, which .gitignore lists, tar keeping dates and modes. Minus the
# left-out paths.
if [ $in_git = 1 ]; then
    git -C "$lab" rev-parse -q --verify HEAD >/dev/null || die "$lab has no commit yet: commit the lab first"
    # the compiled files are compiled from the working tree's source: it must be the commit's
    for c in $LAB_COMPILED; do
        git -C "$lab" diff --quiet HEAD -- "common/$c.cu" "common/$c.h" common/gpu.h ||
            die "common/$c.cu, .h or common/gpu.h has uncommitted changes: commit or stash them first"
    done
    mapfile -d '' shipped < <(git -C "$lab" ls-tree -r -z --name-only HEAD | grep -zvE "^$left_out")
    git -C "$lab" --literal-pathspecs archive --format=tar HEAD -- "${shipped[@]}" | tar -xpf - -C "$dest"
    # dates: a file as in the working tree keeps its date there (so that a
    # build copied along is not all out of date), the dates of them all
    # copied by one cp (a process a file took most of the release's time);
    # one changed since HEAD is dated now (newer than anything built from
    # the changed file)
    declare -A changed_since=()
    while IFS= read -r -d '' f; do changed_since[$f]=1; done < <(git -C "$lab" diff -z --name-only HEAD)
    same=() now=()
    for f in "${shipped[@]}"; do
        if [ -n "${changed_since[$f]:-}" ] || [ ! -e "$lab/$f" ]; then
            now+=("$f")
        elif [ -L "$lab/$f" ]; then
            touch -h -r "$lab/$f" "$dest/$f"
        else
            same+=("$f")
        fi
    done
    [ ${#now[@]} = 0 ] || (cd "$dest" && touch -h -- "${now[@]}")
    [ ${#same[@]} = 0 ] || (cd "$lab" && printf '%s\0' "${same[@]}" |
        xargs -0 cp --attributes-only --preserve=timestamps --parents -t "$dest" --) ||
        die "cannot date the files of $dest as in $lab"
else
    (
        cd "$lab"
        find . \( -path ./.git -o -path ./build -o -path ./results -o -path ./class-grades \) -prune \
            -o \( -type f -o -type l \) ! -name grade.json ! -name results.json -printf '%P\0' |
            grep -zvE "^$left_out" | tar --null --no-recursion -T - -cf - | tar -xpf - -C "$dest"
    )
fi
# each skeleton as shipped, dates kept: make status tells a stage not
# begun by it, and make check tests the lab on these, not on the student's
# exercises/ (status/pristine-check.sh)
for k in "$dest"/exercises/*/kernel.cu; do
    s=${k%/kernel.cu}; s=${s##*/}
    mkdir -p "$dest/.lab/skeletons/$s" && cp -p "$k" "$dest/.lab/skeletons/$s/kernel.cu"
done

# each compiled file as objects: the GPU's (sm_75 to sm_90 and PTX) and the
# CPU emulation's, common/<name>-emu.o (emu/README.md)
for c in $LAB_COMPILED; do
    if [ -f "$lab/common/$c.cu" ]; then
        make --no-print-directory -s -C "$lab" "build/release/$c.o" >&2 ||
            die "cannot compile common/$c.cu into build/release/$c.o (needs nvcc)"
        cp -p "$lab/build/release/$c.o" "$dest/common/$c.o"
        make --no-print-directory -s -C "$lab" "build/emu/common/$c.o" >&2 ||
            die "cannot compile common/$c.cu for the CPU emulation (needs g++)"
        cp -p "$lab/build/emu/common/$c.o" "$dest/common/$c-emu.o"
    elif [ -f "$lab/common/$c.o" ]; then
        cp -p "$lab/common/$c.o" "$dest/common/"
        [ ! -f "$lab/common/$c-emu.o" ] || cp -p "$lab/common/$c-emu.o" "$dest/common/"
    else
        die "neither common/$c.cu nor common/$c.o is here"
    fi
done

# the students' README: the blocks between <!-- instructors --> and
# <!-- /instructors --> dropped, those of <!-- for students ... --> shown
student_readme() {
    awk '
    $0 == "<!-- instructors -->" { if (hide || show) bad = 1; hide = 1; next }
    $0 == "<!-- /instructors -->" { if (!hide) bad = 1; hide = 0; next }
    $0 == "<!-- for students" { if (hide || show) bad = 1; show = 1; next }
    show && $0 == "-->" { show = 0; next }
    !hide { print }
    END { if (bad || hide || show) { print "release: unbalanced <!-- instructors --> or <!-- for students --> lines" > "/dev/stderr"; exit 1 } }'
}
# every Markdown file with such blocks (a folder's README, a handout) the same
# way, its date kept
while IFS= read -r -d '' md; do
    student_readme <"$md" >"$dest/.lab/student.md" || die "${md#"$dest"/} could not be turned into the students' version"
    touch -r "$md" "$dest/.lab/student.md" && mv "$dest/.lab/student.md" "$md"
done < <(cd "$dest" && grep -rlZxE --include='*.md' -e '<!-- (/?instructors -->|for students)' . | sed -z "s|^\./|$dest/|")
if grep -nE 'solutions/|SOLUTION=|diff -r|INSTRUCTORS|calibrate|make (release|class|profile-expected)' "$dest/README.md" >&2; then
    die "the students' README above still speaks of the solutions or instructors' targets: mark those lines in README.md"
fi

files=$(find "$dest" -type f | wc -l)
if [ $in_git = 1 ]; then
    # a checkout with no commit yet has no HEAD: say so rather than stop
    commit=$(git -C "$lab" rev-parse --short HEAD 2>/dev/null || echo "(none yet)")
    changed=$(git -C "$lab" status --porcelain --untracked-files=no 2>/dev/null | sed 's/^.. //' | tr '\n' ' ')
    echo "release: $files files of commit $commit in $dest (no solutions/, no instructors' tools)"
    [ -z "$changed" ] ||
        echo "release: note: uncommitted changes left out (the release is commit $commit): ${changed% }"
else
    changed="" commit="a copy without git history"
    echo "release: $files files in $dest (no solutions/, no instructors' tools; git tracks no file of $lab, so every file but build outputs was copied)"
fi

if [ $git_repo = 1 ]; then
    # the instructor's own name when git knows it, else the lab's
    ident=()
    git -C "$lab" config user.name >/dev/null || ident+=(-c user.name="CUDA memory lab")
    git -C "$lab" config user.email >/dev/null || ident+=(-c user.email="lab@localhost")
    git -C "$dest" -c init.defaultBranch=main init -q
    git -C "$dest" add -A
    git -C "$dest" "${ident[@]}" commit -q -m "CUDA memory lab: student release" \
        -m "Made by make release from commit $commit."
    echo "release: $dest is a git repository with one commit"
fi
