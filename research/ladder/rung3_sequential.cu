/*
 * Rung 3 of the reduction ladder (handouts/07_reduction.md): sequential
 * addressing.
 *
 * What this version changes: s runs from BLOCK/2 down, and the threads
 * tid < s add partial[tid + s] onto partial[tid]. The active threads are
 * the first s, whole warps, and a warp reads 32 consecutive words: one per
 * bank, no conflict.
 *
 *   make kernel EX=07 KERNEL=research/ladder/rung3_sequential.cu
 *   build/07_reduction/kernels/rung3_sequential
 */
#include "reduce.h"

#define BLOCK 256     /* threads per block */
#define PER_BLOCK 256 /* elements a block sums: one a thread */

static __global__ void reduce_pass(const float *in, float *out, int n)
{
    __shared__ float partial[BLOCK];
    int tid = threadIdx.x;
    int i = blockIdx.x * PER_BLOCK + tid;
    partial[tid] = i < n ? in[i] : 0.0f;
    // every element must be in shared memory before any thread reads another's
    __syncthreads();
    for (int s = BLOCK / 2; s > 0; s /= 2) {
        if (tid < s)
            partial[tid] += partial[tid + s];
        // this step's sums must be written before the next step reads them
        __syncthreads();
    }
    if (tid == 0)
        out[blockIdx.x] = partial[0];
}

// One pass a level, until one block is left, which writes out. The partial
// sums alternate between two regions of scratch so that no pass overwrites
// its own input (n/256 + n/65536 floats: reduce.h gives more).
void reduce(const float *in, float *out, int n, float *scratch)
{
    float *region[2] = {scratch, scratch + (n + PER_BLOCK - 1) / PER_BLOCK};
    for (int which = 0; n > PER_BLOCK; which ^= 1) {
        int blocks = (n + PER_BLOCK - 1) / PER_BLOCK;
        reduce_pass<<<blocks, BLOCK>>>(in, region[which], n);
        in = region[which];
        n = blocks;
    }
    reduce_pass<<<1, BLOCK>>>(in, out, n);
}
