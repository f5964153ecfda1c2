/*
 * v4_fragbuf_all: v1_fragbuf (fragments double-buffered, the barrier before
 * the last k's multiply-adds) with the small changes of v2_raster_nc and one
 * more: the block order in groups of GROUP block rows, A and B read by
 * __ldg, and A's transposed stores into a swizzled layout, element (m, k)
 * at As[k][m ^ 4 (k % 8)], so that the two threads of a row pair (k = 0..3
 * and 4..7) store into different banks (the solution: 2 wavefronts a store,
 * make explain EX=08 SOLUTION=1). A candidate, research/experiments/w08/
 * README.md; built in the solution's place by research/w08-variants.sh:
 *
 *   nvcc -O3 -std=c++17 -arch=sm_90 -Icommon -DKERNEL_FILE='"'$PWD/research/experiments/w08/v4_fragbuf_all.cu'"' \
 *        -o build/w08-v4 research/experiments/warptile.cu -lcublas
 *   make explain EX=08 KERNEL=research/experiments/w08/v4_fragbuf_all.cu    (on the CPU)
 */
#include <stdint.h>

#include "matmul.h"

#ifndef BK
#define BK 8 /* depth of a tile step: columns of the A tile, rows of the B tile */
#endif
#ifndef GROUP
#define GROUP 16 /* block rows a group of the block order; 0: the launch's own order */
#endif
#define BM 128   /* rows of the block's tile of C */
#define BN 256   /* columns of the block's tile of C */
#define WM 64    /* rows of a warp's tile */
#define WN 64    /* columns of a warp's tile */
#define WMITER 4 /* sub-tiles of a warp's tile down ... */
#define WNITER 2 /* ... and across */
#define TM 4     /* elements of C a thread owns in a sub-tile: rows ... */
#define TN 4     /* ... and columns */
#define WSUBM (WM / WMITER) /* 16: rows of a sub-tile */
#define WSUBN (WN / WNITER) /* 32: columns of a sub-tile */
#define THREADS ((BM / WM) * (BN / WN) * 32) /* 256: a warp per warp tile */

static_assert(BM % WM == 0 && BN % WN == 0, "the block's tile must be whole warp tiles");
static_assert((WSUBM / TM) * (WSUBN / TN) == 32, "a sub-tile must be 32 threads of TM x TN");
static_assert(BK % 8 == 0 && (BM * BK / 4) % THREADS == 0 && (BK * BN / 4) % THREADS == 0,
              "BK must be a multiple of 8 (the swizzle), and the A and B tiles whole float4 vectors for every thread");
static_assert(2 * BK * (BM + BN) * sizeof(float) <= 48 * 1024, "two copies of the tiles must fit in 48 KB");

template <bool EDGE>
static __global__ void __launch_bounds__(THREADS, 1) matmul_warptile(const float *A, const float *B, float *C, int n)
{
    __shared__ __align__(16) float As[2][BK][BM]; /* As[buf][k][m ^ 4 (k % 8)] = A(row0 + m, k0 + k) */
    __shared__ __align__(16) float Bs[2][BK][BN]; /* Bs[buf][k][c] = B(k0 + k, col0 + c) */
    const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
    const int wm = warp / (BN / WN), wn = warp % (BN / WN);
    const int tm = lane / (WSUBN / TN), tn = lane % (WSUBN / TN);
    auto sub_row = [&](int i) { return wm * WM + i * WSUBM + tm * TM; };
    auto sub_col = [&](int j) { return wn * WN + j * WSUBN + tn * TN; };
    /* the block's place in C: in the launch's order, or down a group of
     * GROUP block rows a column at a time */
    int bx = blockIdx.x, by = blockIdx.y;
    if (GROUP > 0) {
        const int id = blockIdx.y * gridDim.x + blockIdx.x, per_group = GROUP * gridDim.x;
        const int first = id / per_group * GROUP, rows = min((int)gridDim.y - first, GROUP);
        by = first + id % per_group % rows;
        bx = id % per_group / rows;
    }
    const int row0 = by * BM, col0 = bx * BN;
    enum { A_VECS = BM * BK / 4 / THREADS, B_VECS = BK * BN / 4 / THREADS };
    float4 ra[A_VECS], rb[B_VECS]; /* this thread's share of the next tiles */

    /* this thread's share of the tiles at k0, from global memory into ra, rb */
    auto load = [&](int k0) {
#pragma unroll
        for (int l = 0; l < A_VECS; l++) {
            int idx = tid + l * THREADS, r = idx / (BK / 4), gk = k0 + (idx % (BK / 4)) * 4, gr = row0 + r;
            if (!EDGE) {
                ra[l] = __ldg(reinterpret_cast<const float4 *>(&A[(size_t)gr * n + gk]));
            } else {
                float v[4];
#pragma unroll
                for (int q = 0; q < 4; q++)
                    v[q] = gr < n && gk + q < n ? __ldg(&A[(size_t)gr * n + gk + q]) : 0.0f;
                ra[l] = make_float4(v[0], v[1], v[2], v[3]);
            }
        }
#pragma unroll
        for (int l = 0; l < B_VECS; l++) {
            int idx = tid + l * THREADS, gk = k0 + idx / (BN / 4), gc = col0 + (idx % (BN / 4)) * 4;
            if (!EDGE) {
                rb[l] = __ldg(reinterpret_cast<const float4 *>(&B[(size_t)gk * n + gc]));
            } else {
                float v[4];
#pragma unroll
                for (int q = 0; q < 4; q++)
                    v[q] = gk < n && gc + q < n ? __ldg(&B[(size_t)gk * n + gc + q]) : 0.0f;
                rb[l] = make_float4(v[0], v[1], v[2], v[3]);
            }
        }
    };
    /* ... and from ra, rb into half `buf` of the double buffer, A transposed
     * and swizzled: a warp's 16 rows at k and k + 4 fall 16 banks apart */
    auto store = [&](int buf) {
#pragma unroll
        for (int l = 0; l < A_VECS; l++) {
            int idx = tid + l * THREADS, r = idx / (BK / 4), k = (idx % (BK / 4)) * 4;
            As[buf][k + 0][r ^ (((k + 0) & 7) << 2)] = ra[l].x;
            As[buf][k + 1][r ^ (((k + 1) & 7) << 2)] = ra[l].y;
            As[buf][k + 2][r ^ (((k + 2) & 7) << 2)] = ra[l].z;
            As[buf][k + 3][r ^ (((k + 3) & 7) << 2)] = ra[l].w;
        }
#pragma unroll
        for (int l = 0; l < B_VECS; l++) {
            int idx = tid + l * THREADS;
            *reinterpret_cast<float4 *>(&Bs[buf][idx / (BN / 4)][(idx % (BN / 4)) * 4]) = rb[l];
        }
    };
    /* fragments: two sets, the one multiplied and the one being read */
    float a[2][WMITER * TM], b[2][WNITER * TN];
    /* row k of half buf's tiles into fragment set f (A's rows unswizzled:
     * sub_row is a multiple of 4, so its float4 stays whole) */
    auto fragments = [&](int buf, int k, int f) {
#pragma unroll
        for (int i = 0; i < WMITER; i++) {
            float4 v = *reinterpret_cast<const float4 *>(&As[buf][k][sub_row(i) ^ ((k & 7) << 2)]);
            a[f][i * TM + 0] = v.x, a[f][i * TM + 1] = v.y, a[f][i * TM + 2] = v.z, a[f][i * TM + 3] = v.w;
        }
#pragma unroll
        for (int j = 0; j < WNITER; j++) {
            float4 v = *reinterpret_cast<const float4 *>(&Bs[buf][k][sub_col(j)]);
            b[f][j * TN + 0] = v.x, b[f][j * TN + 1] = v.y, b[f][j * TN + 2] = v.z, b[f][j * TN + 3] = v.w;
        }
    };

    float acc[WMITER * TM][WNITER * TN]; /* 128 elements of C, in registers */
#pragma unroll
    for (int i = 0; i < WMITER * TM; i++)
#pragma unroll
        for (int j = 0; j < WNITER * TN; j++)
            acc[i][j] = 0.0f;

    const int tiles = (n + BK - 1) / BK;
    load(0);
    store(0);
    __syncthreads();
    fragments(0, 0, 0);
    for (int t = 0; t < tiles; t++) {
        const int cur = t & 1; /* the half multiplied now; the other is filled */
        if (t + 1 < tiles)
            load((t + 1) * BK); /* in flight while this tile is multiplied */
#pragma unroll
        for (int k = 0; k < BK; k++) {
            if (k < BK - 1) {
                fragments(cur, k + 1, (k + 1) & 1);
            } else {
                /* the last k's fragments are in registers: half cur is no
                 * longer read by this thread, and half cur ^ 1 was last read
                 * before the previous step's barrier, which every thread passed */
                if (t + 1 < tiles)
                    store(cur ^ 1);
                __syncthreads(); /* the next tile stored by all before anyone reads it */
                if (t + 1 < tiles)
                    fragments(cur ^ 1, 0, 0); /* BK is even: step k = 0 always uses set 0 */
            }
#pragma unroll
            for (int i = 0; i < WMITER * TM; i++)
#pragma unroll
                for (int j = 0; j < WNITER * TN; j++)
                    acc[i][j] = fmaf(a[k & 1][i], b[k & 1][j], acc[i][j]);
        }
    }

    /* this thread's 4 x 2 sub-tiles of 4 x 4 elements, a float4 per row */
#pragma unroll
    for (int i = 0; i < WMITER; i++)
#pragma unroll
        for (int r = 0; r < TM; r++) {
            const int gr = row0 + sub_row(i) + r;
#pragma unroll
            for (int j = 0; j < WNITER; j++) {
                const int gc = col0 + sub_col(j);
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
