/*
 * Not a bug (tests/emu): an honest stage 07 in another student's style:
 * float4 loads in a grid-stride loop, every warp's sum by butterfly
 * shuffles (__shfl_xor_sync: every lane ends with the sum), the warps' sums
 * through shared memory after one barrier, and a second launch for the
 * blocks' sums. The emulator must name nothing
 * (research/emulated-warnings.sh counts it among the honest kernels).
 */
#include "reduce.h"

#define THREADS 512
#define WARPS (THREADS / 32)
#define GRID 512

static __device__ float butterfly(float v)
{
    for (int m = 16; m > 0; m >>= 1)
        v += __shfl_xor_sync(0xffffffffu, v, m);
    return v;
}

// out[blockIdx.x] = the sum of the block's share of x (count floats)
__global__ void sums(const float *x, float *out, int count)
{
    __shared__ float per_warp[WARPS];
    int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    int i = blockIdx.x * THREADS + threadIdx.x, step = gridDim.x * THREADS;
    float v = 0.0f;
    for (int j = i; j < count / 4; j += step) {
        float4 q = reinterpret_cast<const float4 *>(x)[j];
        v += q.x + q.y + q.z + q.w;
    }
    for (int j = count / 4 * 4 + i; j < count; j += step)
        v += x[j];
    v = butterfly(v);
    if (lane == 0)
        per_warp[warp] = v;
    __syncthreads(); // every warp's sum is in
    if (warp == 0) {
        v = butterfly(lane < WARPS ? per_warp[lane] : 0.0f);
        if (lane == 0)
            out[blockIdx.x] = v;
    }
}

void reduce(const float *in, float *out, int n, float *scratch)
{
    int blocks = (n + 4 * THREADS - 1) / (4 * THREADS);
    blocks = blocks < GRID ? blocks : GRID;
    sums<<<blocks, THREADS>>>(in, scratch, n);
    sums<<<1, THREADS>>>(scratch, out, blocks);
}
