/*
 * reduce_batch.cu: the reduction's hooks for the judge's timed batches
 * (gpu.h, lab_batch_hooks; judge_timing.cu says how a batch is timed).
 */
#include <math.h>
#include <string.h>

#include "reduce_check.h"
#include "reduce_problem.h"


/* The exact sum and the sum of |x| of lab_uniform data, on the GPU: every
 * value is a multiple of 2^-24 below 1/2 (reduce_check.h), so x * 2^24 is
 * an integer and 64-bit integer sums are exact. */
__global__ void exact_sums(const float *x, size_t n, unsigned long long *sums)
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

void exact_sum_gpu(const lab_buffer *in, int n, double *exact, double *sum_abs)
{
    static unsigned long long *sums;
    if (!sums)
        CUDA_CHECK(cudaMalloc(&sums, 2 * sizeof *sums));
    CUDA_CHECK(cudaMemset(sums, 0, 2 * sizeof *sums));
    exact_sums<<<1024, 256>>>(in->data, (size_t)n, sums);
    CUDA_CHECK(cudaGetLastError());
    unsigned long long h[2];
    CUDA_CHECK(cudaMemcpy(h, sums, sizeof h, cudaMemcpyDeviceToHost));
    *exact = (double)(long long)h[0] / 16777216.0;
    *sum_abs = (double)(long long)h[1] / 16777216.0;
}

/* A batch's inputs are made from a seed nobody knew before it (judge_timing.cu):
 * new non-negative data for set s, its exact sum, out poisoned. */
void refresh_set(void *ctx, int s, uint64_t seed)
{
    problem *p = ((timing_ctx *)ctx)->p;
    p->seed[s] = lab_mix64(seed);
    lab_buffer_fill_abs(&p->in[s], p->seed[s]);
    lab_buffer_poison(&p->out[s]);
    exact_sum_gpu(&p->in[s], p->n, &p->exact[s], &p->sum_abs[s]);
}

typedef struct {
    const float *out[NSETS];
    double exact[NSETS];
    double bound[NSETS];
    const float *copy, *last_in; /* the memcpy reference's: its copy */
} set_sums;

/* Thread s checks set s: the sum within its bound (sums), or, for the
 * memcpy reference (copy), one element of the copy picked from `pick`. */
__global__ void check_sums(set_sums ss, int nsets, int n, int copy, uint64_t pick, lab_batch_bad *bad)
{
    int s = threadIdx.x;
    if (s >= nsets)
        return;
    int ok;
    if (copy) {
        size_t at = (size_t)(lab_mix64(pick ^ (uint64_t)s) % (uint64_t)n);
        ok = __float_as_uint(ss.copy[at]) == __float_as_uint(ss.last_in[at]);
    } else {
        ok = fabs((double)ss.out[s][0] - ss.exact[s]) <= ss.bound[s];
    }
    if (!ok)
        atomicAdd(&bad->wrong, 1ULL);
}

static void check(void *ctx, int first, int count, lab_batch_bad *bad, int copy)
{
    timing_ctx *t = (timing_ctx *)ctx;
    problem *p = t->p;
    set_sums ss;
    memset(&ss, 0, sizeof ss);
    for (int k = 0; k < count; k++) {
        ss.out[k] = p->out[first + k].data;
        ss.exact[k] = p->exact[first + k];
        ss.bound[k] = reduce_bound(p->n, p->sum_abs[first + k]);
    }
    ss.copy = t->copy;
    ss.last_in = p->in[first + count - 1].data;
    check_sums<<<1, 32>>>(ss, count, p->n, copy, lab_fresh_seed(), bad);
}

/* The checks that end a timed batch: of the sums, and of memcpy's copy (the
 * last set's, which the others' copies precede), at the same cost. */
void check_summed(void *ctx, int first, int count, lab_batch_bad *bad) { check(ctx, first, count, bad, 0); }
void check_copied(void *ctx, int first, int count, lab_batch_bad *bad) { check(ctx, first, count, bad, 1); }

