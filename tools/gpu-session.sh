#!/usr/bin/env bash
# tools/gpu-session.sh OUTDIR: everything the lab needs a GPU for, in one
# command, with every log under OUTDIR (for a session with a GPU for a short
# time: run this once, read the logs after).
#
#   1. the machine: nvidia-smi, the kernel, whether runs can be confined
#   2. make all, then make check (its GPU suite, the grader on the GPU with
#      the fault kernels, the attacks and the judge)
#   3. the solutions graded RUNS times (default 5) with the drivers' event
#      timing and RUNS times by the judge (JUDGE=1), confined, and the two
#      compared (tools/compare-grades.sh: ratios and spreads per tier)
#   4. make bench (records in results/)
#
# RUNS=N sets the number of grading runs of each kind. Exit status: that of
# make check (the rest is measurement, read from the logs).
set -u
out=${1:-}
[ -n "$out" ] || { echo "usage: tools/gpu-session.sh OUTDIR" >&2; exit 2; }
cd "$(dirname "$0")/.." || exit 2
mkdir -p "$out" || exit 2
runs=${RUNS:-5}
log() { printf '%s %s\n' "$(date -u +%H:%M:%S)" "$*" | tee -a "$out/session.log"; }

log "machine"
{ nvidia-smi -L; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv
  uname -a; nvcc --version | tail -n 1; } >"$out/machine.txt" 2>&1
log "$(head -n 1 "$out/machine.txt")"

log "make all"
make -j"$(nproc)" all build/confine/confine build/grader/grade >"$out/build.log" 2>&1 || log "make all FAILED (build.log)"
build/confine/confine --probe >"$out/confine.txt" 2>&1
log "$(cat "$out/confine.txt")"

log "make check"
make check >"$out/check.log" 2>&1
check_status=$?
log "$(tail -n 1 "$out/check.log") (exit $check_status)"
grep '^FAIL' "$out/check.log" >>"$out/session.log"

for kind in events judge; do
    for ((r = 1; r <= runs; r++)); do
        dir=$out/grades/$kind-$r
        mkdir -p "$dir"
        start=$(date +%s.%N)
        build/grader/grade --src solutions $([ $kind = judge ] && echo --judge) --out "$dir" >"$dir/grade.log" 2>&1
        log "$kind run $r: $(grep -E '^total' "$dir/grade.log" | tr -s ' ') ($(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }') s)"
    done
done
tools/compare-grades.sh "$out"/grades/events-* -- "$out"/grades/judge-* >"$out/judge-vs-events.md" 2>&1
log "judge against events: $out/judge-vs-events.md"
cat "$out/judge-vs-events.md" >>"$out/session.log"

log "make bench"
make bench >"$out/bench.log" 2>&1
cp -r results "$out/results" 2>/dev/null
log "done"
exit $check_status
