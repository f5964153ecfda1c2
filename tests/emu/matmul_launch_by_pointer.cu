/*
 * What the emulator refuses (tests/emu): a launch through cudaLaunchKernel,
 * whose arguments are an array of untyped pointers. A GPU runs it; the
 * emulator says in one line that it cannot, naming the line, exit 4.
 */
#include "matmul.h"

__global__ void naive(const float *A, const float *B, float *C, int n)
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

void matmul(const float *A, const float *B, float *C, int n)
{
    dim3 block(16, 16);
    dim3 grid((n + 15) / 16, (n + 15) / 16);
    void *args[] = {&A, &B, &C, &n};
    cudaLaunchKernel((const void *)naive, grid, block, args, 0, 0);
}
