/*
 * warptile.cu: a first warp-tiled SGEMM for the bonus stage 08, measured on
 * its own against cuBLAS before it becomes a stage (the issue asks for >= 90%
 * of cuBLAS SGEMM at n=4096, strict FP32, odd sizes included). Not part of
 * any build:
 *
 *   nvcc -O3 -std=c++17 -arch=native -Icommon -o build/warptile tools/experiments/warptile.cu -lcublas
 *   build/warptile [N]            checks at 1, 17, 129, 1000, 1024 and N, then times N
 *   ... -DBK=8 -DWN=64 ...        other tile shapes (the static_asserts say what fits)
 *
 * The kernel follows the contract of common/matmul.h (square, row-major,
 * C = A B), so that it can move into solutions/08_warptiling/kernel.cu.
 *
 * The plan, counted for n = 4096 on an H100 (132 SMs, 1.98 GHz: 66.9 FP32
 * TFLOP/s at one FMA per lane per clock):
 *   - 2 n^3 = 137.4 GFLOP; cuBLAS measured 51.5 TFLOP/s there (2.67 ms),
 *     so 90% is 46.4 TFLOP/s (2.96 ms), 69% of the FMA peak.
 *   - a block of 256 threads owns a BM x BN = 128 x 128 tile of C; its 8
 *     warps each a WM x WN = 64 x 32 piece, as WMITER x WNITER = 2 x 2
 *     sub-tiles of 32 x 16, in which each thread owns TM x TN = 4 x 4: 64
 *     accumulators a thread, in registers.
 *   - per k, a thread reads WMITER float4 of the A tile (stored transposed,
 *     As[k][m], so a thread's rows are contiguous) and WNITER float4 of the
 *     B tile, 16 floats, for 64 FMAs: 4 FMAs per float read from shared
 *     memory (stage 06's 8 x 8 thread tile has the same ratio, but its warp
 *     reads 16 different float4 of A per k; here 8, each a broadcast to the
 *     4 threads that share it: one wavefront per read).
 *   - global: 128 + 128 floats of A and B per k per block for 2 x 128 x 128
 *     flops: 32 flops a byte, 1.45 TB/s at 46.4 TFLOP/s, mostly from L2.
 *   - the next tiles are loaded into registers while the current ones are
 *     multiplied, then stored into the other half of a double buffer: one
 *     barrier per BK step. 2 x (16 x 128 x 2) floats = 32 KiB of shared
 *     memory a block; at <= 128 registers a thread, 2 blocks an SM.
 */
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "matmul.h"

#ifndef BM
#define BM 128
#endif
#ifndef BN
#define BN 128
#endif
#ifndef BK
#define BK 16
#endif
#ifndef WM
#define WM 64
#endif
#ifndef WN
#define WN 32
#endif
#ifndef WMITER
#define WMITER 2
#endif
#ifndef WNITER
#define WNITER 2
#endif
#ifndef MINB /* blocks an SM the compiler must fit: registers a thread <= 65536 / (MINB x THREADS) */
#define MINB 2
#endif
#ifndef GROUP /* > 0: blocks run in groups of GROUP block rows, for L2 reuse of B */
#define GROUP 0
#endif
#define TM 4
#define TN 4
#define WSUBM (WM / WMITER)
#define WSUBN (WN / WNITER)
#define THREADS ((BM / WM) * (BN / WN) * 32)

static_assert(BM % WM == 0 && BN % WN == 0, "the block tile must be whole warp tiles");
static_assert(WM % WMITER == 0 && WN % WNITER == 0, "the warp tile must be whole sub-tiles");
static_assert((WSUBM / TM) * (WSUBN / TN) == 32, "a sub-tile must be 32 threads of TM x TN");
static_assert(BK % 4 == 0 && (BM * BK / 4) % THREADS == 0 && (BK * BN / 4) % THREADS == 0,
              "the A and B tiles must be whole float4 vectors for every thread");
static_assert(2 * BK * (BM + BN) * sizeof(float) <= 48 * 1024, "two A and B tiles in 48 KiB of shared memory");

/* EDGE: n is not a multiple of the tiles: every load and store checked,
 * zeros past the edges, scalar accesses (a row need not start 16-byte
 * aligned). */
template <bool EDGE>
__global__ void __launch_bounds__(THREADS, MINB) sgemm_warptile(const float *A, const float *B, float *C, int n)
{
    __shared__ __align__(16) float As[2][BK][BM]; /* As[.][k][m] = A(row0 + m, k0 + k) */
    __shared__ __align__(16) float Bs[2][BK][BN];
    const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
    const int wm = warp / (BN / WN), wn = warp % (BN / WN);
    const int tm = lane / (WSUBN / TN), tn = lane % (WSUBN / TN);
    int bx = blockIdx.x, by = blockIdx.y;
    if (GROUP > 0) { /* block id -> (row, column), GROUP rows at a time, column by column */
        const int id = by * gridDim.x + bx, per = GROUP * gridDim.x, first = id / per * GROUP;
        const int rows = min((int)gridDim.y - first, GROUP);
        by = first + id % per % rows;
        bx = id % per / rows;
    }
    const int row0 = by * BM, col0 = bx * BN;
    enum { A_VECS = BM * BK / 4 / THREADS, B_VECS = BK * BN / 4 / THREADS };
    float4 ra[A_VECS], rb[B_VECS];

    /* the tiles at k0 into registers */
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
    /* ... and from registers into half `buf` of the double buffer, A transposed */
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

    float acc[WMITER * TM][WNITER * TN];
#pragma unroll
    for (int i = 0; i < WMITER * TM; i++)
#pragma unroll
        for (int j = 0; j < WNITER * TN; j++)
            acc[i][j] = 0.0f;

    const int tiles = (n + BK - 1) / BK;
    load(0);
    store(0);
    __syncthreads();
    for (int t = 0; t < tiles; t++) {
        const int cur = t & 1;
        if (t + 1 < tiles)
            load((t + 1) * BK); /* in flight while this tile is multiplied */
#pragma unroll
        for (int k = 0; k < BK; k++) {
            float a[WMITER * TM], b[WNITER * TN];
#pragma unroll
            for (int i = 0; i < WMITER; i++) {
                float4 v = *reinterpret_cast<const float4 *>(&As[cur][k][wm * WM + i * WSUBM + tm * TM]);
                a[i * TM + 0] = v.x, a[i * TM + 1] = v.y, a[i * TM + 2] = v.z, a[i * TM + 3] = v.w;
            }
#pragma unroll
            for (int j = 0; j < WNITER; j++) {
                float4 v = *reinterpret_cast<const float4 *>(&Bs[cur][k][wn * WN + j * WSUBN + tn * TN]);
                b[j * TN + 0] = v.x, b[j * TN + 1] = v.y, b[j * TN + 2] = v.z, b[j * TN + 3] = v.w;
            }
#pragma unroll
            for (int i = 0; i < WMITER * TM; i++)
#pragma unroll
                for (int j = 0; j < WNITER * TN; j++)
                    acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
        }
        if (t + 1 < tiles)
            store(cur ^ 1); /* nobody reads that half until after the barrier */
        __syncthreads();
    }

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
    if (n % BM == 0 && n % BN == 0 && n % BK == 0)
        sgemm_warptile<false><<<grid, THREADS>>>(A, B, C, n);
    else
        sgemm_warptile<true><<<grid, THREADS>>>(A, B, C, n);
}

/* ============================================================ the bench */

#define CHECK(call)                                                                                   \
    do {                                                                                              \
        cudaError_t e_ = (call);                                                                      \
        if (e_ != cudaSuccess) {                                                                      \
            fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_));               \
            exit(1);                                                                                  \
        }                                                                                             \
    } while (0)

__global__ void fill(float *p, size_t count, uint64_t seed, int absolute)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < count; i += (size_t)gridDim.x * blockDim.x) {
        uint64_t x = (seed ^ (i * 0x9e3779b97f4a7c15ULL)) + 0x632be59bd9b4e019ULL;
        x ^= x >> 30, x *= 0xbf58476d1ce4e5b9ULL, x ^= x >> 27, x *= 0x94d049bb133111ebULL, x ^= x >> 31;
        float v = (float)(x >> 40) * (1.0f / 16777216.0f) - 0.5f;
        p[i] = absolute ? fabsf(v) : v;
    }
}

/* Elements of C outside 2 gamma_n sum|a||b| of cuBLAS's product (both
 * products are within gamma_n of the exact one): the lab's bound. */
__global__ void count_bad(const float *C, const float *ref, const float *mag, size_t count, int n,
                          unsigned long long *bad)
{
    double gamma = n * (FLT_EPSILON / 2) / (1.0 - n * (FLT_EPSILON / 2));
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < count; i += (size_t)gridDim.x * blockDim.x)
        if (!(fabs((double)C[i] - ref[i]) <= 2.0 * gamma * mag[i] + FLT_MIN))
            atomicAdd(bad, 1ULL);
}

/* Row-major C = A B with column-major cuBLAS: C^T = B^T A^T. */
static void cublas_matmul(cublasHandle_t h, const float *A, const float *B, float *C, int n)
{
    const float one = 1.0f, zero = 0.0f;
    if (cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, B, n, A, n, &zero, C, n) != CUBLAS_STATUS_SUCCESS) {
        fprintf(stderr, "cublasSgemm failed\n");
        exit(1);
    }
}

static int cmp(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    int big = argc > 1 ? atoi(argv[1]) : 4096;
    cublasHandle_t h;
    cublasCreate(&h);
    cublasSetMathMode(h, CUBLAS_DEFAULT_MATH); /* FP32, no TF32 */
    cudaDeviceProp prop;
    CHECK(cudaGetDeviceProperties(&prop, 0));
    printf("warptile on %s: BM %d BN %d BK %d, warp tile %d x %d, %d x %d sub-tiles of %d x %d, %d threads\n",
           prop.name, BM, BN, BK, WM, WN, WMITER, WNITER, TM, TN, THREADS);
    cudaFuncAttributes fa;
    CHECK(cudaFuncGetAttributes(&fa, sgemm_warptile<false>));
    printf("registers %d a thread, shared %zu bytes a block\n", fa.numRegs, fa.sharedSizeBytes);

    const int sizes[] = {1, 17, 129, 1000, 1024, big};
    int all_ok = 1;
    unsigned long long *bad;
    CHECK(cudaMalloc(&bad, sizeof *bad));
    for (int s = 0; s < (int)(sizeof sizes / sizeof sizes[0]); s++) {
        int n = sizes[s];
        size_t count = (size_t)n * n;
        float *A, *B, *C, *ref, *absA, *absB, *mag;
        CHECK(cudaMalloc(&A, count * 4));
        CHECK(cudaMalloc(&B, count * 4));
        CHECK(cudaMalloc(&C, count * 4));
        CHECK(cudaMalloc(&ref, count * 4));
        CHECK(cudaMalloc(&absA, count * 4));
        CHECK(cudaMalloc(&absB, count * 4));
        CHECK(cudaMalloc(&mag, count * 4));
        fill<<<1024, 256>>>(A, count, 1 + n, 0);
        fill<<<1024, 256>>>(B, count, 2 + n, 0);
        fill<<<1024, 256>>>(absA, count, 1 + n, 1);
        fill<<<1024, 256>>>(absB, count, 2 + n, 1);
        CHECK(cudaMemset(C, 0xff, count * 4)); /* NaN: unwritten elements fail */
        matmul(A, B, C, n);
        CHECK(cudaGetLastError());
        cublas_matmul(h, A, B, ref, n);
        cublas_matmul(h, absA, absB, mag, n);
        CHECK(cudaMemset(bad, 0, sizeof *bad));
        count_bad<<<1024, 256>>>(C, ref, mag, count, n, bad);
        unsigned long long nbad = 0;
        CHECK(cudaMemcpy(&nbad, bad, sizeof nbad, cudaMemcpyDeviceToHost));
        printf("  n=%-6d %s (%llu of %zu elements outside the bound)\n", n, nbad ? "WRONG" : "ok", nbad, count);
        all_ok &= nbad == 0;

        if (n == big && !nbad) {
            enum { REPS = 31 };
            float mine[REPS], theirs[REPS];
            cudaEvent_t e0, e1;
            CHECK(cudaEventCreate(&e0));
            CHECK(cudaEventCreate(&e1));
            for (int w = 0; w < 3; w++) {
                matmul(A, B, C, n);
                cublas_matmul(h, A, B, ref, n);
            }
            for (int r = 0; r < REPS; r++) { /* alternating, so drift falls on both */
                CHECK(cudaEventRecord(e0));
                matmul(A, B, C, n);
                CHECK(cudaEventRecord(e1));
                CHECK(cudaEventSynchronize(e1));
                CHECK(cudaEventElapsedTime(&mine[r], e0, e1));
                CHECK(cudaEventRecord(e0));
                cublas_matmul(h, A, B, ref, n);
                CHECK(cudaEventRecord(e1));
                CHECK(cudaEventSynchronize(e1));
                CHECK(cudaEventElapsedTime(&theirs[r], e0, e1));
            }
            qsort(mine, REPS, sizeof(float), cmp);
            qsort(theirs, REPS, sizeof(float), cmp);
            double flop = 2.0 * n * (double)n * n;
            printf("  n=%d: warptile %.3f ms, %.0f GFLOP/s; cuBLAS %.3f ms, %.0f GFLOP/s; %.1f%% of cuBLAS\n", n,
                   mine[REPS / 2], flop / mine[REPS / 2] / 1e6, theirs[REPS / 2], flop / theirs[REPS / 2] / 1e6,
                   100.0 * theirs[REPS / 2] / mine[REPS / 2]);
        }
        cudaFree(A), cudaFree(B), cudaFree(C), cudaFree(ref), cudaFree(absA), cudaFree(absB), cudaFree(mag);
    }
    return all_ok ? 0 : 1;
}
