/*
 * A kernel.cu that computes a size once and skips the work when it is
 * called again with the same n, hoping the old result is still in C. Each
 * checked size is called once, so every check passes; the timed calls
 * repeat n, and the harness poisons C before each of them, so the outputs
 * of the timed calls are NaN: the sampled check of the first timed batch
 * (or, failing that, the check of the last timed call) ends the run. The
 * grader must give 0 points, saying the kernel may "depend on state left
 * by an earlier call".
 *
 *   tests/grader/gpu-fixtures.sh        (grades it as 03_tiled)
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
        // and read by everyone before they are overwritten
        __syncthreads();
    }
    if (row < n && col < n)
        C[(size_t)row * n + col] = temp;
}

void matmul(const float *A, const float *B, float *C, int n)
{
    static int last_n;
    if (n == last_n)
        return; // the cheat: "C still holds the answer"
    last_n = n;
    dim3 block(TILE, TILE);
    dim3 grid((n + TILE - 1) / TILE, (n + TILE - 1) / TILE);
    matmul_tiled<<<grid, block>>>(A, B, C, n);
}
