/*
 * timing.cu: how long one call of a kernel takes (gpu.h, lab_time), the same
 * way wherever the student's code runs (backend.h), so that make run
 * predicts the grade.
 *
 * The student's code may run in a runner process whose events this process
 * cannot see: so this process's clock around a batch of calls on distinct
 * input sets, after one L2 flush of this process's own, in one request to
 * wherever the calls run (timed_batch); what the clock adds (the flush,
 * the round trip, the check of the outputs; the fresh inputs, for a
 * student's calls in this process) measured
 * with one no-op in the calls' place, through the echo runner for a
 * runner's calls (it holds no student code) or here, and subtracted; the
 * write-back of a call's output that the next call pays taken off;
 * canaries between the student's batches (flush.cu has the flush, the
 * canary and the write-back's measure). A round trip to a second process,
 * and the switches of the GPU between the two processes' contexts, cost
 * tenths of a millisecond with a spread of tens of microseconds, too much
 * to time a 0.1 to 0.3 ms call alone.
 * judge/README.md, "The judge", says why.
 *
 * The state of a measurement is one lab_measure, passed explicitly
 * (measure.h); what needs no GPU (the student's samples held, then
 * settled, and the rates) is measure.c's. lab_time, at the end of this
 * file, reads top to bottom as its phases: start, warm-up, the batches
 * (each an empty one, through the echo runner for a runner's calls, then
 * the timed one), the check of what they found, the student's samples held
 * for the settle, the summary. Every setting (the warm-up, the trials, the
 * batch, the budget, the L2 flush, the relative standard error) is the
 * timing policy's (policy.c; common/README.md says which wins).
 */
#include "backend.h"
#include "flush.h"
#include "gpu.h"

#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

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

/* What settling needs of the GPU (measure.h): the real thing. */
const lab_measure_gpu lab_measure_on_gpu = {lab_backend_stop_student, lab_l2_canary_ms, lab_l2_writeback_ms};

__global__ void lab_noop_kernel_here(void) {}

void lab_noop_here(void)
{
    lab_noop_kernel_here<<<1, 1>>>();
    CUDA_CHECK(cudaGetLastError());
}

/* What one batch gave: a call's share of its clock's window; for
 * LAB_JUDGE_TRACE, a call's share of its event time (here, or as the
 * student's runner said), and where its wall time went: before the
 * window, the window, of it the fresh inputs, poisoned outputs and the
 * flush, and after it. */
typedef struct {
    double ms, events_ms;
    double before, window, inputs, after;
} batch;

/* Each set of a batch: fresh inputs from a seed nobody knew (the kernel's
 * refresh hook) and poisoned outputs (prepare). */
static void fresh_inputs(const lab_timed *k, void *ctx, int first, int count)
{
    for (int i = 0; i < count; i++) {
        if (k->refresh)
            k->refresh(ctx, first + i, lab_fresh_seed());
        if (k->prepare)
            k->prepare(ctx, first + i);
    }
}

/* One timed batch of `count` calls on the input sets first, first + 1, ...,
 * on this process's clock; the time of a call: the batch's over count.
 * Each set gets fresh inputs (fresh_inputs) right before the clock starts,
 * or, for a student's calls in this process, inside it; then one L2 flush,
 * here, on the clock, so that no call finds its inputs in cache (the sets are distinct buffers:
 * a call can find in L2 only what the calls before it touched). Where the
 * calls run in another process, this process's work is finished before the
 * request goes, since the runner's stream does not wait for ours. Then, in
 * one request to where the calls run (the student's runner, or here), the
 * calls and nothing else: a runner is asked for nothing the judge relies
 * on. When they are done, the check hook samples every set's output on the
 * GPU, counting into *bad, and the clock stops when that check is done: a
 * runner that answers before its work is finished has it timed, or fails
 * the check. `empty`: the same steps, the fresh inputs and the flush
 * included, with one no-op in the calls' place, on the side the backend names for
 * it (the echo runner for a runner's calls: the student's code is not in
 * it): what the clock adds, for lab_time to subtract. */
static batch timed_batch(lab_measure *m, void *ctx, int first, int count, lab_batch_bad *bad, int empty)
{
    const lab_timed *k = m->kernel;
    cudaEvent_t e0 = m->dev.e0, e1 = m->dev.e1;
    const int side = !k->is_student ? LAB_HERE : !empty ? lab_backend_student_side() : lab_backend_empty_side();
    /* the inputs on the clock only where a student's code shares this
     * process (make run's default): it could work on them beside this
     * process before its calls. A runner's code cannot: it has no GPU, and
     * its device server runs nothing but a request's calls and answers
     * when every stream is done (judge/README.md, "The judge") */
    const int inputs_on_clock = k->is_student && lab_backend_student_side() == LAB_HERE;
    batch b;
    const double began = lab_now_ms();
    if (!inputs_on_clock)
        fresh_inputs(k, ctx, first, count);
    CUDA_CHECK(cudaDeviceSynchronize());
    double t0 = lab_now_ms();
    if (inputs_on_clock)
        fresh_inputs(k, ctx, first, count);
    lab_l2_flush();
    /* a runner's calls go to another process's stream, which does not wait
     * for this one: they must not start before the inputs exist */
    if (side != LAB_HERE)
        CUDA_CHECK(cudaDeviceSynchronize());
    const double inputs = lab_now_ms();
    if (side == LAB_HERE)
        CUDA_CHECK(cudaEventRecord(e0));
    /* an empty batch is one no-op, here or in a runner: what the clock adds
     * is the round trips (a runner's), one launch and the synchronization.
     * A call's launch is hidden behind the GPU work of the call before it; a
     * no-op a call would take the no-ops' own time on the GPU (about 1 us
     * each on an H200) off every call as well (judge/README.md, "Timing by
     * the judge's clock") */
    for (int i = 0; i < count; i++) {
        if (!empty)
            k->call(ctx, first + i); /* the student's: run here, or queued for its runner */
        else if (i == 0 && side != LAB_HERE)
            lab_backend_queue_noop(side);
        else if (i == 0)
            lab_noop_here();
    }
    if (side != LAB_HERE) {
        lab_backend_send(side, empty ? "measuring the round trip" : "a timed call", 0);
    } else {
        CUDA_CHECK(cudaEventRecord(e1));
        /* the student's calls here: a failure of theirs is said as theirs,
         * and the empty batch waits as long */
        if (k->is_student && !empty)
            lab_student_sync("a timed call");
        else if (k->is_student)
            CUDA_CHECK(cudaDeviceSynchronize());
    }
    if (k->check)
        k->check(ctx, first, count, bad);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaDeviceSynchronize());
    double t1 = lab_now_ms();
    float e = -1;
    if (side == LAB_HERE)
        CUDA_CHECK(cudaEventElapsedTime(&e, e0, e1));
    b.events_ms = (side != LAB_HERE ? lab_backend_said_ms() : e) / count;
    b.ms = (t1 - t0) / count;
    b.before = t0 - began;
    b.inputs = inputs - t0;
    b.window = t1 - t0;
    b.after = lab_now_ms() - t1;
    return b;
}

/* What a batch's check found wrong, said to the student (the run ends), or,
 * for a baseline, as a warning. */
static void wrong_outputs(const lab_measure *m, const lab_timing *t, const lab_batch_bad *bad)
{
    double worst;
    memcpy(&worst, &bad->worst, sizeof worst);
    if (!m->kernel->is_student) {
        printf("  warning: %s gave %llu wrong elements and %llu imprecise outputs in timed calls: the check\n"
               "  itself may be wrong on this system; please report it\n", t->label, bad->wrong, bad->imprecise);
        return;
    }
    const char *hint = m->kernel->wrong_hint;
    if (bad->wrong)
        lab_die(LAB_EXIT_WRONG, "%llu elements of a timed call's outputs were wrong when your code said it was "
                                "done: %s", bad->wrong, hint ? hint : "does it depend on state "
                                "left by an earlier call, or return before its work is finished?");
    lab_die(LAB_EXIT_WRONG, "timed calls less precise than FP32: over the elements the judge sampled from %llu "
                            "of them, the relative error was up to %.1f times the limit of the checks (TF32, "
                            "half precision or tensor cores on calls the checks did not see?); every call must "
                            "compute in FP32", bad->imprecise, worst);
}

/* The samples of one lab_time, and what LAB_JUDGE_TRACE prints of them. */
typedef struct {
    int count;            /* calls a batch                                  */
    lab_timing_policy p;  /* the policy, for batches of count calls         */
    double writeback;     /* a baseline's: its write-back, taken off        */
    double *ms, *added;   /* a call's time, and what the clock added, a sample */
    double *events, *canary; /* trace only; the student's runner only       */
    int n;
    lab_batch_bad bad;
    /* the samples' wall time, summed: the empty batch's outside its window
     * and in it, the timed batch's fresh inputs (in its window), window and
     * outside it, and all of each sample */
    double wall[6];
} samples;

/* Start: the student's runner started, or stopped for a baseline, and
 * the counters of wrong outputs zeroed. */
static void start(lab_measure *m, const lab_timing_policy *policy)
{
    if (!m->dev.e0) {
        CUDA_CHECK(cudaEventCreate((cudaEvent_t *)&m->dev.e0));
        CUDA_CHECK(cudaEventCreate((cudaEvent_t *)&m->dev.e1));
        CUDA_CHECK(cudaMalloc(&m->dev.bad, sizeof *m->dev.bad));
        CUDA_CHECK(cudaMalloc(&m->dev.scratch, sizeof *m->dev.scratch));
    }
    lab_l2_setup(policy);
    if (m->kernel->is_student) {
        /* the runner that ran the checks, or (where a baseline came first
         * and stopped it) a new one, started before the warm-up: its
         * start-up (the confinement, a CUDA context) is not a call's
         * first-launch cost */
        lab_backend_start_student();
    } else {
        /* a baseline is timed with no process of the student's alive: work
         * it left on the GPU (in a CUDA context of its own, say) would slow
         * the baseline and flatter the student's ratios. With it stopped,
         * its canaries' reference is measured too. */
        lab_backend_stop_student();
        lab_measure_settle(m);
    }
    CUDA_CHECK(cudaMemset(m->dev.bad, 0, sizeof *m->dev.bad));
}

/* Warm-up: first-launch costs (module loading, clocks ramping); then the
 * length of a call (with what the clock adds), which sets the batch's
 * count and the policy for batches of it. The first call in ms. The
 * settings are the policy's (policy.c). */
static double warm_up(lab_measure *m, void *ctx, int nsets, const lab_timing_policy *p, samples *S)
{
    double warm = timed_batch(m, ctx, 0, 1, m->dev.bad, 0).ms;
    if (warm < p->warm_up_again_below_ms)
        warm = timed_batch(m, ctx, 0, 1, m->dev.bad, 0).ms;
    /* calls shorter than long_call_ms are timed in batches of as many input
     * sets as the family has; longer ones in batches of batch_ms / their time */
    int count = nsets < p->max_batch ? nsets : p->max_batch;
    if (warm > p->long_call_ms)
        count = warm * count > p->batch_ms ? (int)(p->batch_ms / warm) : count;
    S->count = count < 1 ? 1 : count;
    S->p = *p;
    /* a slow kernel is timed with fewer calls after its warm-up call (the
     * naive matrix product at n=4096: a third call is 0.4 s of a grade) */
    if (warm > p->slow_call_ms)
        S->p.min_trials = warm > p->slower_call_ms ? p->slower_trials : p->slow_trials;
    S->p.budget_ms /= S->count; /* the budget is for calls; a sample here is a batch */
    /* A sample was once one event-timed call, at most max_trials; a batch is up to
     * max_batch calls, and for the shortest calls (07's, 0.1 ms) the budget
     * alone would run to 3,300 calls, each costing far more wall time than
     * GPU time (its fresh inputs): 3.3 s of a grade. At most max_calls. */
    const int most = p->max_calls / S->count;
    if (S->p.max_trials > most)
        S->p.max_trials = most > S->p.min_trials ? most : S->p.min_trials;
    return warm;
}

/* The batches. Each sample: an empty batch as long (what the clock adds to
 * a call: the inputs, the flush, the round trip, the check of outputs,
 * poisoned or not, into a scratch count), then the timed batch; the
 * difference. Measured side by side, since what the switches between the
 * processes' contexts cost drifts by tenths of a millisecond from one
 * moment to the next. Canaries where the student's calls run in a runner:
 * what they watch for is that process's work between its calls (where they
 * run here, a canary would only time this process after its own batch: on
 * an H100, 1.25 times the reference for stage 05's solution, a false
 * flag). Until the policy is met or a check finds a wrong output. */
static void run_batches(lab_measure *m, lab_timing *t, void *ctx, int nsets, samples *S)
{
    const int student = m->kernel->is_student, max = S->p.max_trials;
    /* what the next call pays for writing a baseline's outputs back (the
     * student's: at the settle, with its runner stopped) */
    S->writeback = student ? 0 : lab_l2_writeback_ms(m->kernel->writes) * (S->count - 1) / S->count;
    S->ms = (double *)calloc((size_t)max, sizeof(double));
    S->added = (double *)calloc((size_t)max, sizeof(double));
    S->events = m->trace ? (double *)calloc((size_t)max, sizeof(double)) : NULL;
    S->canary = student && lab_backend_student_side() != LAB_HERE ? (double *)calloc((size_t)max, sizeof(double))
                                                                    : NULL;
    while (!S->bad.wrong && !S->bad.imprecise && !lab_timing_done(S->ms, S->n, &S->p)) {
        const int n = S->n, count = S->count;
        int first = (n * count) % nsets;
        if (first + count > nsets)
            first = 0;
        const int canary_first = S->canary && (lab_fresh_seed() & 1);
        const double began = lab_now_ms();
        if (canary_first)
            S->canary[n] = lab_l2_canary_ms();
        batch echo = timed_batch(m, ctx, first, count, m->dev.scratch, 1);
        batch timed = timed_batch(m, ctx, first, count, m->dev.bad, 0);
        if (S->canary && !canary_first)
            S->canary[n] = lab_l2_canary_ms();
        S->added[n] = echo.ms;
        const double call_ms = timed.ms - echo.ms - S->writeback;
        S->ms[n] = call_ms > 0 ? call_ms : 0;
        if (S->events)
            S->events[n] = timed.events_ms;
        S->wall[0] += echo.before + echo.after;
        S->wall[1] += echo.window;
        S->wall[2] += timed.inputs;
        S->wall[3] += timed.window;
        S->wall[4] += timed.before + timed.after;
        t->last_set = first + count - 1;
        CUDA_CHECK(cudaMemcpy(&S->bad, m->dev.bad, sizeof S->bad, cudaMemcpyDeviceToHost));
        S->wall[5] += lab_now_ms() - began;
        S->n++;
    }
}

/* LAB_JUDGE_TRACE: the batches, the clock against the events, and where
 * the wall time went. */
static void summary(const lab_measure *m, const lab_timing *t, const samples *S, const lab_stats *st)
{
    const int n = S->n;
    if (!S->events || n <= 0)
        return;
    lab_stats ev, ad;
    lab_stats_compute(S->events, n, &ev);
    lab_stats_compute(S->added, n, &ad);
    const double *w = S->wall;
    fprintf(stderr, "judge trace: %s: %d batches of %d calls; this clock %.4f ms a call (what it adds: "
                    "%.4f ms, and writing back %.4f ms, subtracted); events %.4f ms a call (%s)\n",
            t->label, n, S->count, st->median, ad.median, S->writeback, ev.median,
            m->kernel->is_student && lab_backend_student_side() != LAB_HERE ? "the runner's, as it said" : "here");
    fprintf(stderr, "judge trace: %s: wall ms a sample: empty batch %.2f (its window %.2f); timed batch: "
                    "window %.2f (its flush, and fresh inputs on the clock, %.2f), outside it %.2f; the rest "
                    "(canary, checks) %.2f\n",
            t->label, (w[0] + w[1]) / n, w[1] / n, w[3] / n, w[2] / n, w[4] / n,
            (w[5] - w[0] - w[1] - w[3] - w[4]) / n);
}

void lab_time(lab_measure *m, lab_timing *t, const lab_timed *k, void *ctx, int nsets,
              const lab_timing_policy *policy)
{
    const double began = lab_now_ms();
    char size[64];
    samples S;
    memset(&S, 0, sizeof S);
    m->kernel = k;
    start(m, policy);
    lab_timing_size_text(size, sizeof size);
    lab_progress("timing %s %s", size, t->label);
    const double warm = warm_up(m, ctx, nsets, policy, &S);
    lab_progress("timing %s %s, first call %.4g ms", size, t->label, warm);
    run_batches(m, t, ctx, nsets, &S);
    if (S.bad.wrong || S.bad.imprecise)
        wrong_outputs(m, t, &S.bad);
    lab_stats st;
    lab_stats_compute(S.ms, S.n > 0 ? S.n : 1, &st);
    summary(m, t, &S, &st);
    if (k->is_student) { /* settled with no process of the student alive */
        lab_measure_hold(m, t, S.ms, S.canary, S.n, S.count, k->writes);
        S.ms = S.canary = NULL;
    } else {
        t->st = st;
    }
    free(S.ms);
    free(S.canary);
    free(S.added);
    free(S.events);
    if (m->trace)
        fprintf(stderr, "judge trace: %s: %.0f ms of wall time to time it\n", t->label, lab_now_ms() - began);
    m->kernel = NULL;
}
