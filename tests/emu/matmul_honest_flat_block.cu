/*
 * Not a bug (tests/emu): an honest stage 03 in another student's style: a
 * block of 256 threads in one dimension, each thread's row and column of
 * the 16 x 16 tile taken from its index, and the tiles walked by pointers.
 * Two barriers a tile: the emulator names nothing
 * (research/emulated-warnings.sh counts it among the honest kernels).
 */
#include "matmul.h"

#define S 16

__global__ void mm_flat(const float *A, const float *B, float *C, int n)
{
    __shared__ float a[S * S], b[S * S];
    int r = threadIdx.x / S, c = threadIdx.x % S;
    int row = blockIdx.y * S + r, col = blockIdx.x * S + c;
    float acc = 0.0f;
    const float *arow = A + (size_t)(row < n ? row : 0) * n;
    for (int k0 = 0; k0 < n; k0 += S) {
        a[threadIdx.x] = row < n && k0 + c < n ? arow[k0 + c] : 0.0f;
        b[threadIdx.x] = k0 + r < n && col < n ? B[(size_t)(k0 + r) * n + col] : 0.0f;
        __syncthreads(); // both tiles are in place
        for (int k = 0; k < S; k++)
            acc += a[r * S + k] * b[k * S + c];
        __syncthreads(); // nobody still reads them when the next are stored
    }
    if (row < n && col < n)
        C[(size_t)row * n + col] = acc;
}

void matmul(const float *A, const float *B, float *C, int n)
{
    dim3 grid((n + S - 1) / S, (n + S - 1) / S);
    mm_flat<<<grid, S * S>>>(A, B, C, n);
}
