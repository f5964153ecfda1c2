/*
 * cuda_probe.cu: does the GPU work inside the confinement? The grader runs
 * this once, confined, before it grades (grader/confinement.c): a context, a
 * small allocation, a kernel, its result. Where it fails confined but works
 * unconfined, the confinement would break every student's run, and the
 * grader says so instead of grading (make class) or grades unconfined with
 * one line saying why (make grade).
 *
 * Prints one line; exit status 0 when everything worked, 1 when not.
 */
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
    printf("the GPU works: a context, an allocation, a kernel\n");
    return 0;
}
