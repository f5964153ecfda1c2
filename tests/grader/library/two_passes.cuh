/*
 * What the stage 07 kernels here share, so that each shows only its own
 * part: the first pass adds each block's elements into scratch (at most
 * 1024 partial sums), the second adds those into out; both are the
 * including file's block_sums kernel, BLOCK threads a block.
 */
#include "reduce.h"

#ifndef BLOCK
#define BLOCK 256
#endif

__global__ void block_sums(const float *in, float *sums, int n);

// This thread's share of in, with a grid-stride loop.
static __device__ float thread_sum(const float *in, int n)
{
    float v = 0.0f;
    for (int i = blockIdx.x * BLOCK + threadIdx.x; i < n; i += gridDim.x * BLOCK)
        v += in[i];
    return v;
}

void reduce(const float *in, float *out, int n, float *scratch)
{
    int blocks = (n + BLOCK - 1) / BLOCK < 1024 ? (n + BLOCK - 1) / BLOCK : 1024;
    block_sums<<<blocks, BLOCK>>>(in, scratch, n);
    block_sums<<<1, BLOCK>>>(scratch, out, blocks);
}
