/*
 * Rung 1 of the reduction ladder (handouts/07_reduction.md): interleaved
 * pairs, divergent. The technique of the harness's own baseline
 * (common/reduce_family.cu, "interleaved, divergent (step 1)"), here as a
 * stage-07 kernel file, so that it is timed as the student's kernel is.
 *
 * Each block sums BLOCK elements in shared memory as a tree; in step s the
 * threads whose index is a multiple of 2s add the partial sum s places up.
 * Those threads are scattered over every warp, so every warp takes the
 * branch with most of its lanes idle, and % of a variable is slow.
 * Passes of the kernel follow one another until one block is left.
 *
 *   make kernel EX=07 KERNEL=research/ladder/rung1_interleaved.cu
 *   build/07_reduction/kernels/rung1_interleaved
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
        // tid is a multiple of 2s, so tid + s < BLOCK
        if (tid % (2 * s) == 0)
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
