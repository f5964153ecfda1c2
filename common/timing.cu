/*
 * timing.cu: how long one call of a kernel takes (gpu.h, lab_time), the same
 * way wherever the student's code runs (backend.h), so that make run
 * predicts the grade.
 *
 * The student's code may run in a runner process whose events this process
 * cannot see: so this process's clock around a batch of calls, each after
 * its own L2 flush, in one request to wherever the calls run (timed_batch);
 * what the clock adds (the round trip, the flushes, the check of the
 * outputs) measured with a no-op in each call's place, through the echo
 * runner for a runner's calls (it holds no student code) or here, and
 * subtracted; the write-back of a call's output that the next flush pays
 * taken off; canaries between the student's batches (flush.cu has the
 * flushes, their proof, the canary and the write-back's measure). A round
 * trip to a second process, and the switches of the GPU between the two
 * processes' contexts, cost tenths of a millisecond with a spread of tens
 * of microseconds, too much to time a 0.1 to 0.3 ms call alone.
 * judge/README.md, "The judge", says why.
 */
#include "backend.h"
#include "flush.h"
#include "gpu.h"

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

static lab_refresh_fn g_refresh;
static lab_check_fn g_check;
static const char *g_wrong_hint;

void lab_batch_hooks(lab_refresh_fn refresh, lab_check_fn check, const char *wrong_hint)
{
    g_refresh = refresh;
    g_check = check;
    g_wrong_hint = wrong_hint;
}

__global__ void lab_noop_kernel_here(void) {}

void lab_noop_here(void)
{
    lab_noop_kernel_here<<<1, 1>>>();
    CUDA_CHECK(cudaGetLastError());
}

/* A batch: at most this many calls, each after its own flush (backend.h). */
enum { MAX_BATCH = LAB_MAX_BATCH, MAX_CALLS = 2400 };
/* Calls shorter than this are timed in batches of as many input sets as
 * the family has; longer ones in batches of BATCH_MS / their time. */
static const double LONG_CALL_MS = 5.0, BATCH_MS = 20.0;

/* LAB_JUDGE_TRACE: the last batch's event time, a call's share (flushes
 * included): here, or as the student's runner said. */
static double g_events_ms;
/* and where the last batch's wall time went: before its clock's window,
 * the window, of it the fresh inputs and poisoned outputs, and after it
 * (the flushes' sums checked) */
static struct {
    double before, window, inputs, after;
} g_wall;

/* One timed batch of `count` calls on the input sets first, first + 1, ...,
 * each with a clean L2 before it, on this process's clock; the time of a
 * call: the batch's over count. Nothing of the batch exists before the
 * clock starts: inside it, each set gets fresh inputs from a seed nobody
 * knew (the family's refresh hook) and poisoned outputs (prepare), so that
 * a runner cannot work on an input before t0 (judge/README.md, "The
 * judge"); where the calls run in another process, this process's work is
 * finished before the request goes, since the runner's stream does not
 * wait for ours. Then, in one request to where the calls run (the
 * student's runner, or here): for each set, the flush (a fresh salt each)
 * and the call. When they are done, the family's check hook samples every
 * set's output on the GPU, and the clock stops when that check is done: a
 * runner that answers before its work is finished has it timed, or fails
 * the check. Afterwards each flush a runner ran has its sum verified.
 * `empty`: the same steps, the fresh inputs included, with a no-op for each
 * call, on the side the backend names for it (the echo runner for a
 * runner's calls: the student's code is not in it): what the clock adds,
 * for lab_time to subtract. */
static double timed_batch(lab_call_fn fn, lab_prepare_fn prepare, void *ctx, int first, int count, int is_student,
                          lab_batch_bad *bad_dev, int empty)
{
    static cudaEvent_t e0, e1;
    if (!e0) {
        CUDA_CHECK(cudaEventCreate(&e0));
        CUDA_CHECK(cudaEventCreate(&e1));
    }
    const int side = !is_student ? LAB_HERE : !empty ? lab_backend_student_side() : lab_backend_empty_side();
    uint64_t salt[MAX_BATCH];
    const double began = lab_now_ms();
    for (int k = 0; k < count; k++)
        salt[k] = lab_fresh_seed();
    lab_l2_clear_sums();
    CUDA_CHECK(cudaDeviceSynchronize());
    double t0 = lab_now_ms();
    for (int k = 0; k < count; k++) {
        if (g_refresh)
            g_refresh(ctx, first + k, lab_fresh_seed());
        if (prepare)
            prepare(ctx, first + k);
    }
    /* a runner's calls go to another process's stream, which does not wait
     * for this one: they must not start before the inputs exist */
    if (side != LAB_HERE)
        CUDA_CHECK(cudaDeviceSynchronize());
    const double inputs = lab_now_ms();
    if (side == LAB_HERE)
        CUDA_CHECK(cudaEventRecord(e0));
    for (int k = 0; k < count; k++) {
        lab_l2_flush(side, k, salt[k]);
        if (!empty)
            fn(ctx, first + k); /* the student's: run here, or queued for its runner */
        else if (side != LAB_HERE)
            lab_backend_queue_noop(side);
        else
            lab_noop_here();
    }
    if (side != LAB_HERE) {
        lab_backend_send(side, empty ? "measuring the round trip" : "a timed call", 0);
    } else {
        CUDA_CHECK(cudaEventRecord(e1));
        /* the student's calls here: a failure of theirs is said as theirs,
         * and the empty batch waits as long */
        if (is_student && !empty)
            lab_student_sync("a timed call");
        else if (is_student)
            CUDA_CHECK(cudaDeviceSynchronize());
    }
    if (g_check)
        g_check(ctx, first, count, bad_dev);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaDeviceSynchronize());
    double t1 = lab_now_ms();
    float e = -1;
    if (side == LAB_HERE)
        CUDA_CHECK(cudaEventElapsedTime(&e, e0, e1));
    g_events_ms = (side != LAB_HERE ? lab_backend_said_ms() : e) / count;
    if (side != LAB_HERE)
        lab_l2_verify(salt, count, side);
    g_wall.before = t0 - began;
    g_wall.inputs = inputs - t0;
    g_wall.window = t1 - t0;
    g_wall.after = lab_now_ms() - t1;
    return (t1 - t0) / count;
}

/* The bytes each call of the student's or a baseline's batch writes: what
 * the flush after it pays to write back (lab_l2_writeback_ms). */
static size_t g_writes;

void lab_time_writes(size_t bytes) { g_writes = bytes; }

/* After the student's timing: the canaries against their reference. On an
 * H100 (MEASUREMENTS.md) honest runs put the canaries' median 5 to 10%
 * above the reference and at most 2% of them over 1.5 times it; a median
 * over 1.25 times, or more than a quarter over 1.5 times, flags the
 * student's times (lab_timing_disturbed: the record says so, and the
 * grader scores no speed points). */
static char g_disturbed[256];

static void canary_verdict(const char *label, double reference, const double *canary, int n, int trace)
{
    if (n <= 0 || reference <= 0)
        return;
    int slow = 0;
    for (int i = 0; i < n; i++)
        slow += canary[i] > 1.5 * reference;
    lab_stats cs;
    lab_stats_compute(canary, n, &cs);
    if (trace)
        fprintf(stderr, "judge trace: %s: canary flushes %.4f ms with no process of yours, %.4f ms between your "
                        "batches (median), %d of %d over 1.5 times\n",
                label, reference, cs.median, slow, n);
    if (cs.median > 1.25 * reference || slow * 4 > n) {
        snprintf(g_disturbed, sizeof g_disturbed,
                 "the judge's own GPU work ran slower while your code was idle between its calls (%.4f "
                 "against %.4f ms; %d of %d checks over 1.5 times): does it run GPU work outside its calls?",
                 cs.median, reference, slow, n);
        fprintf(stderr, "warning: %s: %s\n", label, g_disturbed);
    }
}

/* The student's canaries wait for their reference, which is measured with
 * no process of the student alive: when the student's runner is stopped
 * for the next baseline, or at the latest when the record asks for the
 * verdict. So the student can be timed right after its checks, in the
 * runner that ran them, without starting it again. */
/* The write-back of the student's outputs (writeback_ms) is measured by
 * events in this process, so it too waits until no process of the student
 * is alive, and is taken off the student's samples then. */
static struct {
    lab_timing *t;          /* the student's row, its samples without the write-back */
    double *samples, *canary;
    int n, count, trace;
    size_t writes;          /* the bytes each call wrote (lab_time_writes) */
} g_pending;

static void settle_canaries(void)
{
    if (!g_pending.t)
        return;
    lab_backend_stop_student();
    if (g_pending.canary) {
        double c[5];
        for (int i = 0; i < 5; i++)
            c[i] = lab_l2_canary_ms();
        lab_stats cs;
        lab_stats_compute(c, 5, &cs);
        canary_verdict(g_pending.t->label, cs.median, g_pending.canary, g_pending.n, g_pending.trace);
    }
    /* every call of a batch but the last had a flush after it */
    const double wb = lab_l2_writeback_ms(g_pending.writes) * (g_pending.count - 1) / g_pending.count;
    for (int i = 0; i < g_pending.n; i++)
        g_pending.samples[i] = g_pending.samples[i] > wb ? g_pending.samples[i] - wb : 0;
    if (g_pending.n > 0)
        lab_stats_compute(g_pending.samples, g_pending.n, &g_pending.t->st);
    if (g_pending.trace && wb > 0)
        fprintf(stderr, "judge trace: %s: writing back %.4f ms a call taken off afterwards: %.4f ms a call\n",
                g_pending.t->label, wb, g_pending.t->st.median);
    free(g_pending.samples);
    free(g_pending.canary);
    memset(&g_pending, 0, sizeof g_pending);
}

const char *lab_timing_disturbed(void)
{
    settle_canaries();
    return g_disturbed;
}

/* What a batch's check found wrong, said to the student (the run ends), or,
 * for a baseline, as a warning. */
static void wrong_outputs(const lab_timing *t, const lab_batch_bad *bad, int is_student)
{
    double worst;
    memcpy(&worst, &bad->worst, sizeof worst);
    if (!is_student) {
        printf("  warning: %s gave %llu wrong elements and %llu imprecise outputs in timed calls: the check\n"
               "  itself may be wrong on this system; please report it\n", t->label, bad->wrong, bad->imprecise);
        return;
    }
    if (bad->wrong)
        lab_die(LAB_EXIT_WRONG, "%llu elements of a timed call's outputs were wrong when your code said it was "
                                "done: %s", bad->wrong, g_wrong_hint ? g_wrong_hint : "does it depend on state "
                                "left by an earlier call, or return before its work is finished?");
    lab_die(LAB_EXIT_WRONG, "timed calls less precise than FP32: over the elements the judge sampled from %llu "
                            "of them, the relative error was up to %.1f times the limit of the checks (TF32, "
                            "half precision or tensor cores on calls the checks did not see?); every call must "
                            "compute in FP32", bad->imprecise, worst);
}

void lab_time(lab_timing *t, lab_call_fn fn, lab_prepare_fn prepare, void *ctx,
              int nsets, const lab_timing_policy *policy, int is_student)
{
    static lab_batch_bad *bad_dev, *scratch_dev;
    if (!bad_dev) {
        CUDA_CHECK(cudaMalloc(&bad_dev, sizeof *bad_dev));
        CUDA_CHECK(cudaMalloc(&scratch_dev, sizeof *scratch_dev));
    }
    const double began = lab_now_ms();
    lab_l2_setup();
    if (is_student) {
        /* the runner that ran the checks, or (where a baseline came first
         * and stopped it) a new one, started before the warm-up: its
         * start-up (the confinement, a CUDA context) is not a call's
         * first-launch cost. The harness times the student first. */
        lab_backend_start_student();
    } else {
        /* a baseline is timed with no process of the student's alive: work
         * it left on the GPU (in a CUDA context of its own, say) would slow
         * the baseline and flatter the student's ratios. With it stopped,
         * its canaries' reference is measured too. */
        lab_backend_stop_student();
        settle_canaries();
    }
    CUDA_CHECK(cudaMemset(bad_dev, 0, sizeof *bad_dev));
    lab_timing_policy p = *policy;
    /* LAB_JUDGE_RSE=X (an experiment): stop sampling at a relative standard
     * error of X instead of 1%. A sample is the difference of two
     * batches, noisier than one event-timed call: on an
     * H100 the judged ratios of 04 and 07 spread 2.2 to 2.4% over five
     * grades against 1.0% by events (MEASUREMENTS.md). */
    const char *rse = getenv("LAB_JUDGE_RSE");
    if (rse && atof(rse) > 0)
        p.target_rse = atof(rse);
    double *ms = (double *)malloc(sizeof(double) * (size_t)p.max_reps);
    ms[0] = 0;
    lab_batch_bad bad = {0, 0, 0};
    char size[64];
    lab_timing_size_text(size, sizeof size);
    lab_progress("timing %s %s", size, t->label);

    /* warm-up: first-launch costs (module loading, clocks ramping); then the
     * length of a call (with what the clock adds), which sets the batch's */
    double warm = timed_batch(fn, prepare, ctx, 0, 1, is_student, bad_dev, 0);
    if (warm < 100.0)
        warm = timed_batch(fn, prepare, ctx, 0, 1, is_student, bad_dev, 0);
    int count = nsets < MAX_BATCH ? nsets : MAX_BATCH;
    if (warm > LONG_CALL_MS)
        count = warm * count > BATCH_MS ? (int)(BATCH_MS / warm) : count;
    if (count < 1)
        count = 1;
    if (warm > 100.0)
        p.min_reps = lab_slow_call_reps(warm);
    p.budget_ms /= count; /* the budget is for calls; a sample here is a batch */
    /* A sample was once one event-timed call, at most max_reps; a batch is up to
     * MAX_BATCH calls, and for the shortest calls (07's, 0.1 ms) the budget
     * alone would run to 3,300 calls, each costing far more wall time than
     * GPU time (its fresh inputs): 3.3 s of a grade. At most MAX_CALLS. */
    if (p.max_reps > MAX_CALLS / count)
        p.max_reps = MAX_CALLS / count > p.min_reps ? MAX_CALLS / count : p.min_reps;
    lab_progress("timing %s %s, first call %.4g ms", size, t->label, warm);

    /* Each sample: an empty batch as long (what the clock adds to a call:
     * the round trip, the flushes, the check of outputs, poisoned or not,
     * into a scratch count), then the timed batch; the difference. Measured
     * side by side, since what the switches between the processes' contexts
     * cost drifts by tenths of a millisecond from one moment to the next. */
    /* what the flushes after the calls add for writing their outputs back */
    const double writeback = is_student ? 0 : lab_l2_writeback_ms(g_writes) * (count - 1) / count;
    const int trace = getenv("LAB_JUDGE_TRACE") != NULL;
    double *events = trace ? (double *)malloc(sizeof(double) * (size_t)p.max_reps) : NULL;
    double *added = (double *)malloc(sizeof(double) * (size_t)p.max_reps);
    /* canaries where the student's calls run in a process of its own (a
     * runner): what they watch for is that process's work between its
     * calls. Where they run here, there is no such process; a canary would
     * only time this process after its own batch (on an H100, 1.25 times
     * the reference for stage 05's solution: a false flag). */
    const int canaries = is_student && lab_backend_student_side() != LAB_HERE;
    double *canary = canaries ? (double *)malloc(sizeof(double) * (size_t)p.max_reps) : NULL;
    /* LAB_JUDGE_TRACE: the samples' wall time, summed: the empty batch's
     * outside its window and in it, the timed batch's fresh inputs (in its
     * window), window and outside it (the flushes' sums checked), and all
     * of each sample (the canary, the verdict) */
    double wall[6] = {0, 0, 0, 0, 0, 0};
    int n = 0;
    while (!bad.wrong && !bad.imprecise && !lab_timing_done(ms, n, &p)) {
        int first = (n * count) % nsets;
        if (first + count > nsets)
            first = 0;
        int canary_first = canary && (lab_fresh_seed() & 1);
        const double sample_began = lab_now_ms();
        if (canary_first)
            canary[n] = lab_l2_canary_ms();
        added[n] = timed_batch(fn, prepare, ctx, first, count, is_student, scratch_dev, 1);
        wall[0] += g_wall.before + g_wall.after;
        wall[1] += g_wall.window;
        double call_ms = timed_batch(fn, prepare, ctx, first, count, is_student, bad_dev, 0) - added[n] - writeback;
        wall[2] += g_wall.inputs;
        wall[3] += g_wall.window;
        wall[4] += g_wall.before + g_wall.after;
        if (canary && !canary_first)
            canary[n] = lab_l2_canary_ms();
        if (events)
            events[n] = g_events_ms;
        ms[n++] = call_ms > 0 ? call_ms : 0;
        t->last_set = first + count - 1;
        CUDA_CHECK(cudaMemcpy(&bad, bad_dev, sizeof bad, cudaMemcpyDeviceToHost));
        wall[5] += lab_now_ms() - sample_began;
    }
    if (bad.wrong || bad.imprecise)
        wrong_outputs(t, &bad, is_student);
    lab_stats_compute(ms, n > 0 ? n : 1, &t->st);
    if (events && n > 0) {
        lab_stats ev, ad;
        lab_stats_compute(events, n, &ev);
        lab_stats_compute(added, n, &ad);
        const double overhead = ad.median;
        fprintf(stderr, "judge trace: %s: %d batches of %d calls; this clock %.4f ms a call (what it adds: "
                        "%.4f ms, and writing back %.4f ms, subtracted); events %.4f ms a call with its flush (%s)\n",
                t->label, n, count, t->st.median, overhead, writeback, ev.median,
                is_student ? "the runner's, as it said" : "here");
        fprintf(stderr, "judge trace: %s: wall ms a sample: empty batch %.2f (its window %.2f); timed batch: "
                        "window %.2f (its fresh inputs %.2f), outside it (flush sums checked) %.2f; the rest "
                        "(canary, checks) %.2f\n",
                t->label, (wall[0] + wall[1]) / n, wall[1] / n, wall[3] / n, wall[2] / n, wall[4] / n,
                (wall[5] - wall[0] - wall[1] - wall[3] - wall[4]) / n);
    }
    if (is_student) { /* finished with no process of the student alive (settle_canaries) */
        free(g_pending.samples);
        free(g_pending.canary);
        g_pending.t = t;
        g_pending.samples = ms;
        g_pending.canary = canary;
        g_pending.n = n;
        g_pending.count = count;
        g_pending.trace = trace;
        g_pending.writes = g_writes;
        ms = NULL;
        canary = NULL;
    }
    free(canary);
    free(added);
    free(events);
    free(ms);
    if (trace)
        fprintf(stderr, "judge trace: %s: %.0f ms of wall time to time it\n", t->label, lab_now_ms() - began);
}

