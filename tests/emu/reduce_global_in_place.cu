/*
 * A bug (tests/emu): a reduction done in place in global memory across
 * blocks. The first launch leaves one sum of 32 inputs per thread in
 * scratch; the second adds the upper half of scratch onto the lower half,
 * step after step, with a __syncthreads() between the steps. A barrier
 * orders the threads of one block only: block 0 reads elements that other
 * blocks write at the same step, in any order on a GPU. The emulator names
 * the race on global memory, with both lines.
 */
#include "reduce.h"

#define T 256

__global__ void sums_of_32(const float *in, float *part, int n, int count)
{
    int i = blockIdx.x * T + threadIdx.x;
    float v = 0.0f;
    for (int k = 32 * i; k < 32 * i + 32 && k < n; k++)
        v += in[k];
    if (i < count)
        part[i] = v;
}

__global__ void tree_in_place(float *part, float *out, int count, int half)
{
    int i = blockIdx.x * T + threadIdx.x;
    for (int s = half; s > 0; s /= 2) {
        if (i < s && i + s < count)
            part[i] += part[i + s]; /* the bug: part[i + s] is another block's */
        __syncthreads();
    }
    if (i == 0)
        *out = part[0];
}

void reduce(const float *in, float *out, int n, float *scratch)
{
    int count = (n + 31) / 32, half = 1;
    while (2 * half < count) /* the first step's stride: a power of two */
        half *= 2;
    int blocks = (count + T - 1) / T;
    sums_of_32<<<blocks, T>>>(in, scratch, n, count);
    tree_in_place<<<blocks, T>>>(scratch, out, count, half);
}
