/*
 * matmul_reference.h: what the matrix product is checked against
 * (matmul_reference.cu): cuBLAS's product in strict FP32, and the error
 * bound of each of its elements (matmul_check.h).
 */
#ifndef LAB_MATMUL_REFERENCE_H
#define LAB_MATMUL_REFERENCE_H

#include "gpu.h"

/* C = A*B, n x n, row-major, device pointers, with the handle's stream. */
void lab_matmul_cublas(cublasHandle_t h, const float *A, const float *B, float *C, int n);

/* The bound of each element of A*B (matmul_element_bound), on the GPU
 * (cudaFree() it). */
float *lab_matmul_element_bounds(cublasHandle_t h, const float *A, const float *B, int n);

#endif /* LAB_MATMUL_REFERENCE_H */
