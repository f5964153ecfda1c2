/*
 * A correct kernel for make explain's tests (tests/emu/explain.sh) and its
 * comparison with Nsight Compute (research/explain-vs-ncu.sh): stage 05's
 * lesson in its plain form, a [32][33] tile moved by 32 x 8 threads. Its
 * column reads of the tile hit 32 banks: 1 wavefront a warp instruction,
 * where stage 04's [32][32] tile takes 32.
 *
 * -DWRONG_SIDE=1 pads the other side, [33][32]: a row more shifts no row's
 * banks, and the column reads take 32 again (tests/emu/technique.tsv: the
 * CPU emulation names the padding missing).
 *
 *   make explain EX=05 KERNEL=tests/emu/transpose_tile_padded.cu
 */
#ifndef WRONG_SIDE
#define WRONG_SIDE 0
#endif
#include "transpose.h"

enum { SIDE = 32, ROWS = 8, PAD_ROWS = WRONG_SIDE, PAD_COLS = 1 - WRONG_SIDE };

__global__ void transpose_tile_padded(const float *in, float *out, int rows, int cols)
{
    // one float of padding a row: row i starts in bank i % 32
    __shared__ float tile[SIDE + PAD_ROWS][SIDE + PAD_COLS];
    int x = threadIdx.x, y = threadIdx.y;
    int top = blockIdx.y * SIDE, left = blockIdx.x * SIDE;
    for (int j = y; j < SIDE; j += ROWS)
        if (top + j < rows && left + x < cols)
            tile[j][x] = in[(size_t)(top + j) * cols + left + x];
    // the writes read what other threads stored
    __syncthreads();
    for (int j = y; j < SIDE; j += ROWS)
        if (left + j < cols && top + x < rows)
            out[(size_t)(left + j) * rows + top + x] = tile[x][j];
}

void transpose(const float *in, float *out, int rows, int cols)
{
    dim3 grid((cols + SIDE - 1) / SIDE, (rows + SIDE - 1) / SIDE);
    transpose_tile_padded<<<grid, dim3(SIDE, ROWS)>>>(in, out, rows, cols);
}
