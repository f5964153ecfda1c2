/*
 * reduce_batch.cu: the reduction's inputs on the GPU (reduce_inputs.h), their
 * exact sums, its problems, and its hooks for the timed batches
 * (measure.h, lab_timed; timing.cu says how a batch is timed).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "reduce.h"
#include "reduce_check.h"
#include "reduce_inputs.h"
#include "reduce_problem.h"

/* The timed input of n elements made from seed (reduce_inputs.h): written
 * to x, or, with a counter, compared with x (the elements that differ
 * counted into *changed). */
static __global__ void timed_inputs(float *x, size_t n, uint64_t seed, unsigned long long *changed)
{
    unsigned long long mine = 0;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        float v = reduce_timed_input(seed, i, n);
        if (!changed)
            x[i] = v;
        else
            mine += __float_as_uint(x[i]) != __float_as_uint(v);
    }
    if (mine)
        atomicAdd(changed, mine);
}

/* Fill in[s] from seed[s] as p->data says. */
static void reduce_fill(problem *p, int s)
{
    lab_buffer *in = &p->in[s];
    if (p->data == REDUCE_SIGNED)
        lab_buffer_fill(in, p->seed[s]);
    else if (p->data == REDUCE_NONNEG)
        lab_buffer_fill_abs(in, p->seed[s]);
    else
        timed_inputs<<<LAB_GRID_STRIDE_BLOCKS, 256>>>(in->data, in->count, p->seed[s], NULL);
    CUDA_CHECK(cudaGetLastError());
}

long long lab_reduce_changed(const problem *p, int s)
{
    const lab_buffer *in = &p->in[s];
    if (p->data != REDUCE_TIMED)
        return lab_buffer_changed(in, p->seed[s], p->data == REDUCE_NONNEG);
    static unsigned long long *counter;
    if (!counter)
        CUDA_CHECK(cudaMalloc(&counter, sizeof *counter));
    CUDA_CHECK(cudaMemset(counter, 0, sizeof *counter));
    timed_inputs<<<LAB_GRID_STRIDE_BLOCKS, 256>>>(in->data, in->count, p->seed[s], counter);
    CUDA_CHECK(cudaGetLastError());
    unsigned long long changed = 0;
    CUDA_CHECK(cudaMemcpy(&changed, counter, sizeof changed, cudaMemcpyDeviceToHost));
    return (long long)changed;
}

/* The exact sum and the sum of |x| of the lab's inputs, on the GPU: every
 * value is a multiple of 2^-24 (reduce_inputs.h), so x * 2^24 is an
 * integer, below 2^23 but for the spikes' 2^42, and 64-bit integer sums of
 * up to 2^28 of them are exact. */
static __global__ void exact_sums(const float *x, size_t n, unsigned long long *sums)
{
    long long mine = 0, mine_abs = 0;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        long long v = (long long)(x[i] * 16777216.0f);
        mine += v;
        mine_abs += v < 0 ? -v : v;
    }
    /* summed across the warp first, as the L2 flush does (l2_flush.h): 2^18
     * threads adding into the same two words would queue at one L2 slice */
    for (int o = 16; o > 0; o >>= 1) {
        mine += __shfl_down_sync(0xffffffffu, mine, o);
        mine_abs += __shfl_down_sync(0xffffffffu, mine_abs, o);
    }
    if ((threadIdx.x & 31) == 0) {
        atomicAdd(&sums[0], (unsigned long long)mine);
        atomicAdd(&sums[1], (unsigned long long)mine_abs);
    }
}

/* Set s's exact sums, queued: computed on the GPU into its two words of
 * p->sums, read by lab_reduce_settle_sums. A batch's refresh queues its sets'
 * back to back with no wait for the host between them (timing.cu: the GPU
 * stays busy with the judge's own work while the clock runs). */
static void queue_exact_sums(problem *p, int s)
{
    CUDA_CHECK(cudaMemsetAsync(p->sums + 2 * s, 0, 2 * sizeof *p->sums));
    exact_sums<<<LAB_GRID_STRIDE_BLOCKS, 256>>>(p->in[s].data, (size_t)p->n, p->sums + 2 * s);
    CUDA_CHECK(cudaGetLastError());
    p->sums_pending = 1;
}

void lab_reduce_settle_sums(problem *p)
{
    if (!p->sums_pending)
        return;
    unsigned long long h[2 * NSETS];
    CUDA_CHECK(cudaMemcpy(h, p->sums, 2 * (size_t)p->nsets * sizeof *h, cudaMemcpyDeviceToHost));
    for (int s = 0; s < p->nsets; s++) {
        p->exact[s] = (double)(long long)h[2 * s] / 16777216.0;
        p->sum_abs[s] = (double)(long long)h[2 * s + 1] / 16777216.0;
    }
    p->sums_pending = 0;
}

/* Problems (reduce_problem.h): the seeds of the signed and the
 * non-negative data of one size differ, and so do their sums. */
problem *lab_reduce_problem_new(int n, int nsets, enum reduce_data data, uint64_t seed)
{
    problem *p = (problem *)calloc(1, sizeof *p);
    p->n = n;
    p->data = data;
    p->nsets = nsets;
    CUDA_CHECK(cudaMalloc(&p->sums, 2 * (size_t)nsets * sizeof *p->sums));
    for (int s = 0; s < nsets; s++) {
        p->seed[s] = lab_mix64(seed ^ (uint64_t)n * 1000 ^ (uint64_t)(2 * s + 1 + 64 * (data != REDUCE_SIGNED)));
        lab_buffer_new(&p->in[s], (size_t)n);
        lab_buffer_new(&p->out[s], 1);
        reduce_fill(p, s);
        queue_exact_sums(p, s);
    }
    lab_reduce_settle_sums(p);
    lab_buffer_new(&p->scratch, reduce_scratch_floats(n));
    return p;
}

void lab_reduce_problem_free(problem *p)
{
    for (int s = 0; s < p->nsets; s++) {
        lab_buffer_free(&p->in[s]);
        lab_buffer_free(&p->out[s]);
    }
    lab_buffer_free(&p->scratch);
    CUDA_CHECK(cudaFree(p->sums));
    free(p);
}

/* A batch's inputs are made from a seed nobody knew before it (timing.cu):
 * new timed data for set s (its spikes somewhere else), its exact sums
 * (queued: the batch's check settles them), out poisoned. Written, then
 * read for the sums: two passes (why not one kernel that does both:
 * MEASUREMENTS.md, 2026-11-28, "The reduction's refresh"). */
void lab_reduce_refresh_set(void *ctx, int s, uint64_t seed)
{
    problem *p = ((timing_ctx *)ctx)->p;
    p->seed[s] = lab_mix64(seed);
    reduce_fill(p, s);
    lab_buffer_poison(&p->out[s]);
    queue_exact_sums(p, s);
}

typedef struct {
    const float *out[NSETS];
    double want[NSETS];
    double bound[NSETS];
    const float *copy, *last_in; /* the memcpy reference's: its copy */
} set_sums;

/* Thread s checks set s: the sum within its bound (sums), or, for the
 * memcpy reference (copy), one element of the copy picked from `pick`. */
static __global__ void check_sums(set_sums ss, int nsets, int n, int copy, uint64_t pick, lab_batch_bad *bad)
{
    int s = threadIdx.x;
    if (s >= nsets)
        return;
    int ok;
    if (copy) {
        size_t at = (size_t)(lab_mix64(pick ^ (uint64_t)s) % (uint64_t)n);
        ok = __float_as_uint(ss.copy[at]) == __float_as_uint(ss.last_in[at]);
    } else {
        ok = fabs((double)ss.out[s][0] - ss.want[s]) <= ss.bound[s];
    }
    if (!ok)
        atomicAdd(&bad->wrong, 1ULL);
}

/* What a batch's check compares: the sums, the sums of |x| (cuBLAS SASUM,
 * on data with negative spikes), or a copy. */
enum checked { SUMS, ABS_SUMS, COPY };

static void check(void *ctx, int first, int count, lab_batch_bad *bad, enum checked what)
{
    timing_ctx *t = (timing_ctx *)ctx;
    problem *p = t->p;
    lab_reduce_settle_sums(p); /* after the calls: what the refresh queued */
    set_sums ss;
    memset(&ss, 0, sizeof ss);
    for (int k = 0; k < count; k++) {
        ss.out[k] = p->out[first + k].data;
        ss.want[k] = what == ABS_SUMS ? p->sum_abs[first + k] : p->exact[first + k];
        ss.bound[k] = reduce_bound(p->n, p->sum_abs[first + k]);
    }
    ss.copy = t->copy;
    ss.last_in = p->in[first + count - 1].data;
    check_sums<<<1, 32>>>(ss, count, p->n, what == COPY, lab_fresh_seed(), bad);
}

/* The checks that end a timed batch: of the sums, of the sums of |x|, and
 * of memcpy's copy (the last set's, which the others' copies precede), at
 * the same cost. */
void lab_reduce_check_summed(void *ctx, int first, int count, lab_batch_bad *bad)
{
    check(ctx, first, count, bad, SUMS);
}

void lab_reduce_check_abs_summed(void *ctx, int first, int count, lab_batch_bad *bad)
{
    check(ctx, first, count, bad, ABS_SUMS);
}

void lab_reduce_check_copied(void *ctx, int first, int count, lab_batch_bad *bad)
{
    check(ctx, first, count, bad, COPY);
}

/* What a wrong timed sum suggests, after "N elements of a timed call's
 * outputs were wrong when your code said it was done: " */
const char *const REDUCE_WRONG_HINT =
    "each timed input holds about 64 large values at random places, so a sum that skips or estimates "
    "elements misses some. Does it read every element, and compute from this call's input alone?";
