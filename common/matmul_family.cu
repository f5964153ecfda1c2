/*
 * matmul_family.cu: the matrix-multiplication stages (family.h). The
 * student's matmul() (matmul.h) is checked against cuBLAS in strict FP32 at
 * several sizes, then timed against cuBLAS and the naive row-mapped kernel
 * below.
 */
#include <stdlib.h>

#include "family.h"
#include "matmul.h"
#include "matmul_check.h"
#include "matmul_reference.h"

static const char *FAMILY_HELP =
    "  --n N            size of the timed problem (N x N matrices, default 4096;\n"
    "                   2048 with --profile)\n";
/* 256 first: a multiple of every tile of the lab's matrix-product stages (8
 * to 32, 128, 128 x 256), so that a kernel right on whole tiles and wrong on
 * the last, partial one is told so; then sizes that are multiples of none */
static const char *DEFAULT_SIZES = "256,1,17,255,1000,1025";
enum { WHOLE_TILES = 256, MAX_N = 32768 };
enum { NSETS = 3 }; /* input sets the timed calls rotate over */
static_assert((int)NSETS <= (int)LAB_MAX_SETS, "sets.h holds the sets");

/* ======================================================= baseline kernel */

/* The starting point of the course: one thread per element of C, with
 * threadIdx.x walking down the rows, accumulating straight into C in global
 * memory. Neighbouring threads of a warp touch addresses n floats apart, so
 * every load and store of a warp needs many memory transactions. */
static __global__ void matmul_rows_naive(const float *A, const float *B, float *C, int n)
{
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    int col = blockIdx.y * blockDim.y + threadIdx.y;
    if (row >= n || col >= n)
        return;
    C[(size_t)row * n + col] = 0.0f;
    for (int k = 0; k < n; k++)
        C[(size_t)row * n + col] += A[(size_t)row * n + k] * B[(size_t)k * n + col];
}

static void baseline_matmul(const float *A, const float *B, float *C, int n)
{
    dim3 block(16, 16);
    dim3 grid((n + 15) / 16, (n + 15) / 16);
    matmul_rows_naive<<<grid, block>>>(A, B, C, n);
}

/* ============================================================== problems */

/* nsets input sets of n x n matrices, made from seed; C poisoned. The sets
 * come first: the harness's hooks take the problem as its sets (sets.h). */
typedef struct {
    lab_sets sets; /* first (sets.h): in[s][0] is A, in[s][1] is B, out[s] is C */
    int n;
    cublasHandle_t h;
} problem;

static const lab_set_layout LAYOUT = {"C", {"A", "B"}, 2};
static float *A_of(const problem *p, int s) { return p->sets.in[s][0].data; }
static float *B_of(const problem *p, int s) { return p->sets.in[s][1].data; }
static float *C_of(const problem *p, int s) { return p->sets.out[s].data; }

static void *problem_new(lab_dims d, int nsets, uint64_t seed, cublasHandle_t h)
{
    problem *p = (problem *)calloc(1, sizeof *p);
    p->n = (int)d.rows;
    p->h = h;
    lab_sets_new(&p->sets, &LAYOUT, d, nsets, (size_t)p->n * p->n, seed ^ (uint64_t)p->n * 1000);
    return p;
}

/* cuBLAS's product of set s into out: the check's reference, and a timed
 * one */
static void reference_output(void *ctx, int s, float *out)
{
    problem *p = (problem *)ctx;
    lab_matmul_cublas(p->h, A_of(p, s), B_of(p, s), out, p->n);
}

/* The values of C against cuBLAS's: each element within its bound, and the
 * relative norm error within the tolerance (matmul_check.h). */
static int judge(void *ctx, int s, lab_output_check *k)
{
    problem *p = (problem *)ctx;
    int n = p->n;
    float *bound = lab_matmul_element_bounds(p->h, A_of(p, s), B_of(p, s), n);
    lab_output_compare(k, bound, n, n);
    CUDA_CHECK(cudaFree(bound));
    const lab_compare *c = &k->c;
    double tol = matmul_norm_tolerance(n);
    int ok = c->bad == 0 && c->rel_norm_err <= tol;
    if (c->bad == 0 && !ok)
        fprintf(k->log, "    every element is within its bound, but the overall error %.2e is above %.2e:\n"
                        "    more rounding than FP32 arithmetic gives (TF32 or half precision?)\n",
                c->rel_norm_err, tol);
    lab_explain_failures(k->log, c, n, n, k->whole_ok, k->label);
    snprintf(k->ok_text, sizeof k->ok_text, "rel. error %.1e (limit %.1e), worst element %.0f%% of its bound",
             c->rel_norm_err, tol, 100.0 * c->worst_ratio);
    lab_output_check_number(k, "rel_norm_err", c->rel_norm_err);
    lab_output_check_number(k, "rel_norm_tol", tol);
    lab_output_check_number(k, "worst_bound_ratio", c->worst_ratio);
    return ok;
}

/* ================================================================ timing */

/* n^2 dot products of n multiply-adds */
static double work(lab_dims d) { return 2.0 * (double)d.rows * d.rows * d.rows; }
static size_t set_bytes(lab_dims d) { return 3 * (size_t)d.rows * d.rows * sizeof(float); }
static double cube(lab_dims d) { return (double)d.rows * d.rows * d.rows; }  /* multiply-adds */
static double square(lab_dims d) { return (double)d.rows * d.rows; }         /* elements of C */

static void call_student(void *ctx, int s)
{
    problem *p = (problem *)ctx;
    matmul(A_of(p, s), B_of(p, s), C_of(p, s), p->n);
}

static void call_cublas(void *ctx, int s) { reference_output(ctx, s, C_of((problem *)ctx, s)); }

static void call_baseline(void *ctx, int s)
{
    problem *p = (problem *)ctx;
    baseline_matmul(A_of(p, s), B_of(p, s), C_of(p, s), p->n);
}

/* Elements sampled from each set of a batch; one warp each, 8 a block. */
enum { CHECK_SAMPLES = 64, CHECK_WARPS = 8 };

/* Per set of a batch while its check runs: the sampled elements' squared
 * errors and squared exact values, summed, and the blocks that have added
 * theirs. The set's last block judges the sums and sets them back to zero
 * for the next check. Zero when the program loads. */
typedef struct {
    double err2, want2;
    unsigned int blocks;
} sample_sums;
__device__ sample_sums g_sample_sums[NSETS];

/* One warp per sampled element (i, j) of set blockIdx.y, picked from
 * `pick`: the dot product in double (each product of two floats is exact in
 * double), and one count in bad->wrong when C(i, j) is outside its bound
 * (matmul_check.h; NaN included). Then the set's samples together: the
 * relative norm error over them within the tolerance of the checks, or one
 * count in bad->imprecise (so reduced precision on any one timed call
 * shows, not only on the checked sizes and the last call). A and B are made
 * again from their seeds, not read: a runner that rewrote the inputs
 * (zeros, to make zeros right) gains nothing. */
static __global__ void check_samples(lab_set_pointers sp, int n, uint64_t pick, lab_batch_bad *bad)
{
    __shared__ double err2[CHECK_WARPS], want2[CHECK_WARPS];
    int warp = threadIdx.x / 32, lane = threadIdx.x % 32, s = blockIdx.y;
    int sample = blockIdx.x * CHECK_WARPS + warp;
    uint64_t h = lab_mix64(pick ^ (uint64_t)(sample + CHECK_SAMPLES * s));
    int i = (int)(h % (uint64_t)n), j = (int)((h >> 32) % (uint64_t)n);
    double dot = 0, mag = 0;
    for (int k = lane; k < n; k += 32) {
        double x = (double)lab_uniform(sp.seed[s][0], (uint64_t)i * n + k) *
                   lab_uniform(sp.seed[s][1], (uint64_t)k * n + j);
        dot += x;
        mag += fabs(x);
    }
    for (int off = 16; off > 0; off >>= 1) {
        dot += __shfl_down_sync(0xffffffffu, dot, off);
        mag += __shfl_down_sync(0xffffffffu, mag, off);
    }
    if (lane == 0) {
        double err = (double)sp.out[s][(size_t)i * n + j] - dot;
        if (!(fabs(err) <= matmul_element_bound(n, mag)))
            atomicAdd(&bad->wrong, 1ULL);
        err2[warp] = err * err;
        want2[warp] = dot * dot;
    }
    // every warp's squares must be in shared memory before thread 0 adds them
    __syncthreads();
    if (threadIdx.x != 0)
        return;
    double e = 0, w = 0;
    for (int k = 0; k < CHECK_WARPS; k++) {
        e += err2[k];
        w += want2[k];
    }
    sample_sums *t = &g_sample_sums[s];
    atomicAdd(&t->err2, e);
    atomicAdd(&t->want2, w);
    // this block's sums must be visible to the last block before it counts
    __threadfence();
    if (atomicAdd(&t->blocks, 1u) != gridDim.x - 1)
        return;
    // the set's last block: every block's sums are in L2, where __ldcg reads
    double ratio = matmul_rel_norm_error(__ldcg(&t->err2), __ldcg(&t->want2)) / matmul_norm_tolerance(n);
    if (!(ratio <= 1.0)) {
        atomicAdd(&bad->imprecise, 1ULL);
        atomicMax(&bad->worst, (unsigned long long)__double_as_longlong(ratio));
    }
    t->err2 = t->want2 = 0;
    t->blocks = 0;
}

/* The check that ends a timed batch: samples of every set, picked after
 * the batch. */
static void check_sets(void *ctx, int first, int count, lab_batch_bad *bad)
{
    problem *p = (problem *)ctx;
    check_samples<<<dim3(CHECK_SAMPLES / CHECK_WARPS, count), CHECK_WARPS * 32>>>(
        lab_sets_pointers(&p->sets, first, count), p->n, lab_fresh_seed(), bad);
}

/* ============================================================ conclusion */

/* a time below the FP32 peak of this GPU cannot be real */
static double floor_ms(void *ctx, const lab_gpu *g)
{
    double n = ((problem *)ctx)->n;
    return 2.0 * n * n * n / (g->peak_fp32_gflops * 1e9) * 1e3;
}

enum { STUDENT, CUBLAS, BASELINE, NROWS };

static void conclude(void *ctx, const lab_timing *t, const lab_gpu *g, double floor, int plausible, lab_json *j)
{
    (void)ctx;
    (void)g;
    double pct = 100.0 * t[STUDENT].rate / t[CUBLAS].rate, speedup = t[BASELINE].st.median / t[STUDENT].st.median;
    printf("\n  your kernel: %.1f%% of cuBLAS, %.2fx the naive row-mapped kernel\n", pct, speedup);
    if (!plausible)
        printf("  warning: %.4g ms is faster than the FP32 peak of this GPU allows (%.4g ms):\n"
               "  this time cannot be real\n", t[STUDENT].st.median, floor);
    lab_json_number(j, "pct_of_reference", pct);
    lab_json_number(j, "speedup_vs_baseline", speedup);
}

static const lab_kernel KERNELS[NROWS] = {
    /* no prepare: each batch's refresh poisons the outputs it times */
    {.name = "student", .label = "your kernel", .call = call_student, .check = check_sets},
    {.name = "cublas", .label = "cuBLAS SGEMM", .call = call_cublas, .check = check_sets},
    /* the slowest call here (0.4 s at n=4096 on an H100) and the same in
     * every matrix-product stage: its speedup is scored in stage 01 only */
    {.name = "baseline", .label = "naive, threadIdx.x on rows", .call = call_baseline, .check = check_sets,
     .reusable = 1},
};

/* (designated, in the order family.h declares them, as C++ wants) */
extern const lab_family lab_family_this = {
    .name = "matmul",
    .help = FAMILY_HELP,
    .sizes = DEFAULT_SIZES,
    .whole_tiles = WHOLE_TILES,
    .intro = "checking C = A*B against cuBLAS SGEMM in strict FP32:",
    /* the timed size; make profile's: ncu replays the call once per group
     * of counters, and the naive kernels take a while at 4096 */
    .timed_size = {4096, 1},
    .profiled_size = {2048, 1},
    .max_n = MAX_N,
    .max_note = "",
    /* the timed problem: the input sets (sets.h), the work of a call */
    .sets = NSETS, .set_bytes = set_bytes, .problem_new = problem_new, .problem_free = lab_sets_problem_free,
    .work = work, .refresh = lab_sets_refresh, .output_bytes = lab_sets_output_bytes,
    .check_set = lab_check_output, .reference_output = reference_output, .judge = judge,
    /* the table: ratios to cuBLAS and to the naive kernel */
    .kernels = KERNELS, .nkernels = NROWS, .reference = CUBLAS, .baseline = BASELINE, .unit = "GFLOP/s",
    .floor_ms = floor_ms, .conclude = conclude,
    /* on the CPU: n^3 of 2.2 million at most where a grade's run names a cause */
    .emu = {.checked = "256,1,17,255,33", .last = "100", .counted = "256", .smallest = "1", .small = "17,100",
            .max_work = 2 * 2.2e6, .madds = cube, .outputs = square},
    .coalescing_advice = "give threadIdx.x the index that moves along a row in memory (the column of a row-major "
                         "matrix), so that neighbouring threads touch neighbouring floats (handouts/01_naive.md, "
                         "\"The access pattern\")",
};
