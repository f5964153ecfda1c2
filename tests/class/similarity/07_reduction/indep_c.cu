// Sum of n floats, written from scratch: two launches. The first has a fixed
// grid; each thread adds a strided run of elements, the block folds them in
// shared memory and with warp shuffles, and writes one partial sum to
// scratch. The second launch, one block, adds the partial sums.
#include "reduce.h"

#define THREADS 512
#define GRID 1024

static __device__ float fold_warp(float x)
{
    for (int d = warpSize / 2; d > 0; d >>= 1)
        x += __shfl_xor_sync(0xffffffffu, x, d);
    return x;
}

// each warp folds its values, lane 0 of each parks them in shared memory,
// and warp 0 folds those
static __device__ float fold_block(float x)
{
    __shared__ float per_warp[THREADS / 32];
    int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    x = fold_warp(x);
    if (lane == 0)
        per_warp[warp] = x;
    __syncthreads();
    x = threadIdx.x < THREADS / 32 ? per_warp[threadIdx.x] : 0.0f;
    if (warp == 0)
        x = fold_warp(x);
    return x;
}

__global__ void partial_sums(const float *src, float *dst, int count)
{
    float acc = 0.0f;
    for (int i = blockIdx.x * THREADS + threadIdx.x; i < count; i += GRID * THREADS)
        acc += src[i];
    acc = fold_block(acc);
    if (threadIdx.x == 0)
        dst[blockIdx.x] = acc;
}

__global__ void final_sum(const float *parts, float *result, int count)
{
    float acc = 0.0f;
    for (int i = threadIdx.x; i < count; i += THREADS)
        acc += parts[i];
    acc = fold_block(acc);
    if (threadIdx.x == 0)
        *result = acc;
}

void reduce(const float *in, float *out, int n, float *scratch)
{
    int blocks = (n + THREADS - 1) / THREADS;
    if (blocks > GRID)
        blocks = GRID;
    partial_sums<<<blocks, THREADS>>>(in, scratch, n);
    final_sum<<<1, THREADS>>>(scratch, out, blocks);
}
