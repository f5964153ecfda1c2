#!/usr/bin/env bash
# research/check-times.sh [COMMIT] OUT CLASS: how long make class CHECK=1
# takes on this machine, from a fresh clone of COMMIT (default HEAD):
#
#   one-full-student   one student who sent every stage's solution
#   class              the submissions of CLASS/submissions with the roster
#                      CLASS/roster.csv (TERM_KEEP=CLASS bash
#                      tests/class/term.sh makes them: the class of 12)
#
# Adds to OUT/times.tsv, a record as measurements/ keeps them (what: the
# commit, the step, the machine's cores and load at its start; the
# seconds): the run's wall clock, its CPU time (user and system, the
# class's processes), and the time the run gives the students alone (its
# line "... every student in N s", the lab's build once not in it). Each
# run's output goes to OUT/<commit>-<step>[-runN].log. Wall clock: other compiles
# on the machine slow it, so the load is recorded.
set -u
[ $# -ge 2 ] || { echo "usage: research/check-times.sh [COMMIT] OUT CLASS" >&2; exit 2; }
commit=HEAD
[ $# -ge 3 ] && { commit=$1; shift; }
out=$(realpath -m "$1") class=$(realpath -m "$2")
[ -d "$class/submissions" ] && [ -f "$class/roster.csv" ] ||
    { echo "check-times: $class has no submissions/ and roster.csv (TERM_KEEP=$class bash tests/class/term.sh)" >&2; exit 2; }
cd "$(dirname "$0")/.." || exit 2
sha=$(git rev-parse --short "$commit") || exit 2
mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
git clone -q --no-checkout "$PWD" "$work/lab" && git -C "$work/lab" checkout -q --detach "$sha" &&
    make -C "$work/lab" -s -j2 build/grader/class >/dev/null || exit 1

# timed STEP ARGS...: make class CHECK=1 ARGS in the clone, three lines in times.tsv
timed() {
    local step=$1 load log=$out/$sha-$1.log n=1
    shift
    while [ -e "$log" ]; do n=$((n + 1)) log=$out/$sha-$step-run$n.log; done
    load=$(cut -d' ' -f1 /proc/loadavg)
    rm -rf "$work/out-$step"
    /usr/bin/time -f 'time: %e %U %S' -o "$work/time" make -C "$work/lab" --no-print-directory class CHECK=1 \
        OUT="$work/out-$step" "$@" >"$log" 2>&1
    local st=$? wall user sys students
    read -r _ wall user sys <"$work/time"
    students=$(sed -n 's/.* every student in \([0-9]*\) s.*/\1/p' "$log")
    {
        printf '%s %s (%s cores, load %s at the start, exit %s)\t%s\ts\n' "$sha" "$step" "$(nproc)" "$load" "$st" "$wall"
        printf '%s %s, CPU time (user and system)\t%s\ts\n' "$sha" "$step" "$(echo "$user + $sys" | bc)"
        printf '%s %s, the students alone (its line)\t%s\ts\n' "$sha" "$step" "$students"
    } | tee -a "$out/times.tsv"
}

[ -s "$out/times.tsv" ] || printf '%s\n' "# How long make class CHECK=1 takes (research/check-times.sh): what, the" \
    "# value, its unit. Wall clock: other work on the machine slows it (the load)." \
    "# what	value	unit" >"$out/times.tsv"
for s in "$work"/lab/solutions/*/; do
    mkdir -p "$work/full/full/$(basename "$s")" && cp "$s/kernel.cu" "$work/full/full/$(basename "$s")/"
done
timed one-full-student SUBMISSIONS="$work/full"
timed class SUBMISSIONS="$class/submissions" ROSTER="$class/roster.csv"
