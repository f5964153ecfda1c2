#!/usr/bin/env bash
# research/flag-rate.sh: how often the grader flags honest work, and how often
# that costs points (on a GPU; grader/README.md, "A missed tier, or a flag,
# runs a second time").
#
#   research/flag-rate.sh [--grades N] [--minutes M] [--src DIR]... OUT
#
# Grades honest kernels by the judge, as a class is graded, round after
# round, until OUT holds N stage grades (default 200) or M minutes have
# passed (default 9: one device command); run it again with the same OUT to
# go on. A round grades the solutions, each tier's reference kernels
# (--reference pass, --reference stretch), the plain kernels of
# tests/grader/honest/ and every DIR given (a submission's folder,
# DIR/NN_*/kernel.cu). Each correct stage's first run counts once: flagged when
# its note says its time was flagged (the grader then ran it again); a
# flag costs points only when the stage ends flagged. OUT/flags.tsv keeps
# one line a stage grade; the summary says, for all and per stage, how
# many were graded, flagged on their first run, and flagged twice.
set -u
cd "$(dirname "$0")/.." || exit 2
want=200 minutes=9 srcs=()
while [ $# -gt 1 ]; do
    case $1 in
    --grades) want=$2; shift 2 ;;
    --minutes) minutes=$2; shift 2 ;;
    --src) srcs+=("$2"); shift 2 ;;
    *) echo "flag-rate: unknown option $1 (try: research/flag-rate.sh --grades 200 OUT)" >&2; exit 2 ;;
    esac
done
[ $# = 1 ] || { echo "usage: research/flag-rate.sh [--grades N] [--minutes M] [--src DIR]... OUT" >&2; exit 2; }
out=$1
nvidia-smi -L 2>/dev/null | grep -q '^GPU' || { echo "flag-rate: no GPU here (nvidia-smi lists none)" >&2; exit 3; }
mkdir -p "$out"
table=$out/flags.tsv
[ -f "$table" ] || printf 'round\tset\tstage\tflagged_first\tflagged_final\tpoints\tmax\n' >"$table"
make -s build/grader/grade build/confine/confine build/confine/cuda-probe || exit 2
get() { tools/json.sh get "$1/grade.json" "$2" 2>/dev/null; }

# one grade of a set: its stages' lines into the table
grade_set() { # ROUND NAME GRADE-OPTIONS...
    local round=$1 name=$2 dir=$out/r$1-$2
    shift 2
    rm -rf "$dir"
    # the build first, as make grade's (the grader runs no make)
    tools/grade-build.sh --judge "$@" >"$dir.build.log" 2>&1
    build/grader/grade --judge --out "$dir" "$@" >"$dir.log" 2>&1
    local n i note first final
    n=$(get "$dir" stages)
    for ((i = 0; i < ${n:-0}; i++)); do
        note=$(get "$dir" "stages.$i.note")
        # only a correct stage is timed, and so can be flagged
        [ "$(get "$dir" "stages.$i.correct")" = true ] || continue
        first=0 final=0
        grep -qE 'its time was flagged, so the stage ran a second time|but was flagged; this is the second run' \
            <<<"$note" && first=1
        [ "$(get "$dir" "stages.$i.flagged")" = true ] && final=1 first=1
        printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$round" "$name" "$(get "$dir" "stages.$i.stage")" "$first" "$final" \
            "$(get "$dir" "stages.$i.points")" "$(get "$dir" "stages.$i.max_points")" >>"$table"
    done
}

graded() { tail -n +2 "$table" | wc -l; }
round=$(awk -F'\t' 'NR > 1 && $1 > r { r = $1 } END { print r + 1 }' "$table")
deadline=$(($(date +%s) + minutes * 60))
while [ "$(graded)" -lt "$want" ] && [ "$(date +%s)" -lt "$deadline" ]; do
    echo "round $round: $(graded) stage grades so far"
    grade_set "$round" solutions --src solutions
    grade_set "$round" pass --reference pass
    grade_set "$round" stretch --reference stretch
    # shellcheck disable=SC2046 # the stages, one word each
    grade_set "$round" honest --src tests/grader/honest $(ls tests/grader/honest)
    for d in ${srcs[@]+"${srcs[@]}"}; do grade_set "$round" "$(basename "$d")" --src "$d"; done
    round=$((round + 1))
done

awk -F'\t' 'NR > 1 {
        n++; f += $4; l += $5; sn[$3]++; sf[$3] += $4; sl[$3] += $5
    }
    END {
        printf "%d stage grades: %d flagged on their first run (%.2f%%), %d flagged twice (points lost: %.2f%%)\n",
            n, f, n ? 100 * f / n : 0, l, n ? 100 * l / n : 0
        for (s in sn) printf "  %-22s %4d graded, %3d flagged first, %3d twice\n", s, sn[s], sf[s], sl[s] | "sort"
    }' "$table"
[ "$(graded)" -ge "$want" ] || echo "not yet $want stage grades: run the same command again to go on"
