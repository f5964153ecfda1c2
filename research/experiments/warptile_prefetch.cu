/*
 * warptile_prefetch.cu: a candidate for the bonus stage's solution, not
 * part of any build; research/experiments/warptile.cu benches it:
 *
 *   nvcc -O3 -std=c++17 -arch=native -Icommon -DCANDIDATE=1 [-DEVERY_K=1] \
 *        -o build/warptile-prefetch research/experiments/warptile.cu -lcublas
 *
 * EVERY_K=1 reads every k's fragments one k ahead (two sets live all the
 * time: 127 registers, 12 bytes spilled on sm_90 with CUDA 13.0); the
 * default only across the barrier (128 registers, 84 bytes spilled: the
 * compiler's own scheduling of the reads within a step costs more).
 *
 * The same kernel as the bonus stage's first solution (a 128 x 128 tile, 64
 * elements a thread, two blocks an SM: 89.4% of cuBLAS on an H100; the
 * solution now has a 128 x 256 tile, MEASUREMENTS.md) but for where the one
 * barrier of a tile step sits. There, every
 * warp meets the barrier after its last multiply-adds of the step, and the
 * first fragments of the next tile can only be read after it: each of the
 * 512 steps at n = 4096 drains the warp's pipeline (the barrier's wait, then
 * a shared-memory read's latency, some 30 clocks, before the next FMA).
 * Here, at the last k of a step, the next tile is stored and the barrier
 * passed *before* that k's 64 multiply-adds, whose fragments were read
 * already, and the next tile's k = 0 fragments are read right after the
 * barrier, so their latency hides behind those 64 FMAs.
 *
 * Why one barrier is still enough: step t reads half cur only before its
 * own barrier (its last fragments are read at k = BK - 2); half cur ^ 1 was
 * last read in step t - 1, before the barrier of step t - 1, which every
 * thread has passed when it stores tile t + 1 there.
 *
 * Predicted: at 4 warps a scheduler and 512 FMAs a warp a step, a step is
 * about 512 issue clocks; a drain of 50 to 80 clocks is 10 to 15% of it,
 * of which a part is hidden today by the other block on the SM. If half of
 * it is hidden, up to 5 points of cuBLAS; the registers (64 accumulators,
 * two sets of fragments live at the last k) must stay within 128.
 */
#include <stdint.h>

#include "matmul.h"

#ifndef EVERY_K
#define EVERY_K 0
#endif

#ifndef BK
#define BK 8 /* depth of a tile step: columns of the A tile, rows of the B tile */
#endif
#define BM 128   /* rows of the block's tile of C */
#define BN 128   /* columns of the block's tile of C */
#define WM 64    /* rows of a warp's tile */
#define WN 32    /* columns of a warp's tile */
#define WMITER 2 /* sub-tiles of a warp's tile down ... */
#define WNITER 2 /* ... and across */
#define TM 4     /* elements of C a thread owns in a sub-tile: rows ... */
#define TN 4     /* ... and columns */
#define WSUBM (WM / WMITER) /* 32: rows of a sub-tile */
#define WSUBN (WN / WNITER) /* 16: columns of a sub-tile */
#define THREADS ((BM / WM) * (BN / WN) * 32) /* 256: a warp per warp tile */

static_assert(BM % WM == 0 && BN % WN == 0, "the block's tile must be whole warp tiles");
static_assert((WSUBM / TM) * (WSUBN / TN) == 32, "a sub-tile must be 32 threads of TM x TN");
static_assert(BK % 4 == 0 && (BM * BK / 4) % THREADS == 0 && (BK * BN / 4) % THREADS == 0,
              "BK must be a multiple of 4, and the A and B tiles whole float4 vectors for every thread");
static_assert(2 * BK * (BM + BN) * sizeof(float) <= 48 * 1024,
              "two copies of the A and B tiles must fit in 48 KB of static shared memory: lower BK");

/* EDGE: n is not a multiple of the tiles. Then every load and store is
 * checked, zeros stand in past the edges, and the accesses are scalar (a
 * row need not start 16-byte aligned). */
template <bool EDGE>
__global__ void __launch_bounds__(THREADS, 2) matmul_warptile(const float *A, const float *B, float *C, int n)
{
    __shared__ __align__(16) float As[2][BK][BM]; /* As[buf][k][m] = A(row0 + m, k0 + k): transposed */
    __shared__ __align__(16) float Bs[2][BK][BN]; /* Bs[buf][k][c] = B(k0 + k, col0 + c) */
    const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
    /* which warp tile this warp owns, and where this thread is in a sub-tile */
    const int wm = warp / (BN / WN), wn = warp % (BN / WN);
    const int tm = lane / (WSUBN / TN), tn = lane % (WSUBN / TN);
    const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
    enum { A_VECS = BM * BK / 4 / THREADS, B_VECS = BK * BN / 4 / THREADS };
    float4 ra[A_VECS], rb[B_VECS]; /* this thread's share of the next tiles */

    /* this thread's share of the tiles at k0, from global memory into ra, rb */
    auto load = [&](int k0) {
#pragma unroll
        for (int l = 0; l < A_VECS; l++) {
            int idx = tid + l * THREADS, r = idx / (BK / 4), gk = k0 + (idx % (BK / 4)) * 4, gr = row0 + r;
            if (!EDGE) {
                ra[l] = *reinterpret_cast<const float4 *>(&A[(size_t)gr * n + gk]);
            } else {
                float v[4];
#pragma unroll
                for (int q = 0; q < 4; q++)
                    v[q] = gr < n && gk + q < n ? A[(size_t)gr * n + gk + q] : 0.0f;
                ra[l] = make_float4(v[0], v[1], v[2], v[3]);
            }
        }
#pragma unroll
        for (int l = 0; l < B_VECS; l++) {
            int idx = tid + l * THREADS, gk = k0 + idx / (BN / 4), gc = col0 + (idx % (BN / 4)) * 4;
            if (!EDGE) {
                rb[l] = *reinterpret_cast<const float4 *>(&B[(size_t)gk * n + gc]);
            } else {
                float v[4];
#pragma unroll
                for (int q = 0; q < 4; q++)
                    v[q] = gk < n && gc + q < n ? B[(size_t)gk * n + gc + q] : 0.0f;
                rb[l] = make_float4(v[0], v[1], v[2], v[3]);
            }
        }
    };
    /* ... and from ra, rb into half `buf` of the double buffer, A transposed */
    auto store = [&](int buf) {
#pragma unroll
        for (int l = 0; l < A_VECS; l++) {
            int idx = tid + l * THREADS, r = idx / (BK / 4), k = (idx % (BK / 4)) * 4;
            As[buf][k + 0][r] = ra[l].x;
            As[buf][k + 1][r] = ra[l].y;
            As[buf][k + 2][r] = ra[l].z;
            As[buf][k + 3][r] = ra[l].w;
        }
#pragma unroll
        for (int l = 0; l < B_VECS; l++) {
            int idx = tid + l * THREADS;
            *reinterpret_cast<float4 *>(&Bs[buf][idx / (BN / 4)][(idx % (BN / 4)) * 4]) = rb[l];
        }
    };

    float acc[WMITER * TM][WNITER * TN]; /* 64 elements of C, in registers */
#pragma unroll
    for (int i = 0; i < WMITER * TM; i++)
#pragma unroll
        for (int j = 0; j < WNITER * TN; j++)
            acc[i][j] = 0.0f;

    /* this thread's fragments of row k of half buf, into a and b */
    auto fragments = [&](int buf, int k, float *a, float *b) {
#pragma unroll
        for (int i = 0; i < WMITER; i++) {
            float4 v = *reinterpret_cast<const float4 *>(&As[buf][k][wm * WM + i * WSUBM + tm * TM]);
            a[i * TM + 0] = v.x, a[i * TM + 1] = v.y, a[i * TM + 2] = v.z, a[i * TM + 3] = v.w;
        }
#pragma unroll
        for (int j = 0; j < WNITER; j++) {
            float4 v = *reinterpret_cast<const float4 *>(&Bs[buf][k][wn * WN + j * WSUBN + tn * TN]);
            b[j * TN + 0] = v.x, b[j * TN + 1] = v.y, b[j * TN + 2] = v.z, b[j * TN + 3] = v.w;
        }
    };

    const int tiles = (n + BK - 1) / BK;
    load(0);
    store(0);
    __syncthreads();
#if EVERY_K
    /* -DEVERY_K=1: every k's fragments read one k ahead (two sets live) */
    float a[2][WMITER * TM], b[2][WNITER * TN]; /* fragments: [k & 1] */
    fragments(0, 0, a[0], b[0]);
    for (int t = 0; t < tiles; t++) {
        const int cur = t & 1; /* the half multiplied now; the other is filled */
        if (t + 1 < tiles)
            load((t + 1) * BK); /* in flight while this tile is multiplied */
#pragma unroll
        for (int k = 0; k < BK; k++) {
            if (k + 1 < BK) {
                fragments(cur, k + 1, a[(k + 1) & 1], b[(k + 1) & 1]);
            } else {
                /* the last k: the next tile stored and the barrier passed
                 * before this k's multiply-adds, its first fragments read
                 * right after, behind them */
                if (t + 1 < tiles)
                    store(cur ^ 1);
                __syncthreads();
                if (t + 1 < tiles)
                    fragments(cur ^ 1, 0, a[(k + 1) & 1], b[(k + 1) & 1]);
            }
#pragma unroll
            for (int i = 0; i < WMITER * TM; i++)
#pragma unroll
                for (int j = 0; j < WNITER * TN; j++)
                    acc[i][j] = fmaf(a[k & 1][i], b[k & 1][j], acc[i][j]);
        }
    }
#else
    /* the default: only across the barrier (a second set of fragments live
     * at the last k alone; within a step the compiler schedules the reads) */
    float a0[WMITER * TM], b0[WNITER * TN]; /* the next step's k = 0 fragments */
    fragments(0, 0, a0, b0);
    for (int t = 0; t < tiles; t++) {
        const int cur = t & 1; /* the half multiplied now; the other is filled */
        if (t + 1 < tiles)
            load((t + 1) * BK); /* in flight while this tile is multiplied */
#pragma unroll
        for (int k = 0; k < BK; k++) {
            float a[WMITER * TM], b[WNITER * TN];
            if (k == 0) {
#pragma unroll
                for (int i = 0; i < WMITER * TM; i++)
                    a[i] = a0[i];
#pragma unroll
                for (int j = 0; j < WNITER * TN; j++)
                    b[j] = b0[j];
            } else {
                fragments(cur, k, a, b);
            }
            if (k == BK - 1) {
                /* the next tile stored and the barrier passed before this
                 * k's multiply-adds, its first fragments read right after */
                if (t + 1 < tiles)
                    store(cur ^ 1);
                __syncthreads();
                if (t + 1 < tiles)
                    fragments(cur ^ 1, 0, a0, b0);
            }
#pragma unroll
            for (int i = 0; i < WMITER * TM; i++)
#pragma unroll
                for (int j = 0; j < WNITER * TN; j++)
                    acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
        }
    }
#endif

    /* this thread's 2 x 2 sub-tiles of 4 x 4 elements, a float4 per row */
#pragma unroll
    for (int i = 0; i < WMITER; i++)
#pragma unroll
        for (int r = 0; r < TM; r++) {
            const int gr = row0 + wm * WM + i * WSUBM + tm * TM + r;
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
    // the float4 version needs whole tiles, and 16-byte aligned arrays (then
    // every row is too, n being a multiple of 128), as in stage 06
    if (n % BM == 0 && n % BN == 0 && ((uintptr_t)A | (uintptr_t)B | (uintptr_t)C) % 16 == 0)
        matmul_warptile<false><<<grid, THREADS>>>(A, B, C, n);
    else
        matmul_warptile<true><<<grid, THREADS>>>(A, B, C, n);
}
