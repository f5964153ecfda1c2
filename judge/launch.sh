#!/usr/bin/env bash
# judge/launch.sh: the one launcher of student code outside a grade's own
# runs (judge/README.md, "Every door"): make grade and make run on the CPU,
# make status, make explain, make class CHECK=1, the Gradescope bundle.
#
#   judge/launch.sh --stage STAGE --object OBJECT [--emulated] [--own]
#                   [--source FILE] [--limit S] -- PROGRAM [ARG...]
#
# In the lab's folder, with PROGRAM built (inside the build's wall) from the
# kernel.cu that nvcc compiled into OBJECT (its list of headers beside it,
# OBJECT.d):
#   1. the pre-run checks a grade makes, on OBJECT (build/grader/grade
#      --prerun: the headers, the symbols): refused with the grade's sentence;
#   2. the wall: PROGRAM runs inside build/confine/confine where this machine
#      can confine. Where it cannot: the caller's own working copy (--own)
#      run by a user who is not root runs plainly, with one line saying so;
#      anything else (someone else's kernel.cu, or root) is not run, with one
#      line saying so: never an unconfined run of someone else's code or as root;
#   3. the verdict, from the record the program's checks write on a
#      descriptor of its own, validated as a grade validates it (build/grader/
#      grade --run-checks): never from its exit status or its printed lines.
# --source FILE: the kernel.cu PROGRAM was built from, which the run may
# read (make explain prints the lines it counts; it reads nothing else).
# The program's output is shown, then one line: "verdict: correct" (on the
# CPU with what the record says of the stage's technique: "verdict:
# correct; padding missing: ..."), "verdict: wrong: WHY" or "verdict:
# refused: WHY".
# Exit status: 0 correct, 1 wrong, 2 usage (or a missing program), 4 what
# the emulator cannot run or a CUDA error, 5 not run: this machine cannot
# confine, 6 refused by the pre-run checks (past the time limit: wrong).
set -u
stage="" object="" emulated="" own=0 limit=${EMU_LIMIT_S:-120} source=()
while [ $# -gt 0 ]; do
    case $1 in
        --stage) stage=$2; shift 2 ;;
        --object) object=$2; shift 2 ;;
        --emulated) emulated=--emulated; shift ;;
        --own) own=1; shift ;;
        --limit) limit=$2; shift 2 ;;
        --source) source=(--read "$2"); shift 2 ;;
        --) shift; break ;;
        *) echo "launch: unknown option $1" >&2; exit 2 ;;
    esac
done
[ -n "$stage" ] && [ -n "$object" ] && [ $# -gt 0 ] ||
    { echo "usage: judge/launch.sh --stage STAGE --object OBJECT [--emulated] [--own] [--source FILE] [--limit S] -- PROGRAM [ARG...]" >&2; exit 2; }
[ -x build/grader/grade ] && [ -x build/confine/confine ] ||
    { echo "launch: run from the lab's folder, with build/grader/grade and build/confine/confine built" >&2; exit 2; }
[ -f "$object" ] && [ -f "${object%.o}.d" ] ||
    { echo "launch: not run: $object (nvcc's object of the kernel.cu, which the pre-run checks read) was not built" ; exit 2; }
[ -x "$1" ] || { echo "launch: not run: $1 was not built"; exit 2; }

said=$(build/grader/grade --prerun "$stage" "$object")
st=$?
[ $st = 0 ] || { printf '%s\nverdict: %s\n' "$said" "$(head -n 1 <<<"$said")"; exit "$st"; }

wall=(build/confine/confine "${source[@]}" --)
if ! probe=$(build/confine/confine --probe 2>&1); then
    if [ $own = 1 ] && [ "$(id -u)" != 0 ]; then
        echo "launch: this machine cannot confine ($probe): your own kernel.cu runs unconfined, as you"
        wall=()
    else
        echo "launch: not run: this machine cannot confine ($probe), and $([ $own = 1 ] && echo "this is root" ||
            echo "this kernel.cu is not your own working copy"): student code runs only inside the wall"
        exit 5
    fi
fi
# a GPU run reads the files the GPU driver loads, as a grade's runs do
# (judge/README.md, "The libraries"): the lab's probe lists them
if [ -z "$emulated" ] && [ ${#wall[@]} -gt 0 ]; then
    files=build/confine/driver-files
    build/confine/cuda-probe --files >"$files.tmp" 2>/dev/null && [ "$(head -c 1 "$files.tmp")" = / ] &&
        mv "$files.tmp" "$files" ||
        { rm -f "$files.tmp"; echo "launch: not run: build/confine/cuda-probe --files cannot list the GPU driver's files"; exit 5; }
    wall=(build/confine/confine --read-list "$files" "${source[@]}" --)
fi
# the grader's run ends the program's whole process group at the limit
exec build/grader/grade --run-checks "$stage" "$limit" $emulated -- "${wall[@]}" "$@"
