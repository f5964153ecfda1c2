/*
 * A bug a GPU hides (tests/emu): a plain two-pass reduction whose threads
 * past the end of their data return at once, before the barriers of the
 * tree that the others wait at. The tree reads only the elements of threads
 * that stayed, and a GPU since Volta lets a barrier go on without the
 * threads that returned, so the sums come out right there; the CUDA
 * programming guide makes no such promise. The emulator names the thread
 * that returned and the one that waits. research/gpu-bugs.sh grades it on a
 * GPU: every correctness point, and a warning.
 */
#include "reduce.h"

#define THREADS 256
#define BLOCKS 1024

// The sum of the x of the block's first count threads, for every thread: a
// tree in shared memory, each step adding the upper half onto the lower
// where the upper element exists.
static __device__ float tree_sum(float x, int count)
{
    __shared__ float s[THREADS];
    int t = threadIdx.x;
    s[t] = x;
    __syncthreads();
    for (int half = THREADS / 2; half > 0; half /= 2) {
        if (t < half && t + half < count)
            s[t] += s[t + half];
        __syncthreads();
    }
    return s[0];
}

__global__ void block_sums(const float *in, float *sums, int n)
{
    int base = blockIdx.x * THREADS, first = base + threadIdx.x;
    // the bug: the threads past the end leave before the tree's barriers
    if (first >= n)
        return;
    float x = 0.0f;
    for (int i = first; i < n; i += gridDim.x * THREADS)
        x += in[i];
    x = tree_sum(x, min(THREADS, n - base));
    if (threadIdx.x == 0)
        sums[blockIdx.x] = x;
}

__global__ void total(const float *sums, float *out, int count)
{
    // the same bug: with fewer sums than threads, the others leave
    if (threadIdx.x >= count)
        return;
    float x = 0.0f;
    for (int i = threadIdx.x; i < count; i += THREADS)
        x += sums[i];
    x = tree_sum(x, min(THREADS, count));
    if (threadIdx.x == 0)
        *out = x;
}

void reduce(const float *in, float *out, int n, float *scratch)
{
    int blocks = (n + THREADS - 1) / THREADS;
    if (blocks > BLOCKS)
        blocks = BLOCKS;
    block_sums<<<blocks, THREADS>>>(in, scratch, n);
    total<<<1, THREADS>>>(scratch, out, blocks);
}
