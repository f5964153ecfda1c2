/*
 * matmul_family.cu: the matrix-multiplication stages (family.h). The
 * student's matmul() (matmul.h) is checked against cuBLAS in strict FP32 at
 * several sizes, then timed against cuBLAS and the naive row-mapped kernel
 * below.
 */
#include "family.h"
#include "matmul.h"
#include "matmul_check.h"

#include <stdlib.h>
#include <string.h>

static const char *FAMILY_HELP =
    "  --n N            size of the timed problem (N x N matrices, default 4096;\n"
    "                   2048 with --profile)\n";
/* 256 first: a multiple of every tile of the lab's matrix-product stages (8
 * to 32, 128, 128 x 256), so that a kernel right on whole tiles and wrong on
 * the last, partial one is told so; then sizes that are multiples of none */
static const char *DEFAULT_SIZES = "256,1,17,255,1000,1025";
enum { WHOLE_TILES = 256, MAX_N = 32768 };
/* the timed size; make profile's: ncu replays the call once per group of
 * counters, and the naive kernels take a while at 4096 */
static lab_dims default_size(int profile)
{
    return {profile ? 2048 : 4096, 1};
}
enum { NSETS = 3 }; /* input sets the timed calls rotate over */

static int size_ok(lab_dims d, const char *what, char *err, size_t len)
{
    if (d.rows <= MAX_N)
        return 0;
    snprintf(err, len, "%s %lld is too large for this lab (at most %d)", what, d.rows, (int)MAX_N);
    return -1;
}

/* ======================================================= baseline kernel */

/* The starting point of the course: one thread per element of C, with
 * threadIdx.x walking down the rows, accumulating straight into C in global
 * memory. Neighbouring threads of a warp touch addresses n floats apart, so
 * every load and store of a warp needs many memory transactions. */
__global__ void matmul_rows_naive(const float *A, const float *B, float *C, int n)
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

/* ============================================================== reference */

/* The row-major product with column-major cuBLAS: C^T = B^T A^T, and a
 * row-major matrix read column-major is its transpose. */
static void cublas_matmul(cublasHandle_t h, const float *A, const float *B, float *C, int n)
{
    const float one = 1.0f, zero = 0.0f;
    CUBLAS_CHECK(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, B, n, A, n, &zero, C, n));
}

__global__ void abs_copy(const float *x, float *y, size_t count)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < count;
         i += (size_t)gridDim.x * blockDim.x)
        y[i] = fabsf(x[i]);
}

/* The error bound of each element (matmul_check.h), on the host: cuBLAS's
 * product of |A| and |B| gives each element's sum of |products|. */
static float *element_bounds(cublasHandle_t h, const lab_buffer *A, const lab_buffer *B, int n)
{
    size_t count = (size_t)n * n;
    float *absA, *absB, *prod;
    CUDA_CHECK(cudaMalloc(&absA, count * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&absB, count * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&prod, count * sizeof(float)));
    abs_copy<<<1024, 256>>>(A->data, absA, count);
    abs_copy<<<1024, 256>>>(B->data, absB, count);
    CUDA_CHECK(cudaGetLastError());
    cublas_matmul(h, absA, absB, prod, n);
    float *bound = (float *)malloc(count * sizeof(float));
    CUDA_CHECK(cudaMemcpy(bound, prod, count * sizeof(float), cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < count; i++)
        bound[i] = (float)matmul_element_bound(n, bound[i]);
    CUDA_CHECK(cudaFree(absA));
    CUDA_CHECK(cudaFree(absB));
    CUDA_CHECK(cudaFree(prod));
    return bound;
}

/* ============================================================== problems */

/* nsets input sets of n x n matrices, made from seed; C poisoned. */
typedef struct {
    int n, nsets;
    lab_buffer A[NSETS], B[NSETS], C[NSETS];
    uint64_t seedA[NSETS], seedB[NSETS];
    float *ref; /* device: cuBLAS's result for one set */
    cublasHandle_t h;
} problem;

static void *problem_new(lab_dims d, int nsets, uint64_t seed, cublasHandle_t h)
{
    problem *p = (problem *)calloc(1, sizeof *p);
    const int n = (int)d.rows;
    p->n = n;
    p->nsets = nsets;
    p->h = h;
    size_t count = (size_t)n * n;
    CUDA_CHECK(cudaMalloc(&p->ref, count * sizeof(float)));
    for (int s = 0; s < nsets; s++) {
        p->seedA[s] = lab_mix64(seed ^ (uint64_t)n * 1000 ^ (uint64_t)(2 * s + 1));
        p->seedB[s] = lab_mix64(seed ^ (uint64_t)n * 1000 ^ (uint64_t)(2 * s + 2));
        lab_buffer_new(&p->A[s], count);
        lab_buffer_new(&p->B[s], count);
        lab_buffer_new(&p->C[s], count);
        lab_buffer_fill(&p->A[s], p->seedA[s]);
        lab_buffer_fill(&p->B[s], p->seedB[s]);
    }
    return p;
}

static void problem_free(void *ctx)
{
    problem *p = (problem *)ctx;
    for (int s = 0; s < p->nsets; s++) {
        lab_buffer_free(&p->A[s]);
        lab_buffer_free(&p->B[s]);
        lab_buffer_free(&p->C[s]);
    }
    CUDA_CHECK(cudaFree(p->ref));
    free(p);
}

/* Check the output of set s (already computed by the kernel): values against
 * cuBLAS, guard zones, inputs unchanged. Prints one line, details beneath,
 * and records the check. whole_ok: the label of a check at a multiple of
 * WHOLE_TILES that passed, or NULL. Returns 1 when everything holds. */
static int check_output(void *ctx, int s, const char *label, const char *whole_ok, const lab_args *a,
                        lab_record *rec)
{
    problem *p = (problem *)ctx;
    int n = p->n;
    size_t count = (size_t)n * n;
    char *details = NULL;
    size_t details_len = 0;
    FILE *log = open_memstream(&details, &details_len);

    int guards = lab_buffer_guards_ok(&p->C[s], "C", log) &
                 lab_buffer_guards_ok(&p->A[s], "A", log) &
                 lab_buffer_guards_ok(&p->B[s], "B", log);
    long long changedA = lab_buffer_changed(&p->A[s], p->seedA[s], 0);
    long long changedB = lab_buffer_changed(&p->B[s], p->seedB[s], 0);
    if (changedA || changedB)
        fprintf(log, "    the inputs were modified: %lld elements of A and %lld of B changed\n",
                changedA, changedB);

    cublas_matmul(p->h, p->A[s].data, p->B[s].data, p->ref, n);
    float *got = lab_buffer_to_host(&p->C[s]);
    float *want = (float *)malloc(count * sizeof(float));
    CUDA_CHECK(cudaMemcpy(want, p->ref, count * sizeof(float), cudaMemcpyDeviceToHost));
    float *bound = element_bounds(p->h, &p->A[s], &p->B[s], n);

    lab_compare c;
    lab_compare_arrays(got, want, bound, n, n, 5, log, &c);
    double tol = matmul_norm_tolerance(n);
    int values_ok = c.bad == 0 && c.rel_norm_err <= tol;
    if (c.bad == 0 && !values_ok)
        fprintf(log, "    every element is within its bound, but the overall error %.2e is above %.2e:\n"
                     "    more rounding than FP32 arithmetic gives (TF32 or half precision?)\n",
                c.rel_norm_err, tol);
    lab_explain_failures(log, &c, n, n, whole_ok, label);
    int ok = values_ok && guards && !changedA && !changedB;
    fclose(log);

    char ok_text[96];
    snprintf(ok_text, sizeof ok_text, "rel. error %.1e (limit %.1e), worst element %.0f%% of its bound",
             c.rel_norm_err, tol, 100.0 * c.worst_ratio);
    lab_print_check(label, 10, ok, ok_text, &c, NULL, details, a);

    lab_json *j = &rec->j;
    lab_record_check_begin(rec, label, ok, &c);
    lab_json_number(j, "rel_norm_err", c.rel_norm_err);
    lab_json_number(j, "rel_norm_tol", tol);
    lab_json_number(j, "worst_bound_ratio", c.worst_ratio);
    lab_json_bool(j, "guards_ok", guards);
    lab_json_bool(j, "inputs_unchanged", !changedA && !changedB);
    if (n % WHOLE_TILES == 0)
        lab_json_bool(j, "whole_tiles", 1);
    lab_json_end(j);

    free(bound);
    free(want);
    free(got);
    free(details);
    return ok;
}

/* ================================================================ timing */

/* n^2 dot products of n multiply-adds */
static double work(lab_dims d) { return 2.0 * (double)d.rows * d.rows * d.rows; }
static size_t set_bytes(lab_dims d) { return 3 * (size_t)d.rows * d.rows * sizeof(float); }
static size_t output_bytes(void *ctx) { return (size_t)((problem *)ctx)->n * ((problem *)ctx)->n * sizeof(float); }

static void timing_intro(void *ctx, int nsets)
{
    printf("\ntiming at n=%d (%d input sets, L2 flushed before each call)...\n", ((problem *)ctx)->n, nsets);
}

static void call_student(void *ctx, int s)
{
    problem *p = (problem *)ctx;
    matmul(p->A[s].data, p->B[s].data, p->C[s].data, p->n);
}

static void call_cublas(void *ctx, int s)
{
    problem *p = (problem *)ctx;
    cublas_matmul(p->h, p->A[s].data, p->B[s].data, p->C[s].data, p->n);
}

static void call_baseline(void *ctx, int s)
{
    problem *p = (problem *)ctx;
    baseline_matmul(p->A[s].data, p->B[s].data, p->C[s].data, p->n);
}

/* before each of the student's timed calls (family.h) */
static void poison_output(void *ctx, int s)
{
    lab_buffer_poison(&((problem *)ctx)->C[s]);
}

/* A batch's inputs are made from a seed nobody knew before it (timing.cu):
 * new A and B for set s, and C poisoned. */
static void refresh_set(void *ctx, int s, uint64_t seed)
{
    problem *p = (problem *)ctx;
    p->seedA[s] = lab_mix64(seed ^ 1);
    p->seedB[s] = lab_mix64(seed ^ 2);
    lab_buffer_fill(&p->A[s], p->seedA[s]);
    lab_buffer_fill(&p->B[s], p->seedB[s]);
    lab_buffer_poison(&p->C[s]);
}

/* Elements sampled from each set of a batch; one warp each, 8 a block. */
enum { CHECK_SAMPLES = 64, CHECK_WARPS = 8 };

typedef struct {
    const float *C[NSETS];
    uint64_t seedA[NSETS], seedB[NSETS];
} set_pointers;

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
__global__ void check_samples(set_pointers sp, int n, uint64_t pick, lab_batch_bad *bad)
{
    __shared__ double err2[CHECK_WARPS], want2[CHECK_WARPS];
    int warp = threadIdx.x / 32, lane = threadIdx.x % 32, s = blockIdx.y;
    int sample = blockIdx.x * CHECK_WARPS + warp;
    uint64_t h = lab_mix64(pick ^ (uint64_t)(sample + CHECK_SAMPLES * s));
    int i = (int)(h % (uint64_t)n), j = (int)((h >> 32) % (uint64_t)n);
    double dot = 0, mag = 0;
    for (int k = lane; k < n; k += 32) {
        double x = (double)lab_uniform(sp.seedA[s], (uint64_t)i * n + k) *
                   lab_uniform(sp.seedB[s], (uint64_t)k * n + j);
        dot += x;
        mag += fabs(x);
    }
    for (int off = 16; off > 0; off >>= 1) {
        dot += __shfl_down_sync(0xffffffffu, dot, off);
        mag += __shfl_down_sync(0xffffffffu, mag, off);
    }
    if (lane == 0) {
        double err = (double)sp.C[s][(size_t)i * n + j] - dot;
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
    set_pointers sp;
    for (int k = 0; k < count; k++) {
        sp.C[k] = p->C[first + k].data;
        sp.seedA[k] = p->seedA[first + k];
        sp.seedB[k] = p->seedB[first + k];
    }
    check_samples<<<dim3(CHECK_SAMPLES / CHECK_WARPS, count), CHECK_WARPS * 32>>>(sp, p->n, lab_fresh_seed(), bad);
}

/* ============================================================ conclusion */

/* a time below the FP32 peak of this GPU cannot be real */
static double floor_ms(void *ctx, const lab_gpu *g)
{
    double n = ((problem *)ctx)->n;
    return 2.0 * n * n * n / (g->peak_fp32_gflops * 1e9) * 1e3;
}

enum { STUDENT, CUBLAS, BASELINE };

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

static const lab_kernel KERNELS[] = {
    {"student", "your kernel", call_student, poison_output, check_sets},
    {"cublas", "cuBLAS SGEMM", call_cublas, NULL, check_sets},
    /* the slowest call here (0.4 s at n=4096 on an H100) and the same in
     * every matrix-product stage: its speedup is scored in stage 01 only */
    {"baseline", "naive, threadIdx.x on rows", call_baseline, NULL, check_sets, NULL, 0, 0, 1},
};

extern const lab_family lab_family_this = {
    "matmul", FAMILY_HELP, 0, DEFAULT_SIZES, WHOLE_TILES,
    "checking C = A*B against cuBLAS SGEMM in strict FP32:",
    default_size, size_ok, NULL, NULL,
    NSETS, set_bytes, problem_new, problem_free, work, timing_intro, refresh_set, output_bytes, check_output,
    KERNELS, 3, CUBLAS, BASELINE, "GFLOP/s", floor_ms, conclude,
};
