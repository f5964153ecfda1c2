#!/usr/bin/env bash
# research/loop-times.sh [COMMIT] OUT: how long a student waits on this
# machine, from a fresh clone of COMMIT (default HEAD) in a folder of its
# own, with nothing built:
#
#   make -j2               the README's first build
#   make status            with every stage's kernel.cu edited (the first),
#                          then after one more edit, of stage 03's (the
#                          seconds at which each stage's line came)
#   make run EX=01         in a second fresh clone: the first useful command
#                          with nothing built before it
#
# Adds to OUT/times.tsv, a record as measurements/ keeps them (what: the
# commit, the step, the machine's cores and load at its start; the seconds),
# and writes each step's output to OUT/<commit>-<step>.log. The times are wall
# clock: other compiles on the machine slow them, so the load is recorded.
set -u
[ $# -ge 1 ] || { echo "usage: research/loop-times.sh [COMMIT] OUT" >&2; exit 2; }
commit=HEAD
[ $# -ge 2 ] && { commit=$1; shift; }
out=$(realpath -m "$1")
cd "$(dirname "$0")/.." || exit 2
lab=$PWD
sha=$(git rev-parse --short "$commit") || exit 2
mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# clone DIR: the lab at $commit, as a fresh clone has it
clone() { git clone -q --no-checkout "$lab" "$1" && git -C "$1" checkout -q --detach "$sha"; }

# timed STEP DIR COMMAND...: the command's wall-clock seconds, a line in times.tsv
timed() {
    local step=$1 dir=$2 load start end
    shift 2
    load=$(cut -d' ' -f1 /proc/loadavg)
    start=$(date +%s.%N)
    (cd "$dir" && "$@") >"$out/$sha-$step.log" 2>&1
    local st=$?
    end=$(date +%s.%N)
    printf '%s %s (%s cores, load %s at the start, exit %s)\t%.1f\ts\n' "$sha" "$step" "$(nproc)" "$load" "$st" \
        "$(echo "$end - $start" | bc)" | tee -a "$out/times.tsv"
}

# stamped: each line of the input with the seconds since it began
stamped() {
    local t0 now
    t0=$(date +%s.%N)
    while IFS= read -r line; do
        now=$(date +%s.%N)
        printf '%6.1f s  %s\n' "$(echo "$now - $t0" | bc)" "$line"
    done
}

[ -s "$out/times.tsv" ] || printf '%s\n' "# How long a student waits without a GPU (research/loop-times.sh): what, the" \
    "# value, its unit. Wall clock: other work on the machine slows it (the load)." \
    "# what	value	unit" >"$out/times.tsv"
clone "$work/a" || exit 1
timed make-j2 "$work/a" make -j2
# a student mid-way: every stage edited and make status run once; then
# one more edit, and the make status that follows it
for k in "$work"/a/exercises/*/kernel.cu; do echo "// an edit" >>"$k"; done
export -f stamped
timed status-first "$work/a" bash -c 'set -o pipefail; make status 2>&1 | stamped'
echo "// one more edit" >>"$work/a/exercises/03_tiled/kernel.cu"
timed status-after-edit "$work/a" bash -c 'set -o pipefail; make status 2>&1 | stamped'
clone "$work/b" || exit 1
timed run-ex01-fresh "$work/b" make run EX=01
