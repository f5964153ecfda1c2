#!/usr/bin/env bash
# tests/emu.sh: every kernel of the lab through the CPU emulation (emu/),
# where CI has no GPU: each solution and reference kernel passes, each
# skeleton fails cleanly (exit 1, naming its TODO(lab) parts), each wrong
# kernel of tests/fixtures fails as tests/fixtures/expect.tsv says the GPU
# does (the same exit status and phrase), and each bug of tests/emu is
# named, and each honest kernel there passes, as tests/emu/expect.tsv says. Each program runs inside the wall
# (build/confine/confine), with a time limit. Logs in build/check-logs/emu-*.
# Needs make emu-all (make check builds it). Ends with "N passed, N failed".
set -u
cd "$(dirname "$0")/.." || exit 2
. tests/lib.sh
. tools/stages.sh

logdir=build/check-logs
mkdir -p "$logdir"
EMU_LIMIT_S=${EMU_LIMIT_S:-120}

# run NAME PROGRAM [ARG...]: the program, confined, its output in $out and
# build/check-logs/emu-NAME.log, its record in emu-NAME.json (a confined
# program writes no file: the record comes through a descriptor), its exit
# status in $st
run() {
    local name=$1
    shift
    out=$(timeout "$EMU_LIMIT_S" build/confine/confine -- "$@" --record-fd 3 2>&1 3>"$logdir/emu-$name.json")
    st=$?
    printf '%s\n' "$out" >"$logdir/emu-$name.log"
}

echo "== the solutions, the reference kernels and the skeletons"
for s in $LAB_STAGES; do
    if [ -f "solutions/$s/kernel.cu" ]; then
        run "$s-solution" "build/$s/solution-emu"
        check "$s: the solution passes every check on the CPU" "$([ $st = 0 ]; ok)" "exit $st; $out"
        rec=$logdir/emu-$s-solution.json
        check "$s: its record says ok and emulated" \
            "$([ "$(json_get "$rec" status) $(json_get "$rec" emulated)" = "ok true" ]; ok)" "$(cat "$rec" 2>&1)"
    fi
    if [ -f "references/$s/kernel.cu" ]; then
        run "$s-reference" "build/$s/reference-emu"
        check "$s: the reference kernel passes every check on the CPU" "$([ $st = 0 ]; ok)" "exit $st; $out"
    fi
    run "$s-exercise" "build/$s/exercise-emu"
    check "$s: the skeleton fails cleanly on the CPU (exit 1, naming TODO(lab))" \
        "$([ $st = 1 ] && grep -q 'TODO(lab)' <<<"$out"; ok)" "exit $st; $out"
done

# each line of an expectations table: fixture, exit status, phrase
expect() {
    local table=$1 what=$2 name status phrase
    [ -f "$table" ] || { skip "$what: $table: none here (a student release)"; return; }
    while IFS=$'\t' read -r name status phrase; do
        case $name in '#'* | '') continue ;; esac
        run "$name" "build/fixtures/$name-emu"
        check "$what $name: exit $status, says '$phrase'" \
            "$([ $st = "$status" ] && grep -qF "$phrase" <<<"$out"; ok)" "exit $st; $out"
    done <"$table"
}
echo "== the wrong kernels: as on a GPU (tests/fixtures/expect.tsv)"
expect tests/fixtures/expect.tsv "fixture"
echo "== the bugs a GPU hides, named, and honest kernels, named nothing (tests/emu/expect.tsv)"
expect tests/emu/expect.tsv "kernel"

echo "== the emulator's own messages"
if [ -x build/fixtures/matmul_tiled_early_return-emu ]; then
    run early-return-seed build/fixtures/matmul_tiled_early_return-emu --sizes 17
    check "a thread that returns before a barrier: its thread, block and line, and the waiting one's" \
        "$([ $st = 1 ] && grep -qE 'thread \([0-9]+,[0-9]+\) of block \([0-9]+,[0-9]+\) returned \(tests/emu/matmul_tiled_early_return.cu:[0-9]+\)' <<<"$out" &&
           grep -q 'waits at the barrier of tests/emu/matmul_tiled_early_return.cu:' <<<"$out"; ok)" "$out"
fi
totals
