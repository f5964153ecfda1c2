/*
 * A bug (tests/emu): stage 03's tiled product whose loads test the edge of
 * the matrix but leave the tile's element unwritten past it, instead of
 * storing a zero there. The multiply-adds still read the whole tile: past
 * the edge they read what the block's previous tile, or an earlier block,
 * left in shared memory. On a GPU the last, partial tile comes out wrong
 * without saying why; the emulator names the read of shared memory no
 * thread of the block wrote. research/gpu-bugs.sh runs it on a GPU.
 */
#include "matmul.h"

#ifndef TILE
#define TILE 32 /* tile side: TILE x TILE threads, two TILE x TILE tiles */
#endif
static_assert(TILE >= 1 && TILE <= 32, "TILE must be from 1 to 32 (make sweep tries 8, 16, 32): the block is "
                                       "TILE x TILE threads and holds at most 1024 (TILE=64 would need 4096)");

__global__ void matmul_tiled(const float *A, const float *B, float *C, int n)
{
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];
    int tx = threadIdx.x, ty = threadIdx.y;
    int col = blockIdx.x * TILE + tx;
    int row = blockIdx.y * TILE + ty;
    float temp = 0.0f;

    for (int t = 0; t < n; t += TILE) {
        // each thread copies one element of each tile; threads with
        // neighbouring tx read neighbouring addresses, so loads coalesce.
        // the bug: nothing is stored past the edge (the zeros are missing)
        if (row < n && t + tx < n)
            As[ty][tx] = A[(size_t)row * n + t + tx];
        if (t + ty < n && col < n)
            Bs[ty][tx] = B[(size_t)(t + ty) * n + col];
        // wait until the whole tile is in shared memory before anyone reads it
        __syncthreads();
#pragma unroll
        for (int k = 0; k < TILE; k++)
            temp += As[ty][k] * Bs[k][tx];
        // wait until everyone is done with this tile before it is overwritten
        __syncthreads();
    }
    if (row < n && col < n)
        C[(size_t)row * n + col] = temp;
}

void matmul(const float *A, const float *B, float *C, int n)
{
    dim3 block(TILE, TILE);
    dim3 grid((n + TILE - 1) / TILE, (n + TILE - 1) / TILE);
    matmul_tiled<<<grid, block>>>(A, B, C, n);
}
