/*
 * An honest stage 05 as most students hand it in (tests/class/similarity/
 * honest.tsv): the skeleton, its TODO(lab) parts filled in the plainest way
 * from the skeleton's own comments, nothing else changed.
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
    __shared__ float tile[TILE][TILE + 1];
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
        int orow = col0 + ty + j, ocol = row0 + tx; // out is cols x rows
        if (orow < cols && ocol < rows)
            out[(size_t)orow * rows + ocol] = tile[tx][ty + j];
    }
}

void transpose(const float *in, float *out, int rows, int cols)
{
    dim3 block(TILE, BLOCK_ROWS);
    // one block per tile: blockIdx.x walks the columns of in, blockIdx.y its rows
    dim3 grid((cols + TILE - 1) / TILE, (rows + TILE - 1) / TILE);
    transpose_padded<<<grid, block>>>(in, out, rows, cols);
}
