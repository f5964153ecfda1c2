# tests/grader/again.sh: a correct stage that misses a speed tier, or whose
# time is flagged, runs a second time (grader/README.md, "A missed tier, or
# a flag, runs a second time"). Sourced by tests/grader/run.sh: it uses that
# script's check, $out and stand-in driver (fake_driver.c).
echo "== grader: a correct stage that misses a speed tier, or is flagged, runs again"
# slow_then_fast is slow on its first run and fast after it, slow_then_wrong
# wrong after it, flagged_then_fine flagged (the judge's canaries) on its
# first run only, disturbed every time; each counts its runs in the file
# FAKE_RUNS names (unconfined, so that it can write that file)
again=$out/again
rm -rf "$again"
mkdir -p "$again"
for name in slow_then_fast slow_then_wrong flagged_then_fine; do ln -sf ../fake "$out/bin/$name"; done
{
    printf 'setting\tlimit_s\t3\nsetting\tcorrect_points\t6\n'
    for name in slow_then_fast slow_then_wrong flagged_then_fine disturbed; do
        printf 'stage\t%s\t6\n' "$name"
        printf 'tier\t%s\tpass\t3\ttiming.pct_of_reference\t>=\t%%\tGo faster.\n' "$name"
        printf 'tier\t%s\tstretch\t1\ttiming.speedup_vs_baseline\t>=\tx\tGo even faster.\n' "$name"
        printf 'threshold\t%s\tpass\tTest GPU 9000\t40\nthreshold\t%s\tstretch\tTest GPU 9000\t6\n' "$name" "$name"
    done
} >"$again/rubric.tsv"
# again_run NAME OUT [OPTION]: grade NAME alone, counting its runs
again_run() {
    FAKE_RUNS=$again/$2.runs build/grader/grade --lab . --unconfined --rubric "$again/rubric.tsv" --seed 7 \
        --out "$again/$2" ${3:+"$3"} --program "$1=$out/bin/$1" >"$again/$2.log" 2>&1
}
again_said() { echo "$("$out/json" get "$again/$1/grade.json" stages.0.points 2>/dev/null) $("$out/json" get "$again/$1/grade.json" stages.0.note 2>/dev/null)"; }
again_run slow_then_fast fast
check "grader: a missed tier is timed again, and the better run counts (6/10, then 10/10)" \
    "$([ "$(wc -c <"$again/fast.runs")" = 2 ] && grep -q '^10 .*ran a second time: 6/10, then 10/10; the better run counts' <<<"$(again_said fast)" &&
       grep -qE '^\[1/1\] slow_then_fast: once more\.\.\. correct' "$again/fast.log"; echo $?)" \
    "$(again_said fast); runs: $(cat "$again/fast.runs" 2>/dev/null); $(cat "$again/fast.log")"
again_run slow_then_wrong wrong
check "grader: a second run that is wrong is the verdict (0 points, and the first run is named)" \
    "$(grep -q '^0 the first run was correct (6/10) but missed a speed tier; this is the second run, which did not pass' <<<"$(again_said wrong)"; echo $?)" \
    "$(again_said wrong); $(cat "$again/wrong.log")"
again_run flagged_then_fine flagged
check "grader: a flagged stage is run again, and a flag that does not repeat costs nothing (6/10, then 10/10)" \
    "$([ "$(wc -c <"$again/flagged.runs")" = 2 ] &&
       grep -q '^10 .*its time was flagged, so the stage ran a second time: 6/10, then 10/10' <<<"$(again_said flagged)"; echo $?)" \
    "$(again_said flagged); $(cat "$again/flagged.log")"
again_run disturbed disturbed
check "grader: a flag that repeats costs the speed points, and says why (6/10, then 6/10)" \
    "$(grep -q "^6 flagged: the judge's own GPU work ran slower.*its time was flagged, so the stage ran a second time: 6/10, then 6/10" <<<"$(again_said disturbed)"; echo $?)" \
    "$(again_said disturbed); $(cat "$again/disturbed.log")"
again_run slow_then_fast once --once
check "grader: --once (make grade ONCE=1) runs a stage that missed a tier only once" \
    "$([ "$(wc -c <"$again/once.runs")" = 1 ] && grep -q '^6 ' <<<"$(again_said once)"; echo $?)" \
    "$(again_said once); $(cat "$again/once.log")"
