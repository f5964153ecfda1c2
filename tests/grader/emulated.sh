# tests/grader/emulated.sh: a kernel graded on the GPU is run on the CPU
# emulation too (grader/emulated.c): wrong, its finding comes under the GPU's
# verdict, in make grade's advice and in make run; correct, a finding is a
# warning with no points lost (grade.json's warning, the table, results.json),
# but at a stage whose lesson is its barriers (stages.tsv: 03_tiled) a race
# costs the correctness points; an honest kernel gets nothing. Sourced by
# tests/grader/run.sh: it uses that script's check, $out and stand-in driver
# (fake_driver.c: 03_tiled@wrong is a wrong run of stage 03_tiled,
# 03_tiled@good a right one).
echo "== grader: a kernel wrong on the GPU, run on the CPU emulation too"
emu=$out/emulated
# names a race on shared memory: on As or Bs, both of which the missing
# barrier leaves racing; which comes first is the thread order's, which the
# seed and every launch before the kernel's own set (emu/runtime.cc)
racy=build/fixtures/matmul_tiled_no_second_barrier-emu
quiet=build/fixtures/matmul_tiled_swapped_tile-emu       # wrong values, nothing named
# stage 07's bugs that a GPU hides (tests/emu), and the honest solutions
hidden="build/fixtures/reduce_chunks_no_second_barrier-emu build/fixtures/reduce_early_return-emu
        build/fixtures/reduce_warp_steps_no_syncwarp-emu"
honest="build/07_reduction/solution-emu build/03_tiled/solution-emu"
rm -rf "$emu"
mkdir -p "$emu" build/03_tiled
# shellcheck disable=SC2086 # the programs, one word each
if [ "$(uname -m)" != x86_64 ] ||
    ! make -s --no-print-directory "$racy" "$quiet" $hidden $honest >"$emu/build.log" 2>&1; then
    skip "grader: the CPU emulation of a wrong kernel: its programs do not build here ($(tail -n 1 "$emu/build.log" 2>/dev/null))"
else
    ln -sf ../fake "$out/bin/03_tiled@wrong"
    ln -sf ../fake "$out/bin/03_tiled@good"
    ln -sf ../fake "$out/bin/07_reduction@good"
    printf 'setting\tlimit_s\t5\nstage\t03_tiled\t6\n' >"$emu/rubric.tsv"
    build/grader/grade --lab . --rubric "$emu/rubric.tsv" --seed 42 --out "$emu/reports" \
        --program "03_tiled=$out/bin/03_tiled@wrong:::$racy" --program "03_tiled=$out/bin/03_tiled@wrong:::$quiet" \
        --program "03_tiled=$out/bin/03_tiled@good:::$racy" >"$emu/grade.log" 2>&1
    st=$?
    eget() { "$out/json" get "$emu/reports/grade.json" "$1" 2>/dev/null; }
    check "grader: a racy kernel wrong on the GPU: the emulation's race comes first in the advice, the points unchanged" \
        "$([ $st = 0 ] && [ "$(eget stages.0.points)" = 0 ] &&
           eget stages.0.advice.0 | grep -Eq '^The CPU emulation of your kernel names the cause: a race on shared memory, (As|Bs)\[' &&
           eget stages.0.advice.1 | grep -q '^Run `make run EX=03 SEED=42`' &&
           grep -q '^    - The CPU emulation of your kernel names the cause: a race' "$emu/grade.log"; echo $?)" \
        "$(cat "$emu/grade.log")"
    check "grader: a wrong kernel whose emulation names nothing: nothing more is said" \
        "$([ "$(eget stages.1.points)" = 0 ] && ! eget stages.1.advice.0 | grep -q 'CPU emulation' &&
           [ "$(grep -c 'The CPU emulation of your kernel names the cause' "$emu/grade.log")" = 1 ]; echo $?)" "$(eget stages.1.advice.0)"
    check "grader: a racy kernel correct on the GPU at stage 03 (its lesson: the barriers): the correctness points lost, the race named" \
        "$([ "$(eget stages.2.points)" = 4 ] && [ "$(eget stages.2.correct)" = false ] &&
           eget stages.2.reason | grep -Eq '^correct on the GPU, but the CPU emulation of your kernel names a race on shared memory, (As|Bs)\[' &&
           eget stages.2.advice.0 | grep -q "^This stage's lesson is its barriers" && [ -z "$(eget stages.2.warning)" ]; echo $?)" \
        "$(grep '^\[' "$emu/grade.log")"

    # correct on the GPU: stage 07's three bugs a GPU hides, each a warning,
    # no points lost; the honest solutions of 07 and 03, nothing
    # shellcheck disable=SC2206 # the programs, one word each
    emulated=($hidden $honest)
    build/grader/grade --lab . --rubric "$emu/rubric.tsv" --seed 42 --once --out "$emu/warn" \
        --program "07_reduction=$out/bin/07_reduction@good:::${emulated[0]}" \
        --program "07_reduction=$out/bin/07_reduction@good:::${emulated[1]}" \
        --program "07_reduction=$out/bin/07_reduction@good:::${emulated[2]}" \
        --program "07_reduction=$out/bin/07_reduction@good:::${emulated[3]}" \
        --program "03_tiled=$out/bin/03_tiled@good:::${emulated[4]}" >"$emu/warn.log" 2>&1
    st=$?
    wget() { "$out/json" get "$emu/warn/grade.json" "$1" 2>/dev/null; }
    warned() { # STAGE-INDEX PHRASE: warned in those words, with the honest kernel's points
        wget "stages.$1.warning" | grep -q "^correct on the GPU, but the CPU emulation of your kernel names a bug the GPU's timing hid (no points lost; \`make run EX=07 SEED=42 EMU=1\` shows it): $2" &&
            [ "$(wget "stages.$1.correct")" = true ] && [ "$(wget "stages.$1.points")" = "$(wget stages.3.points)" ]
    }
    check "grader: stage 07's bugs a GPU hides, correct there: each a warning in grade.json, no points lost" \
        "$([ $st = 0 ] && warned 0 'a race on shared memory, tile\[' && warned 1 'a thread returned before a barrier' &&
           warned 2 'a race on shared memory, partial\[.*two lanes of one warp'; echo $?)" "$(sed -n '/^\[/p;/^Warnings/,$p' "$emu/warn.log")"
    check "grader: the warnings in make grade's table and in results.json" \
        "$([ "$(sed -n '/^Warnings:$/,/^$/p' "$emu/warn.log" | grep -c '^  07_reduction: correct on the GPU, but')" = 3 ] &&
           [ "$(grep -c '; a warning (below)$' "$emu/warn.log")" = 3 ] &&
           [ "$("$out/json" get "$emu/warn/results.json" tests.0.output | grep -c '^warning: correct on the GPU')" = 1 ]; echo $?)" \
        "$(cat "$emu/warn.log")"
    check "grader: the honest solutions of 07 and 03 run on the emulation and get no warning, every point" \
        "$([ -z "$(wget stages.3.warning)" ] && [ -z "$(wget stages.4.warning)" ] && [ "$(wget stages.4.points)" = 10 ] &&
           [ "$(grep -c 'on the CPU emulation\.\.\.' "$emu/warn.log")" = 5 ]; echo $?)" "$(grep '^\[' "$emu/warn.log")"

    # make run on a GPU, with a stand-in for the stage's program: wrong at
    # n=17 (its record where --json says), or right
    for verdict in wrong right; do
        status=$([ $verdict = wrong ] && echo 1 || echo 0)
        printf '#!/bin/sh\nwhile [ $# -gt 0 ]; do [ "$1" = --json ] && rec=$2; shift; done\n%s\n%s\nexit %s\n' \
            "echo 'n=17 FAILED: 289 of 289 elements wrong'" \
            "printf '{\"stage\": \"03_tiled\", \"seed\": 42, \"exit_status\": $status, \"checks\": [{\"size\": \"n=17\", \"ok\": false}]}\\n' >\"\$rec\"" \
            "$status" >"$emu/$verdict"
        chmod +x "$emu/$verdict"
        LAB_LOCAL=1 make -s --no-print-directory run EX=03 EMU=0 RUN_BIN="$emu/$verdict" RUN_DEPS= RUN_EMU="$racy" \
            >"$emu/run-$verdict.log" 2>&1
        echo $? >"$emu/run-$verdict.status"
    done
    check "make run on a GPU: a wrong run, then the emulation's finding in the same words; make fails as before" \
        "$(grep -q '^n=17 FAILED' "$emu/run-wrong.log" &&
           grep -q '^the CPU emulation of your kernel names the cause: a race on shared memory, As\[' "$emu/run-wrong.log" &&
           [ "$(cat "$emu/run-wrong.status")" = 2 ]; echo $?)" "$(cat "$emu/run-wrong.log")"
    check "make run on a GPU: a correct run is not emulated" \
        "$([ "$(cat "$emu/run-right.status")" = 0 ] && ! grep -q 'CPU emulation' "$emu/run-right.log"; echo $?)" \
        "$(cat "$emu/run-right.log")"
fi
