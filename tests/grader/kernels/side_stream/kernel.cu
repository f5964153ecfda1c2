/*
 * A kernel.cu that launches on a stream of its own. The harness's events
 * are recorded on the default stream, so work on a non-blocking side stream
 * would escape the timer. The grader must refuse it before running: the
 * symbol policy names cudaStreamCreateWithFlags.
 *
 *   tests/grader/gpu-fixtures.sh        (grades it as 03_tiled)
 */
#include "matmul.h"

__global__ void matmul_side(const float *A, const float *B, float *C, int n)
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
    static cudaStream_t side;
    if (!side)
        cudaStreamCreateWithFlags(&side, cudaStreamNonBlocking);
    dim3 block(16, 16);
    dim3 grid((n + 15) / 16, (n + 15) / 16);
    matmul_side<<<grid, block, 0, side>>>(A, B, C, n);
}
