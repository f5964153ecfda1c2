#!/usr/bin/env bash
# A throw-away single-node Slurm cluster for tests and CI.
#
# Usage: tests/slurm/cluster.sh install|installed|start|stop|status
#
#   install  install munge and Slurm from Debian's packages if they are missing
#            (as root, with apt-get; make check does this only when
#            LAB_TEST_INSTALL=1, which .ci/run sets)
#   installed  exit 0 when munge and Slurm are installed, else 1 with a line
#            naming the missing packages; installs nothing
#   start    (re)start munged, slurmctld and slurmd on this host, wait until the
#            node is idle, and print "export SLURM_CONF=..." on stdout, so a
#            caller can do (the assignment keeps a failed start fatal):
#              line=$(tests/slurm/cluster.sh start) && eval "$line"
#   stop     stop everything a previous start left running (safe to repeat)
#   status   show the daemons and the node; exit 0 only if all three run
#
# Everything (config, munge key, state, spool, logs, pid files, fake GPU
# device files) lives under $SLURM_TEST_DIR (default /tmp/lab-slurm), which
# `start` wipes and recreates. No file outside it is changed, except by
# `install`. The daemons are started directly, as root, so no systemd is needed.
#
# The node is this host with its real CPUs and memory, in one partition "lab",
# with $SLURM_TEST_GPUS (default 2) fake "gpu" GRES backed by symlinks to
# /dev/null, so jobs can ask for --gres=gpu:1 and see CUDA_VISIBLE_DEVICES.
#
# Progress and errors go to stderr; only the export line goes to stdout.

set -euo pipefail

SLURM_TEST_DIR=${SLURM_TEST_DIR:-/tmp/lab-slurm}
SLURM_TEST_GPUS=${SLURM_TEST_GPUS:-2}
# Seconds to wait for the node to come up idle.
SLURM_TEST_TIMEOUT=${SLURM_TEST_TIMEOUT:-60}

dir=$SLURM_TEST_DIR
conf=$dir/etc/slurm.conf
# Every daemon we start carries this variable in its environment, so `stop`
# can find exactly our processes even when the pid files are stale or gone.
marker="LAB_SLURM_TEST_DIR=$dir"
# The file that marks a directory as ours, so `start` never wipes anything else.
stamp=.lab-slurm-test-dir

# Messages for people go to stderr, so that stdout stays machine-readable.
say() { printf 'cluster.sh: %s\n' "$*" >&2; }
die() { say "error: $*"; exit 1; }

# Commands the scripts need, and the Debian package that provides each.
needed_commands() {
    cat <<'EOF'
munged munge
mungekey munge
slurmctld slurmctld
slurmd slurmd
sbatch slurm-client
sinfo slurm-client
squeue slurm-client
scontrol slurm-client
scancel slurm-client
ps procps
EOF
}

# CI machines start without Slurm, so install what is missing from Debian's
# packages; do nothing (and need no network) when everything is there.
# munge and Slurm here? One line naming what is missing when not.
cmd_installed() {
    local cmd pkg missing=()
    while read -r cmd pkg; do
        command -v "$cmd" >/dev/null 2>&1 || missing+=("$pkg")
    done < <(needed_commands)
    [ ${#missing[@]} -eq 0 ] && return 0
    mapfile -t missing < <(printf '%s\n' "${missing[@]}" | sort -u)
    say "not installed: ${missing[*]} (tests/slurm/cluster.sh install installs them, as root)"
    return 1
}

cmd_install() {
    local cmd pkg missing=()
    while read -r cmd pkg; do
        command -v "$cmd" >/dev/null 2>&1 || missing+=("$pkg")
    done < <(needed_commands)
    if [ ${#missing[@]} -eq 0 ]; then
        say "munge and Slurm are installed ($(slurmd -V))"
        return 0
    fi
    # Deduplicate the package names.
    mapfile -t missing < <(printf '%s\n' "${missing[@]}" | sort -u)
    [ "$(id -u)" -eq 0 ] || die "missing packages ${missing[*]}; run 'install' as root"
    command -v apt-get >/dev/null 2>&1 || die "missing packages ${missing[*]} and no apt-get"

    # The packages' install scripts try to start munge, slurmd and slurmctld as
    # system services; with no init system (or no config yet) that fails and
    # would fail the install. policy-rc.d exit code 101 tells them not to try.
    # Only add one if the machine has none, and remove it afterwards.
    local policy=/usr/sbin/policy-rc.d added_policy=
    if [ ! -e "$policy" ]; then
        printf '#!/bin/sh\nexit 101\n' >"$policy"
        chmod 755 "$policy"
        added_policy=1
    fi
    say "installing ${missing[*]} with apt-get (this takes a few seconds)"
    local rc=0
    {
        apt-get -o Acquire::Retries=3 update -q &&
        DEBIAN_FRONTEND=noninteractive apt-get -o Acquire::Retries=3 install -y -q \
            --no-install-recommends "${missing[@]}"
    } </dev/null >&2 || rc=$?
    [ -z "$added_policy" ] || rm -f "$policy"
    [ "$rc" -eq 0 ] || die "apt-get failed (exit $rc)"
    say "installed: $(slurmd -V), $(munged -V 2>&1 | head -n 1)"
}

# Pids of live processes of this $SLURM_TEST_DIR's cluster, optionally only
# those whose command name is $1. The daemons carry our marker variable;
# slurmstepd (one per running job, forked by slurmd) overwrites its environment
# to set its process title, but keeps slurmd's working directory, our log dir.
our_pids() {
    local name=${1:-} p comm cwd
    for p in /proc/[0-9]*; do
        p=${p#/proc/}
        read -r comm <"/proc/$p/comm" 2>/dev/null || continue
        [ -z "$name" ] || [ "$comm" = "$name" ] || continue
        case $comm in
            slurmstepd)
                cwd=$(readlink "/proc/$p/cwd" 2>/dev/null) || continue
                [[ $cwd == "$dir/"* ]] && echo "$p"
                ;;
            munged | slurmctld | slurmscriptd | slurmd)
                grep -qzxF "$marker" "/proc/$p/environ" 2>/dev/null && echo "$p"
                ;;
        esac
    done
    return 0
}

# A pid and all its descendants: job scripts run as children of slurmstepd and
# must not outlive the cluster.
pid_tree() {
    local p
    echo "$1"
    for p in $(ps -o pid= --ppid "$1" 2>/dev/null); do pid_tree "$p"; done
}

# Whether a process still runs. A process that has exited but not yet been
# reaped (a zombie) does not count: in containers, PID 1 may reap orphans only
# every second or two, and waiting for that would slow every stop down.
running() {
    local stat
    stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
    stat=${stat##*) }
    [ "${stat%% *}" != Z ]
}

# Send TERM, wait up to $1 seconds for the processes to go, then KILL them.
terminate() {
    local grace=$1 p alive i
    shift
    [ $# -gt 0 ] || return 0
    kill -TERM "$@" 2>/dev/null || true
    for ((i = 0; i < grace * 20; i++)); do
        alive=
        for p in "$@"; do running "$p" && alive=1; done
        [ -n "$alive" ] || return 0
        sleep 0.05
    done
    say "still running after ${grace}s, killing: $*"
    kill -KILL "$@" 2>/dev/null || true
}

# Cancel jobs first, so slurmd ends their processes cleanly; then stop slurmd,
# slurmctld and munged in that order; then kill whatever of ours is left (an
# orphaned slurmstepd and its job after a crash). Safe to run any number of times.
cmd_stop() {
    local ctld ids p leftover=()
    ctld=$(our_pids slurmctld)
    if [ -n "$ctld" ] && [ -r "$conf" ]; then
        ids=$(SLURM_CONF=$conf timeout 10 squeue -h -o %A 2>/dev/null || true)
        if [ -n "$ids" ]; then
            say "cancelling jobs: ${ids//$'\n'/ }"
            # shellcheck disable=SC2086 # one argument per job id
            SLURM_CONF=$conf timeout 10 scancel $ids 2>/dev/null || true
            for _ in $(seq 50); do
                [ -n "$(our_pids slurmstepd)" ] || break
                sleep 0.1
            done
        fi
    fi
    for p in slurmd slurmctld munged; do
        # shellcheck disable=SC2046 # one argument per pid
        terminate 10 $(our_pids "$p")
    done
    for p in $(our_pids); do
        mapfile -t -O "${#leftover[@]}" leftover < <(pid_tree "$p")
    done
    if [ ${#leftover[@]} -gt 0 ]; then
        say "killing leftover processes: ${leftover[*]}"
        kill -KILL "${leftover[@]}" 2>/dev/null || true
    fi
    rm -f "$dir"/run/*.pid
    say "stopped (nothing of $dir is running)"
}

# Show which daemons run and, if the controller is up, the node's state.
cmd_status() {
    local name pid ok=0
    for name in munged slurmctld slurmd; do
        pid=$(our_pids "$name")
        if [ -n "$pid" ]; then
            say "$name running (pid ${pid//$'\n'/ })"
        else
            say "$name not running"
            ok=3
        fi
    done
    if [ -n "$(our_pids slurmctld)" ]; then
        SLURM_CONF=$conf timeout 10 sinfo -N -o '%N %P %T %c %m %G' >&2 || ok=3
    fi
    [ "$ok" -ne 0 ] || echo "export SLURM_CONF=$conf"
    return "$ok"
}

# Start from an empty directory, so no state of an earlier (maybe killed) run
# can leak in; refuse to wipe a directory that is not one of ours.
fresh_dir() {
    if [ -e "$dir" ] && [ ! -e "$dir/$stamp" ] && [ -n "$(ls -A "$dir" 2>/dev/null)" ]; then
        die "$dir exists, is not empty and was not made by this script;" \
            "set SLURM_TEST_DIR to another path"
    fi
    rm -rf "$dir"
    mkdir -p "$dir"/{etc,munge,state,spool,log,run,dev}
    touch "$dir/$stamp"
    # munged insists that its socket's directories are searchable by everyone
    # and that its key is readable by its owner only.
    chmod 755 "$dir" "$dir/munge"
}

# Run a daemon with our marker and SLURM_CONF in its environment; its own
# stderr (where fatal config errors go before it daemonizes) goes to a log file.
launch() {
    local name=$1
    shift
    env "$marker" SLURM_CONF="$conf" "$@" </dev/null >"$dir/log/$name.stderr" 2>&1 ||
        fail "$name did not start"
}

# Munge authenticates every message between Slurm's commands and daemons. Our
# munged has its own key and socket, so it never touches a system munged.
start_munge() {
    mungekey --create --keyfile="$dir/munge/munge.key" 2>>"$dir/log/munged.stderr" ||
        fail "could not create the munge key"
    # --force: warn instead of refusing to start when a parent directory of
    # $SLURM_TEST_DIR is writable by others (say, a CI workspace).
    launch munged munged --force \
        --key-file="$dir/munge/munge.key" \
        --socket="$dir/munge/munge.socket" \
        --pid-file="$dir/run/munged.pid" \
        --log-file="$dir/log/munged.log" \
        --seed-file="$dir/munge/munged.seed"
    munge -n -S "$dir/munge/munge.socket" | unmunge -S "$dir/munge/munge.socket" >/dev/null 2>&1 ||
        fail "munged does not answer"
}

# Write slurm.conf and gres.conf for one node, $node: this host as `slurmd -C`
# sees it (real CPUs and memory) plus fake GPUs. The plugins are the ones that
# work in a container without systemd or writable cgroups: no cgroup tracking,
# no task binding, no accounting database.
write_config() {
    local node_line i
    node_line=$(slurmd -C | head -n 1)
    node=$(sed -n 's/^NodeName=\([^ ]*\).*/\1/p' <<<"$node_line")
    [ -n "$node" ] || fail "could not read the node's hardware from 'slurmd -C': $node_line"

    cat >"$conf" <<EOF
# Written by tests/slurm/cluster.sh; rewritten at every start.
ClusterName=lab
SlurmctldHost=$node(127.0.0.1)
# Everything runs as root, so no file needs a slurm user as its owner.
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$dir/munge/munge.socket
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/run/slurmctld.pid
SlurmdPidFile=$dir/run/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
# Ignore plugins the host may have configured in /etc/slurm.
PlugStackConfig=$dir/etc/plugstack.conf
# No cgroups and no systemd: track job processes through /proc.
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
# slurmd still loads every MPI plugin at start and logs harmless PMIx errors.
MpiDefault=none
# No mail in tests (the default mail program is not installed).
MailProg=/bin/true
SchedulerType=sched/backfill
# Start jobs as soon as they can run (the default waits up to 3 s per round).
SchedulerParameters=batch_sched_delay=0
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
# A node that was down comes back by itself when its slurmd registers.
ReturnToService=2
GresTypes=gpu
$node_line NodeAddr=127.0.0.1 Gres=gpu:$SLURM_TEST_GPUS State=UNKNOWN
PartitionName=lab Nodes=$node Default=YES DefaultTime=10 MaxTime=60 State=UP
EOF
    # Fake GPUs: Slurm only needs device files, numbered like NVIDIA's; these
    # point to /dev/null. The number becomes the job's CUDA_VISIBLE_DEVICES.
    echo "AutoDetect=off" >"$dir/etc/gres.conf"
    for ((i = 0; i < SLURM_TEST_GPUS; i++)); do
        ln -s /dev/null "$dir/dev/nvidia$i"
        echo "Name=gpu File=$dir/dev/nvidia$i" >>"$dir/etc/gres.conf"
    done
    : >"$dir/etc/plugstack.conf"
}

# Print the last lines of every log, then stop what was started and fail.
fail() {
    local f
    say "error: $*"
    for f in "$dir"/log/*; do
        [ -s "$f" ] || continue
        say "---- last lines of $f"
        tail -n 20 "$f" >&2
    done
    cmd_stop
    exit 1
}

# Wait until $node reports idle, at most $SLURM_TEST_TIMEOUT seconds; give up
# at once if a daemon died (a bad config or a busy port, say).
wait_idle() {
    local state='' i d
    for ((i = 0; i < SLURM_TEST_TIMEOUT * 5; i++)); do
        state=$(SLURM_CONF=$conf timeout 10 sinfo -h -n "$node" -o %T 2>/dev/null || true)
        [ "$state" = idle ] && return 0
        for d in munged slurmctld slurmd; do
            [ -n "$(our_pids "$d")" ] || fail "$d exited"
        done
        sleep 0.2
    done
    fail "node $node not idle after ${SLURM_TEST_TIMEOUT}s (state: '${state:-no answer}')"
}

# Bring the cluster up from scratch; see the header for what it prints.
cmd_start() {
    cmd_installed || exit 1
    [ "$(id -u)" -eq 0 ] || die "start must run as root (the daemons run as root)"
    cmd_stop
    fresh_dir
    start_munge
    write_config
    launch slurmctld slurmctld -f "$conf"
    launch slurmd slurmd -f "$conf" -N "$node"
    wait_idle
    say "node $node idle in partition lab with $SLURM_TEST_GPUS gpu(s); logs in $dir/log"
    echo "export SLURM_CONF=$conf"
}

case ${1:-} in
    install) cmd_install ;;
    installed) cmd_installed ;;
    start) cmd_start ;;
    stop) cmd_stop ;;
    status) cmd_status ;;
    *)
        echo "usage: $0 install|installed|start|stop|status" >&2
        exit 2
        ;;
esac
