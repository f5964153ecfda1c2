/*
 * transpose_family.cu: the transpose stages (family.h). The student's
 * transpose() (transpose.h) is checked against cuBLAS at several sizes, bit
 * for bit, then timed against a device-to-device cudaMemcpy (the ceiling), a
 * plain copy kernel, cublasSgeam, the naive transpose and the unpadded tiled
 * transpose (transpose_unpadded.cu, stage 05's baseline).
 */
#include <stdlib.h>
#include <string.h>

#include "family.h"
#include "transpose.h"
#include "transpose_host.h"
#include "transpose_unpadded.h"

static const char *FAMILY_HELP =
    "  --n RxC          size of the timed problem: R rows and C columns in the input\n"
    "                   (default 8192x8192; --n N means NxN)\n";
/* thin shapes, a single element, partial tiles on either side or both, a
 * square with partial tiles (for the rows-and-cols hint), whole tiles */
/* 256x256 first: a multiple of every tile of the lab's transpose stages (32
 * and 64), so that a kernel right on whole tiles and wrong on the last,
 * partial one is told so; then shapes with partial tiles, and a large one */
static const char *DEFAULT_SIZES = "256x256,1x1,1x1000,1000x1,33x65,65x65,1025x777,2048x4096";
enum { WHOLE_TILES = 64 };
static lab_dims default_size(int profile)
{
    (void)profile;
    return {8192, 8192};
}
/* input sets the timed calls rotate over: a batch is one call per set, and
 * a batch of short calls must last long enough to time (timing.cu) */
enum { NSETS = 12 };

static int size_ok(lab_dims d, const char *what, char *err, size_t len)
{
    char why[160];
    if (!transpose_size_ok(d, why, sizeof why))
        return 0;
    snprintf(err, len, "%s%s", strcmp(what, "--n") ? "" : "--n: ", why);
    return -1;
}


/* ==================================================== in-run references */

/* The reference kernels below share one shape: a block of 32 x 8 threads
 * covers a 32 x 32 piece of the matrix, each thread moving 4 elements, 8
 * rows apart. */
enum { REF_TILE = 32, REF_ROWS = 8 };

/* The ceiling for a kernel that reads and writes every element once: a copy.
 * threadIdx.x runs along a row on both sides, so a warp reads 128
 * contiguous bytes and writes 128 contiguous bytes. */
__global__ void copy_kernel(const float *in, float *out, int rows, int cols)
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
__global__ void transpose_naive(const float *in, float *out, int rows, int cols)
{
    int c = blockIdx.x * REF_TILE + threadIdx.x;
    for (int j = 0; j < REF_TILE; j += REF_ROWS) {
        int r = blockIdx.y * REF_TILE + threadIdx.y + j;
        if (r < rows && c < cols)
            out[(size_t)c * rows + r] = in[(size_t)r * cols + c];
    }
}

static dim3 ref_grid(int rows, int cols)
{
    return dim3((cols + REF_TILE - 1) / REF_TILE, (rows + REF_TILE - 1) / REF_TILE);
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

/* ============================================================== one check */

/* nsets inputs of rows x cols made from seed, their outputs poisoned;
 * cuBLAS's transpose of one (ref, on the GPU) */
typedef struct {
    cublasHandle_t h;
    float *ref;
    int rows, cols, nsets;
    lab_buffer in[NSETS], out[NSETS];
    uint64_t seed[NSETS];
} problem;

static void *problem_new(lab_dims d, int nsets, uint64_t seed, cublasHandle_t h)
{
    problem *p = (problem *)calloc(1, sizeof *p);
    const int rows = (int)d.rows, cols = (int)d.cols;
    p->nsets = nsets;
    p->h = h;
    p->rows = rows;
    p->cols = cols;
    size_t count = (size_t)rows * cols;
    for (int s = 0; s < nsets; s++) {
        p->seed[s] = lab_mix64(seed ^ (uint64_t)rows * 1000003 ^ (uint64_t)cols * 1000 ^ (uint64_t)(s + 1));
        lab_buffer_new(&p->in[s], count);
        lab_buffer_new(&p->out[s], count);
        lab_buffer_fill(&p->in[s], p->seed[s]);
    }
    CUDA_CHECK(cudaMalloc(&p->ref, count * sizeof(float)));
    return p;
}

static void problem_free(void *ctx)
{
    problem *p = (problem *)ctx;
    CUDA_CHECK(cudaFree(p->ref));
    for (int s = 0; s < p->nsets; s++) {
        lab_buffer_free(&p->out[s]);
        lab_buffer_free(&p->in[s]);
    }
    free(p);
}

/* Check the output of set s (already computed by the kernel): values against
 * cuBLAS, bit for bit (a transpose only moves values), guard zones, input
 * unchanged. Prints one line, details beneath, and records the check.
 * whole_ok: the label of a check of whole WHOLE_TILES tiles that passed, or
 * NULL. Returns 1 when everything holds. */
static int check_output(void *ctx, int s, const char *label, const char *whole_ok, const lab_args *a,
                        lab_record *rec)
{
    problem *p = (problem *)ctx;
    int rows = p->rows, cols = p->cols;
    size_t count = (size_t)rows * cols;
    char *details = NULL;
    size_t details_len = 0;
    FILE *log = open_memstream(&details, &details_len);

    int guards = lab_buffer_guards_ok(&p->out[s], "out", log) &
                 lab_buffer_guards_ok(&p->in[s], "in", log);
    long long changed = lab_buffer_changed(&p->in[s], p->seed[s], 0);
    if (changed)
        fprintf(log, "    the input was modified: %lld of its elements changed\n", changed);

    cublas_transpose(p->h, p->in[s].data, p->ref, rows, cols);
    float *got = lab_buffer_to_host(&p->out[s]);
    float *want = (float *)malloc(count * sizeof(float));
    if (!want)
        lab_die(LAB_EXIT_NO_MEMORY, "out of host memory for a %dx%d reference", cols, rows);
    CUDA_CHECK(cudaMemcpy(want, p->ref, count * sizeof(float), cudaMemcpyDeviceToHost));

    lab_compare c;
    lab_compare_arrays(got, want, NULL, cols, rows, 5, log, &c);
    if (c.bad) {
        /* the hints compare the output with the input */
        float *in = lab_buffer_to_host(&p->in[s]);
        transpose_explain_failures(log, &c, got, in, rows, cols, whole_ok, label);
        free(in);
    }
    int ok = c.bad == 0 && guards && !changed;
    fclose(log);

    char ok_text[64];
    snprintf(ok_text, sizeof ok_text, "%lld elements, bit for bit", c.checked);
    lab_print_check(label, 12, ok, ok_text, &c, "out", details, a);

    lab_json *j = &rec->j;
    lab_record_check_begin(rec, label, ok, &c);
    lab_json_bool(j, "guards_ok", guards);
    lab_json_bool(j, "inputs_unchanged", !changed);
    if (rows % WHOLE_TILES == 0 && cols % WHOLE_TILES == 0)
        lab_json_bool(j, "whole_tiles", 1);
    lab_json_end(j);

    free(details);
    free(got);
    free(want);
    return ok;
}

/* ================================================================ timing */

static double work(lab_dims d) { return transpose_bytes((int)d.rows, (int)d.cols); }
static size_t set_bytes(lab_dims d) { return 2 * (size_t)d.rows * d.cols * sizeof(float); }
static size_t output_bytes(void *ctx) { return (size_t)((problem *)ctx)->rows * ((problem *)ctx)->cols * sizeof(float); }

static void timing_intro(void *ctx, int nsets)
{
    problem *p = (problem *)ctx;
    printf("\ntiming at %dx%d (%d input sets, L2 flushed before each call)...\n", p->rows, p->cols, nsets);
}

static void call_student(void *ctx, int s)
{
    problem *p = (problem *)ctx;
    transpose(p->in[s].data, p->out[s].data, p->rows, p->cols);
}

static void call_memcpy(void *ctx, int s)
{
    problem *p = (problem *)ctx;
    CUDA_CHECK(cudaMemcpyAsync(p->out[s].data, p->in[s].data, p->in[s].count * sizeof(float),
                               cudaMemcpyDeviceToDevice, 0));
}

static void call_copy(void *ctx, int s)
{
    problem *p = (problem *)ctx;
    copy_kernel<<<ref_grid(p->rows, p->cols), dim3(REF_TILE, REF_ROWS)>>>(
        p->in[s].data, p->out[s].data, p->rows, p->cols);
    CUDA_CHECK(cudaGetLastError());
}

static void call_cublas(void *ctx, int s)
{
    problem *p = (problem *)ctx;
    cublas_transpose(p->h, p->in[s].data, p->out[s].data, p->rows, p->cols);
}

static void call_naive(void *ctx, int s)
{
    problem *p = (problem *)ctx;
    transpose_naive<<<ref_grid(p->rows, p->cols), dim3(REF_TILE, REF_ROWS)>>>(
        p->in[s].data, p->out[s].data, p->rows, p->cols);
    CUDA_CHECK(cudaGetLastError());
}

static void call_unpadded(void *ctx, int s)
{
    problem *p = (problem *)ctx;
    transpose_unpadded_launch(p->in[s].data, p->out[s].data, p->rows, p->cols);
    CUDA_CHECK(cudaGetLastError());
}

/* before each of the student's timed calls (family.h) */
static void poison_output(void *ctx, int s)
{
    lab_buffer_poison(&((problem *)ctx)->out[s]);
}

/* ================================================================ batches */

/* A batch's inputs are made from a seed nobody knew before it (timing.cu). */
static void refresh_set(void *ctx, int s, uint64_t seed)
{
    problem *p = (problem *)ctx;
    p->seed[s] = lab_mix64(seed);
    lab_buffer_fill(&p->in[s], p->seed[s]);
    lab_buffer_poison(&p->out[s]);
}

enum { CHECK_SAMPLES = 1024 };

typedef struct {
    const float *out[NSETS];
    uint64_t seed[NSETS];
} set_pointers;

/* Sampled elements (picked from `pick`) of set blockIdx.y's out against its
 * in, bit for bit: transposed, or (copy: the copy references) in place. The
 * input is made again from its seed, not read: a runner that rewrote it
 * (zeros, to make zeros right) gains nothing. */
__global__ void check_samples(set_pointers sp, int rows, int cols, int copy, uint64_t pick, lab_batch_bad *bad)
{
    int k = blockIdx.x * blockDim.x + threadIdx.x, s = blockIdx.y;
    if (k >= CHECK_SAMPLES)
        return;
    size_t at = (size_t)(lab_mix64(pick ^ (uint64_t)(k + CHECK_SAMPLES * s)) % ((uint64_t)rows * (uint64_t)cols));
    size_t r = at / (size_t)cols, c = at % (size_t)cols;
    float got = copy ? sp.out[s][at] : sp.out[s][c * rows + r];
    if (__float_as_uint(got) != __float_as_uint(lab_uniform(sp.seed[s], at)))
        atomicAdd(&bad->wrong, 1ULL);
}

static void check(void *ctx, int first, int count, lab_batch_bad *bad, int copy)
{
    problem *p = (problem *)ctx;
    set_pointers sp;
    for (int k = 0; k < count; k++) {
        sp.out[k] = p->out[first + k].data;
        sp.seed[k] = p->seed[first + k];
    }
    check_samples<<<dim3(CHECK_SAMPLES / 256, count), 256>>>(sp, p->rows, p->cols, copy, lab_fresh_seed(), bad);
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
    return transpose_floor_ms(p->rows, p->cols, g->peak_dram_gbs, (double)g->l2_bytes);
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
           transpose_bytes(p->rows, p->cols) / 1e9);
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
    {"student", "your kernel", call_student, poison_output, check_transposed},
    {"memcpy", "cudaMemcpy device to device", call_memcpy, NULL, check_copied},
    {"copy", "copy kernel, 32x8 threads, 4 each", call_copy, NULL, check_copied},
    {"cublas", "cublasSgeam (transpose)", call_cublas, NULL, check_transposed},
    {"baseline", "naive transpose (strided writes)", call_naive, NULL, check_transposed},
    {"tiled_unpadded", "tiled transpose, [32][32] tile", call_unpadded, NULL, check_transposed},
};

extern const lab_family lab_family_this = {
    "transpose", FAMILY_HELP, 1, DEFAULT_SIZES, WHOLE_TILES,
    "checking out = transpose(in) against cublasSgeam, bit for bit (RxC: the input's rows x columns):",
    default_size, size_ok, NULL, transpose_shape_hint,
    NSETS, set_bytes, problem_new, problem_free, work, timing_intro, refresh_set, output_bytes, check_output,
    KERNELS, NROWS, MEMCPY, NAIVE, "GB/s", floor_ms, conclude,
};
