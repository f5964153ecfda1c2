/*
 * Not a bug (tests/emu): an honest stage 07 as the ladder's step 4 leaves
 * it: each thread adds two elements as it loads them into dynamic shared
 * memory (extern __shared__), a tree with a barrier after every step down
 * to one sum a block, and as many launches as it takes: each pass writes
 * its sums into the half of scratch its input is not in. The emulator must
 * name nothing (research/emulated-warnings.sh counts it among the honest
 * kernels).
 */
#include "reduce.h"

#define THREADS 256
#define PER_BLOCK (2 * THREADS)

__global__ void pass(const float *x, float *sums, int count)
{
    extern __shared__ float part[];
    int t = threadIdx.x, i = blockIdx.x * PER_BLOCK + t;
    part[t] = (i < count ? x[i] : 0.0f) + (i + THREADS < count ? x[i + THREADS] : 0.0f);
    __syncthreads();
    for (int s = THREADS / 2; s > 0; s >>= 1) {
        if (t < s)
            part[t] += part[t + s];
        __syncthreads();
    }
    if (t == 0)
        sums[blockIdx.x] = part[0];
}

void reduce(const float *in, float *out, int n, float *scratch)
{
    // the two halves of scratch: n / 32 and n / 1024 + 1024 floats (reduce.h)
    float *half[2] = {scratch, scratch + ((size_t)n + 31) / 32};
    const float *from = in;
    int count = n, which = 0;
    while (count > PER_BLOCK) {
        int blocks = (count + PER_BLOCK - 1) / PER_BLOCK;
        pass<<<blocks, THREADS, THREADS * sizeof(float)>>>(from, half[which], count);
        from = half[which];
        which ^= 1;
        count = blocks;
    }
    pass<<<1, THREADS, THREADS * sizeof(float)>>>(from, out, count);
}
