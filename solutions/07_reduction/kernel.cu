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
 * many elements into a register, read as float4, 16 bytes a load (step 6).
 * Two passes: one partial sum per block, then one block adds those.
 *
 *   make run EX=07 SOLUTION=1          check, then time, this file
 *   make sweep EX=07 SOLUTION=1        try BLOCK = 128, 256, 512
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
    // each step adds the upper half of the lanes still in play onto the lower
    for (int offset = 16; offset > 0; offset /= 2)
        v += __shfl_down_sync(FULL_MASK, v, offset);
    return v;
}

// One pass: the threads of the grid together add all n elements of in;
// block b writes the sum of what its threads added to out[b].
__global__ void reduce_pass(const float *in, float *out, int n)
{
    __shared__ float partial[BLOCK];
    int tid = threadIdx.x;
    int first = blockIdx.x * BLOCK + tid; // this thread's index in the grid
    int stride = gridDim.x * BLOCK;       // threads in the grid

    // in is 16-byte aligned (reduce.h), so in4[k] is elements 4k to 4k+3 in
    // one 16-byte load; neighbouring threads read neighbouring float4s, a
    // warp 512 contiguous bytes per load
    const float4 *in4 = reinterpret_cast<const float4 *>(in);
    int n4 = n / 4;
    float v = 0.0f;
    for (int k = first; k < n4; k += stride) {
        float4 q = in4[k];
        v += (q.x + q.y) + (q.z + q.w);
    }
    // the n % 4 elements after the last whole float4, one each for the
    // first threads of the grid
    if (first < n - 4 * n4)
        v += in[4 * n4 + first];

    partial[tid] = v;
    // every thread's value must be in shared memory before any thread reads
    // another's
    __syncthreads();

    for (int s = BLOCK / 2; s > 32; s /= 2) {
        if (tid < s)
            partial[tid] += partial[tid + s];
        // this step's sums must be written before the next step reads them;
        // outside the if, so that every thread of the block reaches it
        __syncthreads();
    }

    // the last 64 partial sums: the first warp adds them in registers
    if (tid < 32) {
        float w = warp_sum(partial[tid] + partial[tid + 32]);
        if (tid == 0)
            out[blockIdx.x] = w;
    }
}

void reduce(const float *in, float *out, int n, float *scratch)
{
    // enough blocks for one float4 per thread, but no more than MAX_THREADS
    // threads: past that, each thread takes more elements instead
    int blocks = (n + 4 * BLOCK - 1) / (4 * BLOCK);
    if (blocks > MAX_THREADS / BLOCK)
        blocks = MAX_THREADS / BLOCK;
    if (blocks == 1) {
        // a small input: one block adds it all and writes the answer
        reduce_pass<<<1, BLOCK>>>(in, out, n);
        return;
    }
    // one partial sum per block into scratch (16-byte aligned as well), then
    // one block adds those
    reduce_pass<<<blocks, BLOCK>>>(in, scratch, n);
    reduce_pass<<<1, BLOCK>>>(scratch, out, blocks);
}
