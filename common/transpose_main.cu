/*
 * transpose_main.cu: the driver for the transpose stages.
 *
 * Links with one kernel.cu that implements transpose() (transpose.h). It
 * checks the kernel against cuBLAS at several sizes, bit for bit, then times
 * it against a device-to-device cudaMemcpy (the ceiling), a plain copy
 * kernel, cublasSgeam, the naive transpose and the unpadded tiled transpose
 * (transpose_unpadded.cu, stage 05's baseline), and prints a table and a
 * record.
 *
 *   build/04_transpose/exercise --help
 */
#include <stdlib.h>
#include <string.h>

#include "gpu.h"
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
static const int DEFAULT_SIDE = 8192;
/* input sets the timed calls rotate over; a judge's batch is one call per
 * set, and a batch of short calls must last long enough to time (judge_timing.cu) */
#ifdef LAB_JUDGE
enum { NSETS = 12 };
#else
enum { NSETS = 3 };
#endif

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

typedef struct {
    int rows, cols; /* of the input; the output is cols x rows */
    lab_buffer in[NSETS], out[NSETS];
    uint64_t seed[NSETS];
    float *ref; /* device: cuBLAS's result for one set */
} problem;

static void problem_new(problem *p, int rows, int cols, int nsets, uint64_t seed)
{
    memset(p, 0, sizeof *p);
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
}

static void problem_free(problem *p, int nsets)
{
    for (int s = 0; s < nsets; s++) {
        lab_buffer_free(&p->in[s]);
        lab_buffer_free(&p->out[s]);
    }
    CUDA_CHECK(cudaFree(p->ref));
}

/* Check the output of set s (already computed by the kernel): values against
 * cuBLAS, bit for bit (a transpose only moves values), guard zones, input
 * unchanged. Prints one line, details beneath, and records the check.
 * whole_ok: the label of a check of whole WHOLE_TILES tiles that passed, or
 * NULL. Returns 1 when everything holds. */
static int check_output(problem *p, int s, cublasHandle_t h, const char *label,
                        const lab_args *a, lab_record *rec, const char *whole_ok)
{
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

    cublas_transpose(h, p->in[s].data, p->ref, rows, cols);
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

    if (!a->quiet || !ok) {
        if (ok)
            printf("  %-12s ok      %lld elements, bit for bit\n", label, c.checked);
        else if (c.bad)
            printf("  %-12s FAILED  %lld of %lld elements of out wrong (%lld NaN or never written)\n",
                   label, c.bad, c.checked, c.nan);
        else
            printf("  %-12s FAILED\n", label);
        if (!ok)
            fputs(details, stdout);
    }

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

typedef struct {
    problem *p;
    cublasHandle_t h;
} timing_ctx;

static void call_student(void *ctx, int s)
{
    problem *p = ((timing_ctx *)ctx)->p;
    transpose(p->in[s].data, p->out[s].data, p->rows, p->cols);
}

static void call_memcpy(void *ctx, int s)
{
    problem *p = ((timing_ctx *)ctx)->p;
    CUDA_CHECK(cudaMemcpyAsync(p->out[s].data, p->in[s].data, p->in[s].count * sizeof(float),
                               cudaMemcpyDeviceToDevice, 0));
}

static void call_copy(void *ctx, int s)
{
    problem *p = ((timing_ctx *)ctx)->p;
    copy_kernel<<<ref_grid(p->rows, p->cols), dim3(REF_TILE, REF_ROWS)>>>(
        p->in[s].data, p->out[s].data, p->rows, p->cols);
    CUDA_CHECK(cudaGetLastError());
}

static void call_cublas(void *ctx, int s)
{
    timing_ctx *t = (timing_ctx *)ctx;
    cublas_transpose(t->h, t->p->in[s].data, t->p->out[s].data, t->p->rows, t->p->cols);
}

static void call_naive(void *ctx, int s)
{
    problem *p = ((timing_ctx *)ctx)->p;
    transpose_naive<<<ref_grid(p->rows, p->cols), dim3(REF_TILE, REF_ROWS)>>>(
        p->in[s].data, p->out[s].data, p->rows, p->cols);
    CUDA_CHECK(cudaGetLastError());
}

static void call_unpadded(void *ctx, int s)
{
    problem *p = ((timing_ctx *)ctx)->p;
    transpose_unpadded_launch(p->in[s].data, p->out[s].data, p->rows, p->cols);
    CUDA_CHECK(cudaGetLastError());
}

/* Poison the output before each timed student call: a kernel that skips work
 * on a later call (caching its result) leaves NaN behind and is caught. */
static void poison_output(void *ctx, int s)
{
    lab_buffer_poison(&((timing_ctx *)ctx)->p->out[s]);
}

/* ================================================= batches (judge builds) */

/* A batch's inputs are made from a seed nobody knew before it (judge_timing.cu). */
static void refresh_set(void *ctx, int s, uint64_t seed)
{
    problem *p = ((timing_ctx *)ctx)->p;
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
    problem *p = ((timing_ctx *)ctx)->p;
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

/* ================================================================== main */

int main(int argc, char **argv)
{
    lab_args a;
    lab_gpu g;
    lab_start(argc, argv, 1, FAMILY_HELP, &a, &g);
    char err[160];
    if (!a.have_sizes && lab_parse_sizes(DEFAULT_SIZES, 1, a.sizes, &a.nsizes, err, sizeof err))
        lab_die(LAB_EXIT_USAGE, "default sizes: %s", err);
    if (!a.have_timing)
        a.timing.rows = a.timing.cols = DEFAULT_SIDE;
    for (int i = 0; i < a.nsizes; i++)
        if (transpose_size_ok(a.sizes[i], err, sizeof err))
            lab_die(LAB_EXIT_USAGE, "%s", err);
    if (transpose_size_ok(a.timing, err, sizeof err))
        lab_die(LAB_EXIT_USAGE, "--n: %s", err);
    int rows = (int)a.timing.rows, cols = (int)a.timing.cols;

    lab_record rec;
    lab_record_begin(&rec, "transpose", &a, &g);
    cublasHandle_t h = lab_cublas_strict();

    printf("%s (%s%s%s) on %s, seed %llu\n", lab_stage, lab_variant, *lab_knob ? ", " : "",
           lab_knob, g.name, (unsigned long long)a.seed);
    printf("checking out = transpose(in) against cublasSgeam, bit for bit (RxC: the input's rows x columns):\n");

    /* ------------------------------------------------ correctness first */
    int all_ok = 1;
    lab_dims checked[LAB_MAX_SIZES + 1];
    int results[LAB_MAX_SIZES + 1];
    lab_json_array(&rec.j, "checks");
    /* the timing size is checked here only with --check-only: otherwise the
     * timed calls' output is checked after timing, so that a correct kernel
     * too slow to time at that size has passed every check first */
    int nchecks = a.nsizes + (a.check_only ? 1 : 0);
    char whole_ok[32] = ""; /* a size of whole tiles that passed */
    for (int i = 0; i < nchecks; i++) {
        checked[i] = i < a.nsizes ? a.sizes[i] : a.timing; /* the timing size last (--check-only) */
        int r = (int)checked[i].rows, c = (int)checked[i].cols;
        char label[32];
        snprintf(label, sizeof label, "%dx%d", r, c);
        lab_progress("check %s", label);
        problem p;
        problem_new(&p, r, c, 1, a.seed);
        transpose(p.in[0].data, p.out[0].data, r, c);
        lab_student_sync(label);
        results[i] = check_output(&p, 0, h, label, &a, &rec, whole_ok[0] ? whole_ok : NULL);
        if (results[i] && r % WHOLE_TILES == 0 && c % WHOLE_TILES == 0 && !whole_ok[0])
            snprintf(whole_ok, sizeof whole_ok, "%s", label);
        all_ok &= results[i];
        problem_free(&p, 1);
    }
    lab_json_end(&rec.j);
    lab_json_bool(&rec.j, "correct", all_ok);
    if (!all_ok) {
        const char *hint = transpose_shape_hint(checked, results, nchecks);
        if (hint)
            printf("\n%s\n", hint);
        printf("\nnot timed: the kernel must pass every check first. Fix the first failing size,\n"
               "then run again (make run EX=%s). The seed above repeats these inputs (SEED=%llu).\n",
               lab_stage, (unsigned long long)a.seed);
        if (!strcmp(lab_variant, "exercise"))
            printf("Your edits go in the TODO(lab) parts of exercises/%s/kernel.cu.\n", lab_stage);
        lab_record_end(&rec, LAB_EXIT_WRONG, "wrong result");
        return LAB_EXIT_WRONG;
    }
    printf("all results match.\n");
    lab_progress("checks passed");
    if (a.check_only) {
        lab_record_end(&rec, LAB_EXIT_OK, "checked, not timed (--check-only)");
        return LAB_EXIT_OK;
    }

    /* ------------------------------------------------------------ timing */
    problem p;
    const int nsets = lab_sets_that_fit(NSETS, 2 * (size_t)rows * cols * sizeof(float));
    problem_new(&p, rows, cols, nsets, a.seed ^ 0x5eedULL);
    timing_ctx ctx = {&p, h};
    if (a.profile)
        return lab_profile_call(&rec, call_student, poison_output, &ctx);
    lab_timing_policy policy = lab_default_policy(&a);
    double bytes = transpose_bytes(rows, cols);
    enum { STUDENT, MEMCPY, COPY, CUBLAS, NAIVE, UNPADDED, NROWS };
    lab_timing t[NROWS] = {
        {"student", "your kernel"},
        {"memcpy", "cudaMemcpy device to device"},
        {"copy", "copy kernel, 32x8 threads, 4 each"},
        {"cublas", "cublasSgeam (transpose)"},
        {"baseline", "naive transpose (strided writes)"},
        {"tiled_unpadded", "tiled transpose, [32][32] tile"},
    };
    printf("\ntiming at %dx%d (%d input sets, L2 flushed before each call)...\n", rows, cols, nsets);
    lab_time_writes((size_t)rows * cols * sizeof(float)); /* every kernel timed here writes out */
    /* the student first, in the judge's runner that ran the checks (judge_timing.cu) */
    lab_batch_hooks(refresh_set, check_transposed, NULL);
    lab_time(&t[STUDENT], call_student, poison_output, &ctx, nsets, &policy, 1);

    /* the last timed call's output must be right too */
    lab_json_array(&rec.j, "timed_output_check");
    char label[32];
    snprintf(label, sizeof label, "%dx%d", rows, cols);
    lab_progress("check %s (the last timed call)", label);
    int last_ok = check_output(&p, t[STUDENT].last_set, h, label, &a, &rec, NULL);
    lab_json_end(&rec.j);
    if (!last_ok) {
        printf("the output of the last timed call is wrong, although the first call was right:\n"
               "does the kernel depend on state left by an earlier call?\n");
        lab_record_end(&rec, LAB_EXIT_WRONG, "the last timed call's output is wrong");
        return LAB_EXIT_WRONG;
    }
    lab_batch_hooks(refresh_set, check_copied, NULL);
    lab_time(&t[MEMCPY], call_memcpy, NULL, &ctx, nsets, &policy, 0);
    lab_time(&t[COPY], call_copy, NULL, &ctx, nsets, &policy, 0);
    lab_batch_hooks(refresh_set, check_transposed, NULL);
    lab_time(&t[CUBLAS], call_cublas, NULL, &ctx, nsets, &policy, 0);
    lab_time(&t[NAIVE], call_naive, NULL, &ctx, nsets, &policy, 0);
    lab_time(&t[UNPADDED], call_unpadded, NULL, &ctx, nsets, &policy, 0);
    for (int i = 0; i < NROWS; i++)
        t[i].rate = transpose_gbs(bytes, t[i].st.median);

    /* a time below what the memory system allows cannot be real */
    double floor_ms = transpose_floor_ms(rows, cols, g.peak_dram_gbs, (double)g.l2_bytes);
    int plausible = t[STUDENT].st.median >= floor_ms;

    double pct_memcpy = 100.0 * t[STUDENT].rate / t[MEMCPY].rate;
    double pct_copy = 100.0 * t[STUDENT].rate / t[COPY].rate;
    double pct_cublas = 100.0 * t[STUDENT].rate / t[CUBLAS].rate;
    double vs_naive = t[NAIVE].st.median / t[STUDENT].st.median;
    double vs_unpadded = t[UNPADDED].st.median / t[STUDENT].st.median;
    lab_print_timings(t, NROWS, "GB/s", &t[MEMCPY], &t[NAIVE]);
    printf("  (GB/s: bytes read + bytes written, %.4g GB, over the median time)\n", bytes / 1e9);
    printf("\n  your kernel: %.1f%% of the memcpy bandwidth, %.1f%% of the copy kernel,\n"
           "  %.2fx the naive transpose, %.2fx the unpadded [32][32] tile\n",
           pct_memcpy, pct_copy, vs_naive, vs_unpadded);
    if (!plausible)
        printf("  warning: %.4g ms is faster than the memory of this GPU allows (%.4g ms at %.0f GB/s):\n"
               "  this time cannot be real\n", t[STUDENT].st.median, floor_ms, g.peak_dram_gbs);

    lab_record_timing_begin(&rec, label, "GB/s", bytes, floor_ms, plausible);
    lab_json_number(&rec.j, "pct_of_reference", pct_memcpy);
    lab_json_number(&rec.j, "pct_of_copy", pct_copy);
    lab_json_number(&rec.j, "pct_of_cublas", pct_cublas);
    lab_json_number(&rec.j, "speedup_vs_baseline", vs_naive);
    lab_json_number(&rec.j, "speedup_vs_unpadded", vs_unpadded);
    lab_record_timing_end(&rec, t, NROWS);
    problem_free(&p, nsets);
    CUBLAS_CHECK(cublasDestroy(h));
    lab_record_end(&rec, LAB_EXIT_OK, plausible ? "ok" : "implausibly fast");
    return LAB_EXIT_OK;
}
