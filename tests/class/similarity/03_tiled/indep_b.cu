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
        // pointers to the start of this step's tiles
        const float *a_tile = A + (size_t)(blockIdx.y * TILE) * n + t;
        const float *b_tile = B + (size_t)t * n + blockIdx.x * TILE;
        bool a_in = row < n && t + tx < n;
        bool b_in = col < n && t + ty < n;
        As[ty][tx] = a_in ? a_tile[(size_t)ty * n + tx] : 0.f;
        Bs[ty][tx] = b_in ? b_tile[(size_t)ty * n + tx] : 0.f;
        __syncthreads();
        int kmax = TILE;
        int k = 0;
        while (k < kmax) {
            temp += As[ty][k] * Bs[k][tx];
            k++;
        }
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
