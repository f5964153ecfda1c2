/*
 * 09_stencil: each output the sum of three neighbouring inputs, one thread
 * an output, so that a warp reads and writes neighbouring floats.
 *
 *   make run EX=09            check, then time, this file
 */
#include "stencil.h"

#ifndef BLOCK
#define BLOCK 256 /* threads per block */
#endif

__global__ void stencil_kernel(const float *in, float *out, int n)
{
    int i = blockIdx.x * BLOCK + threadIdx.x;
    // threads past the end do nothing (n need not be a multiple of BLOCK)
    if (i < n)
        out[i] = ((i > 0 ? in[i - 1] : 0.0f) + in[i]) + (i + 1 < n ? in[i + 1] : 0.0f);
}

void stencil(const float *in, float *out, int n)
{
    stencil_kernel<<<(n + BLOCK - 1) / BLOCK, BLOCK>>>(in, out, n);
}
