// tests/judge/forward_kernel.cu: a stage-03 kernel.cu for
// tests/judge/forward.sh: one launch, an attribute set before it and the
// launch's error asked for after it, as students write them (its kernel
// is no answer: nothing runs it).
#include <stdio.h>

#include "matmul.h"

__global__ void mm_forward(const float *A, const float *B, float *C, int n)
{
    /* never run: the fake server only reads the launch */
    if (threadIdx.x == 0)
        C[0] = A[0] + B[n - 1];
}

void matmul(const float *A, const float *B, float *C, int n)
{
    cudaFuncSetAttribute(mm_forward, cudaFuncAttributePreferredSharedMemoryCarveout, 50);
    dim3 block(16, 16), grid((n + 15) / 16, (n + 15) / 16);
    mm_forward<<<grid, block>>>(A, B, C, n);
    if (cudaGetLastError() != cudaSuccess)
        printf("launch failed\n");
}
