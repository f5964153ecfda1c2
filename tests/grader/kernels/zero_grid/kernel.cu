/*
 * A kernel.cu whose grid is n / 16 blocks each way, rounded down: 0 blocks
 * at n=1, so the launch is refused before the kernel runs. The grader must
 * give 0 points, and the reason must carry the hint that names the size and
 * the rounded-up grid, (n + TILE - 1) / TILE.
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

void matmul(const float *A, const float *B, float *C, int n)
{
    dim3 block(16, 16);
    dim3 grid(n / 16, n / 16); // the fault: 0 when n < 16
    matmul_cols<<<grid, block>>>(A, B, C, n);
}
