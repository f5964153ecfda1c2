/*
 * An attack on the CPU verdict: the product done by cuBLAS, which the GPU
 * grade refuses and the emulator's own cuBLAS would answer.
 */
#include "matmul.h"
#include <cublas_v2.h>

void matmul(const float *A, const float *B, float *C, int n)
{
    static cublasHandle_t h;
    if (!h)
        cublasCreate(&h);
    const float one = 1.0f, zero = 0.0f;
    /* row-major C = A B is column-major C^T = B^T A^T */
    cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, B, n, A, n, &zero, C, n);
}
