/*
 * Not a bug (tests/emu): a tree done in place in global memory, each block
 * on its own part of scratch only, with a __syncthreads() between steps;
 * a second launch adds the blocks' sums. A barrier orders the threads of a
 * block, and no block touches another's part: the emulator names nothing.
 */
#include "reduce.h"

#define T 256

__global__ void block_trees(const float *in, float *part, int n)
{
    int tid = threadIdx.x, first = blockIdx.x * T;
    float v = 0.0f;
    for (int k = 32 * (first + tid); k < 32 * (first + tid) + 32 && k < n; k++)
        v += in[k];
    part[first + tid] = v;
    __syncthreads();
    for (int s = T / 2; s > 0; s /= 2) {
        if (tid < s)
            part[first + tid] += part[first + tid + s];
        /* this step's sums are written before the next step reads them */
        __syncthreads();
    }
}

__global__ void sum_trees(const float *part, float *out, int blocks)
{
    if (threadIdx.x == 0) {
        float v = 0.0f;
        for (int b = 0; b < blocks; b++)
            v += part[b * T];
        *out = v;
    }
}

void reduce(const float *in, float *out, int n, float *scratch)
{
    int blocks = ((n + 31) / 32 + T - 1) / T;
    block_trees<<<blocks, T>>>(in, scratch, n);
    sum_trees<<<1, 32>>>(scratch, out, blocks);
}
