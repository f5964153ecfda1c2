/*
 * A correct transpose without the tile (tests/emu/technique.tsv), the
 * textbook's naive one: one element a thread, read from a row of in and
 * written down a column of out. The reads of a warp are coalesced; its 32
 * writes land rows floats apart, each in a sector of its own, as those of
 * the harness's naive baseline do, so the CPU emulation names the tile
 * missing (emu/technique.cc).
 *
 *   make explain EX=04 KERNEL=tests/emu/technique/transpose_naive.cu
 */
#include "transpose.h"

__global__ void transpose_one_a_thread(const float *in, float *out, int rows, int cols)
{
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    int r = blockIdx.y * blockDim.y + threadIdx.y;
    if (r < rows && c < cols)
        out[(size_t)c * rows + r] = in[(size_t)r * cols + c];
}

void transpose(const float *in, float *out, int rows, int cols)
{
    dim3 block(32, 8);
    dim3 grid((cols + 31) / 32, (rows + 7) / 8);
    transpose_one_a_thread<<<grid, block>>>(in, out, rows, cols);
}
