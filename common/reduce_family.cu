/*
 * reduce_family.cu: the reduction stage, 07_reduction (family.h). The
 * student's reduce() (reduce.h) is checked at several sizes, on signed and
 * on non-negative data, against the exact sum (reduce_check.h); then timed,
 * on non-negative data with large values at random places (reduce_inputs.h),
 * against a device-to-device copy, cuBLAS SASUM and the interleaved
 * baseline below.
 */
#include <stdlib.h>

#include "family.h"
#include "reduce.h"
#include "reduce_inputs.h"
#include "reduce_report.h"

static const char *FAMILY_HELP =
    "  --n N            floats in the timed sum (default 67108864 = 2^26, at most 2^28)\n";
static const char *DEFAULT_SIZES = "1,2,3,31,33,1000,1025,65537,1000001";
static const long long MAX_N = 1LL << 28;

/* ======================================================= baseline kernel */

enum { BASELINE_BLOCK = 256 };

/* Step 1 of the ladder: each block sums BASELINE_BLOCK elements in shared
 * memory as a tree, and in step s only the threads whose index is a multiple
 * of 2s add. Those threads are scattered over every warp, so each warp takes
 * the branch with a few lanes busy and the rest idle. */
static __global__ void reduce_interleaved(const float *in, float *out, int n)
{
    __shared__ float partial[BASELINE_BLOCK];
    int tid = threadIdx.x;
    int i = blockIdx.x * BASELINE_BLOCK + tid;
    partial[tid] = i < n ? in[i] : 0.0f;
    // every element must be in shared memory before any thread reads another's
    __syncthreads();
    for (int s = 1; s < BASELINE_BLOCK; s *= 2) {
        // tid is a multiple of 2s, so tid + s < BASELINE_BLOCK
        if (tid % (2 * s) == 0)
            partial[tid] += partial[tid + s];
        // this step's sums must be written before the next step reads them
        __syncthreads();
    }
    if (tid == 0)
        out[blockIdx.x] = partial[0];
}

/* Passes of reduce_interleaved until one block is left, which writes out.
 * The partial sums alternate between two regions of scratch so that no pass
 * overwrites its own input: n/256 + n/65536 floats, well inside
 * reduce_scratch_floats(n). */
static void baseline_reduce(const float *in, float *out, int n, float *scratch)
{
    float *region[2] = {scratch, scratch + (n + BASELINE_BLOCK - 1) / BASELINE_BLOCK};
    int which = 0;
    const float *src = in;
    while (n > BASELINE_BLOCK) {
        int blocks = (n + BASELINE_BLOCK - 1) / BASELINE_BLOCK;
        reduce_interleaved<<<blocks, BASELINE_BLOCK>>>(src, region[which], n);
        src = region[which];
        n = blocks;
        which ^= 1;
    }
    reduce_interleaved<<<1, BASELINE_BLOCK>>>(src, out, n);
    CUDA_CHECK(cudaGetLastError());
}

/* ============================================================== one check */

/* Check reduce() at n elements: once on signed, once on non-negative data,
 * each with the output and the scratch poisoned before the call. */
static int check_size(lab_dims d, const char *label, const char *whole_ok, cublasHandle_t h, const lab_args *a,
                      lab_record *rec)
{
    (void)whole_ok;
    (void)h;
    int n = (int)d.rows;
    reduce_report r;
    lab_reduce_report_begin(&r);
    for (int k = 0; k < 2; k++) {
        problem *p = lab_reduce_problem_new(n, 1, k ? REDUCE_NONNEG : REDUCE_SIGNED, a->seed);
        reduce(p->in[0].data, p->out[0].data, n, p->scratch.data);
        lab_student_sync(label);
        lab_reduce_report_add(&r, p, 0);
        lab_reduce_problem_free(p);
    }
    return lab_reduce_report_end(&r, label, a, rec);
}

/* ================================================================ timing */

/* GB/s of DRAM traffic: a sum reads 4n bytes; the copy reads 4n and writes
 * 4n, and moves 8n (its work_scale) */
static double work(lab_dims d) { return 4.0 * d.rows; }
static double one_sum(lab_dims) { return 1; }

static void *timing_new(lab_dims d, int nsets, uint64_t seed, cublasHandle_t h)
{
    timing_ctx *t = (timing_ctx *)calloc(1, sizeof *t);
    t->p = lab_reduce_problem_new((int)d.rows, nsets, REDUCE_TIMED, seed);
    t->h = h;
    /* SASUM's result stays on the device */
    CUBLAS_CHECK(cublasSetPointerMode(h, CUBLAS_POINTER_MODE_DEVICE));
    CUDA_CHECK(cudaMalloc(&t->copy, (size_t)d.rows * sizeof(float)));
    return t;
}

static void timing_free(void *ctx)
{
    timing_ctx *t = (timing_ctx *)ctx;
    CUDA_CHECK(cudaFree(t->copy));
    lab_reduce_problem_free(t->p);
    free(t);
}

static size_t set_bytes(lab_dims d) { return (size_t)d.rows * sizeof(float); }
/* the copy's output; the sums write one float (writes_one) */
static size_t output_bytes(void *ctx) { return (size_t)((timing_ctx *)ctx)->p->n * sizeof(float); }

static void timing_intro(void *ctx, int nsets)
{
    printf("\ntiming at n=%d on non-negative data with about %d values of 2^%d to 2^%d, of either sign,\n"
           "at random places (%d input sets, fresh inputs, L2 flushed before the first call)...\n",
           ((timing_ctx *)ctx)->p->n, REDUCE_SPIKES, REDUCE_SPIKE_EXPONENT, REDUCE_SPIKE_EXPONENT + 1, nsets);
}

/* the last timed call's sum, judged and reported as a check */
static int check_set(void *ctx, int set, const char *label, const char *whole_ok, const lab_args *a,
                     lab_record *rec)
{
    (void)whole_ok;
    reduce_report r;
    lab_reduce_report_begin(&r);
    lab_reduce_report_add(&r, ((timing_ctx *)ctx)->p, set);
    return lab_reduce_report_end(&r, label, a, rec);
}

static void call_student(void *ctx, int s)
{
    problem *p = ((timing_ctx *)ctx)->p;
    reduce(p->in[s].data, p->out[s].data, p->n, p->scratch.data);
}

static void call_memcpy(void *ctx, int s)
{
    timing_ctx *t = (timing_ctx *)ctx;
    CUDA_CHECK(cudaMemcpyAsync(t->copy, t->p->in[s].data, (size_t)t->p->n * sizeof(float),
                               cudaMemcpyDeviceToDevice, 0));
}

/* SASUM computes the sum of |x|: on the timed data, with its negative
 * spikes, that is not the sum, and its result is checked against the exact
 * sum of |x| (lab_reduce_check_abs_summed); it reads the same bytes. The handle is in
 * device pointer mode: the result stays on the device. */
static void call_cublas(void *ctx, int s)
{
    timing_ctx *t = (timing_ctx *)ctx;
    CUBLAS_CHECK(cublasSasum(t->h, t->p->n, t->p->in[s].data, 1, t->p->out[s].data));
}

static void call_baseline(void *ctx, int s)
{
    problem *p = ((timing_ctx *)ctx)->p;
    baseline_reduce(p->in[s].data, p->out[s].data, p->n, p->scratch.data);
}

/* Poison the output and the scratch before each timed student call: a kernel
 * that skips work on a later call, or counts on what an earlier call left in
 * scratch, is caught. */
static void poison_output(void *ctx, int s)
{
    problem *p = ((timing_ctx *)ctx)->p;
    lab_buffer_poison(&p->out[s]);
    lab_buffer_poison(&p->scratch);
}

/* a reference's last output, a sum of |x| (SASUM) or a sum: a failure here
 * is the harness's */
static int sasum_ok(void *ctx, int s, const char *what)
{
    return lab_reduce_reference_ok(((timing_ctx *)ctx)->p, s, what, 1);
}

static int sum_ok(void *ctx, int s, const char *what)
{
    return lab_reduce_reference_ok(((timing_ctx *)ctx)->p, s, what, 0);
}

/* ============================================================ conclusion */

/* a time below what reading 4n bytes takes at peak bandwidth cannot be real */
static double floor_ms(void *ctx, const lab_gpu *g)
{
    double bytes = 4.0 * ((timing_ctx *)ctx)->p->n;
    return g->peak_dram_gbs > 0 ? bytes / (g->peak_dram_gbs * 1e9) * 1e3 : 0.0;
}

enum { STUDENT, MEMCPY, CUBLAS, BASELINE, NROWS };

static void conclude(void *ctx, const lab_timing *rows, const lab_gpu *g, double floor, int plausible, lab_json *j)
{
    double pct = 100.0 * rows[STUDENT].rate / rows[MEMCPY].rate;
    double vs_cublas = rows[STUDENT].rate / rows[CUBLAS].rate;
    double speedup = rows[BASELINE].st.median / rows[STUDENT].st.median;
    printf("  (GB/s: bytes read / time for the sums, 4n bytes; the copy reads 4n and writes 4n\n"
           "  bytes and is counted as both, 8n: the memory traffic a streaming kernel can reach)\n");
    printf("\n  your kernel: %.0f GB/s, %.1f%% of the copy rate, %.2fx cuBLAS SASUM, %.2fx the baseline\n",
           rows[STUDENT].rate, pct, vs_cublas, speedup);
    if (!plausible)
        printf("  warning: %.4g ms is less than reading %.0f bytes takes at this GPU's peak memory\n"
               "  bandwidth (%.4g ms at %.0f GB/s): this time cannot be real\n",
               rows[STUDENT].st.median, 4.0 * ((timing_ctx *)ctx)->p->n, floor, g->peak_dram_gbs);
    lab_json_string(j, "reference", "memcpy, counted as bytes read + written");
    lab_json_number(j, "pct_of_reference", pct);
    lab_json_number(j, "ratio_to_cublas", vs_cublas);
    lab_json_number(j, "speedup_vs_baseline", speedup);
}

static const lab_kernel KERNELS[NROWS] = {
    {.name = "student", .label = "your kernel", .call = call_student, .prepare = poison_output,
     .check = lab_reduce_check_summed, .wrong_hint = REDUCE_WRONG_HINT, .work_scale = 1, .writes_one = 1},
    {.name = "memcpy", .label = "cudaMemcpy D2D (read + write)", .call = call_memcpy, .check = lab_reduce_check_copied,
     .work_scale = 2},
    {.name = "cublas", .label = "cuBLAS SASUM", .call = call_cublas, .check = lab_reduce_check_abs_summed,
     .work_scale = 1, .writes_one = 1, .verify = sasum_ok},
    {.name = "baseline", .label = "interleaved, divergent (step 1)", .call = call_baseline,
     .check = lab_reduce_check_summed, .work_scale = 1, .writes_one = 1, .verify = sum_ok},
};

/* (designated, in the order family.h declares them, as C++ wants) */
extern const lab_family lab_family_this = {
    .name = "reduce",
    .help = FAMILY_HELP,
    .sizes = DEFAULT_SIZES,
    .intro = "checking the sum against the exact sum, on signed data in [-0.5, 0.5) and on\n"
             "non-negative data in [0, 0.5]; allowed error gamma(D) * sum|x| (common/reduce_check.h):",
    .timed_size = {1 << 26, 1},
    .max_n = MAX_N,
    .max_note = "2^28 = ",
    .check = check_size,
    /* the timed problem: NSETS inputs with their exact sums (reduce_batch.cu) */
    .sets = NSETS, .set_bytes = set_bytes, .problem_new = timing_new, .problem_free = timing_free,
    .work = work, .timing_intro = timing_intro, .refresh = lab_reduce_refresh_set, .output_bytes = output_bytes,
    .check_set = check_set,
    /* the table: ratios to memcpy's bandwidth and to the interleaved reduction */
    .kernels = KERNELS, .nkernels = NROWS, .reference = MEMCPY, .baseline = BASELINE, .unit = "GB/s",
    .floor_ms = floor_ms, .conclude = conclude,
    /* on the CPU; the counted size is past one grid of a few blocks an SM,
     * so that a grid-stride loop shows, and it runs in a second */
    .emu = {.checked = "1,2,3,31,33,1000,1025,65537,2097153", .last = "100003", .counted = "2097153",
            .smallest = "1", .small = "1000,65537", .max_work = 2.2e6 * sizeof(float), .outputs = one_sum},
    .coalescing_advice = "let neighbouring threads read neighbouring elements, in a grid-stride loop "
                         "(handouts/07_reduction.md)",
};
