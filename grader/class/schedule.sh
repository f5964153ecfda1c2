# grader/class/schedule.sh: class grading (grader/class.sh), who grades whom:
# the local back end (builders preparing every student on the CPUs first,
# then one worker per GPU taking the next student that is ready) and the Slurm back
# end (a job array, one task per PER_TASK students, and a job that writes
# the gradebook). Sourced by grader/class.sh; uses its out, script,
# todo_file, wait_jobs, per_task and task_time.

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
# next student no other builder has claimed. The builders build every
# student before any worker grades (run_local), so that no compiler runs
# beside a judge that is timing.
builder() {
    local claims=$1 name
    while IFS= read -r name; do
        mkdir "$claims/build/$name" 2>/dev/null || continue
        if prepare_one "$name" ahead; then
            : >"$claims/ready/$name"
        else
            # its row says why; no worker takes it
            mkdir -p "$claims/grade/$name"
            say "[$(done_count)/$(students | wc -l)] $name: $(row_status "$out/students/$name/row.csv")"
        fi
    done <"$todo_file"
}

# what make grade builds besides make all, built once with the lab's copy
lab_tools=(build/grader/grade build/confine/confine)

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
        make -C "$out/lab" -s -j"$(nproc)" all "${lab_tools[@]}" >"$out/logs/lab-build.log" 2>&1 ||
            say "class: the lab's own build failed (see $out/logs/lab-build.log); each student's copy builds from scratch"
    fi
    # Students are built ahead on the CPUs before the GPUs grade (where
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
    # class stops all of their processes (make, the grader, the student's
    # program). First every student is built, on every CPU; then the GPUs
    # grade, with no compiler beside a judge that is timing
    trap 'for pid in "${pids[@]}"; do kill -TERM -- -"$pid" 2>/dev/null; done; wait; rm -rf "$claims"; echo "class: stopped; run the same command again to grade the rest"; exit 130' INT TERM
    local start=$SECONDS
    for ((pid = 0; pid < builders; pid++)); do
        setsid "$script" --builder --out "$out" --todo "$todo" --claims "$claims" &
        pids+=($!)
    done
    [ "$builders" = 0 ] || { wait; say "built every student in $((SECONDS - start)) s; grading"; }
    pids=()
    for gpu in $gpus; do
        setsid "$script" --worker "$gpu" --out "$out" --todo "$todo" --claims "$claims" &
        pids+=($!)
    done
    wait
    trap - INT TERM
    rm -rf "$claims"
}

run_slurm() {
    local todo=$1 n tasks array collector opts=() stamp
    command -v sbatch >/dev/null || die "sbatch is not here: run make class BACKEND=slurm on a Slurm login node"
    n=$(wc -l <"$todo")
    stamp=$(date +%Y%m%d-%H%M%S)
    cp "$todo" "$out/logs/todo-$stamp.txt"
    todo=$out/logs/todo-$stamp.txt
    [ -n "${SLURM_PARTITION:-}" ] && opts+=(--partition="$SLURM_PARTITION")
    [ -n "${SLURM_ACCOUNT:-}" ] && opts+=(--account="$SLURM_ACCOUNT")
    # shellcheck disable=SC2206 # SLURM_EXTRA is a list of options
    [ -n "${SLURM_EXTRA:-}" ] && opts+=($SLURM_EXTRA)
    tasks=$(((n + per_task - 1) / per_task))
    array=$(sbatch --parsable --job-name=lab-grade "${opts[@]}" \
        --array="0-$((tasks - 1))%${SLURM_THROTTLE:-4}" --gres="${SLURM_GRES:-gpu:1}" \
        --ntasks=1 --cpus-per-task="${SLURM_CPUS:-4}" --time="$task_time" \
        --output="$out/logs/grade-%A_%a.log" <<EOF
#!/bin/bash
# $per_task student(s) of the class, one after another: task K grades lines
# K*$per_task+1 to K*$per_task+$per_task of the to-do list
exec '$out/bin/class.sh' --task "\$SLURM_ARRAY_TASK_ID" --per-task $per_task --todo '$todo' --out '$out'
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
    say "submitted job array $array ($n student$([ "$n" = 1 ] || echo s), $tasks task$([ "$tasks" = 1 ] || echo s) of at most $per_task, at most ${SLURM_THROTTLE:-4} at a time) and job $collector, which writes $out/gradebook.csv when the array has ended"
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
    # the last word, however quickly the jobs ended
    now=$(status_line "$array" "$todo")
    [ "$now" = "$last" ] || say "$now"
    cat "$out/logs/gradebook-$collector.log" 2>/dev/null
}

# N of M done, and who is being graded now (Slurm: in each running task,
# the first of its students without a row since the to-do list was made).
status_line() {
    local array=${1:-} todo=${2:-} running=""
    if [ -n "$array" ]; then
        running=$(squeue -h -j "$array" -t R -o %K 2>/dev/null | while read -r i; do
            task_students "$i" "$todo" | while read -r name; do
                [ "$out/students/$name/row.csv" -nt "$todo" ] || { echo "$name"; break; }
            done
        done | tr '\n' ' ')
    fi
    echo "$(done_count) of $(students | wc -l) done${running:+; grading now: ${running% }}"
}

# ======================================================= Slurm array tasks
# task_students I TODO: the students of array task I, lines I*N+1 to I*N+N
# of the to-do list (N = per_task).
task_students() {
    sed -n "$(($1 * per_task + 1)),$((($1 + 1) * per_task))p" "$2"
}

# One task of the Slurm job array, on its GPU: grades its students one after
# another, each in a fresh copy of the lab, each row written when that
# student is done. A student whose row is newer than the to-do list was
# graded by this task before Slurm started it again (a requeue), and is
# skipped. With more than one student, the lab is built once for this
# node's GPU and each student's copy rebuilds only their kernels.
array_task() {
    local index=$1 names name task_lab=""
    case $index in '' | *[!0-9]*) die "--task takes the array task's index, not '$index'" ;; esac
    [ -f "$todo_file" ] || die "--task needs --todo FILE, the to-do list of the array"
    names=$(task_students "$index" "$todo_file" | tr '\n' ' ')
    [ -n "$names" ] || die "array task $index has no students: $todo_file lists $(wc -l <"$todo_file")"
    say "array task $index on $(hostname): ${names% }"
    if [ "$per_task" -gt 1 ] && [ -z "${CLASS_MAKE:-}" ] && command -v nvcc >/dev/null &&
        nvidia-smi -L 2>/dev/null | grep -q '^GPU'; then
        task_lab=$out/work/lab.${SLURM_JOB_ID:-$$}
        rm -rf "$task_lab"
        if cp -a "$out/lab" "$task_lab" && make -C "$task_lab" -s -j"$(nproc)" all "${lab_tools[@]}" >"$task_lab.log" 2>&1; then
            say "built the lab once in $task_lab for this task's students"
        else
            say "class: the lab's build for this task failed (see $task_lab.log); each student's copy builds from scratch"
            rm -rf "$task_lab"
            task_lab=""
        fi
    fi
    for name in $names; do
        if [ "$out/students/$name/row.csv" -nt "$todo_file" ]; then
            say "$name: graded already by this task before it was started again"
            continue
        fi
        say "grading $name"
        grade_one "$name"
    done
    [ -z "$task_lab" ] || rm -rf "$task_lab" "$task_lab.log"
}

# slurm_time_times TIME N: Slurm's time limit TIME (M, M:S, H:M:S, D-H,
# D-H:M or D-H:M:S, or UNLIMITED) N times over, as D-HH:MM:SS; fails on
# any other form.
slurm_time_times() {
    local t=$1 n=$2 d=0 h=0 m=0 s=0 total
    case $t in
        UNLIMITED | INFINITE | unlimited | infinite) echo "$t"; return 0 ;;
    esac
    if [[ $t =~ ^([0-9]+)-([0-9]+)(:([0-9]+))?(:([0-9]+))?$ ]]; then
        d=${BASH_REMATCH[1]} h=${BASH_REMATCH[2]} m=${BASH_REMATCH[4]:-0} s=${BASH_REMATCH[6]:-0}
    elif [[ $t =~ ^([0-9]+)(:([0-9]+))?(:([0-9]+))?$ ]]; then
        if [ -n "${BASH_REMATCH[5]}" ]; then
            h=${BASH_REMATCH[1]} m=${BASH_REMATCH[3]} s=${BASH_REMATCH[5]}
        else
            m=${BASH_REMATCH[1]} s=${BASH_REMATCH[3]:-0}
        fi
    else
        return 1
    fi
    # 10#: "08" is a number of minutes, not a bad octal one
    total=$(((((10#$d * 24 + 10#$h) * 60 + 10#$m) * 60 + 10#$s) * n))
    # 0 is Slurm's "no limit", which N times over stays
    [ "$total" -gt 0 ] || { echo 0; return 0; }
    printf '%d-%02d:%02d:%02d\n' $((total / 86400)) $((total % 86400 / 3600)) $((total % 3600 / 60)) $((total % 60))
}
