/*
 * An honest stage 01 as most students hand it in (tests/class/similarity/
 * honest.tsv): the skeleton, its TODO(lab) parts filled in the plainest way
 * from the skeleton's own comments, nothing else changed.
 */
#include "matmul.h"

#ifndef BLOCK
#define BLOCK 8 /* threads per block side: BLOCK x BLOCK threads (make sweep EX=01 tries 8, 16, 32) */
#endif
static_assert(BLOCK >= 1 && BLOCK <= 32,
              "BLOCK must be from 1 to 32: the block is BLOCK x BLOCK threads, and a block holds at most 1024");

__global__ void matmul_naive(const float *A, const float *B, float *C, int n)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;

    if (row < n && col < n) {

        size_t i = (size_t)row * n + col;
        C[i] = 0.0f;
        for (int k = 0; k < n; k++)
            C[i] += A[(size_t)row * n + k] * B[(size_t)k * n + col];
    }
}

void matmul(const float *A, const float *B, float *C, int n)
{
    dim3 block(BLOCK, BLOCK);
    dim3 grid((n + BLOCK - 1) / BLOCK, (n + BLOCK - 1) / BLOCK);
    matmul_naive<<<grid, block>>>(A, B, C, n);
}
