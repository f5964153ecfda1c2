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
#define BLOCK 8 /* threads per block side: BLOCK x BLOCK threads (make sweep EX=01 tries 8, 16, 32) */
#endif
static_assert(BLOCK >= 1 && BLOCK <= 32,
              "BLOCK must be from 1 to 32: the block is BLOCK x BLOCK threads, and a block holds at most 1024");

__global__ void matmul_naive(const float *A, const float *B, float *C, int n)
{
    // TODO(lab): compute this thread's column and row of C from blockIdx,
    // blockDim and threadIdx. threadIdx.x changes fastest within a warp, so
    // give it the column: neighbouring threads then touch neighbouring floats.

    // TODO(lab): threads past the edge of C must do nothing (n need not be a
    // multiple of BLOCK).

    // TODO(lab): C[row][col] = sum over k of A[row][k] * B[k][col]. Matrices
    // are row-major: element (r, c) is at r * n + c (use size_t for it). Set
    // the element of C to 0, then add each product into it.
}

void matmul(const float *A, const float *B, float *C, int n)
{
    dim3 block(BLOCK, BLOCK);
    // TODO(lab): enough blocks in x (columns) and y (rows) to cover every
    // element of C, also when n is not a multiple of BLOCK.
    dim3 grid(1, 1);
    matmul_naive<<<grid, block>>>(A, B, C, n);
}
