# tests/grader/emulated.sh: a kernel that is wrong on the GPU is run on the
# CPU emulation too, whose finding comes under the GPU's verdict, in make
# grade's advice and in make run (grader/emulated.c). Sourced by
# tests/grader/run.sh: it uses that script's check, $out and stand-in driver
# (fake_driver.c: 03_tiled@wrong is a wrong run of stage 03_tiled,
# 03_tiled@good a right one).
echo "== grader: a kernel wrong on the GPU, run on the CPU emulation too"
emu=$out/emulated
racy=build/fixtures/matmul_tiled_no_second_barrier-emu   # names a race on shared memory
quiet=build/fixtures/matmul_tiled_swapped_tile-emu       # wrong values, nothing named
rm -rf "$emu"
mkdir -p "$emu" build/03_tiled
if [ "$(uname -m)" != x86_64 ] || ! make -s --no-print-directory "$racy" "$quiet" >"$emu/build.log" 2>&1; then
    skip "grader: the CPU emulation of a wrong kernel: its programs do not build here ($(tail -n 1 "$emu/build.log" 2>/dev/null))"
else
    ln -sf ../fake "$out/bin/03_tiled@wrong"
    ln -sf ../fake "$out/bin/03_tiled@good"
    printf 'setting\tlimit_s\t5\nstage\t03_tiled\t6\n' >"$emu/rubric.tsv"
    build/grader/grade --lab . --rubric "$emu/rubric.tsv" --seed 42 --out "$emu/reports" \
        --program "03_tiled=$out/bin/03_tiled@wrong:::$racy" --program "03_tiled=$out/bin/03_tiled@wrong:::$quiet" \
        --program "03_tiled=$out/bin/03_tiled@good:::$racy" >"$emu/grade.log" 2>&1
    st=$?
    eget() { "$out/check" get "$emu/reports/grade.json" "$1" 2>/dev/null; }
    check "grader: a racy kernel wrong on the GPU: the emulation's race comes first in the advice, the points unchanged" \
        "$([ $st = 0 ] && [ "$(eget stages.0.points)" = 0 ] &&
           eget stages.0.advice.0 | grep -q '^The CPU emulation of your kernel names the cause: a race on shared memory, As\[' &&
           eget stages.0.advice.1 | grep -q '^Run `make run EX=03 SEED=42`' &&
           grep -q '^    - The CPU emulation of your kernel names the cause: a race' "$emu/grade.log"; echo $?)" \
        "$(cat "$emu/grade.log")"
    check "grader: a wrong kernel whose emulation names nothing: nothing more is said" \
        "$([ "$(eget stages.1.points)" = 0 ] && ! eget stages.1.advice.0 | grep -q 'CPU emulation' &&
           [ "$(grep -c 'CPU emulation of your kernel' "$emu/grade.log")" = 1 ]; echo $?)" "$(eget stages.1.advice.0)"
    check "grader: a correct kernel is not emulated (its points as before)" \
        "$([ "$(eget stages.2.points)" = 10 ] && [ "$(grep -c 'on the CPU emulation\.\.\.' "$emu/grade.log")" = 2 ]; echo $?)" \
        "$(grep '^\[' "$emu/grade.log")"

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
