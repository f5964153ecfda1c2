/*
 * A bug a GPU hides (tests/emu): stage 04's tiled transpose whose read phase
 * tests c <= cols. The thread one past the last column loads the first
 * element of the next row of in, or, on the last row, one float past the end
 * of in, into a column of the tile that the write phase never writes out:
 * the output is right. The emulator names the read past the end of in.
 */
#include "transpose.h"

#define TILE 32 /* tile side: one warp moves one row of the tile */
#ifndef BLOCK_ROWS
#define BLOCK_ROWS 8 /* the block is TILE x BLOCK_ROWS threads; each moves TILE / BLOCK_ROWS elements */
#endif
static_assert(BLOCK_ROWS >= 1 && TILE % BLOCK_ROWS == 0,
              "BLOCK_ROWS must divide 32 (1, 2, 4, 8, 16 or 32): each thread moves TILE / BLOCK_ROWS rows of the tile");

__global__ void transpose_tiled(const float *in, float *out, int rows, int cols)
{
    __shared__ float tile[TILE][TILE];
    int tx = threadIdx.x, ty = threadIdx.y;
    // the tile of this block starts at row row0, column col0 of in
    int row0 = blockIdx.y * TILE, col0 = blockIdx.x * TILE;

    // read: threadIdx.x runs along a row of in, so a warp reads 32
    // neighbouring floats; thread row ty takes tile rows ty, ty + BLOCK_ROWS, ...
    for (int j = 0; j < TILE; j += BLOCK_ROWS) {
        int r = row0 + ty + j, c = col0 + tx;
        if (r < rows && c <= cols)
            tile[ty + j][tx] = in[(size_t)r * cols + c];
    }
    // each thread writes elements that other threads loaded: wait for the
    // whole tile
    __syncthreads();

    // write: row col0 + ty + j of out is that column of in. threadIdx.x runs
    // along the row of out, so it picks the row of in, and the element comes
    // from column ty + j of the tile
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
    transpose_tiled<<<grid, block>>>(in, out, rows, cols);
}
