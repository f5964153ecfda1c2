/*
 * reduce_problem.h: what the reduction's driver (reduce_main.cu) and its
 * judge's batch hooks (reduce_batch.cu) share.
 */
#ifndef LAB_REDUCE_PROBLEM_H
#define LAB_REDUCE_PROBLEM_H

#include "gpu.h"

/* input sets the timed calls rotate over; a judge's batch is one call per
 * set, and a batch of short calls must last long enough to time (judge_timing.cu) */
#ifdef LAB_JUDGE
enum { NSETS = 24 };
#else
enum { NSETS = 3 };
#endif

/* One size: NSETS (or 1) input arrays of signed or non-negative data, an
 * output float for each, one scratch buffer, and the exact sums. */
typedef struct {
    int n;
    int nonneg; /* 1: |lab_uniform| in [0, 0.5]; 0: lab_uniform in [-0.5, 0.5) */
    int nsets;
    lab_buffer in[NSETS], out[NSETS], scratch;
    uint64_t seed[NSETS];
    double exact[NSETS], sum_abs[NSETS];
} problem;

/* What the timed calls get. */
typedef struct {
    problem *p;
    cublasHandle_t h;
    float *copy; /* destination of the device-to-device copy */
} timing_ctx;

/* The judge's batch hooks (gpu.h, lab_batch_hooks): fresh non-negative
 * data with its exact sum; the check of the sums, and of memcpy's copy. */
void refresh_set(void *ctx, int s, uint64_t seed);
/* The exact sum and sum of |x| of lab_uniform data (signed or not), on the
 * GPU (the judge's many input sets would take seconds on the host). */
void exact_sum_gpu(const lab_buffer *in, int n, double *exact, double *sum_abs);
void check_summed(void *ctx, int first, int count, lab_batch_bad *bad);
void check_copied(void *ctx, int first, int count, lab_batch_bad *bad);

#endif /* LAB_REDUCE_PROBLEM_H */
