// Tiled matrix product, written from scratch: each block computes a
// BS x BS square of C, staging strips of A and B through shared memory.
#include "matmul.h"

#ifndef TILE
#define TILE 32
#endif
#define BS TILE

__global__ void tiled_mm(const float *__restrict__ a, const float *__restrict__ b, float *__restrict__ c, int n)
{
    __shared__ float sa[BS][BS];
    __shared__ float sb[BS][BS];
    const int r = blockIdx.y * BS + threadIdx.y;
    const int q = blockIdx.x * BS + threadIdx.x;
    float acc = 0;
    const int steps = (n + BS - 1) / BS;
    for (int step = 0; step < steps; step++) {
        const int ka = step * BS + threadIdx.x;
        const int kb = step * BS + threadIdx.y;
        sa[threadIdx.y][threadIdx.x] = 0;
        sb[threadIdx.y][threadIdx.x] = 0;
        if (r < n && ka < n)
            sa[threadIdx.y][threadIdx.x] = a[r * (size_t)n + ka];
        if (q < n && kb < n)
            sb[threadIdx.y][threadIdx.x] = b[kb * (size_t)n + q];
        __syncthreads();
#pragma unroll 8
        for (int e = 0; e < BS; e++)
            acc += sa[threadIdx.y][e] * sb[e][threadIdx.x];
        __syncthreads();
    }
    if (r >= n || q >= n)
        return;
    c[r * (size_t)n + q] = acc;
}

void matmul(const float *A, const float *B, float *C, int n)
{
    const int g = (n + BS - 1) / BS;
    tiled_mm<<<dim3(g, g), dim3(BS, BS)>>>(A, B, C, n);
}
