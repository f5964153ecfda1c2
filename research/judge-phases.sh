#!/usr/bin/env bash
# research/judge-phases.sh OUTDIR [COMMIT...]: where a judged grade's time
# goes. The solutions of every stage graded as make grade grades them
# (tools/grade-build.sh --src solutions --judge, then build/grader/grade
# --src solutions --judge --out DIR) with LAB_JUDGE_TRACE=1, from each
# COMMIT's tree in turn (default HEAD; git worktrees under OUTDIR/trees, as
# research/ab-grades.sh makes them), RUNS times each (default 2),
# alternating; then, for each grade, a table of each stage's phases in ms
# (OUTDIR/<commit>-<run>.txt, all of them in OUTDIR/phases.txt):
#
#   total     the stage's seconds as the grader counts them
#   to-main   the process's start to main (exec, the CUDA libraries loaded)
#   ctx       main to a context and a cuBLAS handle (the runners spawned)
#   checks    the checks at every size (through the runner)
#   setup     the timing's input sets made
#   you-warm  the student's warm-up; you  its batches; last  the last timed
#             call's check
#   stop      the student's runner stopped; settle  the canaries' reference
#             and the write-back measured with no process of the student's
#   base-warm, base  the baselines' warm-ups and batches (cuBLAS, the naive
#             kernels, copy, memcpy), summed
#   exit      "done" to the judge's exit handlers' end (the echo runner
#             stopped); teardown  from there to the grader's count (the
#             contexts let go of, the pipes closed)
#   of which: hello  waits for the runners' start-ups (their HELLO), ipc
#             buffers mapped and unmapped in the servers, inputs  the
#             batches' L2 flush (and fresh inputs, where on the clock), waits  for runners to stop
#
# With the judge's worker (judge/worker.cu; LAB_JUDGE_WORKER=0 for a judge
# a stage) a stage's marks count from its request: to-main is empty, ctx
# is its own set-up, and exit and teardown are about 0 after the first.
# Commits older than the phase marks (common/phases.c) give total, hello,
# ipc and inputs only. A stage the grader ran twice ("once more") shows its
# second run's marks against both runs' seconds. Needs a GPU and the lab's
# history. Exit status: 0, 1 when a grade failed, 2 usage, 3 no GPU.
set -u
usage() { echo "usage: research/judge-phases.sh OUTDIR [COMMIT...]" >&2; exit 2; }
[ $# -ge 1 ] || usage
cd "$(dirname "$0")/.." || exit 2
lab=$(pwd)
out=$1
shift
commits=()
for c in "${@:-HEAD}"; do
    commits+=("$(git rev-parse --short "$c^{commit}")") || usage
done
mkdir -p "$out/trees" || exit 2
out=$(cd "$out" && pwd)
runs=${RUNS:-2}
status=0
log() { printf '%s %s\n' "$(date -u +%H:%M:%S)" "$*" | tee -a "$out/phases.log"; }

# One grade.json's stages: their seconds and the trace lines of their
# output's tail, as "stage<TAB>seconds<TAB>line" a line (tools/json.sh
# flat: the lab's JSON reader, a newline in a string written \n).
trace_lines() {
    "$lab/tools/json.sh" flat "$1" | awk -F'\t' '
        $1 ~ /(^|\.)stage$/ { s = $2 }
        $1 ~ /(^|\.)seconds$/ { t = $2 }
        $1 ~ /(^|\.)output_tail$/ {
            n = split($2, line, /\\n/)
            printf "%s\t%s\t%s\n", s, t, "judge phase: 0 ms start"
            for (i = 1; i <= n; i++)
                if (line[i] ~ /^(judge phase|judge trace):/)
                    printf "%s\t%s\t%s\n", s, t, line[i]
        }'
}

# The table of one grade from trace_lines' output.
phase_table() {
    awk -F'\t' '
        function add(stage, col, ms) { v[stage, col] += ms }
        function close_segment(stage, upto,   ms, col) {
            if (what == "") return
            ms = upto - at
            if (what == "start") col = "to-main"
            else if (what == "main") col = "ctx"
            else if (what ~ /^check / && what !~ /last timed call/) col = "checks"
            else if (what == "checks passed") col = "setup"
            else if (what ~ /last timed call/) col = "last"
            else if (what ~ /^stopping/) col = "stop"
            else if (what ~ /runner stopped$/) col = "settle"
            else if (what == "done") col = "exit"
            else if (what ~ /^timing .* your kernel, first call/) col = "you"
            else if (what ~ /^timing .* your kernel$/) col = "you-warm"
            else if (what ~ /^timing .*, first call/) col = "base"
            else if (what ~ /^timing /) col = "base-warm"
            else col = "other"
            add(stage, col, ms)
        }
        {
            stage = $1
            if (!(stage in seen)) { seen[stage] = 1; order[++n] = stage; what = ""; total[stage] = $2 * 1000 }
            line = $3
            if (line ~ /^judge phase: /) {
                sub(/^judge phase: /, "", line)
                ms = line; sub(/ ms .*/, "", ms)
                label = line; sub(/^[^ ]* ms /, "", label)
                close_segment(stage, ms + 0)
                what = label; at = ms + 0; last[stage] = at
            } else if (line ~ /runner start-ups/) {
                x = line; sub(/.*; waited /, "", x); add(stage, "hello", x + 0)
                y = line; sub(/.* for [0-9]* runner start-ups, /, "", y); add(stage, "ipc", y + 0)
                z = line; sub(/.* buffers, /, "", z); add(stage, "ipc", z + 0)
                if (line ~ /runners to stop/) { w = line; sub(/.* unmapping [0-9]*, /, "", w); add(stage, "waits", w + 0) }
            } else if (line ~ /wall ms a sample/) {
                f = line; sub(/.*its (fresh inputs and flush|flush, and fresh inputs on the clock,) /, "", f)
                add(stage, "inputs", (f + 0) * batches[stage, label_of(line)])
            } else if (line ~ /batches of [0-9]* calls/) {
                k = label_of(line); c = line; sub(/^judge trace: [^:]*: /, "", c); batches[stage, k] = c + 0
            }
        }
        function label_of(l,   s) { s = l; sub(/^judge trace: /, "", s); sub(/: .*/, "", s); return s }
        END {
            ncol = split("to-main ctx checks setup you-warm you last stop settle base-warm base exit teardown hello ipc inputs waits", cols, " ")
            printf "%-22s %7s", "stage", "total"
            for (i = 1; i <= ncol; i++) printf " %9s", cols[i]
            printf "\n"
            for (j = 1; j <= n; j++) {
                s = order[j]
                if (last[s] > 0) v[s, "teardown"] = total[s] - last[s]
                printf "%-22s %7.0f", s, total[s]
                for (i = 1; i <= ncol; i++) {
                    x = v[s, cols[i]]; sum[cols[i]] += x
                    if (x == "" || x == 0) printf " %9s", "-"; else printf " %9.0f", x
                }
                grand += total[s]
                printf "\n"
            }
            printf "%-22s %7.0f", "all stages", grand
            for (i = 1; i <= ncol; i++) printf " %9.0f", sum[cols[i]]
            printf "\n"
        }'
}

if [ "${JUDGE_PHASES_TABLE:-}" ]; then
    # the table of a grade already made: JUDGE_PHASES_TABLE=DIR/grade.json
    trace_lines "$JUDGE_PHASES_TABLE" | phase_table
    exit
fi
nvidia-smi -L >/dev/null 2>&1 || { echo "judge-phases: no GPU here (nvidia-smi -L fails)" >&2; exit 3; }
for c in "${commits[@]}"; do
    tree=$out/trees/$c
    [ -d "$tree" ] || git worktree add -q --detach "$tree" "$c" || { log "$c: no such commit here"; exit 2; }
    # shellcheck disable=SC2046  # the grade rule's prerequisites, one word each
    (cd "$tree" && make -s -j"$(nproc)" $(sed -n 's/^grade: //p' Makefile) >"$out/build-$c.log" 2>&1) ||
        { log "$c: the grader did not build ($out/build-$c.log)"; exit 1; }
    log "$c built ($(git log -1 --format='%h %s' "$c" | cut -c1-80))"
done
for ((r = 1; r <= runs; r++)); do
    for c in "${commits[@]}"; do
        dir=$out/grades/$c-$r
        mkdir -p "$dir"
        started=$(date +%s.%N)
        (cd "$out/trees/$c" &&
            tools/grade-build.sh --src solutions --judge >"$dir/build.log" 2>&1 &&
            LAB_JUDGE_TRACE=1 timeout 900 build/grader/grade --src solutions --judge --out "$dir" >"$dir/grade.log" 2>&1)
        rc=$?
        took=$(echo "$(date +%s.%N) - $started" | bc)
        if [ $rc -ne 0 ] || [ ! -f "$dir/grade.json" ]; then
            log "$c run $r: the grade failed (status $rc; $dir/grade.log)"
            status=1
            continue
        fi
        { echo "== $c run $r: $(grep -m1 -o '[0-9]*/[0-9]* *(+[0-9]*)' "$dir/grade.log" || tail -n1 "$dir/grade.log"), build and grade ${took%.*} s"
          trace_lines "$dir/grade.json" | phase_table; echo; } | tee "$out/$c-$r.txt" >>"$out/phases.txt"
        log "$c run $r done ($out/$c-$r.txt)"
    done
done
cat "$out/phases.txt"
[ "${KEEP_TREES:-}" = 1 ] || for c in "${commits[@]}"; do (cd "$lab" && git worktree remove --force "$out/trees/$c"); done
exit $status
