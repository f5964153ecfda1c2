/*
 * A bug (tests/emu): the threads past the edge of C are clamped to its
 * last row and column instead of being kept out, so that two threads
 * compute C[n-1][n-1] and store it, unordered. They store the same value,
 * so the result is right; it is still a race on global memory (two writes
 * of one element, with nothing between that orders them), which the
 * emulator names with both lines.
 */
#include "matmul.h"

#define TILE 16

__global__ void matmul_clamped(const float *A, const float *B, float *C, int n)
{
    int row = min(blockIdx.y * TILE + threadIdx.y, (unsigned)n - 1); /* the bug: if (row >= n) return; */
    int col = min(blockIdx.x * TILE + threadIdx.x, (unsigned)n - 1);
    float sum = 0.0f;
    for (int k = 0; k < n; k++)
        sum += A[(size_t)row * n + k] * B[(size_t)k * n + col];
    C[(size_t)row * n + col] = sum;
}

void matmul(const float *A, const float *B, float *C, int n)
{
    dim3 block(TILE, TILE), grid((n + TILE - 1) / TILE, (n + TILE - 1) / TILE);
    matmul_clamped<<<grid, block>>>(A, B, C, n);
}
