# grader/class/schedule.sh: class grading (grader/class.sh), who grades whom:
# the local back end (builders preparing students ahead on the CPUs, one
# worker per GPU taking the next student that is ready) and the Slurm back end (a job array, one task
# per student, and a job that writes the gradebook). Sourced by
# grader/class.sh; uses its out, script, todo_file and wait_jobs.

# ============================================================ back ends
# The local back end's claims (OUT/work/claims.PID): grade/NAME, made by the
# one worker that grades NAME; with builders also build/NAME, made by the one
# builder that builds NAME ahead, and ready/NAME once it has.

# One worker of the local back end, on its GPU: grades the first student of
# the to-do list that no other worker has claimed (with builders: the first
# whose copy is built), until every student is claimed.
worker() {
    local gpu=$1 claims=$2 name left
    [ "$gpu" = none ] || export CUDA_VISIBLE_DEVICES=$gpu
    while :; do
        left=0
        while IFS= read -r name; do
            [ -d "$claims/grade/$name" ] && continue
            left=1
            [ ! -d "$claims/ready" ] || [ -e "$claims/ready/$name" ] || continue
            mkdir "$claims/grade/$name" 2>/dev/null || continue
            say "grading $name$([ "$gpu" = none ] || echo " on GPU $gpu")"
            if [ -d "$claims/ready" ]; then grade_prepared "$name"; else grade_one "$name"; fi
            # from the top again: earlier students first
            continue 2
        done <"$todo_file"
        [ $left = 1 ] || return 0
        sleep 0.2
    done
}

# One builder of the local back end, on the CPU: prepares and builds the
# next student no other builder has claimed, keeping at most CLASS_AHEAD
# (default 8) built students waiting for a GPU.
builder() {
    local claims=$1 name waiting
    while IFS= read -r name; do
        mkdir "$claims/build/$name" 2>/dev/null || continue
        while :; do
            waiting=$(($(ls "$claims/ready" | wc -l) - $(ls "$claims/grade" | wc -l)))
            [ "$waiting" -ge "${CLASS_AHEAD:-8}" ] || break
            sleep 0.2
        done
        if prepare_one "$name" ahead; then
            : >"$claims/ready/$name"
        else
            # its row says why; no worker takes it
            mkdir -p "$claims/grade/$name"
            say "[$(done_count)/$(students | wc -l)] $name: $(row_status "$out/students/$name/row.csv")"
        fi
    done <"$todo_file"
}

run_local() {
    local todo=$1 gpus claims pid pids=() builders=0 listed
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
    # Students are built ahead on the CPUs while the GPUs grade (where
    # there is a GPU to keep busy, or a stand-in make): CLASS_BUILDERS
    # builders, default one per CPU; 0 builds in the workers.
    if [ -n "$listed" ] || [ -n "${CLASS_MAKE:-}" ]; then
        builders=${CLASS_BUILDERS:-$(nproc)}
    fi
    case $builders in '' | *[!0-9]*) die "CLASS_BUILDERS is a number, not '$builders'" ;; esac
    claims=$out/work/claims.$$
    mkdir -p "$claims/grade"
    [ "$builders" = 0 ] || mkdir -p "$claims/build" "$claims/ready"
    # each worker and builder in a session of its own, so that stopping the
    # class stops all of their processes (make, the grader, the student's program)
    trap 'for pid in "${pids[@]}"; do kill -TERM -- -"$pid" 2>/dev/null; done; wait; rm -rf "$claims"; echo "class: stopped; run the same command again to grade the rest"; exit 130' INT TERM
    for ((pid = 0; pid < builders; pid++)); do
        setsid "$script" --builder --out "$out" --todo "$todo" --claims "$claims" &
        pids+=($!)
    done
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
