/*
 * reduce_family.cu: the reduction stage, 07_reduction (family.h). The
 * student's reduce() (reduce.h) is checked at several sizes, on signed and
 * on non-negative data, against the exact sum (reduce_check.h); then timed,
 * on non-negative data with large values at random places (reduce_inputs.h),
 * against a device-to-device copy, cuBLAS SASUM and the interleaved
 * baseline below.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "family.h"
#include "reduce.h"
#include "reduce_check.h"
#include "reduce_inputs.h"
#include "reduce_problem.h"

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
__global__ void reduce_interleaved(const float *in, float *out, int n)
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

/* ============================================================== problems */

static problem *problem_new(int n, int nsets, enum reduce_data data, uint64_t seed)
{
    problem *p = (problem *)calloc(1, sizeof *p);
    p->n = n;
    p->data = data;
    p->nsets = nsets;
    for (int s = 0; s < nsets; s++) {
        p->seed[s] = lab_mix64(seed ^ (uint64_t)n * 1000 ^ (uint64_t)(2 * s + 1 + 64 * (data != REDUCE_SIGNED)));
        lab_buffer_new(&p->in[s], (size_t)n);
        lab_buffer_new(&p->out[s], 1);
        reduce_fill(p, s);
        exact_sum_gpu(&p->in[s], n, &p->exact[s], &p->sum_abs[s]);
    }
    lab_buffer_new(&p->scratch, reduce_scratch_floats(n));
    return p;
}

static void problem_free(problem *p)
{
    for (int s = 0; s < p->nsets; s++) {
        lab_buffer_free(&p->in[s]);
        lab_buffer_free(&p->out[s]);
    }
    lab_buffer_free(&p->scratch);
    free(p);
}

/* ============================================================== one check */

/* enum reduce_data's names, in messages and as the record's keys */
static const char *const DATA_KIND[] = {"signed", "non-negative", "timed"};
static const char *const DATA_KEY[] = {"signed", "non_negative", "timed"};

/* What one computed sum came to, with what it is judged by. */
typedef struct {
    const char *kind; /* "signed", "non-negative" or "timed" */
    enum reduce_data data;
    long long n;
    float got;
    double exact, sum_abs, error, bound;
    enum reduce_verdict verdict;
    int guards_ok;
    long long changed; /* elements of in that the call modified */
} outcome;

/* Judge the sum in out[s] (already computed), the guard zones of in, out and
 * scratch, and whether in is unchanged. Messages about the buffers go to log. */
static outcome judge(problem *p, int s, FILE *log)
{
    outcome o;
    o.kind = DATA_KIND[p->data];
    o.data = p->data;
    o.n = p->n;
    CUDA_CHECK(cudaMemcpy(&o.got, p->out[s].data, sizeof o.got, cudaMemcpyDeviceToHost));
    o.exact = p->exact[s];
    o.sum_abs = p->sum_abs[s];
    o.error = (double)o.got - o.exact;
    o.bound = reduce_bound(p->n, p->sum_abs[s]);
    o.verdict = reduce_judge(o.got, o.exact, o.bound);
    o.guards_ok = lab_buffer_guards_ok(&p->out[s], "out", log) &
                  lab_buffer_guards_ok(&p->in[s], "in", log) &
                  lab_buffer_guards_ok(&p->scratch, "scratch", log);
    o.changed = reduce_changed(p, s);
    if (o.changed)
        fprintf(log, "    in was modified: %lld of its elements changed. in is read-only;"
                     " keep partial sums in scratch\n", o.changed);
    return o;
}

static int outcome_ok(const outcome *o)
{
    return o->verdict == REDUCE_OK && o->guards_ok && !o->changed;
}

/* Say what a wrong sum suggests. other_ok: the sum on the other kind of data
 * was right. */
static void explain(FILE *log, const outcome *o, int other_ok)
{
    switch (o->verdict) {
    case REDUCE_OK:
        return;
    case REDUCE_NEVER_WRITTEN:
        fprintf(log, "    %s data: out still holds the NaN the harness put there before the call:\n"
                     "    nothing wrote out[0]. Does the last pass write its sum to out?\n", o->kind);
        return;
    case REDUCE_NOT_FINITE:
        fprintf(log, "    %s data: the sum is %g, exact %.9g. The guard zones around in and scratch,\n"
                     "    and scratch itself on entry, hold NaN: is something read past the end of in,\n"
                     "    or read from scratch or shared memory before it was written?\n",
                o->kind, o->got, o->exact);
        return;
    case REDUCE_TOO_FAR:
        break;
    }
    fprintf(log, "    %s data: got %.9g, exact sum %.9g (error %.3g, allowed %.3g)\n", o->kind, o->got,
            o->exact, o->error, o->bound);
    double worth = reduce_elements_worth(o->error, o->sum_abs, o->n);
    int nonneg = o->data == REDUCE_NONNEG;
    if (o->data == REDUCE_TIMED && fabs(o->error) >= ldexp(1.0, REDUCE_SPIKE_EXPONENT - 1))
        fprintf(log, "    the timed data hold about %d values of 2^%d to 2^%d, of either sign, at random\n"
                     "    places: a sum that skips elements, or estimates some from the others, misses\n"
                     "    some of them. Does every element of in reach the sum?\n",
                REDUCE_SPIKES, REDUCE_SPIKE_EXPONENT, REDUCE_SPIKE_EXPONENT + 1);
    else if (o->got == 0.0f)
        fprintf(log, "    the sum is exactly 0: nothing was added. Does each thread load its elements,\n"
                     "    and does the tree add them up?\n");
    else if (nonneg && worth <= -0.5)
        fprintf(log, "    about %.0f %s worth of the sum is missing (an element is %.3g on average):\n"
                     "    are some elements never added: those past the last whole block, the n %% 4\n"
                     "    left over by float4 loads, a whole block, or part of a block's tree?\n",
                -worth, -worth < 1.5 ? "element's" : "elements'", o->sum_abs / o->n);
    else if (nonneg && worth >= 0.5)
        fprintf(log, "    the sum is too large by about %.0f elements' worth: is something counted twice?\n",
                worth);
    else if (o->data == REDUCE_SIGNED && other_ok)
        fprintf(log, "    the sum is right on non-negative data but not on signed data:"
                     " is an absolute value taken somewhere?\n");
    if (fabs(o->error) < 100.0 * o->bound)
        fprintf(log, "    the error is only %.1f times the bound: lower precision than FP32, or a race\n"
                     "    between threads? make run EX=%s SANITIZE=1 runs racecheck.\n",
                fabs(o->error) / o->bound, lab_stage);
}

/* Record one outcome as a JSON object. */
static void record_outcome(lab_json *j, const char *key, const outcome *o)
{
    lab_json_object(j, key);
    lab_json_bool(j, "ok", outcome_ok(o));
    lab_json_number(j, "got", o->got);
    lab_json_number(j, "exact", o->exact);
    lab_json_number(j, "error", o->error);
    lab_json_number(j, "bound", o->bound);
    lab_json_bool(j, "never_written", o->verdict == REDUCE_NEVER_WRITTEN);
    lab_json_bool(j, "guards_ok", o->guards_ok);
    lab_json_bool(j, "inputs_unchanged", !o->changed);
    lab_json_end(j);
}

/* Print one line for a size, with details beneath when something failed, and
 * record it. o holds one or two outcomes (signed and non-negative data);
 * notes are the messages about the buffers. */
static int report(const char *label, const outcome *o, int count, const char *notes,
                  const lab_args *a, lab_record *rec)
{
    int ok[2] = {1, 1}, wrong[2] = {0, 0};
    for (int k = 0; k < count; k++) {
        ok[k] = outcome_ok(&o[k]);
        wrong[k] = o[k].verdict != REDUCE_OK;
    }
    int all = ok[0] && ok[1];

    if (!a->quiet || !all) {
        if (all) {
            printf("  %-12s ok      error %.2g of %.2g allowed (%s)", label, fabs(o[0].error),
                   o[0].bound, o[0].kind);
            if (count == 2)
                printf(", %.2g of %.2g (%s)", fabs(o[1].error), o[1].bound, o[1].kind);
            printf("\n");
        } else if (wrong[0] || wrong[1]) {
            printf("  %-12s FAILED  wrong sum on %s data\n", label,
                   wrong[0] && wrong[1] ? "signed and on non-negative" : o[wrong[0] ? 0 : 1].kind);
        } else {
            printf("  %-12s FAILED  the sum is right, but:\n", label);
        }
        if (!all) {
            for (int k = 0; k < count; k++)
                explain(stdout, &o[k], count == 2 && ok[1 - k]);
            fputs(notes, stdout);
        }
    }

    lab_json *j = &rec->j;
    lab_json_object(j, NULL);
    lab_json_string(j, "size", label);
    lab_json_int(j, "n", o[0].n);
    lab_json_bool(j, "ok", all);
    for (int k = 0; k < count; k++)
        record_outcome(j, DATA_KEY[o[k].data], &o[k]);
    lab_json_end(j);
    return all;
}

/* Check reduce() at n elements: once on signed, once on non-negative data,
 * each with the output and the scratch poisoned before the call. */
static int check_size(lab_dims d, const char *label, const char *whole_ok, cublasHandle_t h, const lab_args *a,
                      lab_record *rec)
{
    (void)whole_ok;
    (void)h;
    int n = (int)d.rows;
    outcome o[2];
    char *notes = NULL;
    size_t notes_len = 0;
    FILE *log = open_memstream(&notes, &notes_len);
    for (int k = 0; k < 2; k++) {
        problem *p = problem_new(n, 1, k ? REDUCE_NONNEG : REDUCE_SIGNED, a->seed);
        reduce(p->in[0].data, p->out[0].data, n, p->scratch.data);
        lab_student_sync(label);
        o[k] = judge(p, 0, log);
        problem_free(p);
    }
    fclose(log);
    int ok = report(label, o, 2, notes, a, rec);
    free(notes);
    return ok;
}

/* ================================================================ timing */

/* GB/s of DRAM traffic: a sum reads 4n bytes; the copy reads 4n and writes
 * 4n, and moves 8n (its work_scale) */
static double work(lab_dims d) { return 4.0 * d.rows; }

static void *timing_new(lab_dims d, int nsets, uint64_t seed, cublasHandle_t h)
{
    timing_ctx *t = (timing_ctx *)calloc(1, sizeof *t);
    t->p = problem_new((int)d.rows, nsets, REDUCE_TIMED, seed);
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
    problem_free(t->p);
    free(t);
}

static size_t set_bytes(lab_dims d) { return (size_t)d.rows * sizeof(float); }
/* the copy's output; the sums write one float (writes_one) */
static size_t output_bytes(void *ctx) { return (size_t)((timing_ctx *)ctx)->p->n * sizeof(float); }

static void timing_intro(void *ctx, int nsets)
{
    printf("\ntiming at n=%d on non-negative data with about %d values of 2^%d to 2^%d, of either sign,\n"
           "at random places (%d input sets, L2 flushed before each call)...\n",
           ((timing_ctx *)ctx)->p->n, REDUCE_SPIKES, REDUCE_SPIKE_EXPONENT, REDUCE_SPIKE_EXPONENT + 1, nsets);
}

/* the last timed call's sum, judged and reported as a check */
static int check_set(void *ctx, int set, const char *label, const char *whole_ok, const lab_args *a,
                     lab_record *rec)
{
    (void)whole_ok;
    char *notes = NULL;
    size_t notes_len = 0;
    FILE *log = open_memstream(&notes, &notes_len);
    outcome last = judge(((timing_ctx *)ctx)->p, set, log);
    fclose(log);
    int ok = report(label, &last, 1, notes, a, rec);
    free(notes);
    return ok;
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
 * sum of |x| (check_abs_summed); it reads the same bytes. The handle is in
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

/* Check a reference kernel's last output (a sum, or with abs a sum of |x|);
 * a failure here is the harness's. */
static int reference_ok(problem *p, int s, const char *what, int abs)
{
    float got;
    CUDA_CHECK(cudaMemcpy(&got, p->out[s].data, sizeof got, cudaMemcpyDeviceToHost));
    double bound = reduce_bound(p->n, p->sum_abs[s]), want = abs ? p->sum_abs[s] : p->exact[s];
    int ok = reduce_judge(got, want, bound) == REDUCE_OK;
    if (!ok)
        printf("  warning: %s gave %.9g, exact %.9g, outside the bound %.3g: the check itself\n"
               "  may be wrong on this system; please report it\n", what, got, want, bound);
    return ok;
}

static int sasum_ok(void *ctx, int s, const char *what) { return reference_ok(((timing_ctx *)ctx)->p, s, what, 1); }
static int sum_ok(void *ctx, int s, const char *what) { return reference_ok(((timing_ctx *)ctx)->p, s, what, 0); }

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
    {"student", "your kernel", call_student, poison_output, check_summed, REDUCE_WRONG_HINT, 1, 1},
    {"memcpy", "cudaMemcpy D2D (read + write)", call_memcpy, NULL, check_copied, NULL, 2},
    {"cublas", "cuBLAS SASUM", call_cublas, NULL, check_abs_summed, NULL, 1, 1, 0, sasum_ok},
    {"baseline", "interleaved, divergent (step 1)", call_baseline, NULL, check_summed, NULL, 1, 1, 0, sum_ok},
};

extern const lab_family lab_family_this = {
    "reduce", FAMILY_HELP, 0, DEFAULT_SIZES, 0,
    "checking the sum against the exact sum, on signed data in [-0.5, 0.5) and on\n"
    "non-negative data in [0, 0.5]; allowed error gamma(D) * sum|x| (common/reduce_check.h):",
    {1 << 26, 1}, {0, 0}, NULL, MAX_N, "2^28 = ", check_size, NULL,
    NSETS, set_bytes, timing_new, timing_free, work, timing_intro, refresh_set, output_bytes, check_set, NULL, NULL,
    KERNELS, NROWS, MEMCPY, BASELINE, "GB/s", floor_ms, conclude,
};
