/*
 * A bug a GPU hides (tests/emu): each block sums its part of the input a
 * chunk of 256 floats at a time, through a tile in shared memory (a tree,
 * then the first warp by shuffles), with no barrier at the end of a chunk:
 * the next chunk's store into the tile can overwrite what the first warp
 * still reads of this one. On a GPU that store waits for its load from
 * global memory, hundreds of cycles, and the sums come out right; nothing
 * orders the two, and the emulator names the race on shared memory, as
 * stage 03's missing second barrier. research/gpu-bugs.sh grades it on a
 * GPU: every correctness point, and a warning.
 */
#include "reduce.h"

#define BLOCK 256
#define CHUNKS 8 /* chunks a block takes, about */
#define FULL_MASK 0xffffffffu

static __device__ float warp_sum(float v)
{
    for (int offset = 16; offset > 0; offset /= 2)
        v += __shfl_down_sync(FULL_MASK, v, offset);
    return v;
}

// sums[b] = the sum of block b's chunks of x (count floats): chunk k of
// block b starts at (b + k * gridDim.x) * BLOCK
__global__ void chunk_sums(const float *x, float *sums, int count)
{
    __shared__ float tile[BLOCK];
    int tid = threadIdx.x;
    float total = 0.0f; // thread 0's
    for (int base = blockIdx.x * BLOCK; base < count; base += gridDim.x * BLOCK) {
        tile[tid] = base + tid < count ? x[base + tid] : 0.0f;
        // the tile is complete before any thread reads another's element
        __syncthreads();
        for (int s = BLOCK / 2; s > 32; s /= 2) {
            if (tid < s)
                tile[tid] += tile[tid + s];
            // this step's sums are written before the next step reads them
            __syncthreads();
        }
        if (tid < 32) {
            float v = warp_sum(tile[tid] + tile[tid + 32]);
            if (tid == 0)
                total += v;
        }
        // the bug: a __syncthreads() belongs here, before the next chunk's store
    }
    if (tid == 0)
        sums[blockIdx.x] = total;
}

void reduce(const float *in, float *out, int n, float *scratch)
{
    int blocks = (n + CHUNKS * BLOCK - 1) / (CHUNKS * BLOCK);
    chunk_sums<<<blocks, BLOCK>>>(in, scratch, n);
    chunk_sums<<<1, BLOCK>>>(scratch, out, blocks);
}
