/*
 * transpose_order.cu: stage 05's padded transpose against cudaMemcpy D2D at
 * 8192 x 8192, with its blocks in the grid's order and in diagonal order,
 * for the bonus issue's "05 ahead of cublasSgeam" (92% of memcpy on an
 * H200, where the solution measured 88.8%; 92.3% on an H100). Not part of
 * any build:
 *
 *   nvcc -O3 -std=c++17 -arch=native -o build/transpose-order research/experiments/transpose_order.cu
 *   build/transpose-order [N]
 *
 * Why the order might matter: a block reads 32 rows of the input and
 * writes 32 rows of the output, each 128 bytes of a row 32 KiB long. The
 * blocks that run at once are neighbours in the grid's order (one block
 * row: the same 32 input rows, and 32 output rows at the same offset), so
 * their writes land at addresses 32 KiB apart, which a memory system that
 * interleaves its channels on such a stride serves with few of them
 * ("partition camping"). In diagonal order, block (x, y) runs as
 * (x + y mod gx, y): blocks running at once write at different offsets.
 * On the GPUs of the lab the address mapping is hashed, and this may gain
 * nothing; that is what this measures, with BLOCK_ROWS 1, 2 and 4.
 *
 * And a 64 x 64 tile (padded to 65 columns, 16.6 KiB of shared memory): a
 * block moves 16 KiB each way instead of 4, with 256 to 1,024 threads, for
 * a GPU whose bandwidth needs more bytes in flight than the H100's (the
 * H200 reads about 40% faster; the solution reaches 88% of its memcpy
 * against 92% of the H100's). Its column reads: a warp reads tile[tx][j]
 * for 32 consecutive tx, 65 words apart: 32 different banks, as with 33.
 *
 * Each kernel is checked against a transpose on the host, then timed with
 * events, L2 flushed before each call (a 2 x L2 buffer written), median of
 * 31 calls, alternating with cudaMemcpy D2D of the same bytes.
 */
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define CHECK(call)                                                                                   \
    do {                                                                                              \
        cudaError_t e_ = (call);                                                                      \
        if (e_ != cudaSuccess) {                                                                      \
            fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_));               \
            exit(1);                                                                                  \
        }                                                                                             \
    } while (0)

/* stage 05's kernel, its tile's side (32; 64: four times the bytes a block
 * moves, TILE / BLOCK_ROWS elements a thread), BLOCK_ROWS and the block
 * order as parameters */
template <int TILE, int BLOCK_ROWS, bool DIAGONAL>
static __global__ void transpose_padded(const float *in, float *out, int rows, int cols)
{
    __shared__ float tile[TILE][TILE + 1];
    int bx = blockIdx.x, by = blockIdx.y;
    if (DIAGONAL)
        bx = (blockIdx.x + blockIdx.y) % gridDim.x;
    int tx = threadIdx.x, ty = threadIdx.y;
    int row0 = by * TILE, col0 = bx * TILE;
    for (int j = 0; j < TILE; j += BLOCK_ROWS) {
        int r = row0 + ty + j, c = col0 + tx;
        if (r < rows && c < cols)
            tile[ty + j][tx] = in[(size_t)r * cols + c];
    }
    __syncthreads();
    for (int j = 0; j < TILE; j += BLOCK_ROWS) {
        int r = row0 + tx, c = col0 + ty + j;
        if (r < rows && c < cols)
            out[(size_t)c * rows + r] = tile[tx][ty + j];
    }
}

typedef void (*launch_fn)(const float *, float *, int);

template <int TILE, int BLOCK_ROWS, bool DIAGONAL>
static void launch(const float *in, float *out, int n)
{
    dim3 grid((n + TILE - 1) / TILE, (n + TILE - 1) / TILE);
    transpose_padded<TILE, BLOCK_ROWS, DIAGONAL><<<grid, dim3(TILE, BLOCK_ROWS)>>>(in, out, n, n);
}

static int cmp(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    const int n = argc > 1 ? atoi(argv[1]) : 8192;
    const size_t count = (size_t)n * n, bytes = count * sizeof(float);
    cudaDeviceProp prop;
    CHECK(cudaGetDeviceProperties(&prop, 0));
    float *in, *out, *copy, *flush;
    const size_t flush_bytes = 2 * (size_t)prop.l2CacheSize;
    CHECK(cudaMalloc(&in, bytes));
    CHECK(cudaMalloc(&out, bytes));
    CHECK(cudaMalloc(&copy, bytes));
    CHECK(cudaMalloc(&flush, flush_bytes));
    float *h_in = (float *)malloc(bytes), *h_out = (float *)malloc(bytes);
    for (size_t i = 0; i < count; i++)
        h_in[i] = (float)(i % 1000003);
    CHECK(cudaMemcpy(in, h_in, bytes, cudaMemcpyHostToDevice));

    const struct {
        const char *name;
        launch_fn fn;
    } kernels[] = {
        {"padded, BLOCK_ROWS 4 (the solution)", launch<32, 4, false>},
        {"padded, BLOCK_ROWS 2", launch<32, 2, false>},
        {"padded, BLOCK_ROWS 1", launch<32, 1, false>},
        {"padded, BLOCK_ROWS 4, diagonal order", launch<32, 4, true>},
        {"padded, BLOCK_ROWS 2, diagonal order", launch<32, 2, true>},
        {"padded, BLOCK_ROWS 1, diagonal order", launch<32, 1, true>},
        {"64 x 65 tile, BLOCK_ROWS 4 (256 threads)", launch<64, 4, false>},
        {"64 x 65 tile, BLOCK_ROWS 8 (512 threads)", launch<64, 8, false>},
        {"64 x 65 tile, BLOCK_ROWS 16 (1024 threads)", launch<64, 16, false>},
    };
    printf("transpose_order on %s, %d x %d (%.0f MiB each way)\n", prop.name, n, n, bytes / 1048576.0);
    cudaEvent_t e0, e1;
    CHECK(cudaEventCreate(&e0));
    CHECK(cudaEventCreate(&e1));
    int all_ok = 1;
    for (size_t k = 0; k < sizeof kernels / sizeof kernels[0]; k++) {
        CHECK(cudaMemset(out, 0xff, bytes));
        kernels[k].fn(in, out, n);
        CHECK(cudaGetLastError());
        CHECK(cudaMemcpy(h_out, out, bytes, cudaMemcpyDeviceToHost));
        size_t bad = 0;
        for (size_t r = 0; r < (size_t)n; r++)
            for (size_t c = 0; c < (size_t)n; c++)
                bad += h_out[c * n + r] != h_in[r * n + c];
        all_ok &= bad == 0;
        enum { REPS = 31 };
        float mine[REPS], theirs[REPS];
        for (int rep = -2; rep < REPS; rep++) { /* two warm-ups; alternating, so drift falls on both */
            for (int which = 0; which < 2; which++) {
                CHECK(cudaMemset(flush, rep & 0xff, flush_bytes));
                CHECK(cudaEventRecord(e0));
                if (which == 0)
                    kernels[k].fn(in, out, n);
                else
                    CHECK(cudaMemcpy(copy, in, bytes, cudaMemcpyDeviceToDevice));
                CHECK(cudaEventRecord(e1));
                CHECK(cudaEventSynchronize(e1));
                float ms = 0;
                CHECK(cudaEventElapsedTime(&ms, e0, e1));
                if (rep >= 0)
                    (which == 0 ? mine : theirs)[rep] = ms;
            }
        }
        qsort(mine, REPS, sizeof(float), cmp);
        qsort(theirs, REPS, sizeof(float), cmp);
        const double m = mine[REPS / 2], t = theirs[REPS / 2];
        printf("  %-40s %s  %.4f ms, %.0f GB/s; memcpy %.4f ms, %.0f GB/s; %.1f%% of memcpy\n", kernels[k].name,
               bad ? "WRONG" : "ok   ", m, 2.0 * bytes / m / 1e6, t, 2.0 * bytes / t / 1e6, 100.0 * t / m);
    }
    return all_ok ? 0 : 1;
}
