/*
 * A bug (tests/emu): every thread adds its element to *out with a plain
 * read-modify-write, no atomic. On a GPU two threads read the same old
 * value and one of the two additions is lost; here the threads take turns,
 * and the sum comes out right. The emulator names the race on global
 * memory, with both lines.
 */
#include "reduce.h"

#define T 256

__global__ void zero(float *out) { *out = 0.0f; }

__global__ void add_all(const float *in, float *out, int n)
{
    int i = blockIdx.x * T + threadIdx.x;
    if (i < n)
        *out += in[i]; /* the bug: atomicAdd(out, in[i]) */
}

void reduce(const float *in, float *out, int n, float *scratch)
{
    (void)scratch;
    zero<<<1, 1>>>(out);
    add_all<<<(n + T - 1) / T, T>>>(in, out, n);
}
