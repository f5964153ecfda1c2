/*
 * 06_coarsening, the reference kernel of the pass tier: 2D coarsening in the
 * plain form the course material teaches.
 *
 * What it does: a block of 256 threads computes a 128 x 128 tile of C, and
 * each thread an 8 x 8 block of it, held in registers. For each step of k
 * the block copies a 128 x 16 tile of A and a 16 x 128 tile of B into
 * shared memory as they are (zeros past the edges of the matrices), one
 * float a load, waits, and then each thread, for each of the 16 values of
 * k, reads its 8 values of a column of the A tile and its 8 of a row of the
 * B tile into registers and adds their outer product: 16 reads from shared
 * memory for 64 multiply-adds. C is written once, at the end.
 *
 * What it leaves out, and the stretch tier asks for (the stage's solution):
 * the A tile stored transposed, float4 reads of both tiles, and a thread's
 * columns spread so that a warp's reads of the B tile hit every bank once.
 * Here the 16 threads of a half-warp read B-tile columns 8 apart, four to a
 * bank.
 *
 * make calibrate measures it to set the pass tier (stages.tsv);
 * build/grader/grade --reference pass 06 grades it as a student's kernel.
 */
#include "matmul.h"

#define BM 128 /* rows of C a block computes */
#define BN 128 /* columns of C a block computes */
#define BK 16  /* depth of a tile step: columns of the A tile, rows of the B tile */
#define TM 8   /* rows of C a thread computes */
#define TN 8   /* columns of C a thread computes */
#define THREADS ((BM / TM) * (BN / TN)) /* 256 */

__global__ void __launch_bounds__(THREADS) matmul_2d(const float *A, const float *B, float *C, int n)
{
    __shared__ float As[BM][BK];
    __shared__ float Bs[BK][BN];
    int tid = threadIdx.x;
    int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
    // this thread's block of the tile: rows ty * TM .., columns tx * TN ..
    int ty = tid / (BN / TN), tx = tid % (BN / TN);
    float acc[TM][TN] = {{0.0f}}; /* registers: every index is a constant after unrolling */

    for (int t = 0; t < n; t += BK) {
        // each thread copies BM * BK / THREADS = 8 elements of each tile:
        // the A tile's 256 threads cover 16 rows at a time, the B tile's 2;
        // consecutive threads take consecutive elements of a row, so the
        // reads of a warp coalesce
        for (int r = tid / BK; r < BM; r += THREADS / BK) {
            int k = tid % BK;
            As[r][k] = row0 + r < n && t + k < n ? A[(size_t)(row0 + r) * n + t + k] : 0.0f;
        }
        for (int k = tid / BN; k < BK; k += THREADS / BN) {
            int c = tid % BN;
            Bs[k][c] = t + k < n && col0 + c < n ? B[(size_t)(t + k) * n + col0 + c] : 0.0f;
        }
        // wait until both tiles are complete before anyone reads them
        __syncthreads();
#pragma unroll
        for (int k = 0; k < BK; k++) {
            float a[TM], b[TN];
#pragma unroll
            for (int i = 0; i < TM; i++)
                a[i] = As[ty * TM + i][k];
#pragma unroll
            for (int j = 0; j < TN; j++)
                b[j] = Bs[k][tx * TN + j];
            // the outer product: TM + TN values read, TM * TN multiply-adds
#pragma unroll
            for (int i = 0; i < TM; i++)
#pragma unroll
                for (int j = 0; j < TN; j++)
                    acc[i][j] += a[i] * b[j];
        }
        // wait until everyone is done with the tiles before they are refilled
        __syncthreads();
    }
#pragma unroll
    for (int i = 0; i < TM; i++)
#pragma unroll
        for (int j = 0; j < TN; j++) {
            int row = row0 + ty * TM + i, col = col0 + tx * TN + j;
            if (row < n && col < n)
                C[(size_t)row * n + col] = acc[i][j];
        }
}

void matmul(const float *A, const float *B, float *C, int n)
{
    dim3 grid((n + BN - 1) / BN, (n + BM - 1) / BM);
    matmul_2d<<<grid, THREADS>>>(A, B, C, n);
}
