/*
 * timing.cu: how long one call of a kernel takes (gpu.h, lab_time).
 *
 * Two methods, one per build:
 *
 *  - the drivers (student code in this process): CUDA events around each
 *    call, the L2 cache flushed before it, calls rotating over the input
 *    sets, repeated until the median is known to about 1%;
 *  - the judges (-DLAB_JUDGE; student code in a runner process, whose
 *    events this process cannot see): this process's clock around each
 *    call, the L2 flushed before it as the events have it. Before a call,
 *    its input set gets fresh data from a seed nobody knew (the driver's
 *    refresh hook) and poisoned outputs; the clock starts; the call runs
 *    (through the runner for the student, here for the baselines); the
 *    driver's check hook samples its output on the GPU, and the clock stops
 *    when that check is done. What the clock adds to any call (launches,
 *    the round trip to a runner, the check, the synchronization) is
 *    measured with a no-op in the call's place (through the echo runner,
 *    which holds no student code, judge.cu) and subtracted, for the
 *    student and the baselines alike. grader/README.md, "The judge", says
 *    why. LAB_JUDGE_CLOCK=gpu: the same steps on a clock of two events in
 *    this process's stream, the runner's call ordered between them on the
 *    GPU (an experiment: gpu_clock below).
 */
#include "gpu.h"
#ifdef LAB_JUDGE
#include "judge.h"
#include "stream_ops.h"
#endif

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

/* Read a buffer twice the size of L2: afterwards L2 holds only its lines, so
 * no timed call finds the previous call's data in cache. Reading, not
 * writing: a written buffer would leave L2 full of dirty lines, which the
 * next timed call would have to write back to memory on its own time. */
__global__ void flush_l2(const uint4 *buf, size_t count, unsigned *sink)
{
    unsigned x = 0;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < count;
         i += (size_t)gridDim.x * blockDim.x) {
        uint4 v = __ldcg(&buf[i]);
        x ^= v.x ^ v.y ^ v.z ^ v.w;
    }
    // a store the compiler cannot prove dead keeps the loads; it never runs,
    // since the buffer is all zeros
    if (x == 0x9e3779b9u)
        *sink = x;
}

/* Launch the flush (the buffer is made the first time). */
static void flush_cache(void)
{
    static void *flush;
    static size_t flush_bytes;
    if (!flush) {
        int l2 = 0;
        CUDA_CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0));
        flush_bytes = 2 * (size_t)l2 > (32u << 20) ? 2 * (size_t)l2 : (32u << 20);
        CUDA_CHECK(cudaMalloc(&flush, flush_bytes + sizeof(unsigned)));
        CUDA_CHECK(cudaMemset(flush, 0, flush_bytes + sizeof(unsigned)));
    }
    flush_l2<<<1024, 256>>>((const uint4 *)flush, flush_bytes / sizeof(uint4),
                            (unsigned *)((char *)flush + flush_bytes));
    CUDA_CHECK(cudaGetLastError());
}

#ifndef LAB_JUDGE

/* The batch hooks are the judge's; events need none. */
void lab_batch_hooks(lab_refresh_fn refresh, lab_check_fn check)
{
    (void)refresh;
    (void)check;
}

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
        p.min_reps = 3; /* a slow kernel: three calls already take a while */
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

#else /* LAB_JUDGE */

static lab_refresh_fn g_refresh;
static lab_check_fn g_check;

void lab_batch_hooks(lab_refresh_fn refresh, lab_check_fn check)
{
    g_refresh = refresh;
    g_check = check;
}

__global__ void lab_noop_kernel_here(void) {}

void lab_noop_here(void)
{
    lab_noop_kernel_here<<<1, 1>>>();
    CUDA_CHECK(cudaGetLastError());
}

/* One timed call, as the drivers' events time it (a clean L2 before it),
 * but on this process's clock: before it, fresh inputs for its set and
 * poisoned outputs, and the L2 flushed; then the clock starts, the call
 * runs (through the runner, for the student's code: its answer comes when
 * the runner's device is synchronized), the check kernel samples the
 * call's output, and the clock stops when that check is done. So work the
 * runner leaves running after its answer is on the clock too. `empty`
 * (not 0): time the same steps around a no-op kernel instead, through the
 * echo runner for the student's side: what the clock adds to a call
 * (launch, round trip, check, synchronization), to subtract (2: through
 * the student's runner, for LAB_JUDGE_TRACE=1 alone). */
static double g_events_ms; /* LAB_JUDGE_TRACE: the call's event time (here, or as the runner said) */

static double timed_call(lab_call_fn fn, lab_prepare_fn prepare, void *ctx, int set, int is_student,
                         unsigned long long *bad_dev, int empty)
{
    static cudaEvent_t e0, e1;
    if (!e0) {
        CUDA_CHECK(cudaEventCreate(&e0));
        CUDA_CHECK(cudaEventCreate(&e1));
    }
    if (g_refresh && !empty)
        g_refresh(ctx, set, lab_fresh_seed());
    if (prepare && !empty)
        prepare(ctx, set);
    flush_cache();
    CUDA_CHECK(cudaDeviceSynchronize());
    double t0 = lab_now_ms();
    if (!empty) {
        if (!is_student)
            CUDA_CHECK(cudaEventRecord(e0));
        fn(ctx, set);
        if (is_student)
            lab_judge_flush("a timed call", 0);
        else
            CUDA_CHECK(cudaEventRecord(e1));
    } else if (empty == 2) {
        lab_judge_student_noop(); /* LAB_JUDGE_TRACE only */
    } else if (!is_student || lab_judge_echo_noop()) {
        lab_noop_here();
    }
    if (g_check)
        g_check(ctx, set, 1, bad_dev);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaDeviceSynchronize());
    double t1 = lab_now_ms();
    float e = -1;
    if (!empty && !is_student)
        CUDA_CHECK(cudaEventElapsedTime(&e, e0, e1));
    g_events_ms = empty ? -1 : is_student ? lab_judge_runner_said_ms() : e;
    return t1 - t0;
}

/* LAB_JUDGE_CLOCK=gpu: the clock is two events in this process's stream,
 * and nothing of the host between them (remote.h, GATED). The runner
 * first queues, on the GPU, "wait until go >= gate, the call, done =
 * gate", and answers at once; then this process queues the fresh inputs,
 * the L2 flush, the first event, go = gate, a wait until done >= gate,
 * the check and the second event. The interval holds the call, the two
 * switches between the processes' contexts and the check; the same steps
 * around a no-op through the echo runner are subtracted, as with the
 * host's clock. An experiment, not yet measured: grader/README.md. */
static int gpu_clock(void)
{
    static int on = -1;
    if (on < 0) {
        const char *v = getenv("LAB_JUDGE_CLOCK");
        on = v && !strcmp(v, "gpu");
        lab_stream_value_fn wait_value, write_value;
        if (on && lab_stream_ops(&wait_value, &write_value)) {
            fprintf(stderr, "warning: LAB_JUDGE_CLOCK=gpu: this driver has no stream memory operations; "
                            "the host's clock is used\n");
            on = 0;
        }
    }
    return on;
}

static double g_flush_ms; /* the GPU clock: the last call's L2 flush, by events */

static double timed_call_gpu(lab_call_fn fn, lab_prepare_fn prepare, void *ctx, int set, int is_student,
                             unsigned long long *bad_dev, int empty)
{
    static cudaEvent_t e0, e1, f0;
    static cudaStream_t rescue;
    static lab_buffer flags; /* go, done: the first two 32-bit words */
    static unsigned gate;
    if (!e0) {
        CUDA_CHECK(cudaEventCreate(&e0));
        CUDA_CHECK(cudaEventCreate(&e1));
        CUDA_CHECK(cudaEventCreate(&f0));
        CUDA_CHECK(cudaStreamCreateWithFlags(&rescue, cudaStreamNonBlocking));
        lab_buffer_new(&flags, 4);
        CUDA_CHECK(cudaMemset(flags.data, 0, 4 * sizeof(float)));
        CUDA_CHECK(cudaDeviceSynchronize());
    }
    lab_stream_value_fn wait_value, write_value;
    lab_stream_ops(&wait_value, &write_value);
    const unsigned k = ++gate;
    const CUdeviceptr go = (CUdeviceptr)flags.data, done = go + sizeof(unsigned);
    int remote = is_student;
    if (remote) {
        if (!empty)
            fn(ctx, set); /* queued, sent with the gate */
        if (lab_judge_gated(empty != 0, k, flags.data))
            remote = 0; /* no echo runner: a no-op here */
    }
    if (!empty) {
        if (g_refresh)
            g_refresh(ctx, set, lab_fresh_seed());
        if (prepare)
            prepare(ctx, set);
    }
    /* the flush is timed too: a runner that worked while it ran (one that
     * did not wait for go) makes it slower than with a no-op (lab_time) */
    CUDA_CHECK(cudaEventRecord(f0));
    flush_cache();
    CUDA_CHECK(cudaEventRecord(e0));
    if (remote) {
        if (write_value(0, go, k, CU_STREAM_WRITE_VALUE_DEFAULT) != CUDA_SUCCESS ||
            wait_value(0, done, k, CU_STREAM_WAIT_VALUE_GEQ) != CUDA_SUCCESS)
            lab_die(LAB_EXIT_CUDA_ERROR, "LAB_JUDGE_CLOCK=gpu: a stream memory operation failed");
    } else if (!empty) {
        fn(ctx, set);
    } else {
        lab_noop_here();
    }
    if (g_check)
        g_check(ctx, set, 1, bad_dev);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaEventRecord(e1));
    if (remote) {
        int failed = lab_judge_gated_wait(empty != 0, e1);
        if (failed) { /* release this stream's wait before the runner's fate ends the run */
            static unsigned release;
            release = k;
            cudaMemcpyAsync((void *)done, &release, sizeof release, cudaMemcpyHostToDevice, rescue);
            cudaStreamSynchronize(rescue);
        }
        lab_judge_gated_finish(empty != 0, failed);
    }
    CUDA_CHECK(cudaEventSynchronize(e1));
    float ms = 0, flush_ms = 0;
    CUDA_CHECK(cudaEventElapsedTime(&ms, e0, e1));
    CUDA_CHECK(cudaEventElapsedTime(&flush_ms, f0, e0));
    g_flush_ms = flush_ms;
    g_events_ms = empty ? -1 : is_student ? lab_judge_runner_said_ms() : -1;
    return ms;
}

void lab_time(lab_timing *t, lab_call_fn fn, lab_prepare_fn prepare, void *ctx,
              int nsets, const lab_timing_policy *policy, int is_student)
{
    static unsigned long long *bad_dev, *scratch_dev;
    if (!bad_dev) {
        CUDA_CHECK(cudaMalloc(&bad_dev, sizeof *bad_dev));
        CUDA_CHECK(cudaMalloc(&scratch_dev, sizeof *scratch_dev));
    }
    CUDA_CHECK(cudaMemset(bad_dev, 0, sizeof *bad_dev));
    lab_timing_policy p = *policy;
    double *ms = (double *)malloc(sizeof(double) * (size_t)p.max_reps);
    ms[0] = 0;
    unsigned long long bad = 0;
    char size[64];
    lab_timing_size_text(size, sizeof size);
    lab_progress("timing %s %s", size, t->label);

    /* what the clock adds to a call: the median of 15 empty calls (the
     * check samples set 0's output, poisoned or not: into a scratch count) */
    enum { EMPTY_TRIES = 15 };
    double empty[EMPTY_TRIES];
    double (*timed)(lab_call_fn, lab_prepare_fn, void *, int, int, unsigned long long *, int) =
        gpu_clock() ? timed_call_gpu : timed_call;
    double empty_flush[EMPTY_TRIES];
    for (int i = 0; i < EMPTY_TRIES; i++) {
        empty[i] = timed(fn, prepare, ctx, 0, is_student, scratch_dev, 1);
        empty_flush[i] = g_flush_ms;
    }
    lab_stats es;
    lab_stats_compute(empty, EMPTY_TRIES, &es);
    const double overhead = es.median;

    /* warm-up: first-launch costs (module loading, clocks ramping) */
    double warm = timed(fn, prepare, ctx, 0, is_student, bad_dev, 0) - overhead;
    if (warm > 100.0)
        p.min_reps = 3; /* a slow kernel: three calls already take a while */
    lab_progress("timing %s %s, first call %.4g ms", size, t->label, warm);
    const int trace = getenv("LAB_JUDGE_TRACE") != NULL;
    double own_noop = -1; /* trace: the same no-op through the student's runner */
    if (trace && is_student) {
        for (int i = 0; i < EMPTY_TRIES; i++)
            empty[i] = timed_call(fn, prepare, ctx, 0, is_student, scratch_dev, 2);
        lab_stats_compute(empty, EMPTY_TRIES, &es);
        own_noop = es.median;
    }
    double *events = trace ? (double *)malloc(sizeof(double) * (size_t)p.max_reps) : NULL;
    double *flushes = gpu_clock() ? (double *)malloc(sizeof(double) * (size_t)p.max_reps) : NULL;
    int n = 0;
    while (!bad && !lab_timing_done(ms, n, &p)) {
        int set = n % nsets;
        double call_ms = timed(fn, prepare, ctx, set, is_student, bad_dev, 0) - overhead;
        if (events)
            events[n] = g_events_ms;
        if (flushes)
            flushes[n] = g_flush_ms;
        ms[n++] = call_ms > 0 ? call_ms : 0;
        t->last_set = set;
        CUDA_CHECK(cudaMemcpy(&bad, bad_dev, sizeof bad, cudaMemcpyDeviceToHost));
    }
    if (bad) {
        if (is_student)
            lab_die(LAB_EXIT_WRONG, "%llu elements of a timed call's outputs were wrong when your code said "
                                    "it was done: does it depend on state left by an earlier call, or return "
                                    "before its work is finished?", bad);
        printf("  warning: %s gave %llu wrong elements in a timed call: the check itself may be wrong on\n"
               "  this system; please report it\n", t->label, bad);
    }
    lab_stats_compute(ms, n > 0 ? n : 1, &t->st);
    if (events && n > 0) {
        lab_stats ev;
        lab_stats_compute(events, n, &ev);
        fprintf(stderr, "judge trace: %s: %d calls; this clock %.4f ms (what it adds: %.4f ms, subtracted); "
                        "events %.4f ms (%s)",
                t->label, n, t->st.median, overhead, ev.median, is_student ? "the runner's, as it said" : "here");
        if (own_noop >= 0)
            fprintf(stderr, "; a no-op through this runner: %.4f ms", own_noop);
        fputc('\n', stderr);
    }
    if (flushes && n > 0) {
        /* the GPU clock: flushes slower beside the calls than beside a
         * no-op mean GPU work of the runner outside its calls. A warning
         * for now: the margin is not yet measured on a GPU */
        lab_stats with_calls, with_noop;
        lab_stats_compute(flushes, n, &with_calls);
        lab_stats_compute(empty_flush, EMPTY_TRIES, &with_noop);
        if (is_student && with_calls.median > 1.5 * with_noop.median + 0.01)
            fprintf(stderr, "warning: %s: the judge's L2 flush took %.4f ms beside your calls, %.4f ms beside a "
                            "no-op: does your code run GPU work outside its calls?\n",
                    t->label, with_calls.median, with_noop.median);
        if (trace)
            fprintf(stderr, "judge trace: %s: the flush %.4f ms beside the calls, %.4f ms beside a no-op\n",
                    t->label, with_calls.median, with_noop.median);
    }
    free(flushes);
    free(events);
    free(ms);
}

#endif /* LAB_JUDGE */
