/*
 * Rung 5 of the reduction ladder (handouts/07_reduction.md): rung 4 plus
 * warp shuffles for the last warp.
 *
 * What this version changes: the tree in shared memory stops at 64 partial
 * sums; the first warp adds those in registers with __shfl_down_sync. That
 * saves the last six tree steps, each a block-wide barrier and a round trip
 * through shared memory, for work that one warp does on its own.
 *
 *   make kernel EX=07 KERNEL=research/ladder/rung5_warp_shuffle.cu
 *   build/07_reduction/kernels/rung5_warp_shuffle
 */
#include "reduce.h"

#define BLOCK 256           /* threads per block */
#define PER_BLOCK (2 * 256) /* elements a block sums: two a thread */
#define FULL_MASK 0xffffffffu /* all 32 lanes of a warp take part in a shuffle */

static __global__ void reduce_pass(const float *in, float *out, int n)
{
    __shared__ float partial[BLOCK];
    int tid = threadIdx.x;
    int i = blockIdx.x * PER_BLOCK + tid;
    float v = i < n ? in[i] : 0.0f;
    if (i + BLOCK < n)
        v += in[i + BLOCK];
    partial[tid] = v;
    // every sum must be in shared memory before any thread reads another's
    __syncthreads();
    for (int s = BLOCK / 2; s > 32; s /= 2) {
        if (tid < s)
            partial[tid] += partial[tid + s];
        // this step's sums must be written before the next step reads them
        __syncthreads();
    }
    if (tid >= 32)
        return;
    // the last 64 sums: the first warp adds them in registers; a shuffle
    // hands over another lane's value with the warp's synchronization built in
    v = partial[tid] + partial[tid + 32];
    for (int offset = 16; offset > 0; offset /= 2)
        v += __shfl_down_sync(FULL_MASK, v, offset);
    if (tid == 0)
        out[blockIdx.x] = v;
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
