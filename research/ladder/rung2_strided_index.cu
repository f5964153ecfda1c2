/*
 * Rung 2 of the reduction ladder (handouts/07_reduction.md): the same pairs
 * as rung 1, done by threads 0, 1, 2, ... with a strided index.
 *
 * What this version changes: in step s thread tid adds the pair that starts
 * at k = 2*s*tid. The active threads are now packed into the first warps
 * (no divergence inside most warps, no %), but lane t of a warp reads
 * partial[2*s*t]: at s = 1 the lanes hit banks 0, 2, ..., 30 twice each, a
 * 2-way bank conflict; at s = 2, 4-way; and so on.
 *
 *   make kernel EX=07 KERNEL=research/ladder/rung2_strided_index.cu
 *   build/07_reduction/kernels/rung2_strided_index
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
    for (int s = 1; s < BLOCK; s *= 2) {
        // the pair (k, k + s) of rung 1's thread k, now handled by thread tid
        int k = 2 * s * tid;
        if (k < BLOCK)
            partial[k] += partial[k + s];
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
