# tests/class/pipeline.sh: builds beside the grades, and the progress
# line's rate. Sourced by tests/class/run.sh after its class built first
# (its variables: cls, fake, subs, sub2, tmp, class_stages, o8, log8, args8;
# its helpers: check, skip, built_while_grading), whose counts it adds to.
#
# With CLASS_GRADE_CPUS=1 on a machine of 2 CPUs or more, the builders run
# while the (stand-in) GPU grades: on CPUs the grade does not run on, never
# more than CLASS_AHEAD students ahead of it, and make grade gets the same
# arguments and gives the same gradebook as the class built first. Each
# graded student's line and the class's last line say how many students a
# minute each GPU graded, by the class's clock.
echo "== make class: builds beside the grades, and the rate"

# the CPUs of a list as /proc writes it ("0-2,5"), one a line
cpu_ids() { tr ',' '\n' <<<"$1" | awk -F- 'NF { for (c = $1; c <= (NF > 1 ? $2 : $1); c++) print c }'; }

# "graded N students in T s on G GPU(s): R students a minute on each GPU":
# R is N a minute over T, on each of G GPUs (within the rounding of R and T)
rate_agrees() {
    sed -n 's/^graded \([0-9]*\) students\{0,1\} in \([0-9.]*\) s on \([0-9]*\) GPUs\{0,1\}: \([0-9.]*\) students a minute on each GPU$/\1 \2 \3 \4/p' <<<"$1" |
        awk -v n="$2" -v g="$3" '{ seen = 1; want = $1 * 60 / $2 / $3
            err = $4 - want; err = err < 0 ? -err : err
            least = $2 > 0.1 ? $2 - 0.05 : 0.05 # the shortest time T, rounded, stands for
            bad = $1 != n || $3 != g || err > 0.051 + want * 0.051 / least }
            END { exit !seen || bad }'
}

if [ "$(nproc)" -lt 2 ]; then
    skip "builds beside the grades: needs 2 CPUs, this machine has $(nproc)"
else
    opipe=$tmp/out-pipe lpipe=$tmp/fake-pipe.log bpipe=$tmp/build-pipe.log apipe=$tmp/args-pipe.log
    out=$(GPUS=0 CLASS_GRADE_CPUS=1 CLASS_AHEAD=1 CLASS_MAKE=$fake FAKE_GRADE_LOG=$lpipe FAKE_BUILD_LOG=$bpipe \
        FAKE_GRADE_ARGS=$apipe FAKE_GRADE_SLEEP=2 FAKE_BUILD_SLEEP=0.1 \
        "$cls" --submissions "$subs" --out "$opipe" --stages "$class_stages" --seed "$(sed -n 's/^seed=//p' "$o8/class.conf")" \
        2>&1); st=$?
    check "pipelined: builds beside the grades, each student built once and graded PREBUILT=1; the same gradebook" \
        "$([ $st = 0 ] && grep -q '^builds beside the grades: 1 builder on CPUs ' <<<"$out" &&
           [ "$(grep -c ' built-ahead$' "$lpipe")" = "$(wc -l <"$lpipe")" ] &&
           [ "$(grep -c ' prebuilt=1' "$lpipe")" = "$(wc -l <"$lpipe")" ] &&
           [ "$(awk '$2 == "build" { print $1 }' "$bpipe" | sort | uniq -d)" = "" ] &&
           [ "$(tail -n +2 "$opipe/gradebook.csv" | cut -d, -f1-6)" = "$(tail -n +2 "$o8/gradebook.csv" | cut -d, -f1-6)" ]; ok)" \
        "exit $st; $out; $(cat "$lpipe" "$bpipe")"
    # make grade's arguments: the same as built first (BASELINES names the worker's pid)
    check "pipelined: every make grade gets the arguments it gets when every student is built first" \
        "$(diff <(grep -v '^BASELINES=' "$args8") <(grep -v '^BASELINES=' "$apipe")  >/dev/null; ok)" \
        "$(diff <(grep -v '^BASELINES=' "$args8") <(grep -v '^BASELINES=' "$apipe"))"
    overlap=$(built_while_grading "$bpipe")
    check "pipelined: a student is built while the GPU grades another" "$([ -n "$overlap" ]; ok)" "$(cat "$bpipe")"
    build_cpus=$(awk '$2 == "build" { print $5 }' "$bpipe" | sort -u)
    grade_cpus=$(awk '$2 == "grade" { print $5 }' "$bpipe" | sort -u)
    shared=$(comm -12 <(for l in $build_cpus; do cpu_ids "$l"; done | sort -u) \
        <(for l in $grade_cpus; do cpu_ids "$l"; done | sort -u))
    check "pipelined: no build runs on a CPU the grade runs on (builds on $(echo $build_cpus), the grade on $(echo $grade_cpus))" \
        "$([ -n "$build_cpus" ] && [ "$(wc -w <<<"$grade_cpus")" = 1 ] && [ "$(cpu_ids "$grade_cpus" | wc -l)" = 1 ] &&
           [ -z "$shared" ]; ok)" "shared: $shared; $(cat "$bpipe")"
    # at each build's start: students whose build began, less those whose
    # grade began, at most CLASS_AHEAD (1)
    past=$(sort -k3,3n "$bpipe" | awk '$2 == "build" { b++; if (b - g > 1) { print $1 " built with " b - g - 1 " others waiting" } }
        $2 == "grade" { g++ }')
    check "pipelined: the builders stay at most CLASS_AHEAD=1 student ahead of the GPU" \
        "$([ -z "$past" ] && [ "$(grep -c ' build ' "$bpipe")" -gt 1 ]; ok)" "$past; $(sort -k3,3n "$bpipe")"
    graded=$(grep -c ',graded,' "$opipe/gradebook.csv")
    lines=$(grep -c '^\[[0-9]*/[0-9]*\] [^:]*: graded, .*([0-9]* s); [0-9.]* students a minute on each GPU$' <<<"$out")
    check "the rate: each graded student's line and the class's last line, N a minute over the class's clock" \
        "$([ "$lines" = "$graded" ] && rate_agrees "$out" "$graded" 1; ok)" "$graded graded; $out"
    out=$(CLASS_AHEAD=0 CLASS_GRADE_CPUS=1 CLASS_MAKE=$fake "$cls" --submissions "$sub2" --out "$tmp/out-pipe-bad" \
        --stages "$class_stages" 2>&1; echo "exit $?"
        CLASS_GRADE_CPUS=x CLASS_MAKE=$fake "$cls" --submissions "$sub2" --out "$tmp/out-pipe-bad" --stages "$class_stages" 2>&1)
    check "CLASS_AHEAD=0 and CLASS_GRADE_CPUS=x: refused (exit 1), saying what they take, before anyone is graded" \
        "$(grep -q "CLASS_AHEAD is 1 or more, not '0'" <<<"$out" && grep -q '^exit 1$' <<<"$out" &&
           grep -q "CLASS_GRADE_CPUS is a number, not 'x'" <<<"$out" && [ ! -e "$tmp/out-pipe-bad/gradebook.csv" ]; ok)" "$out"
fi
# two GPUs: the rate is each GPU's
orate=$tmp/out-pipe-rate
out=$(GPUS="0 1" CLASS_MAKE=$fake FAKE_GRADE_SLEEP=0.5 "$cls" --submissions "$subs" --out "$orate" --stages "$class_stages" 2>&1)
check "the rate on two GPUs: the class's students a minute, halved" \
    "$(rate_agrees "$out" "$(grep -c ',graded,' "$orate/gradebook.csv")" 2; ok)" "$out"
