#!/usr/bin/env bash
# research/ab-grades.sh OUTDIR COMMIT... [-- STAGE...]: the solutions of
# STAGE (default: every stage) graded from each COMMIT's tree in turn, on
# this machine, RUNS times (default 4) in each of GRADE_KINDS (default
# "events judge"), alternating commit by commit so that a drift of the
# machine falls on all of them. Then, per kind, research/compare-grades.sh's
# table of each commit against the first (OUTDIR/<kind>-<commit>.md).
#
# What it is for: a change of the timing core is meant to leave every grade
# figure where it was, or to move it for a reason its commit gives. Two
# tables measured on two days, or two machines of one model, cannot tell
# the two apart; this one can. Each commit is checked out with git worktree
# under OUTDIR/trees (removed at the end unless KEEP_TREES=1) and built
# there: the grader, the wall, then each grade's programs as make grade
# builds them.
#
# Needs a GPU and the lab's history (a clone, not a release). Exit status:
# 0 when every grade ran, 1 when one failed, 2 usage, 3 no GPU.
set -u
usage() { echo "usage: research/ab-grades.sh OUTDIR COMMIT... [-- STAGE...]" >&2; exit 2; }
[ $# -ge 2 ] || usage
cd "$(dirname "$0")/.." || exit 2
out=$1
shift
commits=()
while [ $# -gt 0 ] && [ "$1" != -- ]; do
    commits+=("$(git rev-parse --short "$1^{commit}")") || usage
    shift
done
[ "${1:-}" = -- ] && shift
stages=("$@")
[ ${#commits[@]} -ge 1 ] || usage
nvidia-smi -L >/dev/null 2>&1 || { echo "ab-grades: no GPU here (nvidia-smi -L fails)" >&2; exit 3; }
mkdir -p "$out/trees" || exit 2
out=$(cd "$out" && pwd)
runs=${RUNS:-4}
kinds=${GRADE_KINDS:-events judge}
status=0
log() { printf '%s %s\n' "$(date -u +%H:%M:%S)" "$*" | tee -a "$out/ab.log"; }

for c in "${commits[@]}"; do
    tree=$out/trees/$c
    [ -d "$tree" ] || git worktree add -q --detach "$tree" "$c" || { log "$c: no such commit here"; exit 2; }
    # what that tree's make grade builds before its grader (its "grade:" rule)
    # shellcheck disable=SC2046  # the rule's prerequisites, one word each
    (cd "$tree" && make -s -j"$(nproc)" $(sed -n 's/^grade: //p' Makefile) >"$out/build-$c.log" 2>&1) || { log "$c: the grader did not build ($out/build-$c.log)"; exit 1; }
    log "$c built ($(git log -1 --format='%h %s' "$c" | cut -c1-80))"
done

for ((r = 1; r <= runs; r++)); do
    for c in "${commits[@]}"; do
        for kind in $kinds; do
            dir=$out/grades/$c/$kind-$r
            mkdir -p "$dir"
            judge=$([ "$kind" = judge ] && echo --judge)
            # shellcheck disable=SC2086  # judge: zero or one word
            (cd "$out/trees/$c" &&
                tools/grade-build.sh --src solutions $judge "${stages[@]}" >"$dir/build.log" 2>&1 &&
                timeout 600 build/grader/grade --src solutions $judge --out "$dir" "${stages[@]}" >"$dir/grade.log" 2>&1)
            rc=$?
            [ $rc = 0 ] || status=1
            log "$c $kind run $r: exit $rc $(grep -E '^total' "$dir/grade.log" | tr -s ' ')"
        done
    done
done

first=${commits[0]}
for kind in $kinds; do
    for c in "${commits[@]:1}"; do
        research/compare-grades.sh "$out/grades/$first/$kind"-* -- "$out/grades/$c/$kind"-* >"$out/$kind-$c.md" 2>&1
        { echo "$kind: $first (first) vs $c (second)"; cat "$out/$kind-$c.md"; } | tee -a "$out/ab.log"
    done
done
[ -n "${KEEP_TREES:-}" ] ||
    for c in "${commits[@]}"; do git worktree remove --force "$out/trees/$c" 2>/dev/null; done
exit $status
