/*
 * 03_tiled: shared-memory tiles of A and B.
 *
 * What this version changes: in stage 02 every thread reads a whole row of A
 * and a whole column of B from global memory, and each value is read by n
 * threads. Here a block of TILE x TILE threads walks along k one tile at a
 * time: together its threads copy a TILE x TILE tile of A and one of B into
 * shared memory (one element each, coalesced), wait, then each thread runs
 * TILE multiply-adds out of shared memory. Every value loaded from global
 * memory is now used TILE times.
 *
 *   make run EX=03            check, then time, this file
 *   make sweep EX=03          try TILE = 8, 16, 32
 */
#include "matmul.h"

#ifndef TILE
#define TILE 16 /* tile side: TILE x TILE threads, two TILE x TILE tiles */
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
        // my tile loads: if/else instead of ?:, zero past the edges
        int aCol = t + tx;
        if (row < n && aCol < n)
            As[ty][tx] = A[(size_t)row * n + aCol];
        else
            As[ty][tx] = 0.0f;
        int bRow = t + ty;
        if (bRow < n && col < n)
            Bs[ty][tx] = B[(size_t)bRow * n + col];
        else
            Bs[ty][tx] = 0.0f;
        __syncthreads(); // tiles complete

        for (int i = 0; i < TILE; ++i) {
            temp = temp + As[ty][i] * Bs[i][tx];
        }
        __syncthreads(); // done reading before the next loads
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
