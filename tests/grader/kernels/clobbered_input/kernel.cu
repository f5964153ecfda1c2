/*
 * A kernel.cu whose product is right but which then writes into its input A
 * (the last element). The harness checks the inputs after every call, so
 * the first check fails with "the inputs were modified". The grader must
 * give 0 points with "changed its input arrays".
 *
 *   tests/grader/gpu-fixtures.sh        (grades it as 03_tiled)
 */
#include "matmul.h"

__global__ void matmul_cols(const float *A, const float *B, float *C, int n)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row >= n || col >= n)
        return;
    float sum = 0.0f;
    for (int k = 0; k < n; k++)
        sum += A[(size_t)row * n + k] * B[(size_t)k * n + col];
    C[(size_t)row * n + col] = sum;
}

// launched after the product, so C is right and only A is damaged
__global__ void clobber(float *A, int n)
{
    A[(size_t)n * n - 1] = 1.0f;
}

void matmul(const float *A, const float *B, float *C, int n)
{
    dim3 block(16, 16);
    dim3 grid((n + 15) / 16, (n + 15) / 16);
    matmul_cols<<<grid, block>>>(A, B, C, n);
    clobber<<<1, 1>>>((float *)A, n);
}
