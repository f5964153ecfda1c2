#!/usr/bin/env bash
# tests/gpu-suite.sh: the drivers on a GPU (tests/run.sh calls it; it also
# runs alone, e.g. in research/gpu-session.sh). Every solution passes its checks
# and says ok in its record; every skeleton fails cleanly (exit 1, naming
# TODO(lab)); every deliberately wrong kernel of tests/fixtures/ is caught with
# the exit status and phrase of tests/fixtures/expect.tsv. Without a GPU it
# says so in one skip line. Logs in build/check-logs/. Ends with
# "N passed, N failed[, N skipped]".
set -u
cd "$(dirname "$0")/.." || exit 2
. tests/lib.sh

. tools/stages.sh
stages=$(printf '%s\n' $LAB_STAGES)
solutions=solutions
[ -d solutions ] || solutions=""
have_gpu=0
nvidia-smi -L 2>/dev/null | grep -q '^GPU' && have_gpu=1
if [ $have_gpu = 0 ]; then
    skip "GPU suite: no GPU here (nvidia-smi lists none); solutions, skeletons and fixtures were built but not run"
else
    logdir=build/check-logs
    mkdir -p "$logdir"
    # same_on_cpu WHAT PROGRAM STATUS: the CPU emulation (emu/, make
    # emu-all) of what just ran on the GPU gives the same exit status
    same_on_cpu() {
        local eout est
        [ -x "$2" ] || { skip "$1: the CPU emulation's verdict: $2 is not built (make emu-all)"; return; }
        eout=$(timeout 300 "$2" 2>&1); est=$?
        check "$1: the CPU emulation's verdict equals the GPU's (exit $3)" "$([ $est = "$3" ]; echo $?)" \
            "on the CPU: exit $est; $eout"
    }
    [ -n "$solutions" ] || skip "GPU suite: the solutions: none here (a student release)"
    for s in $stages; do
        if [ -n "$solutions" ]; then
            out=$(timeout 120 "build/$s/solution" --check-only --json "$logdir/$s-solution.json" 2>&1); st=$?
            echo "$out" >"$logdir/$s-solution.log"
            check "$s: the solution passes every check" "$([ $st = 0 ]; echo $?)" "$out"
            check "$s: the solution's record says ok" "$([ "$(json_get "$logdir/$s-solution.json" status)" = ok ]; echo $?)"
            same_on_cpu "$s: the solution" "build/$s/solution-emu" "$st"
        fi
        out=$(timeout 120 "build/$s/exercise" --check-only 2>&1); st=$?
        echo "$out" >"$logdir/$s-exercise.log"
        check "$s: the skeleton fails cleanly (exit 1, says what to do)" \
            "$([ $st = 1 ] && grep -q "TODO(lab)" <<<"$out"; echo $?)" "$out"
        same_on_cpu "$s: the skeleton" "build/$s/exercise-emu" "$st"
    done
    [ -f tests/fixtures/expect.tsv ] || skip "GPU suite: the deliberately wrong kernels: none here (a student release)"
    [ -f tests/fixtures/expect.tsv ] && while IFS=$'\t' read -r name status phrase; do
        case $name in '#'* | '') continue ;; esac
        out=$(timeout 120 "build/fixtures/$name" --check-only 2>&1); st=$?
        echo "$out" >"$logdir/fixture-$name.log"
        check "fixture $name is caught (exit $status, says '$phrase')" \
            "$([ $st = "$status" ] && grep -qF "$phrase" <<<"$out"; echo $?)" "exit $st; $out"
        same_on_cpu "fixture $name" "build/fixtures/$name-emu" "$st"
    done <tests/fixtures/expect.tsv
fi
totals
