/*
 * Not a bug (tests/emu): an honest stage 03 with two pairs of tiles and one
 * barrier a tile. While the block multiplies out of one pair it stores the
 * next tiles into the other; the one barrier after each step both completes
 * the next pair and ends every read of this one, which the step after
 * overwrites. The emulator must name nothing (research/emulated-warnings.sh
 * counts it among the honest kernels).
 */
#include "matmul.h"

#define T 16

__device__ static void load_tiles(float (*As)[T], float (*Bs)[T], const float *A, const float *B, int n, int t,
                                  int row, int col)
{
    int tx = threadIdx.x, ty = threadIdx.y;
    As[ty][tx] = row < n && t + tx < n ? A[(size_t)row * n + t + tx] : 0.0f;
    Bs[ty][tx] = t + ty < n && col < n ? B[(size_t)(t + ty) * n + col] : 0.0f;
}

__global__ void double_buffered(const float *A, const float *B, float *C, int n)
{
    __shared__ float As[2][T][T], Bs[2][T][T];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * T + ty, col = blockIdx.x * T + tx;
    float sum = 0.0f;
    load_tiles(As[0], Bs[0], A, B, n, 0, row, col);
    __syncthreads();
    for (int t = 0, cur = 0; t < n; t += T, cur ^= 1) {
        if (t + T < n)
            load_tiles(As[cur ^ 1], Bs[cur ^ 1], A, B, n, t + T, row, col);
        for (int k = 0; k < T; k++)
            sum += As[cur][ty][k] * Bs[cur][k][tx];
        // the next pair is complete, and nobody reads this one any more
        __syncthreads();
    }
    if (row < n && col < n)
        C[(size_t)row * n + col] = sum;
}

void matmul(const float *A, const float *B, float *C, int n)
{
    dim3 grid((n + T - 1) / T, (n + T - 1) / T);
    double_buffered<<<grid, dim3(T, T)>>>(A, B, C, n);
}
