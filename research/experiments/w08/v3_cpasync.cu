/*
 * v3_cpasync: stage 08's warp tiles fed by a multi-stage cp.async pipeline
 * instead of the solution's double buffer through registers. STAGES tiles
 * of A and B in shared memory: while one is multiplied, the copies of the
 * next STAGES - 1 are in flight, done by the SM from global to shared
 * memory with no registers held (cp.async, sm_80 and newer). A is stored
 * transposed, one float a copy, into a swizzled layout: element (m, k) of
 * the tile sits at As[k][m ^ 4 (k % 8)], so that a warp's 32 copies (4 rows
 * by 8 k) fall in 32 different banks and the float4 reads of 4 consecutive
 * m stay whole and aligned. The shared->register fragments are
 * double-buffered as in v1_fragbuf: the wait for the next tile and the
 * barrier come before the last k's multiply-adds. A candidate,
 * research/experiments/w08/README.md; built in the solution's place by
 * research/w08-variants.sh:
 *
 *   nvcc -O3 -std=c++17 -arch=sm_90 -Icommon -DKERNEL_FILE='"'$PWD/research/experiments/w08/v3_cpasync.cu'"' \
 *        -o build/w08-v3 research/experiments/warptile.cu -lcublas
 *   make explain EX=08 KERNEL=research/experiments/w08/v3_cpasync.cu    (on the CPU: the copies are plain)
 *
 * -DSTAGES=2..4 with BK 8, -DBK=16 -DSTAGES=2: what fits in 48 KB of static shared memory.
 * Where cp.async is missing (before sm_80, and the CPU emulation) a copy is
 * a plain load and store, which the barriers order just the same.
 */
#include <stdint.h>

#include "matmul.h"

#ifndef BK
#define BK 8 /* depth of a tile step: columns of the A tile, rows of the B tile */
#endif
#ifndef STAGES
#define STAGES 3 /* tiles in shared memory: one multiplied, STAGES - 1 on their way */
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
static_assert(BK % 8 == 0 && BM % 32 == 0 && (BM * BK) % THREADS == 0 && (BK * BN / 4) % THREADS == 0,
              "BK must be a multiple of 8 (a warp copies 4 rows of A by 8 k), the tiles whole copies for every thread");
static_assert(STAGES >= 2 && STAGES * BK * (BM + BN) * sizeof(float) <= 48 * 1024,
              "STAGES copies of the tiles must fit in 48 KB of static shared memory");

/* ============================================================ the copies */

/* one float from global to shared memory; a zero where `in` is false */
static __device__ __forceinline__ void copy_float(float *dst, const float *src, bool in)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    /* src-size 0 reads nothing and fills the 4 bytes with zeros */
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"((unsigned)__cvta_generic_to_shared(dst)),
                 "l"(src), "r"(in ? 4 : 0));
#else
    *dst = in ? *src : 0.0f;
#endif
}

/* four floats, 16-byte aligned at both ends, bypassing L1 */
static __device__ __forceinline__ void copy_float4(float *dst, const float *src)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"((unsigned)__cvta_generic_to_shared(dst)),
                 "l"(src));
#else
    *reinterpret_cast<float4 *>(dst) = *reinterpret_cast<const float4 *>(src);
#endif
}

/* the copies this thread issued since the last commit become one group */
static __device__ __forceinline__ void copies_commit()
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("cp.async.commit_group;\n" ::: "memory");
#endif
}

/* wait until at most PENDING of this thread's groups are still in flight */
template <int PENDING> static __device__ __forceinline__ void copies_wait()
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    /* "memory": no shared load may be moved above the wait */
    asm volatile("cp.async.wait_group %0;\n" ::"n"(PENDING) : "memory");
#endif
}

/* ============================================================ the kernel */

template <bool EDGE>
static __global__ void __launch_bounds__(THREADS, 1) matmul_warptile(const float *A, const float *B, float *C, int n)
{
    __shared__ __align__(16) float As[STAGES][BK][BM]; /* As[s][k][m ^ 4 (k % 8)] = A(row0 + m, k0 + k) */
    __shared__ __align__(16) float Bs[STAGES][BK][BN]; /* Bs[s][k][c] = B(k0 + k, col0 + c) */
    const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
    const int wm = warp / (BN / WN), wn = warp % (BN / WN);
    const int tm = lane / (WSUBN / TN), tn = lane % (WSUBN / TN);
    auto sub_row = [&](int i) { return wm * WM + i * WSUBM + tm * TM; };
    auto sub_col = [&](int j) { return wn * WN + j * WSUBN + tn * TN; };
    const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
    const int tiles = (n + BK - 1) / BK;

    /* the copies of tile t into stage s: A one float a copy, a warp's 32
     * on 4 rows by 8 consecutive k (4 whole sectors), B a float4 a copy */
    auto issue = [&](int t, int s) {
        const int k0 = t * BK;
#pragma unroll
        for (int l = 0; l < BM * BK / THREADS; l++) {
            const int e = tid + l * THREADS, kk = (e >> 2) & 7, group = e >> 5;
            const int m = (group / (BK / 8)) * 4 + (e & 3), k = (group % (BK / 8)) * 8 + kk;
            const int gr = row0 + m, gk = k0 + k;
            const bool in = !EDGE || (gr < n && gk < n);
            copy_float(&As[s][k][m ^ (kk << 2)], in ? &A[(size_t)gr * n + gk] : A, in);
        }
#pragma unroll
        for (int l = 0; l < BK * BN / 4 / THREADS; l++) {
            const int e = tid + l * THREADS, k = e / (BN / 4), c = (e % (BN / 4)) * 4;
            const int gk = k0 + k, gc = col0 + c;
            if (!EDGE) {
                copy_float4(&Bs[s][k][c], &B[(size_t)gk * n + gc]);
            } else {
#pragma unroll
                for (int q = 0; q < 4; q++) {
                    const bool in = gk < n && gc + q < n;
                    copy_float(&Bs[s][k][c + q], in ? &B[(size_t)gk * n + gc + q] : B, in);
                }
            }
        }
    };
    /* fragments: two sets, the one multiplied and the one being read */
    float a[2][WMITER * TM], b[2][WNITER * TN];
    /* row k of stage s's tiles into fragment set f (A's rows unswizzled:
     * sub_row is a multiple of 4, so its float4 stays whole) */
    auto fragments = [&](int s, int k, int f) {
#pragma unroll
        for (int i = 0; i < WMITER; i++) {
            float4 v = *reinterpret_cast<const float4 *>(&As[s][k][sub_row(i) ^ ((k & 7) << 2)]);
            a[f][i * TM + 0] = v.x, a[f][i * TM + 1] = v.y, a[f][i * TM + 2] = v.z, a[f][i * TM + 3] = v.w;
        }
#pragma unroll
        for (int j = 0; j < WNITER; j++) {
            float4 v = *reinterpret_cast<const float4 *>(&Bs[s][k][sub_col(j)]);
            b[f][j * TN + 0] = v.x, b[f][j * TN + 1] = v.y, b[f][j * TN + 2] = v.z, b[f][j * TN + 3] = v.w;
        }
    };

    float acc[WMITER * TM][WNITER * TN]; /* 128 elements of C, in registers */
#pragma unroll
    for (int i = 0; i < WMITER * TM; i++)
#pragma unroll
        for (int j = 0; j < WNITER * TN; j++)
            acc[i][j] = 0.0f;

    /* tiles 0 .. STAGES - 2 on their way, a group each (empty past the last
     * tile, so that every thread counts the same groups) */
#pragma unroll
    for (int s = 0; s < STAGES - 1; s++) {
        if (s < tiles)
            issue(s, s);
        copies_commit();
    }
    copies_wait<STAGES - 2>(); /* tile 0 is in, the ones after may not be */
    __syncthreads();           /* ... for every thread's copies */
    fragments(0, 0, 0);
    for (int t = 0; t < tiles; t++) {
        const int s = t % STAGES;
        /* tile t + STAGES - 1 into the stage that step t - 1 read: every
         * thread read it before the barrier of step t - 1, which all passed */
        if (t + STAGES - 1 < tiles)
            issue(t + STAGES - 1, (t + STAGES - 1) % STAGES);
        copies_commit();
#pragma unroll
        for (int k = 0; k < BK; k++) {
            if (k < BK - 1) {
                fragments(s, k + 1, (k + 1) & 1);
            } else {
                /* t + STAGES groups committed; tile t + 1 is group t + 1 */
                copies_wait<STAGES - 2>();
                __syncthreads(); /* tile t + 1 in for all; stage s read by all for the last time */
                if (t + 1 < tiles)
                    fragments((t + 1) % STAGES, 0, 0); /* BK is even: step k = 0 always uses set 0 */
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
    // 16-byte copies of B need whole tiles and 16-byte aligned arrays (then
    // every row is too, n being a multiple of 256)
    if (n % BM == 0 && n % BN == 0 && ((uintptr_t)A | (uintptr_t)B | (uintptr_t)C) % 16 == 0)
        matmul_warptile<false><<<grid, THREADS>>>(A, B, C, n);
    else
        matmul_warptile<true><<<grid, THREADS>>>(A, B, C, n);
}
