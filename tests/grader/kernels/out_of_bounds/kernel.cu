/*
 * A kernel.cu whose bounds check lets the threads of one row past the end
 * of C write there (row <= n instead of row < n). The values inside C are
 * right; the guard zone after C shows the bug. The grader must give 0
 * points with "wrote outside its output array"; with SANITIZE=1 memcheck
 * also names the line of the store.
 *
 *   tests/grader/gpu-fixtures.sh        (grades it as 03_tiled)
 */
#include "matmul.h"

__global__ void matmul_past_end(const float *A, const float *B, float *C, int n)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row > n || col >= n)
        return;
    float sum = 0.0f;
    for (int k = 0; k < n && row < n; k++)
        sum += A[(size_t)row * n + k] * B[(size_t)k * n + col];
    C[(size_t)row * n + col] = sum;
}

void matmul(const float *A, const float *B, float *C, int n)
{
    dim3 block(16, 16);
    // n / 16 + 1 rows of blocks: there is always a thread for row n, one past the end
    dim3 grid((n + 15) / 16, n / 16 + 1);
    matmul_past_end<<<grid, block>>>(A, B, C, n);
}
