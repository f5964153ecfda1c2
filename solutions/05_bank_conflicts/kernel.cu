/*
 * 05_bank_conflicts: pad the shared-memory tile so that reading it down a
 * column is free of bank conflicts.
 *
 * What this version changes: stage 04's tile is TILE x TILE floats, and its
 * write phase reads the tile down a column: the 32 threads of a warp read
 * tile[0][j], tile[1][j], ..., tile[31][j], which lie 32 floats apart. Shared
 * memory has 32 banks, one per 4-byte word in turn, so words 32 apart share a
 * bank: the warp's read is served one word at a time, 32 times over. One
 * extra, never used column (TILE x (TILE + 1)) shifts each row of the tile
 * by one bank, and the same column read then touches every bank once. Not
 * one index expression changes; only the declaration does.
 *
 * And one step past the padding: this solution's tile is 64 x 64 (padded
 * to 65 columns), not 32 x 32. A block of 64 x 4 threads then moves 16 KiB
 * each way, 16 elements a thread, instead of 4 KiB: more bytes in flight
 * for each block the SM holds, which an H200 (4252 GB/s of cudaMemcpy)
 * needs to come near its memcpy. Measured 2026-11-23 on an H200, 8192 x
 * 8192: 88.5% of memcpy with the 32 x 33 tile, 92.6% with 64 x 65
 * (research/experiments/transpose_order.cu; handout 05, "A bigger tile";
 * measurements/h200-2026-11-23-night/transpose_order.tsv). The
 * padding works as before: a warp reads tile[tx][j] for 32 consecutive tx,
 * 65 words apart, in 32 different banks.
 *
 *   make run EX=05            check, then time, this file
 *   make sweep EX=05          try BLOCK_ROWS = 1, 2, 4, 8, 16
 */
#include "transpose.h"

#ifndef TILE
#define TILE 64 /* tile side: two warps move one row of the tile (-DTILE=32: the lesson's tile) */
#endif
#ifndef BLOCK_ROWS
#define BLOCK_ROWS 4 /* the block is TILE x BLOCK_ROWS threads; each moves TILE / BLOCK_ROWS elements */
#endif
static_assert(TILE % 32 == 0 && BLOCK_ROWS >= 1 && TILE % BLOCK_ROWS == 0 && TILE * BLOCK_ROWS <= 1024,
              "TILE must be whole warps (32 or 64), and BLOCK_ROWS must divide it and keep the block at "
              "1,024 threads (1, 2, 4, 8 or 16 for 64): each thread moves TILE / BLOCK_ROWS rows of the tile");

__global__ void transpose_padded(const float *in, float *out, int rows, int cols)
{
    // the extra column is padding: row i of the tile starts at word
    // i * (TILE + 1), i.e. in bank i % 32, so any 32 consecutive rows of
    // column j sit in 32 different banks
    __shared__ float tile[TILE][TILE + 1];
    int tx = threadIdx.x, ty = threadIdx.y;
    // the tile of this block starts at row row0, column col0 of in
    int row0 = blockIdx.y * TILE, col0 = blockIdx.x * TILE;

    // read: threadIdx.x runs along a row of in (coalesced) and along a row
    // of the tile (a warp: 32 neighbouring words, 32 banks)
    for (int j = 0; j < TILE; j += BLOCK_ROWS) {
        int r = row0 + ty + j, c = col0 + tx;
        if (r < rows && c < cols)
            tile[ty + j][tx] = in[(size_t)r * cols + c];
    }
    // each thread writes elements that other threads loaded: wait for the
    // whole tile
    __syncthreads();

    // write: threadIdx.x runs along a row of out (coalesced) and down a
    // column of the tile (65 words apart: a warp's 32 reads in 32 banks,
    // thanks to the padding)
    for (int j = 0; j < TILE; j += BLOCK_ROWS) {
        int r = row0 + tx, c = col0 + ty + j; // element (r, c) of in, (c, r) of out
        if (r < rows && c < cols)
            out[(size_t)c * rows + r] = tile[tx][ty + j];
    }
}

void transpose(const float *in, float *out, int rows, int cols)
{
    dim3 block(TILE, BLOCK_ROWS);
    // one block per tile: blockIdx.x walks the columns of in, blockIdx.y its rows
    dim3 grid((cols + TILE - 1) / TILE, (rows + TILE - 1) / TILE);
    transpose_padded<<<grid, block>>>(in, out, rows, cols);
}
