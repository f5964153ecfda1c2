/*
 * reduce_problem.h: what the reduction's family file (reduce_family.cu),
 * its problems and batch hooks (reduce_batch.cu) and its check
 * (reduce_report.cu) share.
 */
#ifndef LAB_REDUCE_PROBLEM_H
#define LAB_REDUCE_PROBLEM_H

#include "gpu.h"

/* input sets the timed calls rotate over: a batch is one call per set, and
 * a batch of short calls must last long enough to time (timing.cu) */
enum { NSETS = 24 };

/* What a problem's inputs hold: for the checks, lab_uniform in [-0.5, 0.5)
 * (where a sign error shows) and its absolute value (where a missing
 * element shows); for timing, the latter with spikes (reduce_inputs.h). */
enum reduce_data { REDUCE_SIGNED, REDUCE_NONNEG, REDUCE_TIMED };

/* One size: NSETS (or 1) input arrays, an output float for each, one
 * scratch buffer, and the exact sums. */
typedef struct {
    int n;
    enum reduce_data data;
    int nsets;
    lab_buffer in[NSETS], out[NSETS], scratch;
    uint64_t seed[NSETS];
    double exact[NSETS], sum_abs[NSETS];
    unsigned long long *sums; /* on the GPU: each set's two exact sums, x 2^24 */
    int sums_pending;         /* sums queued that exact, sum_abs do not hold yet */
} problem;

/* What the timed calls get. */
typedef struct {
    problem *p;
    cublasHandle_t h;
    float *copy; /* destination of the device-to-device copy */
} timing_ctx;

/* nsets sets of n elements of that data, made from seed, their sums
 * poisoned, with their exact sums; and back. */
problem *lab_reduce_problem_new(int n, int nsets, enum reduce_data data, uint64_t seed);
void lab_reduce_problem_free(problem *p);
/* The elements of in[s] that differ from what seed[s] made, as p->data
 * says. */
long long lab_reduce_changed(const problem *p, int s);
/* The exact sums and sums of |x| of the sets (lab_uniform data, spikes or
 * not: multiples of 2^-24) are computed on the GPU (a batch's many input
 * sets would take seconds on the host) as each set is made, and copied
 * into exact and sum_abs, all sets at once, by this: the refresh of a
 * batch queues them, the batch's check settles them. */
void lab_reduce_settle_sums(problem *p);

/* The batch hooks (measure.h, lab_timed): fresh timed data with
 * its exact sums (queued); the checks of the sums, of cuBLAS SASUM's sums of |x|,
 * and of memcpy's copy; and what a wrong sum suggests. */
void lab_reduce_refresh_set(void *ctx, int s, uint64_t seed);
void lab_reduce_check_summed(void *ctx, int first, int count, lab_batch_bad *bad);
void lab_reduce_check_abs_summed(void *ctx, int first, int count, lab_batch_bad *bad);
void lab_reduce_check_copied(void *ctx, int first, int count, lab_batch_bad *bad);
extern const char *const REDUCE_WRONG_HINT;

#endif /* LAB_REDUCE_PROBLEM_H */
