/*
 * An attack on the CPU verdict: the product computed by host code that only
 * a compiler other than nvcc sees (#ifndef __CUDACC__), where the emulator's
 * device buffers are host memory. Under nvcc the kernel writes nothing: on a
 * GPU it is wrong, and so it must be on the CPU.
 */
#include "matmul.h"

__global__ void does_nothing(float *C) { (void)C; }

void matmul(const float *A, const float *B, float *C, int n)
{
#ifndef __CUDACC__
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            float s = 0;
            for (int k = n - 1; k >= 0; k--)
                s += A[(size_t)i * n + k] * B[(size_t)k * n + j];
            C[(size_t)i * n + j] = s;
        }
#else
    does_nothing<<<1, 1>>>(C);
#endif
}
