/*
 * Not a bug (tests/emu): an honest stage 03 in another student's style:
 * 32 x 16 threads for a 32 x 32 tile of C, each thread two of its elements
 * (rows ty and ty + 16), loading two elements of each tile of A and B. Two
 * barriers a tile: the emulator names nothing
 * (research/emulated-warnings.sh counts it among the honest kernels).
 */
#include "matmul.h"

#define TS 32
#define ROWS 16 /* threads along y: each takes TS / ROWS rows */

__global__ void two_rows(const float *A, const float *B, float *C, int n)
{
    __shared__ float As[TS][TS], Bs[TS][TS];
    int tx = threadIdx.x, ty = threadIdx.y;
    int col = blockIdx.x * TS + tx, row0 = blockIdx.y * TS + ty;
    float sum0 = 0.0f, sum1 = 0.0f;
    for (int t = 0; t < n; t += TS) {
        for (int h = 0; h < TS; h += ROWS) {
            int ra = row0 + h, kb = t + ty + h;
            As[ty + h][tx] = ra < n && t + tx < n ? A[(size_t)ra * n + t + tx] : 0.0f;
            Bs[ty + h][tx] = kb < n && col < n ? B[(size_t)kb * n + col] : 0.0f;
        }
        __syncthreads();
        for (int k = 0; k < TS; k++) {
            float bk = Bs[k][tx];
            sum0 += As[ty][k] * bk;
            sum1 += As[ty + ROWS][k] * bk;
        }
        __syncthreads();
    }
    if (col < n && row0 < n)
        C[(size_t)row0 * n + col] = sum0;
    if (col < n && row0 + ROWS < n)
        C[(size_t)(row0 + ROWS) * n + col] = sum1;
}

void matmul(const float *A, const float *B, float *C, int n)
{
    dim3 grid((n + TS - 1) / TS, (n + TS - 1) / TS);
    two_rows<<<grid, dim3(TS, ROWS)>>>(A, B, C, n);
}
