#!/usr/bin/env bash
# tests/class/slurm-stand-in.sh: make class BACKEND=slurm with a stand-in
# for sbatch and squeue (tests/class/fake-slurm), which runs the jobs as it
# is given them: the options of both jobs, the job scripts, the gradebook
# job, WAIT=1, SLURM_TIME for a task of several students, sbatch refusing.
# A suite of make check (tests/run.sh); ends with "N passed, N failed[, N
# skipped]". Run alone:
#   bash tests/class/slurm-stand-in.sh
cd "$(dirname "$0")/../.." && . tests/class/lib.sh && class_alone || exit 2
subs=$tmp/submissions
first_submissions "$subs"
echo "== make class, Slurm back end, with a stand-in for sbatch and squeue"
fbin=$tmp/fake-slurm-bin
mkdir -p "$fbin" && ln -sf "$lab/tests/class/fake-slurm" "$fbin/sbatch" && ln -sf "$lab/tests/class/fake-slurm" "$fbin/squeue"
# the machine's confinement is tested above; here a stand-in says yes
printf '#!/bin/sh\necho "confined: a stand-in (a test)"\n' >"$tmp/yes-confine" && chmod +x "$tmp/yes-confine"
sub5=$tmp/sub5 o12=$tmp/out12 fs=$tmp/fake-slurm
mkdir -p "$sub5" && cp -r "$subs/alice" "$subs/bob.tar.gz" "$subs/carol.tar.gz" "$sub5/"
out=$(PATH=$fbin:$PATH FAKE_SLURM_DIR=$fs FAKE_SLURM_RUN=1 CLASS_MAKE=$fake CLASS_CONFINE=$tmp/yes-confine \
    SLURM_PARTITION=gpu SLURM_ACCOUNT=cs4xx SLURM_EXTRA="--qos=short --constraint=h100" SLURM_THROTTLE=3 \
    make --no-print-directory class BACKEND=slurm WAIT=1 PER_TASK=2 SUBMISSIONS="$sub5" OUT="$o12" EX="$class_stages" 2>&1); st=$?
check "PER_TASK=2 WAIT=1: one array of one task and a gradebook job; followed to the end, the gradebook job's log shown" \
    "$([ $st = 0 ] &&
       grep -qF "submitted job array 1001 (2 students, 1 task of at most 2, at most 3 at a time) and job 1002, which writes $o12/gradebook.csv" <<<"$out" &&
       grep -qx "3 of 3 done" <<<"$out" && grep -qx "gradebook: $o12/gradebook.csv, 3 students (graded: 2, refused: 1)" <<<"$out"; ok)" \
    "exit $st; $out"
want="sbatch --parsable --job-name=lab-grade --partition=gpu --account=cs4xx --qos=short --constraint=h100 --array=0-0%3"
want="$want --gres=gpu:1 --ntasks=1 --cpus-per-task=4 --time=0-02:00:00 --output=$o12/logs/grade-%A_%a.log
sbatch --parsable --job-name=lab-gradebook --partition=gpu --account=cs4xx --qos=short --constraint=h100"
want="$want --dependency=afterany:1001 --ntasks=1 --time=00:10:00 --output=$o12/logs/gradebook-%j.log"
check "the jobs' options: partition, account, SLURM_EXTRA, the throttle, one GPU, twice the default hour; the gradebook job after the array" \
    "$([ "$(cat "$fs/sbatch.log")" = "$want" ]; ok)" "$(diff <(echo "$want") "$fs/sbatch.log")"
check "the jobs run the class's own copy of the program: the task grades its students, the gradebook job writes the gradebook" \
    "$(grep -qF "exec '$o12/bin/class' --task \"\$SLURM_ARRAY_TASK_ID\" --per-task 2 --todo '$o12/logs/todo-" "$fs/job-1001.sh" &&
       grep -qF "exec '$o12/bin/class' --collect --out '$o12'" "$fs/job-1002.sh" &&
       grep -q "^array task 0 on .*: alice bob$" "$o12/logs/grade-1001_0.log" &&
       [ "$(row "$o12" alice)" = "alice,10,10,20,20,graded,$(sed -n 's/^seed=//p' "$o12/class.conf")," ] &&
       [ "$(status_of "$o12" carol)" = refused ]; ok)" \
    "$(cat "$fs"/job-*.sh "$o12"/logs/*.log "$o12/gradebook.csv" 2>&1)"

# a task of N students gets N times one student's SLURM_TIME, in each form
# Slurm takes (the jobs are not run: alice is to grade at each run)
fs2=$tmp/fake-slurm2 o13=$tmp/out13
mkdir -p "$tmp/sub6" && cp -r "$subs/alice" "$tmp/sub6/"
out=$(for t in 5 7:30 1:30:00 1-12 2-3:04 08:09:10 UNLIMITED 0 1:2:3:4 1h; do
    rm -f "$fs2/sbatch.log"
    PATH=$fbin:$PATH FAKE_SLURM_DIR=$fs2 CLASS_MAKE=$fake CLASS_CONFINE=$tmp/yes-confine SLURM_TIME=$t \
        "$cls" --submissions "$tmp/sub6" --out "$o13" --backend slurm --per-task 3 --stages "$s1" >"$tmp/time.out" 2>&1
    if [ $? = 2 ] && [ ! -e "$fs2/sbatch.log" ]; then
        echo "$t refused"
    else
        echo "$t $(sed -n '1s/.* --time=\([^ ]*\) .*/\1/p' "$fs2/sbatch.log")"
    fi
done)
check "SLURM_TIME times the students of a task: minutes, M:S, H:M:S, D-H, D-H:M, a leading 0; no limit (0, UNLIMITED) kept; 1:2:3:4 and 1h refused" \
    "$([ "$(tr '\n' ' ' <<<"$out")" = "5 0-00:15:00 7:30 0-00:22:30 1:30:00 0-04:30:00 1-12 4-12:00:00 2-3:04 6-09:12:00 08:09:10 1-00:27:30 UNLIMITED UNLIMITED 0 0 1:2:3:4 refused 1h refused " ]; ok)" \
    "$out; $(cat "$tmp/time.out")"

out=$(PATH=$fbin:$PATH FAKE_SLURM_DIR=$tmp/fake-slurm3 FAKE_SBATCH_REFUSE=1 CLASS_MAKE=$fake CLASS_CONFINE=$tmp/yes-confine \
    "$cls" --submissions "$tmp/sub6" --out "$tmp/out15" --backend slurm --stages "$s1" 2>&1); st=$?
out2=$(PATH=$fbin:$PATH FAKE_SLURM_DIR=$tmp/fake-slurm4 FAKE_SBATCH_REFUSE=2 CLASS_MAKE=$fake CLASS_CONFINE=$tmp/yes-confine \
    "$cls" --submissions "$tmp/sub6" --out "$tmp/out15" --backend slurm 2>&1); st2=$?
check "sbatch refusing a job: exit 1 after its own message; refusing the gradebook job says how to cancel the array" \
    "$([ $st = 1 ] && grep -q "Invalid partition name" <<<"$out" && grep -q "^class: sbatch refused the array job" <<<"$out" &&
       [ $st2 = 1 ] && grep -q "^class: sbatch refused the gradebook job (the array 1001 is queued: scancel 1001)" <<<"$out2"; ok)" \
    "exit $st: $out; exit $st2: $out2"

totals
