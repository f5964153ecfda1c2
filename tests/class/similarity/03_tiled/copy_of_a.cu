// 03: tiles of A and B in shared memory
#include "matmul.h"
#ifndef TILE
#define TILE 16
#endif

__global__ void mm_shared(const float *P, const float *Q, float *R, int size)
{
    __shared__ float tileQ[TILE][TILE];
    __shared__ float tileP[TILE][TILE];
    int y = threadIdx.y, x = threadIdx.x;
    int r = blockIdx.y * TILE + y;
    int c = blockIdx.x * TILE + x;
    float sum = 0.0f;
    for (int base = 0; base < size; base += TILE) {
        int qr = base + y;
        if (qr < size && c < size)
            tileQ[y][x] = Q[(size_t)qr * size + c];
        else
            tileQ[y][x] = 0.0f;
        int pc = base + x;
        if (r < size && pc < size)
            tileP[y][x] = P[(size_t)r * size + pc];
        else
            tileP[y][x] = 0.0f;
        __syncthreads();
        for (int j = 0; j < TILE; ++j) {
            sum = sum + tileP[y][j] * tileQ[j][x];
        }
        __syncthreads();
    }
    if (r < size && c < size)
        R[(size_t)r * size + c] = sum;
}

void matmul(const float *A, const float *B, float *C, int n)
{
    dim3 threads(TILE, TILE);
    dim3 blocks((n + TILE - 1) / TILE, (n + TILE - 1) / TILE);
    mm_shared<<<blocks, threads>>>(A, B, C, n);
}
