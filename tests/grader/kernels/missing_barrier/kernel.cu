/*
 * The tiled kernel of 03_tiled without its second barrier: a fast warp can
 * overwrite a tile for the next step while a slow warp still reads it. The
 * results are usually right anyway, which is what makes the bug dangerous.
 * With SANITIZE=1 racecheck reports the hazard; the grader must take the
 * correctness points and name kernel.cu and the line.
 *
 *   tests/grader/gpu-fixtures.sh        (grades it as 03_tiled, SANITIZE=1)
 */
#include "matmul.h"

#define TILE 32

__global__ void matmul_tiled(const float *A, const float *B, float *C, int n)
{
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];
    int tx = threadIdx.x, ty = threadIdx.y;
    int col = blockIdx.x * TILE + tx;
    int row = blockIdx.y * TILE + ty;
    float temp = 0.0f;
    for (int t = 0; t < n; t += TILE) {
        As[ty][tx] = (row < n && t + tx < n) ? A[(size_t)row * n + t + tx] : 0.0f;
        Bs[ty][tx] = (t + ty < n && col < n) ? B[(size_t)(t + ty) * n + col] : 0.0f;
        // the tiles must be complete before anyone reads them
        __syncthreads();
        for (int k = 0; k < TILE; k++)
            temp += As[ty][k] * Bs[k][tx];
        // the bug: no barrier here before the next step overwrites the tiles
    }
    if (row < n && col < n)
        C[(size_t)row * n + col] = temp;
}

void matmul(const float *A, const float *B, float *C, int n)
{
    dim3 block(TILE, TILE);
    dim3 grid((n + TILE - 1) / TILE, (n + TILE - 1) / TILE);
    matmul_tiled<<<grid, block>>>(A, B, C, n);
}
