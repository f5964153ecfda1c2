/*
 * transpose_family.cu: the transpose stages (family.h). The student's
 * transpose() (transpose.h) is checked against cuBLAS at several sizes, bit
 * for bit, then timed against a device-to-device cudaMemcpy (the ceiling), a
 * plain copy kernel, cublasSgeam, the naive transpose and the unpadded tiled
 * transpose (transpose_unpadded.cu, stage 05's baseline).
 */
#include <stdlib.h>

#include "family.h"
#include "transpose.h"
#include "transpose_host.h"
#include "transpose_unpadded.h"

static const char *FAMILY_HELP =
    "  --n RxC          size of the timed problem: R rows and C columns in the input\n"
    "                   (default 8192x8192; --n N means NxN)\n";
/* 256x256 first: a multiple of every tile of the lab's transpose stages (32
 * and 64), so that a kernel right on whole tiles and wrong on the last,
 * partial one is told so; then thin shapes, a single element, partial tiles
 * on either side or both, a square with partial tiles (for the
 * rows-and-cols hint), and a large one */
static const char *DEFAULT_SIZES = "256x256,1x1,1x1000,1000x1,33x65,65x65,1025x777,2048x4096";
enum { WHOLE_TILES = 64 };
/* input sets the timed calls rotate over: a batch is one call per set, and
 * a batch of short calls must last long enough to time (timing.cu) */
enum { NSETS = 12 };
static_assert((int)NSETS <= (int)LAB_MAX_SETS, "sets.h holds the sets");

/* ==================================================== in-run references */

/* The reference kernels below share one shape: a block of 32 x 8 threads
 * covers a 32 x 32 piece of the matrix, each thread moving 4 elements, 8
 * rows apart. */
enum { REF_TILE = 32, REF_ROWS = 8 };

/* The ceiling for a kernel that reads and writes every element once: a copy.
 * threadIdx.x runs along a row on both sides, so a warp reads 128
 * contiguous bytes and writes 128 contiguous bytes. */
static __global__ void copy_kernel(const float *in, float *out, int rows, int cols)
{
    int c = blockIdx.x * REF_TILE + threadIdx.x;
    for (int j = 0; j < REF_TILE; j += REF_ROWS) {
        int r = blockIdx.y * REF_TILE + threadIdx.y + j;
        if (r < rows && c < cols)
            out[(size_t)r * cols + c] = in[(size_t)r * cols + c];
    }
}

/* The starting point of the lesson: the copy kernel with the output index
 * transposed. The reads are coalesced; the 32 writes of a warp go to one
 * column of out, rows floats apart, so each lands in its own 32-byte sector. */
static __global__ void transpose_naive(const float *in, float *out, int rows, int cols)
{
    int c = blockIdx.x * REF_TILE + threadIdx.x;
    for (int j = 0; j < REF_TILE; j += REF_ROWS) {
        int r = blockIdx.y * REF_TILE + threadIdx.y + j;
        if (r < rows && c < cols)
            out[(size_t)c * rows + r] = in[(size_t)r * cols + c];
    }
}

/* The reference of the check, and a timed library reference: cublasSgeam
 * computes C = alpha op(A) + beta op(B) on column-major matrices. Row-major
 * in (rows x cols) read column-major is in^T, cols x rows with leading
 * dimension cols; row-major out (cols x rows) read column-major is out^T,
 * which must equal in: rows x cols with leading dimension rows. So C = out,
 * m = rows, n = cols, A = in with op T. beta = 0 drops op(B); B is given as
 * in, with the same shape as A, so that it is valid whatever cuBLAS reads. */
static void cublas_transpose(cublasHandle_t h, const float *in, float *out, int rows, int cols)
{
    const float one = 1.0f, zero = 0.0f;
    CUBLAS_CHECK(cublasSgeam(h, CUBLAS_OP_T, CUBLAS_OP_T, rows, cols, &one, in, cols, &zero,
                             in, cols, out, rows));
}

/* ============================================================== problems */

/* nsets inputs of rows x cols made from seed, their outputs poisoned. The
 * sets come first: the harness's hooks take the problem as its sets
 * (sets.h). */
typedef struct {
    lab_sets sets; /* first: the hooks of sets.h take the problem as its sets */
    int rows, cols;
    cublasHandle_t h;
} problem;

static const lab_set_layout LAYOUT = {"out", {"in"}, 1};
static float *in_of(const problem *p, int s) { return p->sets.in[s][0].data; }
static float *out_of(const problem *p, int s) { return p->sets.out[s].data; }

static void *problem_new(lab_dims d, int nsets, uint64_t seed, cublasHandle_t h)
{
    problem *p = (problem *)calloc(1, sizeof *p);
    p->h = h;
    p->rows = (int)d.rows;
    p->cols = (int)d.cols;
    lab_sets_new(&p->sets, &LAYOUT, d, nsets, (size_t)p->rows * p->cols,
                 seed ^ (uint64_t)p->rows * 1000003 ^ (uint64_t)p->cols * 1000);
    return p;
}

/* cublasSgeam's transpose of set s into out: the check's reference, and a
 * timed one */
static void reference_output(void *ctx, int s, float *out)
{
    problem *p = (problem *)ctx;
    cublas_transpose(p->h, in_of(p, s), out, p->rows, p->cols);
}

/* The values of out against cuBLAS's, bit for bit: a transpose only moves
 * values. */
static int judge(void *ctx, int s, lab_output_check *k)
{
    problem *p = (problem *)ctx;
    lab_output_compare(k, NULL, p->cols, p->rows);
    if (k->c.bad) {
        /* the hints compare the output with the input */
        float *in = lab_buffer_to_host(&p->sets.in[s][0]);
        lab_transpose_explain_failures(k->log, &k->c, k->got, in, p->rows, p->cols, k->whole_ok, k->label);
        free(in);
    }
    k->output = "out";
    snprintf(k->ok_text, sizeof k->ok_text, "%lld elements, bit for bit", k->c.checked);
    return k->c.bad == 0;
}

/* ================================================================ timing */

static double work(lab_dims d) { return lab_transpose_bytes((int)d.rows, (int)d.cols); }
static size_t set_bytes(lab_dims d) { return 2 * (size_t)d.rows * d.cols * sizeof(float); }
static double elements(lab_dims d) { return (double)d.rows * d.cols; }

static void call_student(void *ctx, int s)
{
    problem *p = (problem *)ctx;
    transpose(in_of(p, s), out_of(p, s), p->rows, p->cols);
}

static void call_memcpy(void *ctx, int s)
{
    problem *p = (problem *)ctx;
    CUDA_CHECK(cudaMemcpyAsync(out_of(p, s), in_of(p, s), p->sets.out[s].count * sizeof(float),
                               cudaMemcpyDeviceToDevice, 0));
}

/* either reference kernel above on set s */
static void launch_reference(void (*kernel)(const float *, float *, int, int), void *ctx, int s)
{
    problem *p = (problem *)ctx;
    dim3 grid((p->cols + REF_TILE - 1) / REF_TILE, (p->rows + REF_TILE - 1) / REF_TILE);
    kernel<<<grid, dim3(REF_TILE, REF_ROWS)>>>(in_of(p, s), out_of(p, s), p->rows, p->cols);
    CUDA_CHECK(cudaGetLastError());
}

static void call_copy(void *ctx, int s) { launch_reference(copy_kernel, ctx, s); }

static void call_cublas(void *ctx, int s) { reference_output(ctx, s, out_of((problem *)ctx, s)); }

static void call_naive(void *ctx, int s) { launch_reference(transpose_naive, ctx, s); }

static void call_unpadded(void *ctx, int s)
{
    problem *p = (problem *)ctx;
    lab_transpose_unpadded_launch(in_of(p, s), out_of(p, s), p->rows, p->cols);
    CUDA_CHECK(cudaGetLastError());
}

/* ================================================================ batches */

enum { CHECK_SAMPLES = 1024 };

/* Sampled elements (picked from `pick`) of set blockIdx.y's out against its
 * in, bit for bit: transposed, or (copy: the copy references) in place. The
 * input is made again from its seed, not read: a runner that rewrote it
 * (zeros, to make zeros right) gains nothing. */
static __global__ void check_samples(lab_set_pointers sp, int rows, int cols, int copy, uint64_t pick,
                                     lab_batch_bad *bad)
{
    int k = blockIdx.x * blockDim.x + threadIdx.x, s = blockIdx.y;
    if (k >= CHECK_SAMPLES)
        return;
    size_t at = (size_t)(lab_mix64(pick ^ (uint64_t)(k + CHECK_SAMPLES * s)) % ((uint64_t)rows * (uint64_t)cols));
    size_t r = at / (size_t)cols, c = at % (size_t)cols;
    float got = copy ? sp.out[s][at] : sp.out[s][c * rows + r];
    if (__float_as_uint(got) != __float_as_uint(lab_uniform(sp.seed[s][0], at)))
        atomicAdd(&bad->wrong, 1ULL);
}

static void check(void *ctx, int first, int count, lab_batch_bad *bad, int copy)
{
    problem *p = (problem *)ctx;
    check_samples<<<dim3(CHECK_SAMPLES / 256, count), 256>>>(lab_sets_pointers(&p->sets, first, count), p->rows,
                                                             p->cols, copy, lab_fresh_seed(), bad);
}

/* The checks that end a timed batch, samples picked after the batch: of a
 * transpose, and of a copy (memcpy, the copy kernel), at the same cost. */
static void check_transposed(void *ctx, int first, int count, lab_batch_bad *bad) { check(ctx, first, count, bad, 0); }
static void check_copied(void *ctx, int first, int count, lab_batch_bad *bad) { check(ctx, first, count, bad, 1); }

/* ============================================================ conclusion */

/* a time below what the memory system allows cannot be real */
static double floor_ms(void *ctx, const lab_gpu *g)
{
    problem *p = (problem *)ctx;
    return lab_transpose_floor_ms(p->rows, p->cols, g->peak_dram_gbs, (double)g->l2_bytes);
}

enum { STUDENT, MEMCPY, COPY, CUBLAS, NAIVE, UNPADDED, NROWS };

static void conclude(void *ctx, const lab_timing *t, const lab_gpu *g, double floor, int plausible, lab_json *j)
{
    problem *p = (problem *)ctx;
    double pct_memcpy = 100.0 * t[STUDENT].rate / t[MEMCPY].rate;
    double pct_copy = 100.0 * t[STUDENT].rate / t[COPY].rate;
    double pct_cublas = 100.0 * t[STUDENT].rate / t[CUBLAS].rate;
    double vs_naive = t[NAIVE].st.median / t[STUDENT].st.median;
    double vs_unpadded = t[UNPADDED].st.median / t[STUDENT].st.median;
    printf("  (GB/s: bytes read + bytes written, %.4g GB, over the median time)\n",
           lab_transpose_bytes(p->rows, p->cols) / 1e9);
    printf("\n  your kernel: %.1f%% of the memcpy bandwidth, %.1f%% of the copy kernel,\n"
           "  %.2fx the naive transpose, %.2fx the unpadded [32][32] tile\n",
           pct_memcpy, pct_copy, vs_naive, vs_unpadded);
    if (!plausible)
        printf("  warning: %.4g ms is faster than the memory of this GPU allows (%.4g ms at %.0f GB/s):\n"
               "  this time cannot be real\n", t[STUDENT].st.median, floor, g->peak_dram_gbs);
    lab_json_number(j, "pct_of_reference", pct_memcpy);
    lab_json_number(j, "pct_of_copy", pct_copy);
    lab_json_number(j, "pct_of_cublas", pct_cublas);
    lab_json_number(j, "speedup_vs_baseline", vs_naive);
    lab_json_number(j, "speedup_vs_unpadded", vs_unpadded);
}

/* a transpose is checked as one, a copy (memcpy, the copy kernel) as one */
static const lab_kernel KERNELS[NROWS] = {
    /* no prepare: each batch's refresh poisons the outputs it times */
    {.name = "student", .label = "your kernel", .call = call_student, .check = check_transposed},
    {.name = "memcpy", .label = "cudaMemcpy device to device", .call = call_memcpy, .check = check_copied},
    {.name = "copy", .label = "copy kernel, 32x8 threads, 4 each", .call = call_copy, .check = check_copied},
    {.name = "cublas", .label = "cublasSgeam (transpose)", .call = call_cublas, .check = check_transposed},
    {.name = "baseline", .label = "naive transpose (strided writes)", .call = call_naive,
     .check = check_transposed},
    {.name = "tiled_unpadded", .label = "tiled transpose, [32][32] tile", .call = call_unpadded,
     .check = check_transposed},
};

/* (designated, in the order family.h declares them, as C++ wants) */
extern const lab_family lab_family_this = {
    .name = "transpose",
    .help = FAMILY_HELP,
    .allow_2d = 1,
    .sizes = DEFAULT_SIZES,
    .whole_tiles = WHOLE_TILES,
    .intro = "checking out = transpose(in) against cublasSgeam, bit for bit (RxC: the input's rows x columns):",
    .timed_size = {8192, 8192},
    .size_ok = lab_transpose_size_ok,
    .failed_hint = lab_transpose_shape_hint,
    /* the timed problem: the input sets (sets.h), the bytes a call moves */
    .sets = NSETS, .set_bytes = set_bytes, .problem_new = problem_new, .problem_free = lab_sets_problem_free,
    .work = work, .refresh = lab_sets_refresh, .output_bytes = lab_sets_output_bytes,
    .check_set = lab_check_output, .reference_output = reference_output, .judge = judge,
    /* the table: ratios to memcpy's bandwidth and to the naive transpose */
    .kernels = KERNELS, .nkernels = NROWS, .reference = MEMCPY, .baseline = NAIVE, .unit = "GB/s",
    .floor_ms = floor_ms, .conclude = conclude,
    /* on the CPU: 2.2 million elements at most where a grade's run names a cause */
    .emu = {.checked = "256x256,1x1,1x1000,1000x1,33x65,65x65,1025x777", .last = "513x257", .counted = "256x256",
            .smallest = "1x1", .small = "33x65,65x65", .max_work = 2.2e6 * 2 * sizeof(float), .outputs = elements},
    .coalescing_advice = "one side of a transpose always runs down a column: go through a 32 x 32 tile in shared "
                         "memory, read and written along rows (handouts/04_transpose.md)",
};
