/*
 * 03_tiled: shared-memory tiles of A and B.
 *
 * What this version changes: in stage 02 every thread reads a whole row of A
 * and a whole column of B from global memory, and each value is read by n
 * threads. Here a block of TILE x TILE threads walks along k one tile at a
 * time: together its threads copy a TILE x TILE tile of A and one of B into
 * shared memory (one element each, coalesced), wait, then each thread runs
 * TILE multiply-adds out of shared memory. Every value loaded from global
 * memory is now used TILE times.
 *
 *   make run EX=03            check, then time, this file
 *   make sweep EX=03          try TILE = 8, 16, 32
 */
#include "matmul.h"

#ifndef TILE
#define TILE 16 /* tile side: TILE x TILE threads, two TILE x TILE tiles */
#endif
static_assert(TILE >= 1 && TILE <= 32, "TILE must be from 1 to 32 (make sweep tries 8, 16, 32): the block is "
                                       "TILE x TILE threads and holds at most 1024 (TILE=64 would need 4096)");

__global__ void matmul_tiled(const float *A, const float *B, float *C, int n)
{
    // [[maybe_unused]] keeps the compiler from warning about what only the
    // TODO(lab) parts use; it changes nothing else
    [[maybe_unused]] __shared__ float As[TILE][TILE];
    [[maybe_unused]] __shared__ float Bs[TILE][TILE];
    int tx = threadIdx.x, ty = threadIdx.y;
    int col = blockIdx.x * TILE + tx;
    int row = blockIdx.y * TILE + ty;
    float temp = 0.0f;

    for (int t = 0; t < n; t += TILE) {
        // TODO(lab): each thread copies one element of the A tile into
        // As[ty][tx] and one element of the B tile into Bs[ty][tx]. The A
        // tile is this block's TILE rows of A and its columns t .. t+TILE-1;
        // the B tile is rows t .. t+TILE-1 of B and this block's TILE
        // columns. Let threadIdx.x walk along a row of each matrix, so that
        // a warp's copies are coalesced. Past the edge of the matrix store
        // 0.0f instead. (Handout 03 works one thread through.)

        // TODO(lab): a barrier, so no thread reads the tiles before all of
        // them are written.

        // TODO(lab): the TILE multiply-adds of this step, into temp, reading
        // only As and Bs: the row of the A tile and the column of the B tile
        // that meet at this thread's element of C.

        // TODO(lab): a second barrier, so no thread overwrites the tiles in
        // the next step while another still reads them.
    }
    if (row < n && col < n)
        C[(size_t)row * n + col] = temp;
}

void matmul(const float *A, const float *B, float *C, int n)
{
    dim3 block(TILE, TILE);
    dim3 grid((n + TILE - 1) / TILE, (n + TILE - 1) / TILE);
    matmul_tiled<<<grid, block>>>(A, B, C, n);
}
