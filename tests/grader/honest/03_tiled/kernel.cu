/*
 * An honest stage 03, written as a student would: a 32 x 32 tiled product
 * with its bounds tests around the loads and the store. research/flag-rate.sh
 * grades it among the honest kernels whose flags it counts.
 */
#include "matmul.h"

#define T 32

__global__ void tiled(const float *A, const float *B, float *C, int n)
{
    __shared__ float a_tile[T][T];
    __shared__ float b_tile[T][T];
    int c = blockIdx.x * T + threadIdx.x;
    int r = blockIdx.y * T + threadIdx.y;
    float sum = 0.0f;
    int phases = (n + T - 1) / T;
    for (int p = 0; p < phases; p++) {
        int ka = p * T + threadIdx.x, kb = p * T + threadIdx.y;
        if (r < n && ka < n)
            a_tile[threadIdx.y][threadIdx.x] = A[(size_t)r * n + ka];
        else
            a_tile[threadIdx.y][threadIdx.x] = 0.0f;
        if (kb < n && c < n)
            b_tile[threadIdx.y][threadIdx.x] = B[(size_t)kb * n + c];
        else
            b_tile[threadIdx.y][threadIdx.x] = 0.0f;
        __syncthreads();
        for (int k = 0; k < T; k++)
            sum += a_tile[threadIdx.y][k] * b_tile[k][threadIdx.x];
        __syncthreads();
    }
    if (r < n && c < n)
        C[(size_t)r * n + c] = sum;
}

void matmul(const float *A, const float *B, float *C, int n)
{
    dim3 threads(T, T);
    dim3 blocks((n + T - 1) / T, (n + T - 1) / T);
    tiled<<<blocks, threads>>>(A, B, C, n);
}
