#!/usr/bin/env bash
# tests/slurm/gpu-run.sh: tests of tools/gpu-run.sh, which runs make grade,
# make run, make sweep and make profile on a GPU node through srun when this
# node has no GPU.
#
# First with a stand-in srun (any machine): when it runs here and when it
# goes through srun, the settings (environment over lab-slurm.env), the
# exit statuses, output and files that come back, srun's own failures
# (status 125), the build before the job. Then, as root where Slurm is
# installed, on the single-node test cluster (tests/slurm/cluster.sh) with a
# student release of the lab: make run, make grade (its table, grade.json,
# results.json and exit status, and nothing built again on the node), a job
# that waits in the queue, and a partition that does not exist. The test
# cluster has no GPU: a stand-in nvidia-smi lists one inside a job only.
#
# Prints "ok", "FAIL" and "skip" lines; ends with "N passed, N failed[, N
# skipped]". make check runs it after building the lab.
set -u
cd "$(dirname "$0")/../.." || exit 2
export LC_ALL=C

. tests/lib.sh
. tools/stages.sh

lab=$(pwd)
tmp=$(mktemp -d) || exit 2
cluster_up=""
cleanup() {
    [ -z "$cluster_up" ] || SLURM_TEST_DIR=$tmp/slurm tests/slurm/cluster.sh stop >/dev/null 2>&1
    rm -rf "$tmp"
}
trap cleanup EXIT

# ======================================================= a stand-in srun
echo "== tools/gpu-run.sh with a stand-in srun"
# A lab of its own: the script, a Makefile whose one target a --build makes,
# and (where a test wants it) lab-slurm.env.
mini=$tmp/mini
mkdir -p "$mini/tools" "$tmp/bin"
cp tools/gpu-run.sh "$mini/tools/"
printf 'built.txt:\n\t@echo built >$@\n' >"$mini/Makefile"
# srun: notes its options, then runs the command as a job would, or (with
# FAKE_SRUN_REFUSE) refuses as srun does; the line about a task's exit
# status is srun's too.
cat >"$tmp/bin/srun" <<'EOF'
#!/usr/bin/env bash
: >"$FAKE_SRUN_LOG"
while [ $# -gt 0 ]; do
    case $1 in -*) echo "$1" >>"$FAKE_SRUN_LOG"; shift ;; *) break ;; esac
done
if [ -n "${FAKE_SRUN_REFUSE:-}" ]; then
    echo "srun: error: Unable to allocate resources: Invalid partition name specified" >&2
    exit 1
fi
SLURM_JOB_ID=7 "$@"
st=$?
[ $st = 0 ] || echo "srun: error: node1: task 0: Exited with exit code $st" >&2
exit $st
EOF
# nvidia-smi: a GPU where FAKE_GPU is set, none otherwise
cat >"$tmp/bin/nvidia-smi" <<'EOF'
#!/bin/sh
[ -n "${FAKE_GPU:-}" ] || { echo "No devices were found"; exit 6; }
echo "GPU 0: Stand-in GPU (UUID: GPU-0)"
EOF
chmod +x "$tmp/bin/srun" "$tmp/bin/nvidia-smi"
export FAKE_SRUN_LOG=$tmp/srun.log
: >"$tmp/slurm.conf"
# gr ARGS...: tools/gpu-run.sh of the small lab, on a login node of a cluster
# (a slurm.conf, srun), with a clean environment of LAB_ settings
gr() {
    env -u LAB_LOCAL -u LAB_SRUN_PARTITION -u LAB_SRUN_ACCOUNT -u LAB_SRUN_GRES -u LAB_SRUN_TIME -u LAB_SRUN_ARGS \
        PATH="$tmp/bin:$PATH" SLURM_CONF="$tmp/slurm.conf" "$@"
}
# where: "job" when the command ran as the stand-in srun's job, else "here"
where='if [ -n "${SLURM_JOB_ID:-}" ]; then echo job; else echo here; fi'

: >"$FAKE_SRUN_LOG"
out=$(gr LAB_LOCAL=1 "$mini/tools/gpu-run.sh" sh -c "$where" 2>&1)
check "LAB_LOCAL=1: runs here, no srun" "$([ "$out" = here ] && [ ! -s "$FAKE_SRUN_LOG" ]; ok)" "$out"
out=$(gr FAKE_GPU=1 "$mini/tools/gpu-run.sh" sh -c "$where" 2>&1)
check "a GPU here: runs here" "$([ "$out" = here ]; ok)" "$out"
out=$(gr SLURM_CONF=/nonexistent "$mini/tools/gpu-run.sh" sh -c "$where" 2>"$tmp/err")
check "srun installed but no cluster (no slurm.conf, no settings): runs here, after one line saying so" \
    "$([ "$out" = here ] && [ "$(grep -c . "$tmp/err")" = 1 ] &&
       grep -q "srun is here but no Slurm cluster is" "$tmp/err"; ok)" "$out; $(cat "$tmp/err")"
out=$(gr SLURM_CONF=/nonexistent LAB_SRUN_PARTITION=gpu "$mini/tools/gpu-run.sh" sh -c "$where" 2>/dev/null)
check "no slurm.conf, but the lab's settings name a partition: through srun" "$([ "$out" = job ]; ok)" "$out"

out=$(gr "$mini/tools/gpu-run.sh" sh -c "$where" 2>"$tmp/err")
check "no GPU, a cluster: through srun, and one line saying so and how to run here" \
    "$([ "$out" = job ] && [ "$(wc -l <"$tmp/err")" = 1 ] && grep -q "through srun.*LAB_LOCAL=1" "$tmp/err"; ok)" \
    "$out; $(cat "$tmp/err")"
check "the defaults: one task, gres gpu:1, 30 minutes, output unbuffered, no partition or account" \
    "$(grep -qx -- --gres=gpu:1 "$FAKE_SRUN_LOG" && grep -qx -- --time=00:30:00 "$FAKE_SRUN_LOG" &&
       grep -qx -- --ntasks=1 "$FAKE_SRUN_LOG" && grep -qx -- --unbuffered "$FAKE_SRUN_LOG" &&
       ! grep -q -- '--partition\|--account' "$FAKE_SRUN_LOG"; ok)" "$(cat "$FAKE_SRUN_LOG")"

cat >"$mini/lab-slurm.env" <<'EOF'
# what an instructor ships
LAB_SRUN_PARTITION=gpu-short   # a comment after the value
LAB_SRUN_ACCOUNT="cs4xx"
LAB_SRUN_GRES=gpu:h100:1
LAB_SRUN_TIME=00:10:00
LAB_SRUN_ARGS=--qos=class --constraint=h100
EOF
gr "$mini/tools/gpu-run.sh" true 2>/dev/null
check "lab-slurm.env: partition (comment after it), account (quotes taken off), gres, time and more options" \
    "$(for o in --partition=gpu-short --account=cs4xx --gres=gpu:h100:1 --time=00:10:00 --qos=class --constraint=h100; do
           grep -qx -- "$o" "$FAKE_SRUN_LOG" || exit 1; done; ok)" "$(cat "$FAKE_SRUN_LOG")"
gr LAB_SRUN_PARTITION=mine LAB_SRUN_TIME=5 "$mini/tools/gpu-run.sh" true 2>/dev/null
check "the environment wins over lab-slurm.env" \
    "$(grep -qx -- --partition=mine "$FAKE_SRUN_LOG" && grep -qx -- --time=5 "$FAKE_SRUN_LOG" &&
       grep -qx -- --account=cs4xx "$FAKE_SRUN_LOG"; ok)" "$(cat "$FAKE_SRUN_LOG")"
echo "LAB_SRUN_QUEUE=fast" >>"$mini/lab-slurm.env"
out=$(gr "$mini/tools/gpu-run.sh" true 2>&1); st=$?
check "an unknown setting in lab-slurm.env: status 125, one line naming the line and the settings" \
    "$([ $st = 125 ] && grep -q "lab-slurm.env, line 7: unknown setting LAB_SRUN_QUEUE" <<<"$out" &&
       [ "$(grep -c . <<<"$out")" = 1 ]; ok)" "exit $st; $out"
printf 'LAB_SRUN_PARTITION = spaced\n' >"$mini/lab-slurm.env"
gr "$mini/tools/gpu-run.sh" true 2>/dev/null
check "lab-slurm.env: blanks around = are part of neither the key nor the value" \
    "$(grep -qx -- --partition=spaced "$FAKE_SRUN_LOG"; ok)" "$(cat "$FAKE_SRUN_LOG")"
echo "just words" >"$mini/lab-slurm.env"
out=$(gr "$mini/tools/gpu-run.sh" true 2>&1); st=$?
check "a line that is not KEY=value: status 125" "$([ $st = 125 ] && grep -q "not KEY=value" <<<"$out"; ok)" "exit $st; $out"
rm "$mini/lab-slurm.env"
out=$(gr LAB_SRUN_NOTICE=soon "$mini/tools/gpu-run.sh" true 2>&1); st=$?
check "LAB_SRUN_NOTICE that is not a number: status 125" "$([ $st = 125 ] && grep -q "LAB_SRUN_NOTICE" <<<"$out"; ok)" "exit $st; $out"

# exit statuses, output and files, as a run here would give them
statuses=""
for want in 0 1 2 3 4 5; do
    gr "$mini/tools/gpu-run.sh" sh -c "exit $want" 2>/dev/null
    statuses="$statuses $?"
done
check "the command's exit status comes back (0 to 5)" "$([ "$statuses" = " 0 1 2 3 4 5" ]; ok)" "got:$statuses"
gr "$mini/tools/gpu-run.sh" sh -c 'echo to stdout; echo to stderr >&2; echo a file >"$0"; exit 3' "$tmp/written" \
    >"$tmp/out" 2>"$tmp/err"; st=$?
check "stdout, stderr and a written file arrive; srun's line about the exit status does not" \
    "$([ $st = 3 ] && [ "$(cat "$tmp/out")" = "to stdout" ] && grep -qx "to stderr" "$tmp/err" &&
       [ "$(cat "$tmp/written")" = "a file" ] && ! grep -q "Exited with exit code" "$tmp/err"; ok)" \
    "exit $st; $(cat "$tmp/out" "$tmp/err")"
out=$(gr FAKE_SRUN_REFUSE=1 "$mini/tools/gpu-run.sh" sh -c 'exit 0' 2>&1); st=$?
check "srun refuses the job: status 125, srun's reason, and one line of ours" \
    "$([ $st = 125 ] && grep -q "Invalid partition" <<<"$out" && grep -q "^gpu-run: srun did not run the command" <<<"$out"; ok)" \
    "exit $st; $out"
# the folder of the job's word turned into a file while the job runs
out=$(gr "$mini/tools/gpu-run.sh" sh -c 'rm -rf "$0" && : >"$0"' "$mini/build/gpu-run" 2>&1); st=$?
rm -f "$mini/build/gpu-run"
check "a job that leaves no word (a file system the node does not share): status 125, says so" \
    "$([ $st = 125 ] && grep -q "file system the GPU nodes share" <<<"$out"; ok)" "exit $st; $out"

rm -f "$mini/built.txt"
out=$(gr "$mini/tools/gpu-run.sh" --build built.txt sh -c 'cat "$0"' "$mini/built.txt" 2>&1); st=$?
check "--build: the targets are made here before the job runs" "$([ $st = 0 ] && grep -qx built <<<"$out"; ok)" "exit $st; $out"
rm -f "$mini/built.txt"
out=$(gr LAB_LOCAL=1 "$mini/tools/gpu-run.sh" --build built.txt sh -c 'test ! -e "$0"' "$mini/built.txt" 2>&1); st=$?
check "--build here: nothing is made (the command builds what it needs)" "$([ $st = 0 ]; ok)" "exit $st; $out"
out=$(gr MAKEFLAGS="-j2 --jobserver-auth=3,4 -- CUDA_ARCH=90" "$mini/tools/gpu-run.sh" sh -c 'echo "$MAKEFLAGS|$LAB_LOCAL"' 2>/dev/null)
check "on the node: the calling make's jobserver is gone, its variables stay, and LAB_LOCAL=1 (no srun again)" \
    "$([ "$out" = "-j2 -- CUDA_ARCH=90|1" ]; ok)" "$out"

# ======================================================== the test cluster
echo "== make run and make grade through srun, on the single-node test cluster"
reason=""
if [ "$(id -u)" != 0 ]; then
    reason="not root: the test cluster's daemons run as root"
elif ! command -v slurmctld >/dev/null || ! command -v srun >/dev/null; then
    reason="Slurm is not installed (tests/slurm/cluster.sh install, as root)"
fi
if [ -n "$reason" ]; then
    skip "make grade through srun: $reason"
    echo
    echo "$passed passed, $failed failed, $skipped skipped"
    [ $failed = 0 ]
    exit
fi

# a student release of the lab with the lab's build (dates kept): a student's
# copy on the login node
rel=$tmp/release
out=$(make --no-print-directory release DEST="$rel" 2>&1) && cp -a build "$rel/build"
check "a student release to run in" "$([ -x "$rel/tools/gpu-run.sh" ] && [ -d "$rel/build" ]; ok)" "$out"
t0=$SECONDS
line=$(SLURM_TEST_DIR=$tmp/slurm tests/slurm/cluster.sh start 2>"$tmp/cluster.log"); st=$?
cluster_up=1
check "the test cluster starts ($((SECONDS - t0)) s)" "$([ $st = 0 ]; ok)" "$(cat "$tmp/cluster.log")"
if [ $st = 0 ]; then
    eval "$line"
    # nvidia-smi lists a GPU inside a job only: this node is the login node,
    # the job's the GPU node. srun is Slurm's own.
    mkdir -p "$tmp/bin2"
    cat >"$tmp/bin2/nvidia-smi" <<'EOF'
#!/bin/sh
[ -n "${SLURM_JOB_ID:-}" ] || { echo "No devices were found"; exit 6; }
echo "GPU 0: Stand-in GPU (UUID: GPU-0)"
EOF
    chmod +x "$tmp/bin2/nvidia-smi"
    first=${LAB_STAGES%% *}
    # lmake ARGS...: make in the release, as a student on the login node
    lmake() {
        env -u LAB_LOCAL -u LAB_SRUN_PARTITION -u LAB_SRUN_ARGS PATH="$tmp/bin2:$PATH" LAB_SRUN_PARTITION=lab \
            make --no-print-directory -C "$rel" "$@"
    }
    out=$(lmake run EX="$first" ARGS=--help 2>&1); st=$?
    check "make run EX=$first ARGS=--help through srun: the driver's help, exit 0" \
        "$([ $st = 0 ] && grep -q "through srun" <<<"$out" && grep -q "^usage: build/$first/exercise" <<<"$out"; ok)" \
        "exit $st; $out"
    out=$(lmake run EX="$first" N=0 2>&1); st=$?
    check "make run N=0 through srun: the driver's message and make's Error 2, as here" \
        "$([ $st = 2 ] && grep -q "not a size" <<<"$out" && grep -q 'Error 2$' <<<"$out" &&
           ! grep -q "Exited with exit code" <<<"$out"; ok)" "exit $st; $out"

    # make grade: the login node builds, the GPU node grades. A job that
    # srun refuses shows the first half: the stage was built here.
    rm -f "$rel/build/$first/exercise" "$rel/build/$first/exercise.o"
    out=$(LAB_SRUN_PARTITION=nosuch env PATH="$tmp/bin2:$PATH" make --no-print-directory -C "$rel" grade EX="$first" 2>&1); st=$?
    check "make grade, partition that does not exist: built here first, srun's reason, one line of ours, make's Error 125" \
        "$([ $st = 2 ] && [ -f "$rel/build/$first/exercise.o" ] && grep -q "^srun: error: .*[Pp]artition" <<<"$out" &&
           grep -q "^gpu-run: srun did not run" <<<"$out" && grep -q 'Error 125$' <<<"$out"; ok)" "exit $st; $out"
    # Then the grade itself. The stand-in GPU is no CUDA device, so each
    # stage finds no usable GPU: the grader's status 3. On the node, where
    # nvidia-smi lists a GPU, the Makefile alone would build for that GPU.
    flags_before=$(cat "$rel/build/flags.txt")
    objects_before=$(find "$rel/build" -name '*.o' -printf '%P %T@\n' | sort)
    out=$(lmake grade EX="$first" 2>&1); st=$?
    check "make grade through srun: the grader's table, and its status 3 (no usable GPU) through make" \
        "$([ $st = 2 ] && grep -q "^grading 1 stage on Stand-in GPU" <<<"$out" &&
           grep -q "^$first .*0/10" <<<"$out" && grep -q 'grade\] Error 3$' <<<"$out"; ok)" "exit $st; $out"
    check "grade.json and results.json written in the student's lab" \
        "$([ "$(json_get "$rel/grade.json" stages.0.stage)" = "$first" ] && json_get "$rel/results.json" score >/dev/null; ok)" \
        "$(ls "$rel")"
    check "the GPU node built nothing again: the same flags, every object as the login node left it" \
        "$([ "$(cat "$rel/build/flags.txt")" = "$flags_before" ] &&
           [ "$(find "$rel/build" -name '*.o' -printf '%P %T@\n' | sort)" = "$objects_before" ] &&
           [ -x "$rel/build/$first/exercise" ]; ok)" "$(cat "$rel/build/flags.txt" "$rel/build/grade-build.log" 2>/dev/null)"

    # a job that has to wait: both GPUs taken for a few seconds
    blocker=$(sbatch --parsable --partition=lab --gres=gpu:2 --time=1 --output=/dev/null --wrap "sleep 6" 2>&1)
    for _ in $(seq 50); do
        [ "$(squeue -h -j "$blocker" -o %T 2>/dev/null)" = RUNNING ] && break
        sleep 0.1
    done
    out=$(LAB_SRUN_NOTICE=1 lmake run EX="$first" ARGS=--help 2>&1); st=$?
    check "a job that waits in the queue: lines saying so while it waits, then the output, exit 0" \
        "$([ $st = 0 ] && grep -q "waiting for a GPU node: [0-9]* s so far (job [0-9]*, reason: Resources)" <<<"$out" &&
           grep -q "^usage: build/$first/exercise" <<<"$out"; ok)" "exit $st; blocker: $blocker; $out"

    SLURM_TEST_DIR=$tmp/slurm tests/slurm/cluster.sh stop >/dev/null 2>&1
    cluster_up=""
fi

totals
