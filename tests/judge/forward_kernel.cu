// tests/judge/forward_kernel.cu: an honest stage-03 kernel.cu for
// tests/judge/forward.sh: one launch, an attribute set before it and the
// launch's error asked for after it, as students write them.
#include <stdio.h>

#include "matmul.h"

__global__ void mm_forward(const float *A, const float *B, float *C, int n)
{
    int r = blockIdx.y * blockDim.y + threadIdx.y, c = blockIdx.x * blockDim.x + threadIdx.x;
    if (r < n && c < n) {
        float s = 0;
        for (int k = 0; k < n; k++)
            s += A[r * n + k] * B[k * n + c];
        C[r * n + c] = s;
    }
}

void matmul(const float *A, const float *B, float *C, int n)
{
    cudaFuncSetAttribute(mm_forward, cudaFuncAttributePreferredSharedMemoryCarveout, 50);
    dim3 block(16, 16), grid((n + 15) / 16, (n + 15) / 16);
    mm_forward<<<grid, block>>>(A, B, C, n);
    if (cudaGetLastError() != cudaSuccess)
        printf("launch failed\n");
}
