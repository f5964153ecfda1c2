/*
 * A bug (tests/emu): a two-pass tree reduction, two elements a thread,
 * whose loads have no bounds check: where n is not a multiple of the
 * 2 x 1024 elements a block takes, the last block's threads read past the
 * end of in. On a GPU they read whatever lies there (the harness's guard
 * values make the sum wrong); the emulator names the read past in, with
 * its thread and block. research/gpu-bugs.sh runs it on a GPU.
 */
#include "reduce.h"

#define T 1024
#define FULL_MASK 0xffffffffu

__global__ void sum_pass(const float *in, float *out, int n)
{
    __shared__ float partial[T];
    int tid = threadIdx.x;
    int i = blockIdx.x * 2 * T + tid;
    partial[tid] = in[i] + in[i + T]; /* the bug: no i < n, no i + T < n */
    __syncthreads();
    for (int s = T / 2; s > 32; s /= 2) {
        if (tid < s)
            partial[tid] += partial[tid + s];
        __syncthreads();
    }
    if (tid < 32) {
        float w = partial[tid] + partial[tid + 32];
        for (int offset = 16; offset > 0; offset /= 2)
            w += __shfl_down_sync(FULL_MASK, w, offset);
        if (tid == 0)
            out[blockIdx.x] = w;
    }
}

void reduce(const float *in, float *out, int n, float *scratch)
{
    float *region[2] = {scratch, scratch + (n + 2 * T - 1) / (2 * T)};
    const float *src = in;
    int count = n, which = 0;
    while (count > 2 * T) {
        int blocks = (count + 2 * T - 1) / (2 * T);
        sum_pass<<<blocks, T>>>(src, region[which], count);
        src = region[which];
        count = blocks;
        which ^= 1;
    }
    sum_pass<<<1, T>>>(src, out, count);
}
