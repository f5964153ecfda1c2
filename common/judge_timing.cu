/*
 * judge_timing.cu: lab_time for the judges (-DLAB_JUDGE; timing.cu has the
 * drivers' events, and what both share). Student code runs in a runner
 * process whose events this process cannot see: this process's clock
 * around a batch of calls, each after its own L2 flush, in one request to
 * the runner (timed_batch); what the clock adds (the round trip, the
 * flushes, the check of the outputs) measured with a no-op in each call's
 * place through the echo runner, and subtracted; the flushes proven by a
 * sum over the flushed buffer; the write-back of a call's output that the
 * next flush pays taken off; canaries between the student's batches.
 * grader/README.md, "The judge", says why.
 */
#ifndef LAB_JUDGE
#error "judge_timing.cu is the judges' (build it with -DLAB_JUDGE)"
#endif
#include "gpu.h"
#include "l2_flush.h"
#include "judge.h"
#include "remote.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

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

/* A batch: at most this many calls, each after its own flush (a request
 * holds LAB_REMOTE_MAX_CALLS calls). */
enum { MAX_BATCH = LAB_REMOTE_MAX_CALLS / 2, MAX_CALLS = 2400 };
/* Calls shorter than this are timed in batches of as many input sets as
 * the driver has; longer ones in batches of BATCH_MS / their time. */
static const double LONG_CALL_MS = 5.0, BATCH_MS = 20.0;

/* The flushes' buffer (random words, shared with the runners), its twin
 * that no runner maps (the same words: what the sums are verified on, so
 * that a runner that rewrote the shared one to make its sums predictable
 * is caught), the sums as the batch's flushes left them (shared), and as
 * the judge computes them on the twin (not shared). */
static lab_buffer g_flush, g_twin, g_sums;
static unsigned long long *g_want;
static size_t g_flush_words; /* 16-byte words */

static void flush_setup(void)
{
    if (g_flush.data)
        return;
    int l2 = 0;
    CUDA_CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0));
    size_t bytes = 2 * (size_t)l2 > (32u << 20) ? 2 * (size_t)l2 : (32u << 20);
    g_flush_words = bytes / 16;
    uint64_t seed = lab_fresh_seed();
    lab_buffer_new(&g_flush, g_flush_words * 4);
    lab_buffer_fill(&g_flush, seed);
    lab_buffer_new(&g_twin, g_flush_words * 4);
    lab_buffer_fill(&g_twin, seed);
    lab_buffer_new(&g_sums, 2 * MAX_BATCH); /* MAX_BATCH 8-byte sums */
    CUDA_CHECK(cudaMalloc(&g_want, MAX_BATCH * sizeof *g_want));
}

static unsigned long long *flush_sums(void) { return (unsigned long long *)g_sums.data; }

/* Flush k of a batch: here, or queued for the student's runner or the echo
 * runner (remote: 1 the student's, 2 the echo's). */
static void flush(int remote, int k, uint64_t salt)
{
    unsigned long long *sum = flush_sums() + k;
    if (!remote) {
        lab_flush_l2<<<LAB_FLUSH_BLOCKS, LAB_FLUSH_THREADS>>>((const uint4 *)g_flush.data, g_flush_words, salt, sum);
        CUDA_CHECK(cudaGetLastError());
        return;
    }
    const void *ptr[] = {g_flush.data, sum};
    const long long value[] = {(long long)g_flush_words, (long long)salt};
    if (remote == 1)
        lab_judge_queue(LAB_FN_FLUSH, ptr, 2, value, 2);
    else
        lab_judge_queue_echo(LAB_FN_FLUSH, ptr, 2, value, 2);
}

/* After a remote batch: every flush the runner was asked for gave the sum
 * the judge computes itself on the twin, or the run ends. */
static void verify_flushes(const uint64_t *salt, int count, int remote)
{
    unsigned long long *sums = flush_sums(), got[MAX_BATCH], want[MAX_BATCH];
    CUDA_CHECK(cudaMemcpy(got, sums, count * sizeof *sums, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemset(g_want, 0, MAX_BATCH * sizeof *g_want));
    for (int k = 0; k < count; k++)
        lab_flush_l2<<<LAB_FLUSH_BLOCKS, LAB_FLUSH_THREADS>>>((const uint4 *)g_twin.data, g_flush_words, salt[k],
                                                              g_want + k);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaMemcpy(want, g_want, count * sizeof *g_want, cudaMemcpyDeviceToHost));
    for (int k = 0; k < count; k++)
        if (got[k] != want[k]) {
            if (remote == 1)
                lab_die(LAB_EXIT_WRONG, "the cache flush the judge asked your kernel's process to run before a "
                                        "timed call (%d of %d in a batch) was skipped or changed: the timing of "
                                        "your calls cannot be trusted", k + 1, count);
            lab_die(LAB_EXIT_CUDA_ERROR, "the echo runner's cache flush gave a wrong sum (a harness bug)");
        }
}

/* LAB_JUDGE_TRACE: the last batch's event time, a call's share (flushes
 * included): here, or as the student's runner said. */
static double g_events_ms;
/* and where the last batch's wall time went: its fresh inputs and poisoned
 * outputs, its clock's window, and after it (the flushes' sums checked) */
static struct {
    double inputs, window, after;
} g_wall;

/* One timed batch of `count` calls on the input sets first, first + 1, ...,
 * as the drivers' events time a call (a clean L2 before it), on this
 * process's clock; the time of a call: the batch's over count. Before the
 * clock starts, each set gets fresh inputs from a seed nobody knew (the
 * driver's refresh hook) and poisoned outputs (prepare), and each flush a
 * fresh salt. Then, in one request to the student's runner (or here, for a
 * baseline): for each set, the flush and the call. When the runner answers,
 * the driver's check hook samples every set's output on the GPU, and the
 * clock stops when that check is done: a runner that answers before its
 * work is finished has it timed, or fails the check. Afterwards each
 * flush's sum is verified. `empty`: the same steps with a no-op for each
 * call, through the echo runner for the student's side (the student's code
 * is not in it): what the clock adds, for lab_time to subtract. */
static double timed_batch(lab_call_fn fn, lab_prepare_fn prepare, void *ctx, int first, int count, int is_student,
                          unsigned long long *bad_dev, int empty)
{
    static cudaEvent_t e0, e1;
    if (!e0) {
        CUDA_CHECK(cudaEventCreate(&e0));
        CUDA_CHECK(cudaEventCreate(&e1));
    }
    int remote = !is_student ? 0 : !empty ? 1 : lab_judge_have_echo() ? 2 : 0;
    uint64_t salt[MAX_BATCH];
    const double began = lab_now_ms();
    for (int k = 0; k < count; k++) {
        if (!empty && g_refresh)
            g_refresh(ctx, first + k, lab_fresh_seed());
        if (!empty && prepare)
            prepare(ctx, first + k);
        salt[k] = lab_fresh_seed();
    }
    CUDA_CHECK(cudaMemset(flush_sums(), 0, MAX_BATCH * sizeof(unsigned long long)));
    CUDA_CHECK(cudaDeviceSynchronize());
    double t0 = lab_now_ms();
    if (!remote)
        CUDA_CHECK(cudaEventRecord(e0));
    for (int k = 0; k < count; k++) {
        flush(remote, k, salt[k]);
        if (!empty)
            fn(ctx, first + k); /* the student's: queued for the runner */
        else if (remote == 2)
            lab_judge_queue_echo(LAB_FN_NOOP, NULL, 0, NULL, 0);
        else
            lab_noop_here();
    }
    if (remote == 1)
        lab_judge_flush("a timed call", 0);
    else if (remote == 2)
        lab_judge_flush_echo();
    else
        CUDA_CHECK(cudaEventRecord(e1));
    if (g_check)
        g_check(ctx, first, count, bad_dev);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaDeviceSynchronize());
    double t1 = lab_now_ms();
    float e = -1;
    if (!remote)
        CUDA_CHECK(cudaEventElapsedTime(&e, e0, e1));
    g_events_ms = (remote ? lab_judge_runner_said_ms() : e) / count;
    if (remote)
        verify_flushes(salt, count, remote);
    g_wall.inputs = t0 - began;
    g_wall.window = t1 - t0;
    g_wall.after = lab_now_ms() - t1;
    return (t1 - t0) / count;
}

/* The write-back (LAB_JUDGE_WRITEBACK=0 leaves it in): the drivers' events stop when a
 * call's last store reaches L2, but in a batch the flush after a call must
 * first write the call's dirty lines back to memory, on the judge's clock.
 * What that costs after writing `bytes` is measured here once, by events:
 * a flush after a kernel that wrote that much (at most the flush buffer's
 * size), less a flush after a no-op. Every call of a batch but the last
 * has one such flush after it. Measured on an H100 (MEASUREMENTS.md): it
 * brings every scored ratio within 2.3% of the events', from 3.4%. */
static size_t g_writes;

void lab_time_writes(size_t bytes) { g_writes = bytes; }

__global__ void write_zeros(float4 *p, size_t count)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < count; i += (size_t)gridDim.x * blockDim.x)
        p[i] = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
}

static double writeback_ms(size_t bytes)
{
    static size_t known_bytes = (size_t)-1;
    static double known_ms;
    const char *on = getenv("LAB_JUDGE_WRITEBACK");
    if ((on && !strcmp(on, "0")) || bytes < (1u << 20)) /* a megabyte: under a microsecond */
        return 0;
    if (bytes == known_bytes)
        return known_ms;
    size_t words = bytes / 16 < g_flush_words ? bytes / 16 : g_flush_words;
    static float4 *scratch;
    if (!scratch)
        CUDA_CHECK(cudaMalloc(&scratch, g_flush_words * 16));
    static cudaEvent_t w0, w1;
    if (!w0) {
        CUDA_CHECK(cudaEventCreate(&w0));
        CUDA_CHECK(cudaEventCreate(&w1));
    }
    enum { TRIES = 7 };
    double d[TRIES];
    for (int i = 0; i < TRIES; i++) {
        float after[2];
        for (int wrote = 0; wrote < 2; wrote++) {
            flush(0, 0, lab_fresh_seed());
            if (wrote)
                write_zeros<<<LAB_FLUSH_BLOCKS, LAB_FLUSH_THREADS>>>(scratch, words);
            else
                lab_noop_here();
            CUDA_CHECK(cudaEventRecord(w0));
            flush(0, 0, lab_fresh_seed());
            CUDA_CHECK(cudaEventRecord(w1));
            CUDA_CHECK(cudaEventSynchronize(w1));
            CUDA_CHECK(cudaEventElapsedTime(&after[wrote], w0, w1));
        }
        d[i] = after[1] - after[0];
    }
    lab_stats st;
    lab_stats_compute(d, TRIES, &st);
    known_bytes = bytes;
    known_ms = st.median > 0 ? st.median : 0;
    return known_ms;
}

/* A canary: one flush here, by events. Between the student's batches its
 * runner is idle; a flush then slower than with no process of the student
 * alive means GPU work of that process outside its calls (which would also
 * slow the empty batches through the echo runner, and so flatter its
 * times). Where in the idle time a canary falls is drawn at random. */
static double canary_ms(void)
{
    static cudaEvent_t c0, c1;
    if (!c0) {
        CUDA_CHECK(cudaEventCreate(&c0));
        CUDA_CHECK(cudaEventCreate(&c1));
    }
    CUDA_CHECK(cudaEventRecord(c0));
    flush(0, 0, lab_fresh_seed());
    CUDA_CHECK(cudaEventRecord(c1));
    CUDA_CHECK(cudaEventSynchronize(c1));
    float ms = 0;
    CUDA_CHECK(cudaEventElapsedTime(&ms, c0, c1));
    return ms;
}

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
    lab_judge_stop_student();
    double c[5];
    for (int i = 0; i < 5; i++)
        c[i] = canary_ms();
    lab_stats cs;
    lab_stats_compute(c, 5, &cs);
    canary_verdict(g_pending.t->label, cs.median, g_pending.canary, g_pending.n, g_pending.trace);
    /* every call of a batch but the last had a flush after it */
    const double wb = writeback_ms(g_pending.writes) * (g_pending.count - 1) / g_pending.count;
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

void lab_time(lab_timing *t, lab_call_fn fn, lab_prepare_fn prepare, void *ctx,
              int nsets, const lab_timing_policy *policy, int is_student)
{
    static unsigned long long *bad_dev, *scratch_dev;
    if (!bad_dev) {
        CUDA_CHECK(cudaMalloc(&bad_dev, sizeof *bad_dev));
        CUDA_CHECK(cudaMalloc(&scratch_dev, sizeof *scratch_dev));
    }
    const double began = lab_now_ms();
    flush_setup();
    if (is_student) {
        /* the runner that ran the checks, or (where a baseline came first
         * and stopped it) a new one, started before the warm-up: its
         * start-up (the confinement, a CUDA context) is not a call's
         * first-launch cost. The drivers time the student first. */
        lab_judge_start_student();
    } else {
        /* a baseline is timed with no process of the student's alive: work
         * it left on the GPU (in a CUDA context of its own, say) would slow
         * the baseline and flatter the student's ratios. With it stopped,
         * its canaries' reference is measured too. */
        lab_judge_stop_student();
        settle_canaries();
    }
    CUDA_CHECK(cudaMemset(bad_dev, 0, sizeof *bad_dev));
    lab_timing_policy p = *policy;
    /* LAB_JUDGE_RSE=X (an experiment): stop sampling at a relative standard
     * error of X instead of the drivers' 1%. A judged sample is the
     * difference of two batches, noisier than one event-timed call: on an
     * H100 the judged ratios of 04 and 07 spread 2.2 to 2.4% over five
     * grades against 1.0% by events (MEASUREMENTS.md). */
    const char *rse = getenv("LAB_JUDGE_RSE");
    if (rse && atof(rse) > 0)
        p.target_rse = atof(rse);
    double *ms = (double *)malloc(sizeof(double) * (size_t)p.max_reps);
    ms[0] = 0;
    unsigned long long bad = 0;
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
    /* The drivers' events time at most max_reps calls; a batch here is up to
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
    const double writeback = is_student ? 0 : writeback_ms(g_writes) * (count - 1) / count;
    const int trace = getenv("LAB_JUDGE_TRACE") != NULL;
    double *events = trace ? (double *)malloc(sizeof(double) * (size_t)p.max_reps) : NULL;
    double *added = (double *)malloc(sizeof(double) * (size_t)p.max_reps);
    double *canary = is_student ? (double *)malloc(sizeof(double) * (size_t)p.max_reps) : NULL;
    /* LAB_JUDGE_TRACE: the samples' wall time, summed: the empty batch's
     * outside its window and in it, the timed batch's fresh inputs, window
     * and flush checks, and all of each sample (the canary, the verdict) */
    double wall[6] = {0, 0, 0, 0, 0, 0};
    int n = 0;
    while (!bad && !lab_timing_done(ms, n, &p)) {
        int first = (n * count) % nsets;
        if (first + count > nsets)
            first = 0;
        int canary_first = canary && (lab_fresh_seed() & 1);
        const double sample_began = lab_now_ms();
        if (canary_first)
            canary[n] = canary_ms();
        added[n] = timed_batch(fn, prepare, ctx, first, count, is_student, scratch_dev, 1);
        wall[0] += g_wall.inputs + g_wall.after;
        wall[1] += g_wall.window;
        double call_ms = timed_batch(fn, prepare, ctx, first, count, is_student, bad_dev, 0) - added[n] - writeback;
        wall[2] += g_wall.inputs;
        wall[3] += g_wall.window;
        wall[4] += g_wall.after;
        if (canary && !canary_first)
            canary[n] = canary_ms();
        if (events)
            events[n] = g_events_ms;
        ms[n++] = call_ms > 0 ? call_ms : 0;
        t->last_set = first + count - 1;
        CUDA_CHECK(cudaMemcpy(&bad, bad_dev, sizeof bad, cudaMemcpyDeviceToHost));
        wall[5] += lab_now_ms() - sample_began;
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
        lab_stats ev, ad;
        lab_stats_compute(events, n, &ev);
        lab_stats_compute(added, n, &ad);
        const double overhead = ad.median;
        fprintf(stderr, "judge trace: %s: %d batches of %d calls; this clock %.4f ms a call (what it adds: "
                        "%.4f ms, and writing back %.4f ms, subtracted); events %.4f ms a call with its flush (%s)\n",
                t->label, n, count, t->st.median, overhead, writeback, ev.median,
                is_student ? "the runner's, as it said" : "here");
        fprintf(stderr, "judge trace: %s: wall ms a sample: empty batch %.2f (its window %.2f); timed batch: "
                        "fresh inputs %.2f, window %.2f, flush sums checked %.2f; the rest (canary, checks) %.2f\n",
                t->label, (wall[0] + wall[1]) / n, wall[1] / n, wall[2] / n, wall[3] / n, wall[4] / n,
                (wall[5] - wall[0] - wall[1] - wall[2] - wall[3] - wall[4]) / n);
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

