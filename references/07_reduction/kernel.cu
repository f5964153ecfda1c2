/*
 * 07_reduction, the reference kernel of the pass tier: a reduction in the
 * form public reductions take, what the pass tier's advice names and no
 * more: a grid-stride loop of one float a load over a fixed grid, a tree in
 * shared memory, the last warp by shuffles, and a second launch of one
 * block for the blocks' sums. make calibrate sets the pass tier from it
 * (its reference line in stages.tsv), and research/flag-rate.sh grades it
 * among the honest kernels whose flags it counts (the pass tier's
 * references).
 */
#include "reduce.h"

#define THREADS 256
#define BLOCKS 1024

static __device__ float sum_block(float x)
{
    __shared__ float s[THREADS];
    s[threadIdx.x] = x;
    __syncthreads();
    for (int half = THREADS / 2; half >= 32; half /= 2) {
        if (threadIdx.x < half)
            s[threadIdx.x] = x = s[threadIdx.x] + s[threadIdx.x + half];
        __syncthreads();
    }
    // the first warp holds the last 32 sums: shuffles, no barriers
    if (threadIdx.x < 32)
        for (int d = 16; d >= 1; d /= 2)
            x += __shfl_xor_sync(0xffffffffu, x, d);
    return x;
}

__global__ void partial_sums(const float *in, float *partial, int n)
{
    float x = 0.0f;
    for (int i = blockIdx.x * THREADS + threadIdx.x; i < n; i += gridDim.x * THREADS)
        x += in[i];
    x = sum_block(x);
    if (threadIdx.x == 0)
        partial[blockIdx.x] = x;
}

__global__ void final_sum(const float *partial, float *out, int count)
{
    float x = 0.0f;
    for (int i = threadIdx.x; i < count; i += THREADS)
        x += partial[i];
    x = sum_block(x);
    if (threadIdx.x == 0)
        *out = x;
}

void reduce(const float *in, float *out, int n, float *scratch)
{
    int blocks = (n + THREADS - 1) / THREADS;
    if (blocks > BLOCKS)
        blocks = BLOCKS;
    partial_sums<<<blocks, THREADS>>>(in, scratch, n);
    final_sum<<<1, THREADS>>>(scratch, out, blocks);
}
