#!/usr/bin/env bash
# Smoke test of the single-node Slurm cluster used to test class grading:
# a 4-task job array (at most 2 at a time, one fake GPU each) and a job that
# depends on it and collects the tasks' outputs, the way a grading run will.
#
# Usage: bash tests/slurm/smoke.sh   (as root; installs Slurm if missing)
#
# Prints one "ok:" or "FAIL:" line per check, then "N passed, N failed" as the
# last line; exits non-zero if any check failed. The cluster is stopped on
# every exit, including errors and Ctrl-C.

set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cluster=$here/cluster.sh
export SLURM_TEST_DIR=${SLURM_TEST_DIR:-/tmp/lab-slurm}
# Seconds to wait for all jobs to finish.
SMOKE_TIMEOUT=${SMOKE_TIMEOUT:-120}
TASKS=4

passed=0
failed=0

# One line per check, counted for the summary line.
check() {
    local what=$1
    shift
    if "$@"; then
        echo "ok: $what"
        passed=$((passed + 1))
    else
        echo "FAIL: $what"
        failed=$((failed + 1))
    fi
}

# Whether a file holds exactly the expected text; shows both when it does not.
same_text() {
    local file=$1 want=$2 got
    got=$(cat "$file" 2>/dev/null) || { echo "  missing: $file"; return 1; }
    [ "$got" = "$want" ] && return 0
    printf '  %s\n  wanted: %s\n  got:    %s\n' "$file" "$want" "$got"
    return 1
}

# Whether a task's output file shows its own index and one of the fake GPUs,
# both as CUDA_VISIBLE_DEVICES and as SLURM_JOB_GPUS.
task_saw_gpu() {
    local file=$out/task-$1.txt line
    line=$(cat "$file" 2>/dev/null) || { echo "  missing: $file"; return 1; }
    [[ $line =~ ^task=$1\ cuda=([0-9]+)\ gpus=([0-9]+)$ ]] &&
        [ "${BASH_REMATCH[1]}" = "${BASH_REMATCH[2]}" ] && return 0
    echo "  $file: $line"
    return 1
}

# Whether every task of the array and the collector ended COMPLETED with exit
# code 0, as the controller remembers them (no accounting database needed).
all_completed() {
    local states
    states=$(for id in "$array_id" "$collect_id"; do timeout 30 scontrol -o show job "$id"; done |
        sed -n 's/.*JobState=\([A-Z_]*\) .*ExitCode=\([0-9:]*\).*/\1 \2/p' | sort | uniq -c)
    [ "$(wc -l <<<"$states")" -eq 1 ] &&
        [[ $states =~ ^\ *$((TASKS + 1))\ COMPLETED\ 0:0$ ]] && return 0
    echo "  states: $states"
    return 1
}

# Stop the cluster whatever happens; its messages go to stderr.
trap '"$cluster" stop' EXIT

# An assignment, not eval "$(...)", so that a failed start stops the script.
export_line=$("$cluster" start)
eval "$export_line"
out=$SLURM_TEST_DIR/smoke
mkdir -p "$out"

# Each task records what a grading task needs to know: which task it is and
# which GPU it was given.
array_id=$(timeout 30 sbatch --parsable --job-name=smoke-array --partition=lab \
    --array=0-$((TASKS - 1))%2 --gres=gpu:1 --ntasks=1 --cpus-per-task=1 --time=2 \
    --output="$out/slurm-%A_%a.log" <<EOF
#!/bin/bash
echo "task=\$SLURM_ARRAY_TASK_ID cuda=\$CUDA_VISIBLE_DEVICES gpus=\$SLURM_JOB_GPUS" \
    >"$out/task-\$SLURM_ARRAY_TASK_ID.txt"
EOF
)
# The collector starts once every task has ended, whatever their exit codes.
collect_id=$(timeout 30 sbatch --parsable --job-name=smoke-collect --partition=lab \
    --dependency=afterany:"$array_id" --ntasks=1 --time=2 \
    --output="$out/slurm-%j.log" <<EOF
#!/bin/bash
for i in \$(seq 0 $((TASKS - 1))); do
    cut -d' ' -f1 "$out/task-\$i.txt"
done >"$out/collected.txt"
EOF
)
echo "submitted array job $array_id and collector $collect_id"

start=$SECONDS
while [ -n "$(timeout 30 squeue -h -j "$array_id,$collect_id" -o %i)" ]; do
    if [ $((SECONDS - start)) -ge "$SMOKE_TIMEOUT" ]; then
        echo "jobs still queued after ${SMOKE_TIMEOUT}s:"
        timeout 30 squeue -j "$array_id,$collect_id" || true
        break
    fi
    sleep 0.5
done
echo "waited $((SECONDS - start))s for the jobs"

for ((i = 0; i < TASKS; i++)); do
    check "array task $i wrote its index and saw one GPU" task_saw_gpu "$i"
done
check "collector ran after the array and gathered all $TASKS outputs" \
    same_text "$out/collected.txt" "$(printf 'task=%s\n' $(seq 0 $((TASKS - 1))))"
check "all jobs completed with exit code 0" all_completed

# Stop before the summary, so that it stays the last line of the output.
trap - EXIT
"$cluster" stop
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
