/*
 * warptile_async.cu: a candidate for the bonus stage's solution, not part
 * of any build; research/experiments/warptile.cu benches it:
 *
 *   nvcc -O3 -std=c++17 -arch=native -Icommon -DCANDIDATE=2 [-DSTAGES=4] \
 *        -o build/warptile-async research/experiments/warptile.cu -lcublas
 *
 * The solution's warp tiles (solutions/08_warptiling/kernel.cu), with the
 * tiles copied from global to shared memory by the copy engine of the SM
 * (cp.async, sm_80 and later) instead of through registers, STAGES tiles
 * deep instead of two:
 *   - no registers hold the next tile, and no instructions of the thread
 *     store it: the copy writes shared memory itself, and the thread waits
 *     for it (cp.async.wait_group) only when it needs that tile;
 *   - with STAGES = 3, two tiles are on their way while one is multiplied.
 * A copy cannot transpose, so A's tile keeps A's order, by groups of 4 k:
 * As[s][k / 4][m] is the float4 A(row0 + m, k0 + k .. k + 3). A thread
 * reads 8 such float4 (its 8 rows) for 4 steps of k, as many reads as the
 * solution's 2 a step. For these reads to be free of conflicts, a thread's
 * rows in a sub-tile are 8 apart (tm, tm + 8, ...) rather than 4 adjacent:
 * the 8 thread-rows of a warp then read 8 consecutive float4, 128 bytes.
 *
 * Predicted: the solution spends, per 8-deep tile step and thread, 2
 * global loads, 4 + 1 shared stores and their address arithmetic beside
 * 512 FMAs, and waits at the barrier for stores that were issued late; a
 * few points of cuBLAS at most. The price: 32 registers of A fragments
 * (4 k at once) instead of 8.
 */
#include <stdint.h>

#include "matmul.h"

#ifndef BK
#define BK 8 /* depth of a tile step */
#endif
#ifndef STAGES
#define STAGES 3 /* tiles in shared memory: one multiplied, STAGES - 1 on their way */
#endif
#ifndef BM
#define BM 128
#define BN 128
#define WM 64
#define WN 32
#define WMITER 2
#define WNITER 2
#define TM 4
#define TN 4
#endif
#ifndef MIN_BLOCKS
#define MIN_BLOCKS 2
#endif
#define WSUBM (WM / WMITER)
#define WSUBN (WN / WNITER)
#define TROWS (WSUBM / TM) /* thread-rows of a sub-tile: a thread's rows are TROWS apart */
#define THREADS ((BM / WM) * (BN / WN) * 32)

static_assert(BM % WM == 0 && BN % WN == 0, "the block's tile must be whole warp tiles");
static_assert((WSUBM / TM) * (WSUBN / TN) == 32, "a sub-tile must be 32 threads of TM x TN");
static_assert(BK % 4 == 0 && (BM * BK / 4) % THREADS == 0 && (BK * BN / 4) % THREADS == 0,
              "BK must be a multiple of 4, and the A and B tiles whole float4 vectors for every thread");
static_assert(STAGES >= 2 && STAGES * BK * (BM + BN) * sizeof(float) <= 48 * 1024,
              "STAGES copies of the A and B tiles must fit in 48 KB of static shared memory");

__device__ __forceinline__ void copy16(void *shared, const void *global)
{
    unsigned s = (unsigned)__cvta_generic_to_shared(shared);
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(s), "l"(global));
}

/* 4 bytes, or 4 zeros when !ok (then nothing is read) */
__device__ __forceinline__ void copy4(void *shared, const void *global, bool ok)
{
    unsigned s = (unsigned)__cvta_generic_to_shared(shared);
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(s), "l"(global), "r"(ok ? 4 : 0));
}

__device__ __forceinline__ void commit() { asm volatile("cp.async.commit_group;\n" ::); }

template <int N> __device__ __forceinline__ void wait_for_all_but() { asm volatile("cp.async.wait_group %0;\n" ::"n"(N)); }

__device__ __forceinline__ float part(float4 v, int q) { return q == 0 ? v.x : q == 1 ? v.y : q == 2 ? v.z : v.w; }

template <bool EDGE>
__global__ void __launch_bounds__(THREADS, MIN_BLOCKS) matmul_warptile(const float *A, const float *B, float *C, int n)
{
    __shared__ __align__(16) float4 As[STAGES][BK / 4][BM]; /* As[s][q][m] = A(row0 + m, k0 + 4q .. 4q + 3) */
    __shared__ __align__(16) float Bs[STAGES][BK][BN];      /* Bs[s][k][c] = B(k0 + k, col0 + c) */
    const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
    const int wm = warp / (BN / WN), wn = warp % (BN / WN);
    const int tm = lane / (WSUBN / TN), tn = lane % (WSUBN / TN);
    const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
    enum { A_VECS = BM * BK / 4 / THREADS, B_VECS = BK * BN / 4 / THREADS };

    /* start the copies of the tiles at k0 into stage s */
    auto load = [&](int s, int k0) {
#pragma unroll
        for (int l = 0; l < A_VECS; l++) {
            int idx = tid + l * THREADS, r = idx / (BK / 4), q = idx % (BK / 4), gr = row0 + r, gk = k0 + q * 4;
            if (!EDGE) {
                copy16(&As[s][q][r], &A[(size_t)gr * n + gk]);
            } else {
#pragma unroll
                for (int e = 0; e < 4; e++) {
                    bool ok = gr < n && gk + e < n;
                    copy4((float *)&As[s][q][r] + e, ok ? &A[(size_t)gr * n + gk + e] : A, ok);
                }
            }
        }
#pragma unroll
        for (int l = 0; l < B_VECS; l++) {
            int idx = tid + l * THREADS, k = idx / (BN / 4), c = (idx % (BN / 4)) * 4, gk = k0 + k, gc = col0 + c;
            if (!EDGE) {
                copy16(&Bs[s][k][c], &B[(size_t)gk * n + gc]);
            } else {
#pragma unroll
                for (int e = 0; e < 4; e++) {
                    bool ok = gk < n && gc + e < n;
                    copy4(&Bs[s][k][c + e], ok ? &B[(size_t)gk * n + gc + e] : B, ok);
                }
            }
        }
    };

    float acc[WMITER * TM][WNITER * TN];
#pragma unroll
    for (int i = 0; i < WMITER * TM; i++)
#pragma unroll
        for (int j = 0; j < WNITER * TN; j++)
            acc[i][j] = 0.0f;

    const int tiles = (n + BK - 1) / BK;
#pragma unroll
    for (int s = 0; s < STAGES - 1; s++) {
        if (s < tiles)
            load(s, s * BK);
        commit(); /* a group for every stage, empty or not: the count below stays right */
    }
    for (int t = 0; t < tiles; t++) {
        const int cur = t % STAGES;
        wait_for_all_but<STAGES - 2>(); /* this thread's copies of tile t are in ... */
        __syncthreads();                /* ... everyone's too, and nobody multiplies tile t - 1 any more */
        if (t + STAGES - 1 < tiles)
            load((t + STAGES - 1) % STAGES, (t + STAGES - 1) * BK); /* into tile t - 1's stage */
        commit();
#pragma unroll
        for (int q = 0; q < BK / 4; q++) {
            float4 a[WMITER * TM]; /* this thread's rows, 4 steps of k each */
#pragma unroll
            for (int i = 0; i < WMITER; i++)
#pragma unroll
                for (int r = 0; r < TM; r++)
                    a[i * TM + r] = As[cur][q][wm * WM + i * WSUBM + r * TROWS + tm];
#pragma unroll
            for (int e = 0; e < 4; e++) {
                float b[WNITER * TN];
#pragma unroll
                for (int j = 0; j < WNITER; j++) {
                    float4 v = *reinterpret_cast<const float4 *>(&Bs[cur][q * 4 + e][wn * WN + j * WSUBN + tn * TN]);
                    b[j * TN + 0] = v.x, b[j * TN + 1] = v.y, b[j * TN + 2] = v.z, b[j * TN + 3] = v.w;
                }
#pragma unroll
                for (int i = 0; i < WMITER * TM; i++)
#pragma unroll
                    for (int j = 0; j < WNITER * TN; j++)
                        acc[i][j] = fmaf(part(a[i], e), b[j], acc[i][j]);
            }
        }
    }
    wait_for_all_but<0>(); /* no copy may outlive the block */

#pragma unroll
    for (int i = 0; i < WMITER; i++)
#pragma unroll
        for (int r = 0; r < TM; r++) {
            const int gr = row0 + wm * WM + i * WSUBM + r * TROWS + tm;
#pragma unroll
            for (int j = 0; j < WNITER; j++) {
                const int gc = col0 + wn * WN + j * WSUBN + tn * TN;
                const float *v = &acc[i * TM + r][j * TN];
                if (!EDGE) {
                    *reinterpret_cast<float4 *>(&C[(size_t)gr * n + gc]) = make_float4(v[0], v[1], v[2], v[3]);
                } else if (gr < n) {
#pragma unroll
                    for (int c = 0; c < TN; c++)
                        if (gc + c < n)
                            C[(size_t)gr * n + gc + c] = v[c];
                }
            }
        }
}

void matmul(const float *A, const float *B, float *C, int n)
{
    dim3 grid((n + BN - 1) / BN, (n + BM - 1) / BM);
    if (n % BM == 0 && n % BN == 0 && ((uintptr_t)A | (uintptr_t)B | (uintptr_t)C) % 16 == 0)
        matmul_warptile<false><<<grid, THREADS>>>(A, B, C, n);
    else
        matmul_warptile<true><<<grid, THREADS>>>(A, B, C, n);
}
