/*
 * cuda_probe.cu: does the GPU work inside the confinement? The grader runs
 * this once, confined, before it grades (grader/confinement.c): a context, a
 * small allocation, a kernel, its result, and cuBLAS (which the harness
 * loads, a library of its own). Where it fails confined but works
 * unconfined, the confinement would break every student's run, and the
 * grader says so instead of grading (make class) or grades unconfined with
 * one line saying why (make grade).
 *
 * Prints one line; exit status 0 when everything worked, 1 when not.
 */
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <stdio.h>

__global__ void add_one(int *x) { *x += 1; }

static int failed(const char *what, cudaError_t err)
{
    printf("the GPU does not work here: %s: %s\n", what, cudaGetErrorName(err));
    return 1;
}

int main(void)
{
    int *x = NULL, host = 41;
    cudaError_t err = cudaFree(0);
    if (err != cudaSuccess)
        return failed("creating a context", err);
    if ((err = cudaMalloc(&x, sizeof *x)) != cudaSuccess)
        return failed("cudaMalloc", err);
    if ((err = cudaMemcpy(x, &host, sizeof host, cudaMemcpyHostToDevice)) != cudaSuccess)
        return failed("cudaMemcpy to the GPU", err);
    add_one<<<1, 1>>>(x);
    if ((err = cudaGetLastError()) != cudaSuccess || (err = cudaDeviceSynchronize()) != cudaSuccess)
        return failed("a kernel", err);
    if ((err = cudaMemcpy(&host, x, sizeof host, cudaMemcpyDeviceToHost)) != cudaSuccess)
        return failed("cudaMemcpy from the GPU", err);
    if (host != 42) {
        printf("the GPU does not work here: a kernel's result is wrong (%d)\n", host);
        return 1;
    }
    /* cuBLAS: a 1 x 1 product, 2 * 3 */
    cublasHandle_t h;
    float *m = NULL, two_three[3] = {2.0f, 3.0f, 0.0f}, one = 1.0f, zero = 0.0f;
    if (cublasCreate(&h) != CUBLAS_STATUS_SUCCESS) {
        printf("the GPU does not work here: cublasCreate failed\n");
        return 1;
    }
    if ((err = cudaMalloc(&m, sizeof two_three)) != cudaSuccess ||
        (err = cudaMemcpy(m, two_three, sizeof two_three, cudaMemcpyHostToDevice)) != cudaSuccess)
        return failed("cudaMalloc for cuBLAS", err);
    if (cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, 1, 1, 1, &one, m, 1, m + 1, 1, &zero, m + 2, 1) !=
            CUBLAS_STATUS_SUCCESS ||
        cudaMemcpy(two_three, m, sizeof two_three, cudaMemcpyDeviceToHost) != cudaSuccess || two_three[2] != 6.0f) {
        printf("the GPU does not work here: cublasSgemm failed or gave %g for 2 x 3\n", two_three[2]);
        return 1;
    }
    cublasDestroy(h);
    printf("the GPU works: a context, an allocation, a kernel, cuBLAS\n");
    return 0;
}
