# grader/class/schedule.sh: class grading (grader/class.sh), who grades whom:
# the local back end (one worker per GPU, each taking the next student no
# other worker has claimed) and the Slurm back end (a job array, one task
# per student, and a job that writes the gradebook). Sourced by
# grader/class.sh; uses its out, script, todo_file and wait_jobs.

# ============================================================ back ends
# One worker of the local back end: grades the students of the to-do list
# that no other worker has claimed, on its GPU.
worker() {
    local gpu=$1 claims=$2 name
    [ "$gpu" = none ] || export CUDA_VISIBLE_DEVICES=$gpu
    while IFS= read -r name; do
        mkdir "$claims/$name" 2>/dev/null || continue
        say "grading $name$([ "$gpu" = none ] || echo " on GPU $gpu")"
        grade_one "$name"
    done <"$todo_file"
}

run_local() {
    local todo=$1 gpus claims pid pids=()
    local listed
    listed=$(nvidia-smi -L 2>/dev/null | sed -n 's/^GPU \([0-9]*\):.*/\1/p' | tr '\n' ' ')
    gpus=${GPUS:-$listed}
    gpus=${gpus//,/ }
    [ -n "${gpus// /}" ] || gpus=none
    if [ -n "$listed" ] && [ -z "${CLASS_MAKE:-}" ] && command -v nvcc >/dev/null &&
        [ ! -f "$out/lab/build/flags.txt" ]; then
        # build the harness and the skeletons once; each copy rebuilds only
        # what the student changed (a stand-in CLASS_MAKE builds nothing)
        say "building the lab once in $out/lab (its objects are copied for each student)"
        make -C "$out/lab" -s -j"$(nproc)" all >"$out/logs/lab-build.log" 2>&1 ||
            say "class: the lab's own build failed (see $out/logs/lab-build.log); each student's copy builds from scratch"
    fi
    claims=$out/work/claims.$$
    mkdir -p "$claims"
    # each worker in a session of its own, so that stopping the class stops
    # all of a worker's processes (make, the grader, the student's program)
    trap 'for pid in "${pids[@]}"; do kill -TERM -- -"$pid" 2>/dev/null; done; wait; rm -rf "$claims"; echo "class: stopped; run the same command again to grade the rest"; exit 130' INT TERM
    for gpu in $gpus; do
        setsid "$script" --worker "$gpu" --out "$out" --todo "$todo" --claims "$claims" &
        pids+=($!)
    done
    wait
    trap - INT TERM
    rm -rf "$claims"
}

run_slurm() {
    local todo=$1 n array collector opts=() stamp
    command -v sbatch >/dev/null || die "sbatch is not here: run make class BACKEND=slurm on a Slurm login node"
    n=$(wc -l <"$todo")
    stamp=$(date +%Y%m%d-%H%M%S)
    cp "$todo" "$out/logs/todo-$stamp.txt"
    todo=$out/logs/todo-$stamp.txt
    [ -n "${SLURM_PARTITION:-}" ] && opts+=(--partition="$SLURM_PARTITION")
    [ -n "${SLURM_ACCOUNT:-}" ] && opts+=(--account="$SLURM_ACCOUNT")
    # shellcheck disable=SC2206 # SLURM_EXTRA is a list of options
    [ -n "${SLURM_EXTRA:-}" ] && opts+=($SLURM_EXTRA)
    array=$(sbatch --parsable --job-name=lab-grade "${opts[@]}" \
        --array="0-$((n - 1))%${SLURM_THROTTLE:-4}" --gres="${SLURM_GRES:-gpu:1}" \
        --ntasks=1 --cpus-per-task="${SLURM_CPUS:-4}" --time="${SLURM_TIME:-01:00:00}" \
        --output="$out/logs/grade-%A_%a.log" <<EOF
#!/bin/bash
# one student of the class: line SLURM_ARRAY_TASK_ID + 1 of the to-do list
name=\$(sed -n "\$((SLURM_ARRAY_TASK_ID + 1))p" '$todo')
exec '$out/bin/class.sh' --one "\$name" --out '$out'
EOF
    ) || die "sbatch refused the array job (see its message above)"
    array=${array%%;*}
    collector=$(sbatch --parsable --job-name=lab-gradebook "${opts[@]}" \
        --dependency="afterany:$array" --ntasks=1 --time=00:10:00 \
        --output="$out/logs/gradebook-%j.log" <<EOF
#!/bin/bash
exec '$out/bin/class.sh' --collect --out '$out'
EOF
    ) || die "sbatch refused the gradebook job (the array $array is queued: scancel $array)"
    collector=${collector%%;*}
    say "submitted job array $array ($n student$([ "$n" = 1 ] || echo s), at most ${SLURM_THROTTLE:-4} at a time) and job $collector, which writes $out/gradebook.csv when the array has ended"
    say "follow: squeue -j $array,$collector; logs in $out/logs/; progress: $script --status --out $out"
    [ $wait_jobs = 1 ] || return 0
    # until squeue knows neither job; a failed squeue (a busy controller)
    # is asked again, one that says the jobs are gone is not
    local last="" now queued
    while :; do
        if queued=$(squeue -h -j "$array,$collector" -o %i 2>&1); then
            [ -n "$queued" ] || break
        else
            grep -qi "invalid job id" <<<"$queued" && break
        fi
        now=$(status_line "$array" "$todo")
        [ "$now" = "$last" ] || say "$now"
        last=$now
        sleep 2
    done
    cat "$out/logs/gradebook-$collector.log" 2>/dev/null
}

# N of M done, and who is being graded now (Slurm: the running tasks).
status_line() {
    local array=${1:-} todo=${2:-} running=""
    if [ -n "$array" ]; then
        running=$(squeue -h -j "$array" -t R -o %K 2>/dev/null | while read -r i; do
            sed -n "$((i + 1))p" "$todo"
        done | tr '\n' ' ')
    fi
    echo "$(done_count) of $(students | wc -l) done${running:+; grading now: ${running% }}"
}
