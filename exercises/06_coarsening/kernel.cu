/*
 * 06_coarsening: each thread computes several elements of C.
 *
 * What this version changes: in stage 03 a thread loads two values from
 * shared memory for every multiply-add, so shared memory, not arithmetic,
 * sets the pace. Here a block has 16 x 16 threads, as stage 03 with TILE = 16, but
 * computes a bigger tile of C, and each thread keeps several results in
 * registers:
 *   STEP 1, 1D coarsening: a thread computes TM elements of one column. It
 *     reads one value of B and reuses it for TM products.
 *   STEP 2, 2D coarsening: a thread computes a TM x TN block. For each k it
 *     reads TM values of a column of A and TN values of a row of B into
 *     registers and forms all TM * TN products (an outer product).
 * The tiles are copied into shared memory by all threads together, in
 * several passes, zero-filled past the edges of the matrices.
 *
 *   make run EX=06            check, then time, this file (set STEP below)
 *   make sweep EX=06          try TM = 4, 8, 16
 *   make ptxas EX=06          registers and shared memory per thread/block
 */
#include <stdint.h>

#include "matmul.h"

#ifndef STEP
#define STEP 2 /* 1: the 1D kernel, 2: the 2D kernel */
#endif
#ifndef TM
#define TM 8 /* elements of C per thread along a column (rows of the block) */
#endif
#ifndef TN
#define TN TM /* elements of C per thread along a row (2D kernel only) */
#endif
#ifndef BK
#define BK 16 /* width of the A tile and height of the B tile (2D kernel) */
#endif

#define THREADS_X 16 /* threads of a block along a row of C */
#define THREADS_Y 16 /* threads of a block along a column of C */
#define THREADS (THREADS_X * THREADS_Y)
#define BM (THREADS_Y * TM) /* rows of the block's tile of C */
#define BN (THREADS_X * TN) /* columns of the block's tile of C (2D kernel) */

#if STEP != 1 && STEP != 2
#error "STEP must be 1 (the 1D kernel: a strip of TM elements per thread) or 2 (the 2D kernel: TM x TN)"
#endif
static_assert(TM >= 1 && TN >= 1, "TM and TN count elements per thread: at least 1");
static_assert(TM % 4 == 0 && TN % 4 == 0,
              "TM and TN must be multiples of 4: the 2D kernel moves a thread's rows and "
              "columns as float4 vectors of 4 floats");
static_assert(BK % 4 == 0, "BK must be a multiple of 4: a row of the A tile is copied as BK/4 float4 vectors");
static_assert(BM * BK / 4 % THREADS == 0,
              "BM*BK/4 (the float4 vectors of an A tile) must be a multiple of the thread count, "
              "so every thread copies the same number of them: raise BK or the tile size");
static_assert(BK * BN / 4 % THREADS == 0,
              "BK*BN/4 (the float4 vectors of a B tile) must be a multiple of the thread count, "
              "so every thread copies the same number of them: raise BK or the tile size");
static_assert((BM + BN) * BK * sizeof(float) <= 48 * 1024,
              "the A and B tiles must fit in the 48 KB of static shared memory a block may have: "
              "lower BK or the tile sizes");

/* ================================================ 1D coarsening (STEP 1) */

/* Block tile: BM x 16 of C, with a BM x 16 tile of A and a 16 x 16 tile of
 * B per step of k. Thread (tx, ty) computes column tx of the tile, rows ty,
 * ty + 16, ..., ty + 16 (TM - 1): the same rows it helps to load. */
__global__ void matmul_strip(const float *A, const float *B, float *C, int n)
{
    // ([[maybe_unused]] keeps the compiler from warning about what only the
    // TODO(lab) parts use.)
    [[maybe_unused]] __shared__ float As[BM][THREADS_X];
    [[maybe_unused]] __shared__ float Bs[THREADS_Y][THREADS_X];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row0 = blockIdx.y * BM;
    int col = blockIdx.x * THREADS_X + tx;
    float acc[TM] = {0.0f}; /* held in registers: the loops below are unrolled */

    for (int t = 0; t < n; t += THREADS_X) {
        // TODO(lab): copy the BM x 16 tile of A (rows row0 .., columns t ..)
        // into As. It has TM times as many elements as there are threads: in
        // pass i < TM, thread (tx, ty) copies A[row0 + i*16 + ty][t + tx]
        // into As[i*16 + ty][tx], or 0 past the edge of A; a warp then reads
        // 16 neighbouring floats of a row. Then its element of the 16 x 16
        // tile of B: B[t + ty][col] into Bs[ty][tx], or 0 past the edge.

        // TODO(lab): a barrier, so no thread reads the tiles before all of
        // them are written.

        // TODO(lab): for each k < 16, read b = Bs[k][tx] once and add
        // As[i*16 + ty][k] * b into acc[i] for every i < TM: one read from
        // shared memory serves TM multiply-adds.

        // TODO(lab): a second barrier, so no thread overwrites the tiles in
        // the next step while another still reads them.
    }
#pragma unroll
    for (int i = 0; i < TM; i++) {
        int row = row0 + i * THREADS_Y + ty;
        if (row < n && col < n)
            C[(size_t)row * n + col] = acc[i];
    }
}

/* ================================================ 2D coarsening (STEP 2) */

/* Four neighbouring floats of one row, mat[row][col .. col+3] (col is a
 * multiple of 4), with zeros for those outside the n x n matrix. VEC: one
 * 16-byte load, which needs n % 4 == 0 (then every row starts on a 16-byte
 * boundary, and a group of four is either all inside the row or all outside). */
template <bool VEC>
__device__ float4 load4(const float *mat, int n, int row, int col)
{
    float4 v = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    if (row >= n || col >= n)
        return v;
    const float *p = mat + (size_t)row * n + col;
    if (VEC)
        return *reinterpret_cast<const float4 *>(p);
    v.x = p[0];
    if (col + 1 < n) v.y = p[1];
    if (col + 2 < n) v.z = p[2];
    if (col + 3 < n) v.w = p[3];
    return v;
}

/* The other way: C[row][col .. col+3] = v, skipping what is outside C. */
template <bool VEC>
__device__ void store4(float *mat, int n, int row, int col, float4 v)
{
    if (row >= n || col >= n)
        return;
    float *p = mat + (size_t)row * n + col;
    if (VEC) {
        *reinterpret_cast<float4 *>(p) = v;
        return;
    }
    p[0] = v.x;
    if (col + 1 < n) p[1] = v.y;
    if (col + 2 < n) p[2] = v.z;
    if (col + 3 < n) p[3] = v.w;
}

/* Block tile: BM x BN of C; per step of k, a BM x BK tile of A and a BK x BN
 * tile of B. Thread (tx, ty) owns TM rows and TN columns of the tile, in
 * groups of 4: rows g*64 + ty*4 + (0..3) for g < TM/4, and columns
 * h*64 + tx*4 + (0..3) for h < TN/4 (64 = 16 threads x 4). So the 16
 * threads of a half-warp read 64 neighbouring floats of a row of Bs, which
 * lie in 32 different banks twice over: no bank conflicts. */
template <bool VEC>
__global__ void __launch_bounds__(THREADS, TM * TN <= 64 ? 2 : 1)
matmul_block(const float *__restrict__ A, const float *__restrict__ B, float *__restrict__ C, int n)
{
    // As is stored transposed, k-major: As[k][m] = A[row0 + m][t + k], so the
    // TM values of A that a thread needs for one k lie side by side and come
    // in float4 reads, like those of Bs. ([[maybe_unused]] keeps the
    // compiler from warning about what only the TODO(lab) parts use.)
    [[maybe_unused]] __shared__ __align__(16) float As[BK][BM];
    [[maybe_unused]] __shared__ __align__(16) float Bs[BK][BN];
    int tx = threadIdx.x, ty = threadIdx.y;
    [[maybe_unused]] int tid = ty * THREADS_X + tx;
    int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
    float acc[TM][TN] = {{0.0f}}; /* registers: every index below is a constant after unrolling */

    for (int t = 0; t < n; t += BK) {
        // TODO(lab): copy the BM x BK tile of A (rows row0 .. row0+BM-1,
        // columns t .. t+BK-1) into As, transposed: As[k][m] = A[row0+m][t+k].
        // The tile is BM*BK/4 float4 vectors and each thread copies one per
        // pass, so BM*BK/4/THREADS passes. Number the vectors row by row and
        // give thread tid vector tid in the first pass, the next THREADS
        // vectors in the next pass, and so on: neighbouring threads then read
        // neighbouring 16 bytes of a row (coalesced). load4<VEC>(A, n, row,
        // col) returns the four floats, zeros where they lie outside A.
        // (Handout 06 works thread 5 through.)

        // TODO(lab): copy the BK x BN tile of B (rows t .., columns col0 ..)
        // into Bs as it is, the same way, in BK*BN/4/THREADS passes, with one
        // float4 store into Bs per vector (reinterpret_cast<float4 *>, as
        // store4 above does for C).

        // TODO(lab): a barrier, so no thread reads the tiles before all of
        // them are written.

        // TODO(lab): for each k < BK, read this thread's TM values of row k
        // of As (As[k][m] for each of its rows m of the tile) into registers
        // a[TM], and its TN values of row k of Bs into b[TN]. Which rows and
        // columns are its own: see the comment above the kernel. Read them
        // as float4, four at a time, as the store below writes C. Then add
        // the outer product of a and b into acc: each of the TM x TN
        // accumulators gets one product, with loops the compiler can unroll.

        // TODO(lab): a second barrier, so no thread overwrites the tiles in
        // the next step while another still reads them.
    }

    // row i of the thread's block is row (i/4)*64 + ty*4 + i%4 of the tile,
    // its columns come in groups of 4 as above; store4 skips what lies
    // outside C
#pragma unroll
    for (int i = 0; i < TM; i++) {
        int row = row0 + i / 4 * 4 * THREADS_Y + ty * 4 + i % 4;
#pragma unroll
        for (int h = 0; h < TN / 4; h++)
            store4<VEC>(C, n, row, col0 + h * 4 * THREADS_X + tx * 4,
                        make_float4(acc[i][4 * h], acc[i][4 * h + 1], acc[i][4 * h + 2], acc[i][4 * h + 3]));
    }
}

void matmul(const float *A, const float *B, float *C, int n)
{
    dim3 block(THREADS_X, THREADS_Y);
#if STEP == 1
    dim3 grid((n + THREADS_X - 1) / THREADS_X, (n + BM - 1) / BM);
    matmul_strip<<<grid, block>>>(A, B, C, n);
#else
    dim3 grid((n + BN - 1) / BN, (n + BM - 1) / BM);
    // 16-byte accesses need 16-byte aligned addresses: the arrays must start
    // on one, and every row too, which holds only when n % 4 == 0
    int aligned = n % 4 == 0 && ((uintptr_t)A | (uintptr_t)B | (uintptr_t)C) % 16 == 0;
    if (aligned)
        matmul_block<true><<<grid, block>>>(A, B, C, n);
    else
        matmul_block<false><<<grid, block>>>(A, B, C, n);
#endif
}
