/*
 * A bug (tests/emu): the last-block pattern without its __threadfence().
 * Each block writes its partial sum and counts itself done with an atomic;
 * the block that counts last adds the partial sums. Without a fence
 * between the write and the count, the last block may read a partial sum
 * that is not yet visible to it (stage 07's solution has the fence). The
 * emulator names the race on global memory, with both lines.
 */
#include "reduce.h"

#define T 256

static __device__ unsigned int blocks_done;

__global__ void sum_with_last_block(const float *in, float *partials, float *out, int n)
{
    __shared__ bool last;
    int tid = threadIdx.x;
    if (tid == 0) {
        float v = 0.0f;
        for (int k = blockIdx.x * T; k < (int)(blockIdx.x + 1) * T && k < n; k++)
            v += in[k];
        partials[blockIdx.x] = v;
        /* the bug: __threadfence() belongs here */
        last = atomicAdd(&blocks_done, 1u) == gridDim.x - 1;
    }
    __syncthreads();
    if (last && tid == 0) {
        float total = 0.0f;
        for (unsigned b = 0; b < gridDim.x; b++)
            total += partials[b];
        *out = total;
        blocks_done = 0;
    }
}

void reduce(const float *in, float *out, int n, float *scratch)
{
    sum_with_last_block<<<(n + T - 1) / T, T>>>(in, scratch, out, n);
}
