/*
 * A bug a GPU hides (tests/emu): stage 07's solution whose first warp ends
 * the tree in shared memory, through a volatile pointer, with no
 * __syncwarp() between the steps: the older textbook code, which relied on
 * the 32 lanes of a warp running in lockstep, as no GPU since Volta
 * promises. On a GPU the sums come out right; the emulator names the race
 * between two lanes of the warp. research/gpu-bugs.sh grades it on a GPU:
 * every point, and a warning.
 */
#include "reduce.h"

#define BLOCK 256
#define MAX_THREADS (1 << 18)

static __device__ float block_sum(float v)
{
    __shared__ float partial[BLOCK];
    int tid = threadIdx.x;
    partial[tid] = v;
    __syncthreads();
    for (int s = BLOCK / 2; s > 32; s /= 2) {
        if (tid < s)
            partial[tid] += partial[tid + s];
        __syncthreads();
    }
    if (tid < 32) {
        volatile float *p = partial;
        // the bug: no __syncwarp() between these steps
        p[tid] += p[tid + 32];
        p[tid] += p[tid + 16];
        p[tid] += p[tid + 8];
        p[tid] += p[tid + 4];
        p[tid] += p[tid + 2];
        p[tid] += p[tid + 1];
    }
    return tid == 0 ? partial[0] : 0.0f;
}

static __device__ unsigned int blocks_done;

// the solution's one launch: float4 loads in a grid-stride loop, the
// blocks' sums added by the block that finishes last
__global__ void reduce_all(const float *in, float *partials, float *out, int n)
{
    __shared__ bool last;
    int tid = threadIdx.x, first = blockIdx.x * BLOCK + tid, stride = gridDim.x * BLOCK;
    const float4 *in4 = reinterpret_cast<const float4 *>(in);
    int n4 = n / 4;
    float v = 0.0f;
    for (int k = first; k < n4; k += stride) {
        float4 q = in4[k];
        v += (q.x + q.y) + (q.z + q.w);
    }
    if (first < n - 4 * n4)
        v += in[4 * n4 + first];
    float sum = block_sum(v);
    if (tid == 0) {
        partials[blockIdx.x] = sum;
        __threadfence();
        last = atomicAdd(&blocks_done, 1u) == gridDim.x - 1;
    }
    __syncthreads();
    if (!last)
        return;
    float p = 0.0f;
    for (int b = tid; b < gridDim.x; b += BLOCK)
        p += __ldcg(&partials[b]);
    float total = block_sum(p);
    if (tid == 0) {
        *out = total;
        blocks_done = 0;
    }
}

void reduce(const float *in, float *out, int n, float *scratch)
{
    int blocks = (n + 4 * BLOCK - 1) / (4 * BLOCK);
    if (blocks > MAX_THREADS / BLOCK)
        blocks = MAX_THREADS / BLOCK;
    reduce_all<<<blocks, BLOCK>>>(in, scratch, out, n);
}
