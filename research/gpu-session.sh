#!/usr/bin/env bash
# research/gpu-session.sh OUTDIR [PHASE...]: what the lab needs a GPU for, in one
# command, with every log under OUTDIR (for a session with a GPU for a short
# time: run it once, read the logs after). The phases, in this order:
#
#   build    the machine (nvidia-smi, kernel, nvcc), make all and the tests'
#            programs; whether runs can be confined (confine --probe), the
#            GPU driver's files (cuda-probe --files) and whether the GPU
#            works inside (cuda-probe, confined with those files)
#   suite    tests/gpu-suite.sh (solutions pass, skeletons fail cleanly, the
#            wrong kernels are caught), the confinement's attacks
#            (tests/confine/run.sh) and the judge's own tests
#   grader   tests/grader/gpu-fixtures.sh: solutions, skeletons, fault
#            kernels and attacks graded, by the judge too, a missed tier's
#            second run, a kept baseline, each tier's reference kernel
#            earning its tier and no higher, and SANITIZE=1 (FIXTURES: only
#            those sections, e.g. FIXTURES="references again")
#   grades   the solutions graded RUNS times (default 3) in each of
#            GRADE_KINDS (default "events judge"; also judge-raw: the judge
#            with LAB_JUDGE_WRITEBACK=0; judge-rse: with LAB_JUDGE_RSE=JUDGE_RSE,
#            default 0.004; timing.cu), alternating, each judge
#            compared with the events (research/compare-grades.sh: ratios and
#            spreads per tier)
#   trace    the judge's clock beside event times (LAB_JUDGE_TRACE=1) for
#            the short calls (04, 05, 07), at the default timing size with
#            the rubric's arguments (as a grade runs them; and where each
#            sample's wall time goes) and at a larger one, the drivers' own
#            tables, and 06 with the rubric's arguments; and the paths a
#            judge's clock can take around a call in a second process
#            (research/diagnose/ipc-sync.cu)
#   diagnose research/diagnose/cuda-in-confine.sh: which layer of the
#            confinement refuses what the GPU driver needs
#   calibrate make calibrate: this GPU's thresholds, each tier's from its
#            reference kernel (stages.tsv), written into
#            grader/rubric.tsv (copied to OUTDIR), with every tier's margins
#            (the log line counts those under 5%)
#   flagrate research/flag-rate.sh: honest kernels graded by the judge until
#            FLAG_GRADES (default 200) stage grades, into OUTDIR/flag-rate
#            (run the phase again with the same OUTDIR to go on): how many
#            were flagged on their first run, how many twice
#   class    make class of STUDENTS (default 8) copies of the solutions, a
#            skeleton, two attackers, an out-of-bounds kernel, a kernel that
#            never ends and host code that crashes on this
#            machine's GPUs, confined: students per minute per GPU (the
#            class's own progress lines and its last line, "graded N
#            students in T s on G GPUs: R students a minute on each GPU",
#            in class.log), whether the
#            submissions and the class folder stayed the grader's
#   warptile research/experiments/warptile.cu: the bonus stage's solution
#            checked and timed against cuBLAS at BK 8 and 16 (WARPTILE_SHAPES)
#   transpose research/experiments/transpose_order.cu: stage 05's kernel with
#            BLOCK_ROWS 4, 2, 1, in the grid's order and diagonally, and with
#            a 64 x 64 tile, against memcpy
#   sweep    make sweep SOLUTION=1 of SWEEP_STAGES (default "05 08")
#   profile  tests/profile/gpu-check.sh (needs ncu)
#   bench    make bench (records in results/, copied to OUTDIR/results)
#   ladder   research/reduction-ladder.sh: the textbook reduction kernels,
#            one a rung, timed by the harness (OUTDIR/ladder)
#   counters research/profile-records.sh: the baselines' sectors per
#            request (ncu) and racecheck's hazards without stage 03's
#            second barrier (OUTDIR/counters)
#   explain  research/explain-vs-ncu.sh: make explain's counts (the CPU
#            emulation) beside Nsight Compute's for the same launch
#            (OUTDIR/explain.tsv; needs ncu)
#   ab       research/ab-grades.sh: the solutions of AB_STAGES (default:
#            every stage) graded from each of AB_COMMITS (default "HEAD~1
#            HEAD") in turn, RUNS times each, each against the first
#            (OUTDIR/ab/ab.log): what a change of the timing core moved
#   phases   research/judge-phases.sh: where a judged grade of the solutions
#            spends its time, stage by stage and phase by phase, from each
#            of PHASE_COMMITS (default "HEAD~1 HEAD") RUNS times each
#            (OUTDIR/phases/phases.txt)
#
# No PHASE: build suite grader grades trace profile bench. Each phase has a
# time limit (PHASE_LIMIT seconds, default 480). OUTDIR/session.log has one
# line per step and the result of each; OUTDIR.tar.gz, at the end, all of
# OUTDIR. Exit status: 0 when every test phase that ran passed, else 1.
set -u
out=${1:-}
[ -n "$out" ] || { echo "usage: research/gpu-session.sh OUTDIR [build suite grader grades trace warptile transpose diagnose calibrate flagrate class sweep profile bench ladder counters explain ab phases]" >&2; exit 2; }
shift
phases=${*:-build suite grader grades trace profile bench}
cd "$(dirname "$0")/.." || exit 2
. tools/stages.sh
mkdir -p "$out" || exit 2
out=$(cd "$out" && pwd)
runs=${RUNS:-3}
limit=${PHASE_LIMIT:-480}
status=0
log() { printf '%s %s\n' "$(date -u +%H:%M:%S)" "$*" | tee -a "$out/session.log"; }
# tests NAME COMMAND...: a test script, its log, its last line and its FAILs
tests() {
    local name=$1 st
    shift
    timeout "$limit" "$@" >"$out/$name.log" 2>&1
    st=$?
    log "$name: $(tail -n 1 "$out/$name.log") (exit $st)"
    grep -A 12 '^FAIL' "$out/$name.log" | head -n 80 >>"$out/session.log"
    [ $st = 0 ] || status=1
}

build() {
    { nvidia-smi -L; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv
      uname -a; nvcc --version | tail -n 1; id -un; } >"$out/machine.txt" 2>&1
    log "$(head -n 1 "$out/machine.txt"); $(sed -n 3p "$out/machine.txt")"
    local start=$SECONDS
    make -j"$(nproc)" all emu-all build/confine/confine build/confine/cuda-probe build/grader/grade \
        build/tests/unit $(ls tests/fixtures/*.cu | sed 's|^tests/fixtures/\(.*\)\.cu$|build/fixtures/\1|') \
        >"$out/build.log" 2>&1 || { log "make all FAILED (build.log)"; status=1; }
    log "built in $((SECONDS - start)) s: $(tail -n 1 "$out/build.log")"
    build/confine/confine --probe >"$out/confine.txt" 2>&1
    log "$(cat "$out/confine.txt")"
    # the driver's files, as the grader lists them, then the probe confined as a runner is
    build/confine/cuda-probe --files >"$out/driver-files.txt" 2>&1
    log "the GPU driver's files: $(tr '\n' ' ' <"$out/driver-files.txt" | cut -c 1-600)"
    build/confine/confine --read-list "$out/driver-files.txt" -- build/confine/cuda-probe >"$out/cuda-probe.txt" 2>&1
    log "cuda-probe, confined: exit $? $(tr '\n' ' ' <"$out/cuda-probe.txt" | cut -c 1-300)"
}

grades() {
    local kind r dir start
    # alternating, so that a drift of the machine falls on both
    for ((r = 1; r <= runs; r++)); do
        for kind in ${GRADE_KINDS:-events judge}; do
            dir=$out/grades/$kind-$r
            mkdir -p "$dir"
            start=$SECONDS
            # the build first, as make grade's (the grader runs no make)
            tools/grade-build.sh --src solutions $([ $kind != events ] && echo --judge) >"$dir/build.log" 2>&1
            LAB_JUDGE_RSE=$([ $kind = judge-rse ] && echo "${JUDGE_RSE:-0.004}") \
            LAB_JUDGE_WRITEBACK=$([ $kind = judge-raw ] && echo 0 || echo 1) \
                timeout "$limit" build/grader/grade --src solutions $([ $kind != events ] && echo --judge) \
                --out "$dir" >"$dir/grade.log" 2>&1
            log "$kind run $r: exit $? $(grep -E '^total' "$dir/grade.log" | tr -s ' ') ($((SECONDS - start)) s)"
        done
    done
    for kind in ${GRADE_KINDS:-events judge}; do
        [ "$kind" = events ] && continue
        research/compare-grades.sh "$out"/grades/events-* -- "$out"/grades/"$kind"-* >"$out/$kind-vs-events.md" 2>&1
        { echo "$kind vs events:"; cat "$out/$kind-vs-events.md"; } >>"$out/session.log"
    done
}

for phase in $phases; do
    log "== $phase"
    case $phase in
        build) build ;;
        suite)
            tests gpu-suite tests/gpu-suite.sh
            tests confine tests/confine/run.sh
            tests judge tests/judge/run.sh ;;
        grader) # shellcheck disable=SC2086  # FIXTURES: zero or more section names
            tests grader-gpu tests/grader/gpu-fixtures.sh ${FIXTURES:-} ;;
        grades) grades ;;
        trace)
            # at the default timing size as a grade runs it (the rubric's
            # arguments: where a judged stage's time goes), and at a larger
            # one (16384x16384, 2^28 floats: calls 4 times longer, the round
            # trip's bias 4 times smaller in a ratio)
            args=$(awk -F'\t' '$1 == "setting" && $2 == "args" { print $3 }' grader/rubric.tsv)
            for s in $(stages_of transpose) $(stages_of reduce); do
                family=$(stage_family "$s")
                big=16384
                [ "$family" = reduce ] && big=268435456
                for size in "$args" "--n $big"; do
                    echo "== $s $size"
                    # shellcheck disable=SC2086  # size: words
                    LAB_JUDGE_TRACE=1 timeout 120 "build/$s/solution-judge" $size 2>&1
                    timeout 120 "build/$s/solution" $size 2>&1
                done
            done >"$out/trace.log" 2>&1
            # a matrix product, at the default size only, as a grade runs it
            s6=$(stage_numbered 06)
            { echo "== $s6 (default size, $args)"
              # shellcheck disable=SC2086  # args: the rubric's words
              LAB_JUDGE_TRACE=1 timeout 120 "build/$s6/solution-judge" $args 2>&1; } >>"$out/trace.log" 2>&1
            # the paths of a clock around a call in a second process
            { echo "== ipc-sync"
              nvcc -O2 -o build/ipc-sync research/diagnose/ipc-sync.cu &&
                  timeout 120 build/ipc-sync 536870912 2147483648; } >>"$out/trace.log" 2>&1
            log "trace: $(grep -c 'judge trace' "$out/trace.log") lines (trace.log)" ;;
        warptile)
            # WARPTILE_SHAPES: the shapes, separated by ";" (-D options each)
            IFS=';' read -r -a shapes <<<"${WARPTILE_SHAPES:-;-DBK=16}"
            for shape in "${shapes[@]}"; do
                echo "== warptile $shape"
                # shellcheck disable=SC2086  # shape is zero or more options
                nvcc -O3 -std=c++17 -arch=native -Icommon $shape -o build/warptile research/experiments/warptile.cu \
                    -lcublas && timeout 120 build/warptile
            done >"$out/warptile.log" 2>&1
            log "warptile: $(grep -c 'of cuBLAS' "$out/warptile.log") shapes timed; $(grep -o '[0-9.]*% of cuBLAS' "$out/warptile.log" | tr '\n' ' ')" ;;
        diagnose)
            timeout "$limit" research/diagnose/cuda-in-confine.sh >"$out/diagnose.log" 2>&1
            log "diagnose: $(grep -c '^the GPU works' "$out/diagnose.log") of the runs worked (diagnose.log)" ;;
        calibrate)
            timeout "$limit" make --no-print-directory calibrate >"$out/calibrate.log" 2>&1
            log "make calibrate: exit $? ($(grep -cE '[0-9]%\)?!|WOULD PASS|FAILS IT' "$out/calibrate.log") tiers with a margin under 5%; calibrate.log)"
            cp grader/rubric.tsv "$out/rubric.tsv" ;;
        flagrate)
            research/flag-rate.sh --grades "${FLAG_GRADES:-200}" --minutes $((limit / 60)) "$out/flag-rate" \
                >"$out/flagrate.log" 2>&1
            log "flag rate: $(grep -m 1 'stage grades' "$out/flagrate.log") (flagrate.log)" ;;
        class)
            # STUDENTS copies of the solutions, then a skeleton, four attackers
            # (tests/grader/attacks: class_escape reaches for the class
            # folder and other students, forged_record forges its record)
            # and a kernel that writes out of bounds, all in 03 but the
            # solutions; the class folder outside OUTDIR (it holds a copy
            # of the lab per student), its logs copied in
            subs=$out/class-submissions class=${TMPDIR:-/tmp}/lab-class.$$
            rm -rf "$subs" "$class"
            for ((k = 1; k <= ${STUDENTS:-8}; k++)); do
                for d in solutions/*/; do
                    mkdir -p "$subs/student$k/$(basename "$d")"
                    cp "$d/kernel.cu" "$subs/student$k/$(basename "$d")/"
                done
            done
            s3=$(stage_numbered 03)
            mkdir -p "$subs/skeleton/$s3" "$subs/mallory/$s3" "$subs/eve/$s3" "$subs/oob/$s3"
            cp "exercises/$s3/kernel.cu" "$subs/skeleton/$s3/"
            cp tests/grader/attacks/class_escape/kernel.cu "$subs/mallory/$s3/"
            cp tests/grader/attacks/forged_record/kernel.cu "$subs/eve/$s3/"
            cp tests/grader/kernels/out_of_bounds/kernel.cu "$subs/oob/$s3/"
            # a kernel that never ends, and host code that crashes
            mkdir -p "$subs/hang/$s3" "$subs/crash/$s3"
            printf '%s\n' '#include "matmul.h"' \
                '__global__ void spin(volatile float *C) { while (C[0] == C[0] || C[0] != C[0]) { } }' \
                'void matmul(const float *A, const float *B, float *C, int n) { spin<<<1, 1>>>(C); }' \
                >"$subs/hang/$s3/kernel.cu"
            printf '%s\n' '#include "matmul.h"' \
                'void matmul(const float *A, const float *B, float *C, int n) { *(volatile int *)0 = n; }' \
                >"$subs/crash/$s3/kernel.cu"
            # ivan compiles student1's collected kernel.cu into his own, ines
            # .incbins it and prints it: the wall must leave them 0, and
            # nothing of it in their logs
            mkdir -p "$subs/ivan/$s3" "$subs/ines/$s3"
            printf '#include "../../../../students/student1/kernels/%s/kernel.cu"\n' "$s3" >"$subs/ivan/$s3/kernel.cu"
            printf '#include <stdio.h>\n#include "matmul.h"\n__asm__(".section .rodata\\n.globl stolen\\nstolen:\\n.incbin \\"%s\\"\\n.byte 0\\n.previous");\nextern const char stolen[];\nvoid matmul(const float *A, const float *B, float *C, int n) { puts(stolen); }\n' \
                "$class/students/student1/kernels/$s3/kernel.cu" >"$subs/ines/$s3/kernel.cu"
            before=$(cd "$subs" && find . -type f -exec sha256sum {} + | sort | sha256sum)
            start=$SECONDS
            timeout "$limit" make --no-print-directory class SUBMISSIONS="$subs" OUT="$class" >"$out/class.log" 2>&1
            st=$?
            took=$((SECONDS - start))
            gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
            n=$(($(grep -c . "$class/gradebook.csv" 2>/dev/null || echo 1) - 1))
            log "make class of $n students ($((n - 8)) full solutions) on $gpus GPU(s): exit $st in $took s," \
                "$(awk -v n="$n" -v t="$took" -v g="$gpus" 'BEGIN { if (t > 0 && g > 0) printf "%.2f", n * 60 / t / g }') students per minute per GPU"
            # the full-solution students' own times, from the class's progress
            # lines (there even when the phase's limit stopped the class)
            log "the class's own rate: $(grep '^graded [0-9]* students* in ' "$out/class.log" || echo none)"
            log "full-solution students graded: $(sed -n 's/^\[[0-9]*\/[0-9]*\] student[0-9]*: graded, .*(\([0-9]*\) s)\(; .*\)\{0,1\}$/\1/p' \
                "$out/class.log" | sort -n | awk '{ t[NR] = $1 } END { if (NR == 0) { print "none"; exit }
                    m = t[int((NR + 1) / 2)]; printf "%d, %d to %d s each (median %d s): %.2f students per minute per GPU",
                    NR, t[1], t[NR], m, 60 / m }')"
            marker=$(grep -m 1 '__global__' "solutions/$s3/kernel.cu")
            log "ivan (includes student1's kernel.cu): $(grep '^ivan,' "$class/gradebook.csv" | cut -d, -f1-7);" \
                "ines (.incbins it): $(grep '^ines,' "$class/gradebook.csv" | cut -d, -f1-7);" \
                "student1's source in their reports: $(cat "$class"/students/i*/grade.* 2>/dev/null | grep -cF -- "$marker")"
            log "submissions unchanged: $([ "$before" = "$(cd "$subs" && find . -type f -exec sha256sum {} + | sort | sha256sum)" ] && echo yes || echo NO);" \
                "planted file: $([ -e "$class/planted-by-a-student" ] && echo FOUND || echo none)"
            mkdir -p "$out/class"
            cp "$class/gradebook.csv" "$class/class.conf" "$out/class/" 2>/dev/null
            for d in "$class"/students/*/; do
                [ -f "$d/grade.log" ] && cp "$d/grade.log" "$out/class/$(basename "$d").log"
            done
            ls -la "$class" >"$out/class/folder.txt" 2>&1
            cat "$class/gradebook.csv" >>"$out/session.log" 2>/dev/null
            rm -rf "$class" ;;
        transpose)
            { nvcc -O3 -std=c++17 -arch=native -o build/transpose-order research/experiments/transpose_order.cu &&
                  timeout 300 build/transpose-order; } >"$out/transpose.log" 2>&1
            log "transpose: $(grep -o '[0-9.]*% of memcpy' "$out/transpose.log" | tr '\n' ' ')" ;;
        sweep)
            for s in ${SWEEP_STAGES:-05 08}; do
                echo "== make sweep EX=$s SOLUTION=1"
                timeout "$limit" make --no-print-directory sweep EX="$s" SOLUTION=1
            done >"$out/sweep.log" 2>&1
            log "sweep: $(grep -c '^==' "$out/sweep.log") stages (sweep.log)" ;;
        profile) tests profile tests/profile/gpu-check.sh ;;
        bench)
            timeout "$limit" make bench >"$out/bench.log" 2>&1
            log "make bench: exit $?"
            cp -r results "$out/results" 2>/dev/null ;;
        ladder | counters)
            script=research/reduction-ladder.sh
            [ $phase = counters ] && script=research/profile-records.sh
            timeout "$limit" "$script" "$out/$phase" >"$out/$phase.log" 2>&1
            st=$?
            log "$script: exit $st: $(tail -n 1 "$out/$phase.log")"
            [ $st = 0 ] || status=1 ;;
        explain)
            timeout "$limit" research/explain-vs-ncu.sh "$out/explain.tsv" >"$out/explain.log" 2>&1
            st=$?
            log "research/explain-vs-ncu.sh: exit $st (explain.tsv)"
            [ $st = 0 ] || status=1 ;;
        ab)
            # shellcheck disable=SC2086  # commits and stages: words
            RUNS=$runs timeout "$limit" research/ab-grades.sh "$out/ab" ${AB_COMMITS:-HEAD~1 HEAD} -- ${AB_STAGES:-} \
                >"$out/ab.out" 2>&1
            st=$?
            log "research/ab-grades.sh: exit $st (ab/ab.log)"
            [ -f "$out/ab/ab.log" ] && grep -A12 ' vs ' "$out/ab/ab.log" >>"$out/session.log"
            [ $st = 0 ] || status=1 ;;
        phases)
            # shellcheck disable=SC2086  # commits: words
            RUNS=$runs timeout "$limit" research/judge-phases.sh "$out/phases" ${PHASE_COMMITS:-HEAD~1 HEAD} \
                >"$out/phases.out" 2>&1
            st=$?
            log "research/judge-phases.sh: exit $st (phases/phases.txt)"
            [ -f "$out/phases/phases.txt" ] && cat "$out/phases/phases.txt" >>"$out/session.log"
            [ $st = 0 ] || status=1 ;;
        *) log "unknown phase '$phase' (build suite grader grades trace warptile transpose diagnose calibrate flagrate class sweep profile bench ladder counters explain ab phases)"; status=2 ;;
    esac
done
log "done (exit $status)"
# every log in one archive beside OUTDIR, to carry away
tar czf "$out.tar.gz" -C "$out" . 2>/dev/null && log "all of it: $out.tar.gz"
exit $status
