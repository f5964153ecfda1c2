/*
 * warptile_independent.cu: a stage-08 kernel written from handout 08 alone,
 * as a student who never saw the skeleton would: the handout's 256 x 128
 * block tile (its table's second shape), 64 x 64 warp tiles in 4 x 2
 * sub-tiles of 4 x 4 elements a thread, a double buffer through registers,
 * BK = 8, one block an SM. Where the skeleton gives the solution its loads
 * and stores, this file has its own plain ones: one kernel for every n,
 * every global load checked and scalar (8 floats of A and 4 of B a thread
 * a step), the A tile stored transposed a float at a time (8 lanes to a
 * bank: the handout's question 5 counts what that costs), C written a
 * float at a time. The fragments are the handout's float4 reads.
 *
 * LATE_LOADS=1 issues the next tile's loads after this tile's
 * multiply-adds instead of before them: still two halves and one barrier
 * a step, still correct, but every load is waited for at once, as with
 * the solution's -DDOUBLE_BUFFER=0 (64.2% of cuBLAS on an H200).
 *
 *   make kernel EX=08 KERNEL=research/experiments/warptile_independent.cu
 *   build/08_warptiling/kernels/warptile_independent    check, then time
 *   research/w08-tier.sh OUTDIR    graded by the judge beside the solution
 */
#include "matmul.h"

#ifndef LATE_LOADS
#define LATE_LOADS 0
#endif
#define BM 256
#define BN 128
#define BK 8
#define WM 64
#define WN 64
#define WMITER 4
#define WNITER 2
#define TM 4
#define TN 4
#define THREADS 256                     /* 8 warps: 4 x 2 warp tiles */
#define A_PER_THREAD (BM * BK / THREADS) /* 8 */
#define B_PER_THREAD (BK * BN / THREADS) /* 4 */

static __global__ void __launch_bounds__(THREADS, 1) sgemm_warptile(const float *A, const float *B, float *C, int n)
{
    __shared__ __align__(16) float As[2][BK][BM]; /* transposed: As[buf][k][row] */
    __shared__ __align__(16) float Bs[2][BK][BN];
    int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
    int warp_row = warp / (BN / WN), warp_col = warp % (BN / WN);
    int thread_row = lane / 8, thread_col = lane % 8; /* 4 x 8 lanes in a 16 x 32 sub-tile */
    int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
    float ra[A_PER_THREAD], rb[B_PER_THREAD];
    float acc[WMITER * TM][WNITER * TN] = {};

    // global -> registers: element tid + l*THREADS of each tile, zeros past the edges
    auto fetch = [&](int k0) {
#pragma unroll
        for (int l = 0; l < A_PER_THREAD; l++) {
            int idx = tid + l * THREADS, r = idx / BK, c = idx % BK;
            ra[l] = row0 + r < n && k0 + c < n ? A[(size_t)(row0 + r) * n + k0 + c] : 0.0f;
        }
#pragma unroll
        for (int l = 0; l < B_PER_THREAD; l++) {
            int idx = tid + l * THREADS, r = idx / BN, c = idx % BN;
            rb[l] = k0 + r < n && col0 + c < n ? B[(size_t)(k0 + r) * n + col0 + c] : 0.0f;
        }
    };
    // registers -> shared, A transposed
    auto put = [&](int buf) {
#pragma unroll
        for (int l = 0; l < A_PER_THREAD; l++) {
            int idx = tid + l * THREADS;
            As[buf][idx % BK][idx / BK] = ra[l];
        }
#pragma unroll
        for (int l = 0; l < B_PER_THREAD; l++) {
            int idx = tid + l * THREADS;
            Bs[buf][idx / BN][idx % BN] = rb[l];
        }
    };

    int steps = (n + BK - 1) / BK;
    fetch(0);
    put(0);
    __syncthreads();
    for (int s = 0; s < steps; s++) {
        int cur = s % 2;
        bool more = s + 1 < steps;
        if (!LATE_LOADS && more)
            fetch((s + 1) * BK);
#pragma unroll
        for (int k = 0; k < BK; k++) {
            float a[WMITER * TM], b[WNITER * TN];
#pragma unroll
            for (int i = 0; i < WMITER; i++)
                *reinterpret_cast<float4 *>(&a[i * TM]) = *reinterpret_cast<const float4 *>(
                    &As[cur][k][warp_row * WM + i * (WM / WMITER) + thread_row * TM]);
#pragma unroll
            for (int j = 0; j < WNITER; j++)
                *reinterpret_cast<float4 *>(&b[j * TN]) = *reinterpret_cast<const float4 *>(
                    &Bs[cur][k][warp_col * WN + j * (WN / WNITER) + thread_col * TN]);
#pragma unroll
            for (int i = 0; i < WMITER * TM; i++)
#pragma unroll
                for (int j = 0; j < WNITER * TN; j++)
                    acc[i][j] += a[i] * b[j];
        }
        if (LATE_LOADS && more)
            fetch((s + 1) * BK);
        if (more)
            put(1 - cur);
        __syncthreads();
    }

#pragma unroll
    for (int i = 0; i < WMITER * TM; i++)
#pragma unroll
        for (int j = 0; j < WNITER * TN; j++) {
            int r = row0 + warp_row * WM + (i / TM) * (WM / WMITER) + thread_row * TM + i % TM;
            int c = col0 + warp_col * WN + (j / TN) * (WN / WNITER) + thread_col * TN + j % TN;
            if (r < n && c < n)
                C[(size_t)r * n + c] = acc[i][j];
        }
}

void matmul(const float *A, const float *B, float *C, int n)
{
    dim3 grid((n + BN - 1) / BN, (n + BM - 1) / BM);
    sgemm_warptile<<<grid, THREADS>>>(A, B, C, n);
}
