/*
 * An attack on the CPU verdict: a correct product launched on a stream of
 * its own, which the GPU grade refuses (a stream the timer does not see).
 */
#include "matmul.h"

__global__ void product(const float *A, const float *B, float *C, int n)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x, row = blockIdx.y * blockDim.y + threadIdx.y;
    if (!(row < n && col < n))
        return;
    float s = 0;
    for (int k = n - 1; k >= 0; k--)
        s += A[(size_t)row * n + k] * B[(size_t)k * n + col];
    C[(size_t)row * n + col] = s;
}

void matmul(const float *A, const float *B, float *C, int n)
{
    static cudaStream_t s;
    if (!s)
        cudaStreamCreate(&s);
    dim3 block(16, 16), grid((n + 15) / 16, (n + 15) / 16);
    product<<<grid, block, 0, s>>>(A, B, C, n);
    cudaStreamSynchronize(s);
}
