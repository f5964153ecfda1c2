#include "reduce.h"

// Reduction #6 from "Optimizing Parallel Reduction in CUDA" (the classic
// shared-memory tree with a completely unrolled last warp), as it circulates
// on the web, with a driver around it.

template <unsigned int blockSize>
__device__ void warpReduce(volatile float *sdata, unsigned int tid)
{
    if (blockSize >= 64) sdata[tid] += sdata[tid + 32];
    if (blockSize >= 32) sdata[tid] += sdata[tid + 16];
    if (blockSize >= 16) sdata[tid] += sdata[tid + 8];
    if (blockSize >= 8) sdata[tid] += sdata[tid + 4];
    if (blockSize >= 4) sdata[tid] += sdata[tid + 2];
    if (blockSize >= 2) sdata[tid] += sdata[tid + 1];
}

template <unsigned int blockSize>
__global__ void reduce6(const float *g_idata, float *g_odata, unsigned int n)
{
    extern __shared__ float sdata[];
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * (blockSize * 2) + tid;
    unsigned int gridSize = blockSize * 2 * gridDim.x;
    sdata[tid] = 0;
    while (i < n) {
        sdata[tid] += g_idata[i];
        if (i + blockSize < n)
            sdata[tid] += g_idata[i + blockSize];
        i += gridSize;
    }
    __syncthreads();
    if (blockSize >= 512) { if (tid < 256) { sdata[tid] += sdata[tid + 256]; } __syncthreads(); }
    if (blockSize >= 256) { if (tid < 128) { sdata[tid] += sdata[tid + 128]; } __syncthreads(); }
    if (blockSize >= 128) { if (tid < 64) { sdata[tid] += sdata[tid + 64]; } __syncthreads(); }
    if (tid < 32) warpReduce<blockSize>(sdata, tid);
    if (tid == 0) g_odata[blockIdx.x] = sdata[0];
}

void reduce(const float *in, float *out, int n, float *scratch)
{
    const unsigned int threads = 256;
    int blocks = (n + threads * 2 - 1) / (threads * 2);
    if (blocks > 1024)
        blocks = 1024;
    reduce6<threads><<<blocks, threads, threads * sizeof(float)>>>(in, scratch, n);
    reduce6<threads><<<1, threads, threads * sizeof(float)>>>(scratch, out, blocks);
}
