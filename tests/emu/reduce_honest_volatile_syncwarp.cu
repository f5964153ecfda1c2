/*
 * Not a bug (tests/emu): an honest stage 07 whose first warp ends the tree
 * in shared memory through a volatile pointer, with a __syncwarp() between
 * each read and the write after it, as the CUDA programming guide fixes the
 * older lockstep code (tests/emu/reduce_warp_steps_no_syncwarp.cu is that
 * code). One block sum per block, then a second launch. The emulator must
 * name nothing (research/emulated-warnings.sh counts it among the honest
 * kernels).
 */
#include "reduce.h"

#define B 256
#define MAX_GRID 1024

__global__ void block_tree(const float *x, float *out, int count)
{
    __shared__ float sh[B];
    int t = threadIdx.x;
    float v = 0.0f;
    for (int i = blockIdx.x * B + t; i < count; i += gridDim.x * B)
        v += x[i];
    sh[t] = v;
    __syncthreads();
    for (int s = B / 2; s >= 64; s >>= 1) {
        if (t < s)
            sh[t] += sh[t + s];
        __syncthreads();
    }
    if (t < 32) {
        volatile float *p = sh;
        float w = p[t] + p[t + 32];
        for (int s = 16; s > 0; s >>= 1) {
            // every lane has read before any lane writes, and the other way
            __syncwarp();
            p[t] = w;
            __syncwarp();
            w += p[t + s];
        }
        if (t == 0)
            out[blockIdx.x] = w;
    }
}

void reduce(const float *in, float *out, int n, float *scratch)
{
    int grid = (n + B - 1) / B;
    grid = grid < MAX_GRID ? grid : MAX_GRID;
    block_tree<<<grid, B>>>(in, scratch, n);
    block_tree<<<1, B>>>(scratch, out, grid);
}
