#!/usr/bin/env bash
# tests/policy/run.sh: the one timing policy (common/policy.c), as every
# stage's programs resolve it: each program prints it (--print-policy, no GPU
# needed) for make run's command line and for a graded run's arguments (the
# rubric's setting args, then the stage's points line's extra arguments, as
# grader/stage.c's run_args gives them), and the settings must be the ones
# below. The table is today's values: a change of one is a change of the
# grades, made here on purpose, not by a move of code.
set -u
cd "$(dirname "$0")/../.." || exit 2
. tests/lib.sh
. tools/stages.sh

# the policy of make run, one setting a line
made_run="warm_up_again_below_ms 100
min_trials 10
max_trials 200
target_rse 0.01
budget_ms 1000
max_batch 32
max_calls 2400
long_call_ms 5
batch_ms 20
slow_call_ms 100
slow_trials 3
slower_call_ms 250
slower_trials 2
l2_flush_l2s 2
l2_flush_min_mib 32"
# a graded run's: the rubric's --budget-ms 300
graded=$(sed 's/^budget_ms 1000$/budget_ms 300/' <<<"$made_run")

rubric_args=$(awk -F'\t+' '$1 == "setting" && $2 == "args" { print $3 }' grader/rubric.tsv)
for s in $LAB_STAGES; do
    stage_args=$(awk -F'\t+' -v s="$s" '$1 == "points" && $2 == s { print $5 }' stages.tsv)
    for v in exercise solution exercise-judge; do
        bin=build/$s/$v
        if [ ! -x "$bin" ]; then
            [ "$v" = solution ] && [ ! -d solutions ] && continue
            fail "$s: $bin is built" "make $bin"
            continue
        fi
        out=$("$bin" --print-policy 2>&1)
        check "$s $v: make run's timing policy is the table's" "$([ "$out" = "$made_run" ]; echo $?)" \
            "$(diff <(echo "$made_run") <(echo "$out"))"
        # shellcheck disable=SC2086 # the arguments are words, as the grader splits them
        out=$("$bin" --print-policy $rubric_args $stage_args 2>&1)
        check "$s $v: a graded run's timing policy ($rubric_args $stage_args) is the table's" \
            "$([ "$out" = "$graded" ]; echo $?)" "$(diff <(echo "$graded") <(echo "$out"))"
    done
done
# the last --budget-ms wins: the command line's over the rubric's
out=$(build/$(set -- $LAB_STAGES; echo "$1")/exercise --print-policy --budget-ms 300 --budget-ms 50 2>&1)
check "the command line's --budget-ms wins over the rubric's" "$(grep -qx 'budget_ms 50' <<<"$out"; echo $?)" "$out"
out=$(LAB_JUDGE_RSE=0.004 build/$(set -- $LAB_STAGES; echo "$1")/exercise --print-policy 2>&1)
check "LAB_JUDGE_RSE sets the relative standard error" "$(grep -qx 'target_rse 0.004' <<<"$out"; echo $?)" "$out"
totals
