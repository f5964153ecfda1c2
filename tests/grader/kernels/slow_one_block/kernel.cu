/*
 * A kernel.cu that is correct but launches one block of one warp for the
 * whole product: every check passes in well under a second, and one call at
 * the timing size (n = 4096: 4096^3 multiply-adds shared by 32 threads, a
 * chain of 2^31 dependent ones each, at least 2 ns apiece) takes seconds.
 * Graded as 03_tiled with a short time limit, the run is stopped while
 * timing: the grader must give the correctness points, no speed points, and
 * a reason that names the size it was timing.
 *
 *   tests/grader/gpu-fixtures.sh        (grades it as 03_tiled)
 */
#include "matmul.h"

__global__ void matmul_one_warp(const float *A, const float *B, float *C, int n)
{
    for (size_t i = threadIdx.x; i < (size_t)n * n; i += blockDim.x) {
        int row = (int)(i / n), col = (int)(i % n);
        float sum = 0.0f;
        for (int k = 0; k < n; k++)
            sum += A[(size_t)row * n + k] * B[(size_t)k * n + col];
        C[i] = sum;
    }
}

void matmul(const float *A, const float *B, float *C, int n)
{
    matmul_one_warp<<<1, 32>>>(A, B, C, n);
}
