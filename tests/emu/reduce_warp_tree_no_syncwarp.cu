/*
 * A bug a GPU hides (tests/emu): the older textbook reduction, whose last
 * warp finishes the tree in shared memory through a volatile pointer with
 * no __syncwarp() between its steps. It relied on the 32 lanes of a warp
 * running in lockstep, which no GPU since Volta promises: a lane can read
 * partial[tid + 16] before its owner has added into it. The emulator names
 * the race between two lanes of one warp, and says what orders them
 * (__syncwarp() or shuffles), not a __syncthreads(), which every thread of
 * the block would have to reach inside the branch tid < 32.
 */
#include "reduce.h"

#define T 256

// one block: each thread adds every T-th element, then the block's tree
__global__ void warp_tree_sum(const float *in, float *out, int n)
{
    __shared__ float partial[T];
    int tid = threadIdx.x;
    float v = 0.0f;
    for (int i = tid; i < n; i += T)
        v += in[i];
    partial[tid] = v;
    // every element is in place before the tree reads its neighbours
    __syncthreads();
    for (int s = T / 2; s > 32; s /= 2) {
        if (tid < s)
            partial[tid] += partial[tid + s];
        // the next step reads what this one wrote
        __syncthreads();
    }
    if (tid < 32) {
        volatile float *p = partial;
        // the bug: no __syncwarp() between these steps
        p[tid] += p[tid + 32];
        p[tid] += p[tid + 16];
        p[tid] += p[tid + 8];
        p[tid] += p[tid + 4];
        p[tid] += p[tid + 2];
        p[tid] += p[tid + 1];
        if (tid == 0)
            *out = p[0];
    }
}

void reduce(const float *in, float *out, int n, float *scratch)
{
    (void)scratch;
    warp_tree_sum<<<1, T>>>(in, out, n);
}
