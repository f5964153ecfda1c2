/*
 * A bug (tests/emu): a reduction whose threads past the end of the input
 * leave their element of the shared array unwritten, and the tree adds it
 * in anyway. On a GPU that element holds whatever an earlier block left
 * there (often a plausible number); the emulator names the read of shared
 * memory no thread of the block wrote.
 */
#include "reduce.h"

#define T 1024
#define FULL_MASK 0xffffffffu

__global__ void uninitialized_pass(const float *in, float *out, int n)
{
    __shared__ float partial[T];
    int tid = threadIdx.x;
    int i = blockIdx.x * 2 * T + tid;
    float v = 0.0f;
    if (i < n)
        v += in[i];
    if (i + T < n)
        v += in[i + T];
    if (i < n) /* the bug: a thread past the end leaves its element unwritten */
        partial[tid] = v;
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
        uninitialized_pass<<<blocks, T>>>(src, region[which], count);
        src = region[which];
        count = blocks;
        which ^= 1;
    }
    uninitialized_pass<<<1, T>>>(src, out, count);
}
