#!/usr/bin/env bash
# tests/emu/explain.sh: make explain's counts (emu/explain.cc) on kernels
# whose access patterns the handouts work through, where every warp of the
# launch is full and aligned, so the counts are exact:
#
#   stage 01, threadIdx.x on rows (tests/fixtures/matmul_rows_mapped.cu):
#     a load of A touches 32 sectors a request, B one (a broadcast);
#   stage 01's solution (16 x 16 threads): 2 sectors a load of A or B, 4 a
#     store of C, and no load of C (a value just stored is not read back);
#   stage 04's [32][32] tile: 32 wavefronts a column read of the tile;
#   a [32][33] tile (tests/emu/transpose_tile_padded.cu) and stage 05's
#     [64][65]: 1;
#   stage 03's tiles: a warp reading one word of As is a broadcast, 1;
#   stage 06's float4 reads of shared memory: 4 phases of 8 lanes, 4; the
#     conflicts of its transposed As's scalar stores get no one-float
#     padding, which would misalign As's float4 reads;
#   at n=17, the warps that a guard leaves empty issue no request.
#
# Each program runs inside the wall with a time limit, as tests/emu.sh's
# do; make explain itself runs once (KERNEL=, SIZES=). Needs make emu-all.
# Ends with "N passed, N failed".
set -u
cd "$(dirname "$0")/../.." || exit 2
. tests/lib.sh

logdir=build/check-logs
mkdir -p "$logdir"

# explain NAME PROGRAM [ARG...]: its output in $out (and a log), status in $st
explain() {
    local name=$1
    shift
    out=$(timeout 120 build/confine/confine -- "$@" --explain 2>&1)
    st=$?
    printf '%s\n' "$out" >"$logdir/explain-$name.log"
}

# row TEXT: 0 when the table has a row with these words (spaces between
# them stand for any run of spaces)
row() { grep -qE "^  $(sed -e 's/[][().*^$+?{}|\\]/\\&/g' -e 's/ /  */g' <<<"$1")( |$)" <<<"$out"; ok; }

explain rows build/fixtures/matmul_rows_mapped-emu
check "threadIdx.x on rows: each load of A touches 32 sectors (524288 requests, 16777216 sectors)" \
    "$([ $st = 0 ] && [ "$(row 'matmul_rows_mapped.cu:20 global load A requests 524288 sectors 16777216 32.0 per request (ideal 4)')" = 0 ]; ok)" "$out"
check "threadIdx.x on rows: B is one float for the whole warp, 1 sector; C's stores 32 sectors" \
    "$([ "$(row 'matmul_rows_mapped.cu:20 global load B requests 524288 sectors 524288 1.0 per request')" = 0 ] &&
       [ "$(row 'matmul_rows_mapped.cu:21 global store C requests 2048 sectors 65536 32.0 per request')" = 0 ]; ok)" "$out"
check "threadIdx.x on rows: told it is uncoalesced, and what the handout says to do" \
    "$(grep -q 'uncoalesced' <<<"$out" && grep -q 'handouts/01_naive.md' <<<"$out" &&
       grep -q 'time, which' <<<"$out"; ok)" "$out"

explain solution01 build/01_naive/solution-emu
check "stage 01's solution: 2 sectors a load of A and of B, 4 a store of C" \
    "$([ $st = 0 ] && [ "$(row 'kernel.cu:37 global load A requests 524288 sectors 1048576 2.0 per request (ideal 4)')" = 0 ] &&
       [ "$(row 'kernel.cu:37 global load B requests 524288 sectors 1048576 2.0')" = 0 ] &&
       [ "$(row 'kernel.cu:37 global store C requests 524288 sectors 2097152 4.0')" = 0 ]; ok)" "$out"
check "stage 01's solution: no load of C (as nvcc, the sum just stored is not read back), no advice" \
    "$(! grep -q 'global load  *C' <<<"$out" && ! grep -q 'uncoalesced' <<<"$out"; ok)" "$out"

explain edges build/01_naive/solution-emu --sizes 17
check "n=17: lanes past the edge issue nothing: 18 warps store C (8 + 8 + 1 + 1 of the 4 blocks' 32)" \
    "$([ $st = 0 ] && grep -q 'the first launch at n=17' <<<"$out" &&
       [ "$(row 'kernel.cu:35 global store C requests 18 ')" = 0 ]; ok)" "$out"

explain tile32 build/04_transpose/solution-emu
check "a [32][32] tile: 32 wavefronts a column read (2048 instructions), 1 a row write" \
    "$([ $st = 0 ] && [ "$(row 'kernel.cu:51 shared load tile instructions 2048 wavefronts 65536 32.0 per instruction (ideal 1)')" = 0 ] &&
       [ "$(row 'kernel.cu:39 shared store tile instructions 2048 wavefronts 2048 1.0')" = 0 ]; ok)" "$out"
check "a [32][32] tile: both global sides coalesced (4 sectors), the conflict named with handout 05" \
    "$([ "$(row 'kernel.cu:39 global load in requests 2048 sectors 8192 4.0')" = 0 ] &&
       [ "$(row 'kernel.cu:51 global store out requests 2048 sectors 8192 4.0')" = 0 ] &&
       grep -q 'bank conflict' <<<"$out" && grep -q 'handouts/05_bank_conflicts.md' <<<"$out" &&
       grep -q 'tile\[32\]\[33\]' <<<"$out"; ok)" "$out"

explain tile33 build/fixtures/transpose_tile_padded-emu
check "a [32][33] tile: 1 wavefront a column read, no bank conflict named" \
    "$([ $st = 0 ] && [ "$(row 'transpose_tile_padded.cu:34 shared load tile instructions 2048 wavefronts 2048 1.0')" = 0 ] &&
       ! grep -q 'bank conflict' <<<"$out"; ok)" "$out"
explain tile65 build/05_bank_conflicts/solution-emu
check "stage 05's [64][65] tile: 1 wavefront a column read" \
    "$([ $st = 0 ] && [ "$(row 'kernel.cu:67 shared load tile instructions 2048 wavefronts 2048 1.0')" = 0 ]; ok)" "$out"

explain tiled03 build/03_tiled/solution-emu
check "stage 03: a warp reading one word of As is a broadcast (1 wavefront), Bs's row 1" \
    "$([ $st = 0 ] && [ "$(row 'kernel.cu:43 shared load As instructions 524288 wavefronts 524288 1.0')" = 0 ] &&
       [ "$(row 'kernel.cu:43 shared load Bs instructions 524288 wavefronts 524288 1.0')" = 0 ]; ok)" "$out"

explain float4 build/06_coarsening/solution-emu
check "stage 06: float4 reads of shared memory in 4 phases of 8 lanes: 4 wavefronts (ideal 4); float4 loads 16 sectors" \
    "$([ $st = 0 ] && [ "$(row 'kernel.cu:200 shared load Bs instructions 16384 wavefronts 65536 4.0 per instruction (ideal 4)')" = 0 ] &&
       [ "$(row 'kernel.cu:119 global load A requests 1024 sectors 16384 16.0 per request (ideal 16)')" = 0 ]; ok)" "$out"
check "stage 06: the conflicts of the transposed As's stores: no [32][33] padding, which would misalign its float4 reads; 4 floats a row keeps them aligned" \
    "$([ "$(row 'kernel.cu:173 shared store As instructions 1024 wavefronts 4096 4.0 per instruction (ideal 1)')" = 0 ] &&
       ! grep -q 'tile\[32\]\[33\]' <<<"$out" &&
       tr '\n' ' ' <<<"$out" | grep -q 'As is also read 16 bytes at a time (float4, kernel.cu:195): one float of padding a row would misalign those accesses' &&
       tr '\n' ' ' <<<"$out" | grep -q 'Padding of 4 floats a row keeps every row a multiple of 16 bytes'; ok)" "$out"

out=$(build/01_naive/solution-emu --sizes 256 --n 1 2>&1)
check "without --explain the emulated program prints no counts" \
    "$(! grep -q 'what the memory system sees' <<<"$out" && grep -q 'all results match' <<<"$out"; ok)" "$out"

out=$(timeout 300 make --no-print-directory explain EX=05 KERNEL=tests/emu/transpose_tile_padded.cu SIZES=64x64 2>&1)
st=$?
# (the file is compiled from the copy the intake took of it)
check "make explain EX=05 KERNEL=file SIZES=64x64: that launch, the source line beside its counts" \
    "$([ $st = 0 ] && grep -q 'the first launch at 64x64, build/05_bank_conflicts/kernels/transpose_tile_padded.src/' <<<"$out" &&
       [ "$(row 'kernel.cu:34 shared load tile instructions 128 wavefronts 128 1.0')" = 0 ] &&
       grep -q '| out\[(size_t)(left + j) \* rows + top + x\] = tile\[x\]\[j\];' <<<"$out"; ok)" "$out"
out=$(make --no-print-directory explain EX=05 KERNEL=no/such/file.cu 2>&1)
st=$?
check "make explain KERNEL= a file that is not there: one line, exit 2" \
    "$([ $st = 2 ] && grep -q 'KERNEL=no/such/file.cu: no such file' <<<"$out"; ok)" "$out"

totals
