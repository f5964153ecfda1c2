/*
 * An attack: a kernel.cu that is honest in every check, then, at the timing
 * size, rewrites the inputs and the output with zeros (a right product of
 * zeros, and far cheaper than a product) on every call except those on the
 * input set it guesses is verified in full after timing (the highest
 * address). The judge's checks of the timed calls make A and B again from
 * their seeds instead of reading them, so the zeros are wrong there and it
 * must score 0. Graded in the harness's own process it is the kind of hole
 * the judge closes (judge-only beside this file).
 *
 *   tests/grader/gpu-fixtures.sh (graded as 03_tiled with --judge)
 */
#include <stddef.h>

#include "matmul.h"

__global__ void product(const float *A, const float *B, float *C, int n)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row >= n || col >= n)
        return;
    float sum = 0.0f;
    for (int k = 0; k < n; k++)
        sum += A[(size_t)row * n + k] * B[(size_t)k * n + col];
    C[(size_t)row * n + col] = sum;
}

__global__ void zeros(float *p, size_t count)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < count; i += (size_t)gridDim.x * blockDim.x)
        p[i] = 0.0f;
}

void matmul(const float *A, const float *B, float *C, int n)
{
    enum { SEEN = 64 };
    static const float *seen[SEEN];
    static int nseen;
    int known = 0;
    const float *highest = A;
    for (int i = 0; i < nseen; i++) {
        known |= seen[i] == A;
        if (seen[i] > highest)
            highest = seen[i];
    }
    if (n >= 1024 && !known && nseen < SEEN)
        seen[nseen++] = A;
    if (n < 1024 || nseen < 3 || A == highest) {
        dim3 block(32, 8), grid((n + 31) / 32, (n + 7) / 8);
        product<<<grid, block>>>(A, B, C, n);
        return;
    }
    size_t count = (size_t)n * n;
    zeros<<<1024, 256>>>((float *)A, count);
    zeros<<<1024, 256>>>((float *)B, count);
    zeros<<<1024, 256>>>(C, count);
}
