# tests/runner.sh: how tests/run.sh runs its suites, sourced after
# tests/lib.sh. A suite is a command that prints "ok    name", "FAIL  name"
# (details indented beneath) and "skip  name" lines; the runner starts the
# suites two at a time in the order they were declared (the longest first,
# in tests/run.sh; one that must wait for a suite sharing its state lets
# those after it go first), keeps each one's output in a file, and prints
# them in that order, each under its title with its seconds (wall clock and
# CPU), each line counted again here (pass, fail, skip of tests/lib.sh).
#   suite [--uses STATE] NAME TITLE COMMAND...: declare a suite. STATE: what
#     of the machine it changes that another suite may use too, words joined
#     by commas; no two suites that share a word run at once:
#       grade: the lab's one grade of a copy (GRADE_SRC=, make grade EMU=1):
#         build/grade-src, build/emu-grade, the grade's logs
#       slurm: the test cluster (tests/slurm/cluster.sh), on Slurm's ports
#       all: everything: it grades in the lab's own build/ (a grade there
#         removes the stages' programs before it builds them again), so it
#         starts when every suite before it has ended, and none after it
#         starts until it has ended
#   select_suites SPEC: keep the suites whose name matches SUITE, where SPEC
#     is SUITE or SUITE:CHECK (both extended regular expressions, SUITE the
#     whole name); with CHECK, count only the checks whose name matches it.
#     Exit 2 with the suites' names when none matches
#   run_suites JOBS: run what was declared, JOBS at a time (1: one by one)
suite_names=() suite_titles=() suite_cmds=() suite_uses=() check_filter=""

suite() {
    local uses=none
    [ "$1" = --uses ] && { uses=$2; shift 2; }
    suite_names+=("$1") suite_titles+=("$2") suite_uses+=($uses)
    shift 2
    suite_cmds+=("$(printf '%q ' "$@")")
}

# list_suites: each suite's name, one a line
list_suites() { printf '%s\n' "${suite_names[@]}"; }

select_suites() {
    local spec=$1 pattern i names=() titles=() cmds=() uses=()
    pattern=${spec%%:*}
    [[ $spec == *:* ]] && check_filter=${spec#*:}
    for i in "${!suite_names[@]}"; do
        [ -z "$pattern" ] || [[ ${suite_names[$i]} =~ ^($pattern)$ ]] || continue
        names+=("${suite_names[$i]}") titles+=("${suite_titles[$i]}")
        cmds+=("${suite_cmds[$i]}") uses+=("${suite_uses[$i]}")
    done
    if [ ${#names[@]} = 0 ]; then
        echo "tests/run.sh: no suite is named '$pattern'; the suites are:" >&2
        list_suites | sed 's/^/  /' >&2
        exit 2
    fi
    suite_names=("${names[@]}") suite_titles=("${titles[@]}") suite_cmds=("${cmds[@]}") suite_uses=("${uses[@]}")
}

# start_suite K: run suite K in the background into $suite_dir/K.out; its
# seconds, wall clock and CPU (its processes' user and system time, which
# other work on the machine does not stretch), go to K.secs, written last,
# which says it has ended
start_suite() {
    local k=$1
    (
        t0=$SECONDS
        eval "${suite_cmds[$k]}" >"$suite_dir/$k.out" 2>&1 </dev/null
        echo $? >"$suite_dir/$k.status"
        times >"$suite_dir/$k.times"
        awk -v wall=$((SECONDS - t0)) 'END { split($1, u, /[ms]/); split($2, s, /[ms]/)
            printf "%d s, CPU %.1f s\n", wall, u[1] * 60 + u[2] + s[1] * 60 + s[2] }' \
            "$suite_dir/$k.times" >"$suite_dir/$k.tmp" && mv "$suite_dir/$k.tmp" "$suite_dir/$k.secs"
    ) &
}

# clash A B: whether suites using states A and B (tests/runner.sh's words)
# may not run at once
clash() {
    local w
    [ "$1" = all ] || [ "$2" = all ] && return 0
    for w in ${1//,/ }; do
        [ "$w" != none ] && [[ ,$2, == *,$w,* ]] && return 0
    done
    return 1
}

# may_start K JOBS: whether suite K may start now: fewer than JOBS suites
# running and none of them sharing a state with it; a suite using all only
# when every suite before it has started (and, sharing a state with each,
# ended)
may_start() {
    local k=$1 jobs=$2 i running=0
    for i in "${!suite_names[@]}"; do
        if [ -z "${suite_started[$i]:-}" ]; then
            [ "${suite_uses[$k]}" = all ] && [ "$i" -lt "$k" ] && return 1
            continue
        fi
        [ -e "$suite_dir/$i.secs" ] && continue
        running=$((running + 1))
        clash "${suite_uses[$i]}" "${suite_uses[$k]}" && return 1
    done
    [ $running -lt "$jobs" ]
}

# start_ready JOBS: start, in the order they were declared, each suite not
# yet started that may start now (a suite that must wait for another using
# the same state lets those after it go first); none after a suite using
# all that has not started
start_ready() {
    local k
    for k in "${!suite_names[@]}"; do
        [ -n "${suite_started[$k]:-}" ] && continue
        if may_start "$k" "$1"; then
            start_suite "$k"
            suite_started[$k]=1
        fi
        [ -n "${suite_started[$k]:-}" ] || [ "${suite_uses[$k]}" != all ] || break
    done
}

# count_suite K: print suite K's title and seconds, count its lines, and
# keep its output in build/tests/suites/NAME.log
count_suite() {
    local k=$1 prefix=${suite_names[$1]} out word name status
    out=$(cat "$suite_dir/$k.out")
    echo "== ${suite_titles[$k]} ($(cat "$suite_dir/$k.secs"))"
    while read -r word name; do
        [ -z "$check_filter" ] || [[ $name =~ $check_filter ]] || continue
        case $word in
            ok) pass "$prefix: $name" ;;
            skip) skip "$prefix: $name" ;;
            FAIL) fail "$prefix: $name" "$(grep -A 20 -F "FAIL  $name" <<<"$out" | tail -n +2 | grep '^      ')" ;;
        esac
    done < <(grep -E '^(ok|FAIL|skip) ' <<<"$out")
    grep -qE '^(ok|FAIL|skip) ' <<<"$out" || fail "$prefix: the suite ran" "$out"
    status=$(cat "$suite_dir/$k.status")
    [ "$status" = 0 ] || grep -q '^FAIL ' <<<"$out" ||
        fail "$prefix: the suite ended with status $status and no failed check (killed?)" "$out"
    mkdir -p build/tests/suites && cp "$suite_dir/$k.out" "build/tests/suites/$prefix.log"
}

# still_running: one line naming the suites started and not yet shown,
# every 5 s of waiting for the next one's output (a suite is shown whole
# when it ends, and some take minutes)
still_running() {
    local i names=""
    for i in "${!suite_started[@]}"; do
        [ -e "$suite_dir/$i.secs" ] || names+=" ${suite_names[$i]}"
    done
    echo "   ... still running:${names:- (none)} (the suites began $((SECONDS - run_start)) s ago)"
}

run_suites() {
    local jobs=$1 n=${#suite_names[@]} shown=0 waited=0
    suite_started=()
    run_start=$SECONDS
    suite_dir=$(mktemp -d "${TMPDIR:-/tmp}/lab-suites.XXXXXX") || exit 2
    trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$suite_dir"' EXIT
    while [ $shown -lt "$n" ]; do
        start_ready "$jobs"
        if [ -e "$suite_dir/$shown.secs" ]; then
            count_suite $shown
            shown=$((shown + 1))
            waited=0
        else
            sleep 0.5
            waited=$((waited + 1))
            [ $((waited % 10)) = 0 ] && still_running
        fi
    done
}
