/*
 * 01_naive: one thread per element of C, with the warp laid along a row.
 *
 * What this version changes: the starting kernel (common/matmul_family.cu,
 * matmul_rows_naive) gives threadIdx.x the row, so the 32 threads of a warp
 * read addresses n floats apart. Here threadIdx.x gives the column: the warp
 * reads 32 neighbouring floats of B and writes 32 neighbouring floats of C,
 * one coalesced access each, and all 32 threads read the same A[row][k]
 * (one broadcast). It still stores C to global memory at every step of k:
 * the compiler keeps the sum in a register, but C might overlap A or B, so
 * it may not leave out a store. Stage 02 fixes that.
 *
 *   make run EX=01            check, then time, this file
 *   make sweep EX=01          try BLOCK = 8, 16, 32
 */
#include "matmul.h"

#ifndef BLOCK
#define BLOCK 16 /* threads per block side: BLOCK x BLOCK threads (make sweep EX=01 tries 8, 16, 32) */
#endif
static_assert(BLOCK >= 1 && BLOCK <= 32,
              "BLOCK must be from 1 to 32: the block is BLOCK x BLOCK threads, and a block holds at most 1024");

__global__ void matmul_naive(const float *A, const float *B, float *C, int n)
{
    // threadIdx.x changes fastest within a warp, so it gets the column:
    // neighbouring threads then touch neighbouring floats of B and C
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    // when n is not a multiple of BLOCK the last blocks hang over the edge
    if (row >= n || col >= n)
        return;
    // size_t: row * n overflows an int once n passes 46340
    float *c = &C[(size_t)row * n + col];
    *c = 0.0f;
    for (int k = 0; k < n; k++)
        *c += A[(size_t)row * n + k] * B[(size_t)k * n + col];
}

void matmul(const float *A, const float *B, float *C, int n)
{
    dim3 block(BLOCK, BLOCK);
    // round up, so that the blocks cover every element of C
    dim3 grid((n + BLOCK - 1) / BLOCK, (n + BLOCK - 1) / BLOCK);
    matmul_naive<<<grid, block>>>(A, B, C, n);
}
