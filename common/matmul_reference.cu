/*
 * matmul_reference.cu: what the matrix product is checked against
 * (matmul_reference.h).
 */
#include <stdlib.h>

#include "matmul_check.h"
#include "matmul_reference.h"

/* The row-major product with column-major cuBLAS: C^T = B^T A^T, and a
 * row-major matrix read column-major is its transpose. */
void lab_matmul_cublas(cublasHandle_t h, const float *A, const float *B, float *C, int n)
{
    const float one = 1.0f, zero = 0.0f;
    CUBLAS_CHECK(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, B, n, A, n, &zero, C, n));
}

static __global__ void abs_copy(const float *x, float *y, size_t count)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < count;
         i += (size_t)gridDim.x * blockDim.x)
        y[i] = fabsf(x[i]);
}

static __global__ void to_bounds(float *mag, size_t count, int n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < count;
         i += (size_t)gridDim.x * blockDim.x)
        mag[i] = (float)matmul_element_bound(n, mag[i]);
}

/* cuBLAS's product of |A| and |B| gives each element's sum of |products|. */
float *lab_matmul_element_bounds(cublasHandle_t h, const float *A, const float *B, int n)
{
    size_t count = (size_t)n * n;
    float *absA, *absB, *bound;
    CUDA_CHECK(cudaMalloc(&absA, count * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&absB, count * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&bound, count * sizeof(float)));
    abs_copy<<<LAB_GRID_STRIDE_BLOCKS, 256>>>(A, absA, count);
    abs_copy<<<LAB_GRID_STRIDE_BLOCKS, 256>>>(B, absB, count);
    CUDA_CHECK(cudaGetLastError());
    lab_matmul_cublas(h, absA, absB, bound, n);
    to_bounds<<<LAB_GRID_STRIDE_BLOCKS, 256>>>(bound, count, n);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaFree(absA));
    CUDA_CHECK(cudaFree(absB));
    return bound;
}
