/*
 * A bug (tests/emu): a reduction that reads its input as float4, rounding
 * the count of vectors up, (n + 3) / 4, with no scalar tail: the last
 * vector reads up to 3 floats past the end of in. On a GPU they are
 * whatever lies there (the harness's guard values make the sum wrong,
 * other memory might not). The emulator names the four elements the
 * float4 covers and how many of them lie past the end.
 */
#include "reduce.h"

#define T 256
#define FULL_MASK 0xffffffffu

// the sum of s over the block, in thread 0: shuffles within each warp,
// then the first warp adds the warps' sums
__device__ float block_sum(float s)
{
    __shared__ float partial[T / 32];
    int tid = threadIdx.x;
    for (int offset = 16; offset > 0; offset /= 2)
        s += __shfl_down_sync(FULL_MASK, s, offset);
    if (tid % 32 == 0)
        partial[tid / 32] = s;
    // the warps' sums are in place before the first warp adds them
    __syncthreads();
    s = tid < T / 32 ? partial[tid] : 0.0f;
    if (tid < 32)
        for (int offset = 16; offset > 0; offset /= 2)
            s += __shfl_down_sync(FULL_MASK, s, offset);
    return s;
}

// one sum per block of the float4s v = blockIdx.x * T + threadIdx.x
__global__ void vector_pass(const float *in, float *out, int n)
{
    int v = blockIdx.x * T + threadIdx.x;
    float s = 0.0f;
    if (v < (n + 3) / 4) { // the bug: the last vector may run past n
        float4 x = reinterpret_cast<const float4 *>(in)[v];
        s = x.x + x.y + x.z + x.w;
    }
    s = block_sum(s);
    if (threadIdx.x == 0)
        out[blockIdx.x] = s;
}

// the blocks' sums, added by one block of scalar loads
__global__ void sum_pass(const float *in, float *out, int n)
{
    float s = 0.0f;
    for (int i = threadIdx.x; i < n; i += T)
        s += in[i];
    s = block_sum(s);
    if (threadIdx.x == 0)
        *out = s;
}

void reduce(const float *in, float *out, int n, float *scratch)
{
    int blocks = ((n + 3) / 4 + T - 1) / T;
    vector_pass<<<blocks, T>>>(in, scratch, n);
    sum_pass<<<1, T>>>(scratch, out, blocks);
}
