#!/usr/bin/env bash
# tools/gpu-run.sh: run a command that needs the GPU here, or, from a login
# node without one, on a GPU node through Slurm's srun. Behind make grade,
# make run, make sweep and make profile.
#
#   tools/gpu-run.sh [--build 'TARGET...'] COMMAND [ARG...]
#
# Here (exec COMMAND) when nvidia-smi lists a GPU, when srun is not on PATH
# or this machine is in no Slurm cluster (no slurm.conf, none of the
# settings below, and sinfo reaches no controller), or when LAB_LOCAL=1;
# where srun is here but no cluster is, one line says so first, so that the
# GPU-less run's own error is not taken for a driver's. Otherwise the build stays here:
# TARGETs are made first (make -k: a stage that does not compile is left to
# COMMAND, which reports it), and COMMAND runs on a GPU node with srun, in
# this folder, which must be on a file system the GPU nodes share. The
# output, the files COMMAND writes and its exit status are those of a run
# here. While the job waits for a node, a line every LAB_SRUN_NOTICE
# seconds (default 15) says so, with Slurm's reason. The binaries built here
# (for every architecture when this node has no GPU) run there as they are:
# the GPU node's make gets LAB_CUDA_ARCH, which the Makefile exports to these
# targets, and builds nothing again for its own GPU.
#
# Settings, LAB_SRUN_PARTITION, LAB_SRUN_ACCOUNT, LAB_SRUN_GRES, LAB_SRUN_TIME
# and LAB_SRUN_ARGS (split on spaces; README.md, "On a Slurm cluster", says
# each and its default): the environment first, then lab-slurm.env at the
# lab's root (KEY=value lines and # comments; the release may ship it).
#
# Exit status: COMMAND's; 125 when the run through Slurm failed (bad
# settings, srun refused the job, or the job ended before COMMAND did), with
# one line saying why.
set -u
script=$(readlink -f "$0")
root=$(dirname "$(dirname "$script")")
SRUN_FAILED=125

say() { printf 'gpu-run: %s\n' "$*" >&2; }
fail() { say "$*"; exit $SRUN_FAILED; }

# MAKEFLAGS without the jobserver of the make that called us: its
# descriptors or its fifo do not exist on another node (or in a make that
# this script starts), and a make that finds them gone falls back to -j1.
strip_jobserver() {
    local w kept=()
    for w in ${MAKEFLAGS:-}; do
        case $w in --jobserver-auth=* | --jobserver-fds=*) ;; *) kept+=("$w") ;; esac
    done
    MAKEFLAGS=${kept[*]}
    export MAKEFLAGS
}

# ------------------------------------------------------------ on the GPU node
# srun runs: tools/gpu-run.sh --on-node STATUS-FILE COMMAND...; the status
# file tells the login node that COMMAND ran, and how it ended.
if [ "${1:-}" = --on-node ]; then
    status_file=$2
    shift 2
    strip_jobserver
    # never srun again from the node, even where its nvidia-smi lists nothing
    export LAB_LOCAL=1
    "$@"
    st=$?
    echo "$st" >"$status_file.tmp" && mv "$status_file.tmp" "$status_file"
    exit $st
fi

build_targets=""
if [ "${1:-}" = --build ]; then
    [ $# -ge 2 ] || fail "usage: tools/gpu-run.sh [--build 'TARGET...'] COMMAND [ARG...]"
    build_targets=$2
    shift 2
fi
[ $# -ge 1 ] || fail "usage: tools/gpu-run.sh [--build 'TARGET...'] COMMAND [ARG...]"

# ------------------------------------------------------------- here, or not
# Through srun only on a node that belongs to a Slurm cluster: a slurm.conf
# where Slurm looks for it, this lab's settings, or a controller that sinfo
# reaches (a cluster whose nodes get their configuration from the
# controller has no file). A machine with Slurm's commands and no cluster
# runs here, and says so in one line.
conf=$root/lab-slurm.env
slurm_cluster() {
    local f
    for f in "${SLURM_CONF:-}" /etc/slurm/slurm.conf /etc/slurm-llnl/slurm.conf /usr/local/etc/slurm.conf \
        /run/slurm/conf/slurm.conf "$conf"; do
        [ -n "$f" ] && [ -f "$f" ] && return 0
    done
    [ -n "${LAB_SRUN_PARTITION:-}${LAB_SRUN_ACCOUNT:-}${LAB_SRUN_GRES:-}${LAB_SRUN_TIME:-}${LAB_SRUN_ARGS:-}" ] ||
        { command -v sinfo >/dev/null && timeout 10 sinfo -h -o %P >/dev/null 2>&1; }
}
gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
here() { [ "${LAB_LOCAL:-0}" != 0 ] || [ "${gpus:-0}" -gt 0 ] || ! command -v srun >/dev/null || ! slurm_cluster; }
# --sends-to-slurm: exit 0 when a command would run on a GPU node through
# srun, 1 when here (the Makefile asks, SLURM_HERE: then it builds for
# every architecture, and runs nothing on the CPU emulation)
if [ "$1" = --sends-to-slurm ]; then
    here && exit 1
    exit 0
fi
if [ "${LAB_LOCAL:-0}" != 0 ] || [ "${gpus:-0}" -gt 0 ] || ! command -v srun >/dev/null; then
    exec "$@"
fi
if ! slurm_cluster; then
    say "no GPU here, and srun is here but no Slurm cluster is (no slurm.conf, no LAB_SRUN_* settings, no controller that sinfo reaches): running here, without a GPU; on a cluster's login node set LAB_SRUN_PARTITION (or lab-slurm.env) to run on a GPU node"
    exec "$@"
fi

# ---------------------------------------------------------------- settings
# lab-slurm.env: KEY=value lines; a key set in the environment wins. The file
# is read, never run.
if [ -f "$conf" ]; then
    lineno=0
    while IFS= read -r line || [ -n "$line" ]; do
        lineno=$((lineno + 1))
        line=${line%$'\r'}
        case $line in '' | '#'*) continue ;; esac
        key=${line%%=*} value=${line#*=}
        [ "$key" != "$line" ] || fail "$conf, line $lineno: not KEY=value: $line"
        # blanks around the key are not part of it (KEY = value)
        key=${key#"${key%%[![:space:]]*}"}
        key=${key%"${key##*[![:space:]]}"}
        value=${value#"${value%%[![:space:]]*}"}
        case $key in
            LAB_SRUN_PARTITION | LAB_SRUN_ACCOUNT | LAB_SRUN_GRES | LAB_SRUN_TIME | LAB_SRUN_ARGS) ;;
            *) fail "$conf, line $lineno: unknown setting $key (the settings: LAB_SRUN_PARTITION, LAB_SRUN_ACCOUNT, LAB_SRUN_GRES, LAB_SRUN_TIME, LAB_SRUN_ARGS)" ;;
        esac
        # a comment after the value, blanks around it and one pair of
        # quotes are not part of it
        value=${value%%[[:space:]]#*}
        value=${value%"${value##*[![:space:]]}"}
        case $value in \"*\" | \'*\') value=${value:1:${#value}-2} ;; esac
        [ -n "${!key+set}" ] || printf -v "$key" '%s' "$value"
    done <"$conf"
fi
partition=${LAB_SRUN_PARTITION:-}
account=${LAB_SRUN_ACCOUNT:-}
gres=${LAB_SRUN_GRES:-gpu:1}
time_limit=${LAB_SRUN_TIME:-00:30:00}
notice_every=${LAB_SRUN_NOTICE:-15}
case $notice_every in '' | *[!0-9]* | 0) fail "LAB_SRUN_NOTICE is a number of seconds (1 or more), not '$notice_every'" ;; esac
opts=(--job-name="lab-${1##*/}-$$" --ntasks=1 --gres="$gres" --time="$time_limit" --unbuffered)
[ -n "$partition" ] && opts+=(--partition="$partition")
[ -n "$account" ] && opts+=(--account="$account")
# LAB_SRUN_ARGS is a list of options, split on blanks (never globbed)
set -f
# shellcheck disable=SC2206
[ -n "${LAB_SRUN_ARGS:-}" ] && opts+=(${LAB_SRUN_ARGS})
set +f

say "no GPU here: ${build_targets:+building here, }running on a GPU node through srun${partition:+ (partition $partition)}; LAB_LOCAL=1 runs here"

# ------------------------------------------------------------ build here
strip_jobserver
if [ -n "$build_targets" ]; then
    mkdir -p "$root/build"
    t0=$SECONDS
    printf 'gpu-run: building here (make -j%s)...' "$(nproc)" >&2
    # shellcheck disable=SC2086 # a list of targets
    make -C "$root" -k -s --no-print-directory -j"$(nproc)" $build_targets >"$root/build/gpu-run-build.log" 2>&1
    if [ $? = 0 ]; then
        printf ' %d s\n' $((SECONDS - t0)) >&2
    else
        printf ' %d s; some did not build (build/gpu-run-build.log), the GPU node reports them\n' $((SECONDS - t0)) >&2
    fi
fi

# ------------------------------------------------------------- run there
# While the job is pending: a line every few seconds with Slurm's reason.
# The checker's sleep keeps no descriptor of ours, so that nothing waits
# for it once srun is done.
waiting_notice() {
    local waited=0 line user
    user=$(id -un)
    while sleep "$notice_every" </dev/null >/dev/null 2>&1; do
        # this script has gone (stopped with Ctrl-C): so does its notice
        kill -0 $$ 2>/dev/null || return 0
        waited=$((waited + notice_every))
        line=$(squeue -h -u "$user" -n "${opts[0]#--job-name=}" -o '%i %T %r' 2>/dev/null | head -n 1)
        case $line in
            '') ;;
            *' PENDING '*) say "waiting for a GPU node: ${waited} s so far (job ${line%% *}, reason: ${line##* })" ;;
            *) return 0 ;;
        esac
    done
}

mkdir -p "$root/build/gpu-run" || fail "cannot create $root/build/gpu-run"
status_file=$root/build/gpu-run/status.$(hostname -s 2>/dev/null || echo host).$$
rm -f "$status_file"
waiting_notice &
notice_pid=$!
trap 'kill "$notice_pid" 2>/dev/null; exit 130' INT TERM
# srun's line about a task's non-zero exit is left out: a run here has none
srun "${opts[@]}" "$script" --on-node "$status_file" "$@" </dev/null \
    2> >(grep --line-buffered -v '^srun: error: .*: task 0: Exited with exit code [0-9]*$' >&2)
srun_status=$?
filter_pid=$!
kill "$notice_pid" 2>/dev/null
wait "$notice_pid" "$filter_pid" 2>/dev/null

if [ -f "$status_file" ]; then
    st=$(cat "$status_file")
    rm -f "$status_file"
    exit "$st"
fi
if [ $srun_status = 0 ]; then
    fail "the job ended without a word from the GPU node: is $root on a file system the GPU nodes share?"
fi
fail "srun did not run the command to its end (srun's exit status $srun_status; its messages above say why); settings: LAB_SRUN_* variables or $conf (LAB_LOCAL=1 runs here)"
