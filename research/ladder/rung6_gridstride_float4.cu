/*
 * Rung 6 of the reduction ladder (handouts/07_reduction.md): a fixed grid,
 * a grid-stride loop of float4 loads, and a tree of shuffles.
 *
 * What this version changes: instead of two elements a thread and a pass a
 * level, a fixed grid of GRID blocks (about one full GPU) walks over the
 * whole array; each thread adds many elements into a register, read as
 * float4, 16 bytes a load. Each block's sum is a tree of shuffles: every
 * warp adds its 32 values in registers, then the first warp adds the
 * warps' sums. A second launch of one block adds the GRID partial sums:
 * two launches for any n.
 *
 *   make kernel EX=07 KERNEL=research/ladder/rung6_gridstride_float4.cu
 *   build/07_reduction/kernels/rung6_gridstride_float4
 */
#include "reduce.h"

#define BLOCK 256  /* threads per block */
#define GRID 1024  /* blocks of the first pass: 2^18 threads, as many as a large GPU holds */
#define FULL_MASK 0xffffffffu /* all 32 lanes of a warp take part in a shuffle */

// The sum of v over the 32 lanes of a warp, left in lane 0.
static __device__ float warp_sum(float v)
{
    for (int offset = 16; offset > 0; offset /= 2)
        v += __shfl_down_sync(FULL_MASK, v, offset);
    return v;
}

// The sum of v over the block, left in thread 0: each warp's sum by
// shuffles, then the first warp adds the BLOCK / 32 warps' sums.
static __device__ float block_sum(float v)
{
    __shared__ float warp_sums[BLOCK / 32];
    int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    v = warp_sum(v);
    if (lane == 0)
        warp_sums[warp] = v;
    // every warp's sum must be written before the first warp reads them
    __syncthreads();
    v = threadIdx.x < BLOCK / 32 ? warp_sums[threadIdx.x] : 0.0f;
    return warp == 0 ? warp_sum(v) : 0.0f;
}

// Block b adds its share of in and writes it to partial[b].
static __global__ void partial_sums(const float *in, float *partial, int n)
{
    int first = blockIdx.x * BLOCK + threadIdx.x; // this thread's index in the grid
    int stride = gridDim.x * BLOCK;               // threads in the grid
    // in is 16-byte aligned (reduce.h), so in4[k] is elements 4k to 4k+3;
    // neighbouring threads read neighbouring float4s, 512 bytes a warp
    const float4 *in4 = reinterpret_cast<const float4 *>(in);
    int n4 = n / 4;
    float v = 0.0f;
    for (int k = first; k < n4; k += stride) {
        float4 q = in4[k];
        v += (q.x + q.y) + (q.z + q.w);
    }
    // the n % 4 elements after the last whole float4
    if (first < n - 4 * n4)
        v += in[4 * n4 + first];
    v = block_sum(v);
    if (threadIdx.x == 0)
        partial[blockIdx.x] = v;
}

// One block adds the count partial sums and writes out.
static __global__ void final_sum(const float *partial, float *out, int count)
{
    float v = 0.0f;
    for (int b = threadIdx.x; b < count; b += BLOCK)
        v += partial[b];
    v = block_sum(v);
    if (threadIdx.x == 0)
        *out = v;
}

void reduce(const float *in, float *out, int n, float *scratch)
{
    // enough blocks for one float4 a thread, but no more than GRID
    int blocks = (n + 4 * BLOCK - 1) / (4 * BLOCK);
    if (blocks > GRID)
        blocks = GRID;
    partial_sums<<<blocks, BLOCK>>>(in, scratch, n);
    final_sum<<<1, BLOCK>>>(scratch, out, blocks);
}
