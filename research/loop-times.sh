#!/usr/bin/env bash
# research/loop-times.sh [COMMIT] OUT: how long a student waits on this
# machine without a GPU (issue 44's targets), from fresh clones of COMMIT
# (default HEAD) and a fresh release of it, each in a folder of its own,
# with nothing built before its first step:
#
#   run-ex01-fresh        make run EX=01 in a fresh clone (the first useful
#                         command; the skeleton fails its checks, exit 2)
#   grade-fresh           make grade in a second fresh clone (the skeletons)
#   status-first          make status with every stage's kernel.cu edited
#   status-after-edit     make status after one more edit, of stage 03's
#   grade-correct         make grade, every exercise the solution (built here)
#   grade-correct-built   make grade again, nothing to build
#   race-03               make run EX=03, 03's kernel.cu a tiled matmul
#                         without its second barrier (tests/emu/): the time
#                         until it stops, its race named
#   make-j2               make -j2 in the first clone (every program)
#   release-run-ex01-fresh, release-grade-fresh, release-status-after-edit,
#   release-check         the same in a fresh release (tools/release.sh),
#                         and its make check, in that order
#
# Adds to OUT/times.tsv, a record as measurements/ keeps them (what: the
# commit, the step, the machine's cores and load at its start, its exit
# status; the seconds), a second row a step for the longest time it said
# nothing (from its start, between two lines, or before its end), and
# writes each step's output to OUT/<commit>-<step>.log, each line with the
# second it came. The times are wall clock: other compiles on the machine
# slow them, so the load is recorded. STEPS="grade-fresh race-03" runs only
# those (and what they need before them).
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

# stamped: each line of the input with the seconds since it began; a last
# line with the seconds at its end
stamped() {
    local t0 now
    t0=$(date +%s.%N)
    while IFS= read -r line; do
        now=$(date +%s.%N)
        printf '%6.1f s  %s\n' "$(echo "$now - $t0" | bc)" "$line"
    done
    printf '%6.1f s  (end)\n' "$(echo "$(date +%s.%N) - $t0" | bc)"
}
export -f stamped

# wanted STEP: whether STEPS (default: all) names it
wanted() { [ -z "${STEPS:-}" ] || [[ " $STEPS " == *" $1 "* ]]; }

# timed STEP DIR COMMAND...: the command's wall-clock seconds and its
# longest silence, two lines in times.tsv
timed() {
    local step=$1 dir=$2 load start end log
    log=$out/$sha-$step.log
    shift 2
    wanted "$step" || return 0
    load=$(cut -d' ' -f1 /proc/loadavg)
    start=$(date +%s.%N)
    (cd "$dir" && set -o pipefail && "$@" 2>&1 | stamped) >"$log"
    local st=$?
    end=$(date +%s.%N)
    printf '%s %s (%s cores, load %s at the start, exit %s)\t%.1f\ts\n' "$sha" "$step" "$(nproc)" "$load" "$st" \
        "$(echo "$end - $start" | bc)" | tee -a "$out/times.tsv"
    awk -v what="$sha $step" '{ t = $1 + 0; if (t - last > gap) gap = t - last; last = t }
        END { printf "%s: its longest silence\t%.1f\ts\n", what, gap }' "$log" | tee -a "$out/times.tsv"
}

[ -s "$out/times.tsv" ] || printf '%s\n' "# How long a student waits without a GPU (research/loop-times.sh): what, the" \
    "# value, its unit. Wall clock: other work on the machine slows it (the load)." \
    "# what	value	unit" >"$out/times.tsv"

# the fresh clones
clone "$work/a" || exit 1
timed run-ex01-fresh "$work/a" make run EX=01
clone "$work/b" || exit 1
timed grade-fresh "$work/b" make grade
# a student mid-way: every stage edited and make status run once; then
# one more edit, and the make status that follows it
for k in "$work"/b/exercises/*/kernel.cu; do echo "// an edit" >>"$k"; done
timed status-first "$work/b" make status
echo "// one more edit" >>"$work/b/exercises/03_tiled/kernel.cu"
timed status-after-edit "$work/b" make status
for d in "$work"/b/solutions/*/; do cp "$d/kernel.cu" "$work/b/exercises/$(basename "$d")/kernel.cu"; done
timed grade-correct "$work/b" make grade
timed grade-correct-built "$work/b" make grade
cp "$work/b/tests/emu/matmul_tiled_no_second_barrier.cu" "$work/b/exercises/03_tiled/kernel.cu"
timed race-03 "$work/b" make run EX=03
timed make-j2 "$work/a" make -j2

# a fresh release of the clone, nothing built in it
if wanted release-run-ex01-fresh || wanted release-grade-fresh || wanted release-status-after-edit ||
    wanted release-check; then
    (cd "$work/b" && tools/release.sh "$work/rel") >"$out/$sha-release.log" 2>&1 || exit 1
    cp -a "$work/rel" "$work/rel2"
    timed release-run-ex01-fresh "$work/rel" make run EX=01
    timed release-grade-fresh "$work/rel2" make grade
    echo "// an edit" >>"$work/rel2/exercises/03_tiled/kernel.cu"
    timed release-status-after-edit "$work/rel2" make status
    timed release-check "$work/rel" make check
fi
