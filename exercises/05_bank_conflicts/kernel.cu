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
 * Why this skeleton leaves the write phase to you: since padding changes
 * only the declaration, a skeleton holding stage 04's whole kernel would
 * already pass every correctness check unedited, and nothing would make you
 * look at the access that conflicts. So the skeleton keeps what padding does
 * not touch (the launch, the coalesced read into the tile, the barrier) and
 * leaves as TODO(lab) the tile's declaration and the write phase, whose
 * reads of the tile the padding is for. Untouched, it writes nothing and
 * fails its check.
 *
 *   make run EX=05            check, then time, this file
 *   make sweep EX=05          try BLOCK_ROWS = 1, 2, 4, 8, 16
 */
#include "transpose.h"

#ifndef TILE
#define TILE 32 /* tile side: one warp moves one row of the tile */
#endif
#ifndef BLOCK_ROWS
#define BLOCK_ROWS 8 /* the block is TILE x BLOCK_ROWS threads; each moves TILE / BLOCK_ROWS elements */
#endif
static_assert(BLOCK_ROWS >= 1 && TILE % BLOCK_ROWS == 0,
              "BLOCK_ROWS must divide 32 (1, 2, 4, 8, 16 or 32): each thread moves TILE / BLOCK_ROWS rows of the tile");

__global__ void transpose_padded(const float *in, float *out, int rows, int cols)
{
    // TODO(lab): pad the tile so that a column of it lies in 32 different
    // banks (the README counts the banks of both layouts). ([[maybe_unused]]
    // keeps the compiler quiet until the write phase reads the tile.)
    [[maybe_unused]] __shared__ float tile[TILE][TILE];
    int tx = threadIdx.x, ty = threadIdx.y;
    // the tile of this block starts at row row0, column col0 of in
    int row0 = blockIdx.y * TILE, col0 = blockIdx.x * TILE;

    // read: threadIdx.x runs along a row of in (coalesced) and along a row
    // of the tile (32 neighbouring words: 32 banks)
    for (int j = 0; j < TILE; j += BLOCK_ROWS) {
        int r = row0 + ty + j, c = col0 + tx;
        if (r < rows && c < cols)
            tile[ty + j][tx] = in[(size_t)r * cols + c];
    }
    // each thread writes elements that other threads loaded: wait for the
    // whole tile
    __syncthreads();

    for (int j = 0; j < TILE; j += BLOCK_ROWS) {
        // TODO(lab): the write phase, as in your stage 04 kernel: threadIdx.x
        // runs along a row of out, so each thread reads its float down a
        // column of the tile. Skip elements outside the matrix. This column
        // read is the access the padding is for: count its banks before
        // and after.
    }
}

void transpose(const float *in, float *out, int rows, int cols)
{
    dim3 block(TILE, BLOCK_ROWS);
    // one block per tile: blockIdx.x walks the columns of in, blockIdx.y its rows
    dim3 grid((cols + TILE - 1) / TILE, (rows + TILE - 1) / TILE);
    transpose_padded<<<grid, block>>>(in, out, rows, cols);
}
