# tests/grader/calibrate.sh: make calibrate's arithmetic with stand-in
# solutions and reference kernels, and tools/default-thresholds.sh. Sourced
# by tests/grader/run.sh: it uses that script's check, $out and stand-in
# driver (fake_driver.c).
echo "== grader: make calibrate's arithmetic"
# two stand-in stages of one family, each with a reference kernel per tier
# (cal_first's stretch reference is its solution): each threshold is the
# margin times its own reference's value. cal_second's pass threshold (0.75
# x 11% = 8.25%) is also met by the tier before it (cal_first's stretch
# reference, 10%): calibration must warn about that
cal=$out/calibrate
rm -rf "$cal"
mkdir -p "$cal"
for name in cal_first cal_second cal_first@pass cal_second@pass cal_second@stretch; do
    ln -sf ../fake "$out/bin/$name"
done
{
    printf 'setting\tlimit_s\t3\nmargin\tpass\t0.75\nmargin\tstretch\t0.9\n'
    for name in cal_first cal_second; do
        printf 'stage\t%s\t6\n' "$name"
        printf 'tier\t%s\tpass\t3\ttiming.pct_of_reference\t>=\t%%\tGo faster.\n' "$name"
        printf 'tier\t%s\tstretch\t1\ttiming.speedup_vs_baseline\t>=\tx\tGo even faster.\n' "$name"
        printf 'threshold\t%s\tpass\tdefault\t1\nthreshold\t%s\tstretch\tdefault\t1\n' "$name" "$name"
    done
} >"$cal/rubric.tsv"
cal_programs=(--program "cal_first=$out/bin/cal_first" --program "cal_first:pass=$out/bin/cal_first@pass"
              --program "cal_first:stretch=$out/bin/cal_first" --program "cal_second=$out/bin/cal_second"
              --program "cal_second:pass=$out/bin/cal_second@pass"
              --program "cal_second:stretch=$out/bin/cal_second@stretch")
build/grader/grade --calibrate --runs 2 --rubric "$cal/rubric.tsv" --seed 7 "${cal_programs[@]}" >"$cal/log" 2>&1
st=$?
th() { awk -F'\t' -v s="$1" -v t="$2" '$1 == "threshold" && $2 == s && $3 == t && $4 == "Test GPU 9000" { print $5 }' "$cal/rubric.tsv"; }
check "calibrate: each threshold is the margin times its own tier's reference kernel, for this GPU" \
    "$([ $st = 0 ] && [ "$(th cal_first pass)" = 6.75 ] && [ "$(th cal_first stretch)" = 2.7 ] &&
       [ "$(th cal_second pass)" = 8.25 ] && [ "$(th cal_second stretch)" = 4.95 ]; echo $?)" "$(cat "$cal/log")"
check "calibrate: warns where the tier before, or the previous stage's solution, would pass too" \
    "$(grep -qE '^  cal_second +pass .* cal_first stretch 10 WOULD PASS +cal_first 10 WOULD PASS' "$cal/log" &&
       grep -q '2 margin(s) under 5%' "$cal/log"; echo $?)" "$(cat "$cal/log")"
check "calibrate: prints each tier's margins: the reference clears it, the tier before and the previous stage miss it, the solution clears it" \
    "$(grep -E '^  cal_second +stretch +speedup_vs_baseline +5\.5  +4\.95 +11%  pass 4 \(24%\) +cal_first 3 \(65%\) +6 \(21%\)$' "$cal/log" >/dev/null &&
       grep -E '^  cal_first +pass +pct_of_reference +9  +6\.75 +33%  - +- +10 \(48%\)$' "$cal/log" >/dev/null; echo $?)" "$(cat "$cal/log")"
build/grader/grade --calibrate --runs 1 --rubric "$cal/rubric.tsv" --seed 7 "${cal_programs[@]}" >/dev/null 2>&1
check "calibrate: a second calibration replaces the rows, keeps the defaults" \
    "$([ "$(grep -c $'^threshold\tcal_first\tpass\tTest GPU 9000' "$cal/rubric.tsv")" = 1 ] &&
       [ "$(grep -c $'^threshold\tcal_first\tpass\tdefault' "$cal/rubric.tsv")" = 1 ] &&
       [ "$(grep -c '^# calibrated for Test GPU 9000' "$cal/rubric.tsv")" = 1 ]; echo $?)" "$(cat "$cal/rubric.tsv")"
# the previous stage measured on a field that only the next stage's tiers read
{
    printf 'setting\tlimit_s\t3\nmargin\tpass\t0.9\nmargin\tstretch\t0.9\n'
    printf 'stage\tcal_first\t6\n'
    printf 'tier\tcal_first\tstretch\t1\ttiming.speedup_vs_baseline\t>=\tx\tGo even faster.\n'
    printf 'threshold\tcal_first\tstretch\tdefault\t1\n'
    printf 'stage\tcal_second\t6\n'
    printf 'tier\tcal_second\tpass\t3\ttiming.pct_of_reference\t>=\t%%\tGo faster.\n'
    printf 'threshold\tcal_second\tpass\tdefault\t1\n'
} >"$cal/rubric-fields.tsv"
build/grader/grade --calibrate --runs 1 --rubric "$cal/rubric-fields.tsv" --seed 7 \
    --program "cal_first=$out/bin/cal_first" --program "cal_second=$out/bin/cal_second" >"$cal/log-fields" 2>&1
check "calibrate: without a reference kernel a tier falls back to the solution (*); the previous stage's margin on a field only the next stage's tiers read" \
    "$(grep -E '^  cal_second +pass +pct_of_reference +12\* +10\.8 +11%  cal_first stretch: not measured +cal_first 10 \(8%\) +12 \(11%\)$' "$cal/log-fields" >/dev/null; echo $?)" \
    "$(cat "$cal/log-fields")"
ln -sf ../fake "$out/bin/crash"
build/grader/grade --calibrate --runs 1 --rubric "$cal/rubric.tsv" \
    --program "cal_first=$out/bin/cal_first" --program "crash=$out/bin/crash" >"$cal/log2" 2>&1
check "calibrate: a solution that fails is reported, exit 1, its rows kept" \
    "$([ $? = 1 ] && grep -q 'crash (solution): FAILED: crashed' "$cal/log2" &&
       [ "$(th cal_second pass)" = 8.25 ] && [ "$(grep -c '^# calibrated for Test GPU 9000' "$cal/rubric.tsv")" = 1 ] &&
       [ "$(awk '/^# calibrated for/ { c = 1 } c && /^threshold.*Test GPU/ { n++ } END { print n }' "$cal/rubric.tsv")" = 4 ]
       echo $?)" "$(cat "$cal/log2" "$cal/rubric.tsv")"

# the default rows from the GPUs' rows (tools/default-thresholds.sh): the
# most lenient of each tier's, a later row of a GPU winning
{
    printf 'stage\ts1\t6\ntier\ts1\tpass\t3\ttiming.pct_of_reference\t>=\t%%\tGo.\n'
    printf 'tier\ts1\tfast\t1\ttiming.ms\t<=\tms\tGo.\ntier\ts1\tother\t1\ttiming.x\t>=\tx\tGo.\n'
    printf 'threshold\ts1\tpass\tdefault\t10\nthreshold\ts1\tfast\tdefault\t5\nthreshold\ts1\tother\tdefault\t7\n'
    printf 'threshold\ts1\tpass\tGPU A\t8\nthreshold\ts1\tfast\tGPU A\t3\n'
    printf 'threshold\ts1\tpass\tGPU B\t9.5\nthreshold\ts1\tfast\tGPU B\t4\nthreshold\ts1\tpass\tGPU A\t11\n'
} >"$cal/defaults.tsv"
tools/default-thresholds.sh "$cal/defaults.tsv" >"$cal/defaults.log" 2>&1
dth() { awk -F'\t' -v t="$1" '$1 == "threshold" && $3 == t && $4 == "default" { print $5 }' "$cal/defaults.tsv"; }
check "default-thresholds: each default is the most lenient GPU row (lowest for >=, highest for <=); a tier without GPU rows keeps its own" \
    "$([ "$(dth pass)" = 9.5 ] && [ "$(dth fast)" = 4 ] && [ "$(dth other)" = 7 ] &&
       [ "$(grep -c . "$cal/defaults.tsv")" = 12 ] && grep -q 'pass: default 10 -> 9.5' "$cal/defaults.log"; echo $?)" \
    "$(cat "$cal/defaults.log" "$cal/defaults.tsv")"
