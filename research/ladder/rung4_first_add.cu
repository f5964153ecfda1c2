/*
 * Rung 4 of the reduction ladder (handouts/07_reduction.md): the first add
 * during the load.
 *
 * What this version changes: in rung 3 half of the threads idle from the
 * first step. Here each thread loads two elements, BLOCK apart, and adds
 * them before the tree, so a block sums 2 * BLOCK elements and half as
 * many blocks do the same work. The tree is rung 3's.
 *
 *   make kernel EX=07 KERNEL=research/ladder/rung4_first_add.cu
 *   build/07_reduction/kernels/rung4_first_add
 */
#include "reduce.h"

#define BLOCK 256           /* threads per block */
#define PER_BLOCK (2 * 256) /* elements a block sums: two a thread */

static __global__ void reduce_pass(const float *in, float *out, int n)
{
    __shared__ float partial[BLOCK];
    int tid = threadIdx.x;
    int i = blockIdx.x * PER_BLOCK + tid;
    // both loads of a warp are 32 consecutive floats
    float v = i < n ? in[i] : 0.0f;
    if (i + BLOCK < n)
        v += in[i + BLOCK];
    partial[tid] = v;
    // every sum must be in shared memory before any thread reads another's
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
// its own input (n/512 + n/262144 floats: reduce.h gives more).
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
