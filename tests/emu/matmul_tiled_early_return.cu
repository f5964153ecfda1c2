/*
 * A bug a GPU hides (tests/emu): stage 03's tiled product whose threads past
 * the edge of C return at once, before the barriers the others wait at.
 * Their elements of the tiles are never loaded; on a GPU the barrier
 * counts only the threads still running, and the tile holds whatever the
 * last block left there. The emulator names the thread that returned, the
 * one that waits, and both lines.
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
    if (row >= n || col >= n)
        return;

    for (int t = 0; t < n; t += TILE) {
        // each thread copies one element of each tile; threads with
        // neighbouring tx read neighbouring addresses, so loads coalesce.
        // Past the edge of the matrix the tile is filled with zeros, which
        // add nothing to the sum.
        As[ty][tx] = (row < n && t + tx < n) ? A[(size_t)row * n + t + tx] : 0.0f;
        Bs[ty][tx] = (t + ty < n && col < n) ? B[(size_t)(t + ty) * n + col] : 0.0f;
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
