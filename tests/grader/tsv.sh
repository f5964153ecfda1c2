# tests/grader/tsv.sh: grade.tsv, the lines scripts read (class grading's
# rows, the hints), against grade.json of the same run. Sourced by
# tests/grader/run.sh after its one run over the stand-in programs: it uses
# that run's $out/reports, names and get, and check.
tsv=$out/reports/grade.tsv
tsv_agrees() {
    local k=0 st bonus pts maxp corr flag seed missed reason want
    [ "$(head -n 1 "$tsv")" = "$(printf 'stage\tbonus\tpoints\tmax_points\tcorrect\tflagged\tseed\tmissed\treason')" ] &&
        [ "$(($(wc -l <"$tsv") - 1))" = ${#names[@]} ] || return 1
    while IFS=$'\t' read -r st bonus pts maxp corr flag seed missed reason; do
        want=$(get "stages.$k.reason"); want=${want//$'\n'/ }; want=${want//$'\t'/ }
        [ "$st" = "$(get "stages.$k.stage")" ] && [ "$bonus" = "$(get "stages.$k.bonus")" ] &&
            [ "$pts" = "$(get "stages.$k.points")" ] && [ "$maxp" = "$(get "stages.$k.max_points")" ] &&
            [ "$corr" = "$(get "stages.$k.correct")" ] && [ "$flag" = "$(get "stages.$k.flagged")" ] &&
            [ "$seed" = 42 ] && [ "$reason" = "${want:--}" ] || return 1
        k=$((k + 1))
    done < <(tail -n +2 "$tsv")
}
check "grader: grade.tsv beside grade.json: a header, then each stage's points, bonus, correct, flagged, seed and reason as grade.json has them" \
    "$(tsv_agrees; ok)" "$(head -n 4 "$tsv")"
check "grader: grade.tsv names the tiers a stage missed (slow: pass,stretch; good: -)" \
    "$([ "$(awk -F'\t' '$1 == "slow" { print $8 }' "$tsv")" = pass,stretch ] &&
       [ "$(awk -F'\t' '$1 == "good" { print $8 }' "$tsv")" = - ]; ok)" "$(grep -E '^(slow|good)\s' "$tsv")"

