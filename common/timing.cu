/*
 * timing.cu: how long one call of a kernel takes (gpu.h, lab_time).
 *
 * Two methods, one per build:
 *
 *  - the drivers (student code in this process): CUDA events around each
 *    call, the L2 cache flushed before it, calls rotating over the input
 *    sets, repeated until the median is known to about 1%;
 *  - the judges (-DLAB_JUDGE, judge_timing.cu; student code in a runner process, whose
 *    events this process cannot see): this process's clock around a batch
 *    of calls, each after its own L2 flush as the events have it, in one
 *    request to the runner (timed_batch below): a round trip to a second
 *    process, and the switches of the GPU between the two processes'
 *    contexts, cost tenths of a millisecond with a spread of tens of
 *    microseconds, too much to time a 0.1 to 0.3 ms call alone. The flushes
 *    are done where the calls are (by the runner for the student) and
 *    proven by a sum over the flushed buffer; what the clock adds (the
 *    round trip, the flushes, the check of the outputs) is measured with a
 *    no-op in each call's place, through the echo runner, which holds no
 *    student code, and subtracted. The baselines are timed the same way
 *    in this process. confine/README.md, "The judge", says why.
 */
#include "gpu.h"
#include "l2_flush.h"

#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

lab_timing_policy lab_default_policy(const lab_args *a)
{
    lab_timing_policy p;
    p.min_reps = 10;
    p.max_reps = 200;
    p.target_rse = 0.01;
    p.budget_ms = a->budget_ms;
    return p;
}

/* The calls a slow kernel is timed with, after its warm-up call: three;
 * two for one over 250 ms (the naive matrix product at n=4096, 0.42 s on an
 * H100, whose times spread under 0.5%: a third call is 0.4 s of a grade). */
int lab_slow_call_reps(double first_ms)
{
    return first_ms > 250.0 ? 2 : 3;
}

double lab_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}

uint64_t lab_fresh_seed(void)
{
    uint64_t seed = 0;
    if (getrandom(&seed, sizeof seed, 0) != (ssize_t)sizeof seed) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        seed = lab_mix64((uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 32) ^ (uint64_t)getpid());
    }
    return seed;
}

#ifndef LAB_JUDGE

/* Before each timed call: L2 flushed (l2_flush.h), so that no call finds the
 * previous call's data in cache. The buffer is made the first time. */
static void flush_cache(void)
{
    static void *flush;
    static size_t flush_words;
    if (!flush) {
        int l2 = 0;
        CUDA_CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0));
        size_t bytes = 2 * (size_t)l2 > (32u << 20) ? 2 * (size_t)l2 : (32u << 20);
        flush_words = bytes / 16;
        CUDA_CHECK(cudaMalloc(&flush, bytes + sizeof(unsigned long long)));
        CUDA_CHECK(cudaMemset(flush, 0, bytes + sizeof(unsigned long long)));
    }
    lab_flush_l2<<<LAB_FLUSH_BLOCKS, LAB_FLUSH_THREADS>>>((const uint4 *)flush, flush_words, 0,
                                                          (unsigned long long *)((uint4 *)flush + flush_words));
    CUDA_CHECK(cudaGetLastError());
}


/* The batch hooks are the judge's; events need none. */
void lab_batch_hooks(lab_refresh_fn refresh, lab_check_fn check, const char *wrong_hint)
{
    (void)refresh;
    (void)check;
    (void)wrong_hint;
}

void lab_time_writes(size_t bytes) { (void)bytes; }

void lab_time(lab_timing *t, lab_call_fn fn, lab_prepare_fn prepare, void *ctx,
              int nsets, const lab_timing_policy *policy, int is_student)
{
    static cudaEvent_t start, stop;
    if (!start) {
        CUDA_CHECK(cudaEventCreate(&start));
        CUDA_CHECK(cudaEventCreate(&stop));
    }
    lab_timing_policy p = *policy;
    double *ms = (double *)malloc(sizeof(double) * (size_t)p.max_reps);
    char size[64];
    lab_timing_size_text(size, sizeof size);
    lab_progress("timing %s %s", size, t->label);

    /* warm-up: first-launch costs (module loading, clocks ramping) */
    CUDA_CHECK(cudaEventRecord(start));
    fn(ctx, 0);
    CUDA_CHECK(cudaEventRecord(stop));
    if (is_student)
        lab_student_sync("the warm-up call before timing");
    CUDA_CHECK(cudaEventSynchronize(stop));
    float warm = 0;
    CUDA_CHECK(cudaEventElapsedTime(&warm, start, stop));
    if (warm > 100.0f)
        p.min_reps = lab_slow_call_reps(warm);
    lab_progress("timing %s %s, first call %.4g ms", size, t->label, warm);

    int n = 0;
    while (!lab_timing_done(ms, n, &p)) {
        int set = n % nsets;
        if (prepare)
            prepare(ctx, set);
        flush_cache();
        CUDA_CHECK(cudaEventRecord(start));
        fn(ctx, set);
        CUDA_CHECK(cudaEventRecord(stop));
        if (is_student)
            lab_student_sync("a timed call");
        CUDA_CHECK(cudaEventSynchronize(stop));
        float e = 0;
        CUDA_CHECK(cudaEventElapsedTime(&e, start, stop));
        ms[n++] = e;
        t->last_set = set;
    }
    lab_stats_compute(ms, n, &t->st);
    free(ms);
}

/* the drivers' own events see no other process's work */
const char *lab_timing_disturbed(void) { return ""; }

#endif /* !LAB_JUDGE: the judges' lab_time is in judge_timing.cu */

