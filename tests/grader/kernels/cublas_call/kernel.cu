/*
 * A kernel.cu that calls cuBLAS instead of launching its own kernel. The
 * result is right and fast, and the grader must refuse it before running:
 * the symbol policy names cublasCreate_v2 / cublasSgemm_v2.
 *
 *   tests/grader/gpu-fixtures.sh        (grades it as 03_tiled)
 */
#include <cublas_v2.h>

#include "matmul.h"

void matmul(const float *A, const float *B, float *C, int n)
{
    static cublasHandle_t handle;
    if (!handle)
        cublasCreate(&handle);
    const float one = 1.0f, zero = 0.0f;
    // row-major C = A*B is column-major C^T = B^T A^T
    cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, B, n, A, n, &zero, C, n);
}
