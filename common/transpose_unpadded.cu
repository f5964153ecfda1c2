/*
 * transpose_unpadded.cu: the unpadded tiled transpose, stage 05's in-run
 * baseline (transpose_unpadded.h).
 *
 * It is stage 04's answer, so a student release leaves this file out and
 * ships common/transpose_unpadded.o, compiled by make release (the Makefile
 * links the object where this source is absent). Stage 05 is timed against
 * exactly this kernel: the same tile, the same indices, only the padding
 * missing, so its speedup measures the padding and nothing else.
 */
#include "gpu.h"
#include "transpose_unpadded.h"

enum { TILE = 32, ROWS = 8 }; /* 32 x 8 threads move a 32 x 32 tile, 4 elements each */

/* Stage 04's answer: a 32 x 32 tile in shared memory, filled along the rows
 * of in and emptied along the rows of out, so both global sides are
 * coalesced. Emptying it reads down a column of the tile, and a column of a
 * [32][32] float array lies in one shared-memory bank: 32 words from one bank
 * take 32 turns (stage 05). */
static __global__ void transpose_tiled_unpadded(const float *in, float *out, int rows, int cols)
{
    __shared__ float tile[TILE][TILE];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row0 = blockIdx.y * TILE, col0 = blockIdx.x * TILE;
    for (int j = 0; j < TILE; j += ROWS) {
        int r = row0 + ty + j, c = col0 + tx;
        if (r < rows && c < cols)
            tile[ty + j][tx] = in[(size_t)r * cols + c];
    }
    // the writes below read what other threads loaded: wait for the whole tile
    __syncthreads();
    // threadIdx.x now runs along a row of out, which is a column of in, so it
    // picks the row of in: element (r, c) of in goes to (c, r) of out
    for (int j = 0; j < TILE; j += ROWS) {
        int r = row0 + tx, c = col0 + ty + j;
        if (r < rows && c < cols)
            out[(size_t)c * rows + r] = tile[tx][ty + j];
    }
}

void lab_transpose_unpadded_launch(const float *in, float *out, int rows, int cols)
{
    dim3 grid((cols + TILE - 1) / TILE, (rows + TILE - 1) / TILE);
    transpose_tiled_unpadded<<<grid, dim3(TILE, ROWS)>>>(in, out, rows, cols);
}
