/*
 * A bug (tests/emu): each thread writes its own sum to global memory, then
 * adds its neighbour's, with no __syncthreads() between: the neighbour may
 * not have written it yet. The emulator names the race on global memory,
 * with both lines.
 */
#include "reduce.h"

#define T 256

__global__ void pair_sums(const float *in, float *part, int n)
{
    int i = blockIdx.x * T + threadIdx.x;
    float v = 0.0f;
    for (int k = 32 * i; k < 32 * i + 32 && k < n; k++)
        v += in[k];
    part[i] = v;
    /* the bug: a __syncthreads() belongs here */
    if (i % 2 == 0)
        part[i] += part[i + 1];
}

__global__ void sum_pairs(const float *part, float *out, int count)
{
    if (threadIdx.x == 0) {
        float v = 0.0f;
        for (int i = 0; i < count; i += 2)
            v += part[i];
        *out = v;
    }
}

void reduce(const float *in, float *out, int n, float *scratch)
{
    int blocks = ((n + 31) / 32 + T - 1) / T;
    pair_sums<<<blocks, T>>>(in, scratch, n);
    sum_pairs<<<1, 32>>>(scratch, out, blocks * T);
}
