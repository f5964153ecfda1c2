/*
 * 02_temp_accumulator: add the products in a register, write C once.
 *
 * What this version changes: stage 01 added into C[row][col] in global memory
 * on every step of k. The compiler kept the sum in a register, but stored it
 * at every step, because C might overlap A or B (the PTX shows two loads and
 * one store a step, and no load of C). Here the sum lives in a local
 * variable, which no pointer can reach, and C is written once at the end:
 * n stores of C per thread become one; the 2n loads of A and B stay.
 *
 *   make run EX=02            check, then time, this file
 *   make sweep EX=02          try BLOCK = 8, 16, 32
 */
#include "matmul.h"

#ifndef BLOCK
#define BLOCK 32 /* threads per block side: BLOCK x BLOCK threads (make sweep EX=02 tries 8, 16, 32) */
#endif
static_assert(BLOCK >= 1 && BLOCK <= 32,
              "BLOCK must be from 1 to 32: the block is BLOCK x BLOCK threads, and a block holds at most 1024");

__global__ void matmul_temp(const float *A, const float *B, float *C, int n)
{
    // threadIdx.x on columns, as in stage 01, so warps coalesce
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row >= n || col >= n)
        return;
    // the running sum stays in a register for the whole loop
    float temp = 0.0f;
    for (int k = 0; k < n; k++)
        temp += A[(size_t)row * n + k] * B[(size_t)k * n + col];
    C[(size_t)row * n + col] = temp;
}

void matmul(const float *A, const float *B, float *C, int n)
{
    dim3 block(BLOCK, BLOCK);
    dim3 grid((n + BLOCK - 1) / BLOCK, (n + BLOCK - 1) / BLOCK);
    matmul_temp<<<grid, block>>>(A, B, C, n);
}
