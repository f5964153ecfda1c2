/*
 * measure.h: one measurement of a stage's kernels, as one object passed
 * explicitly. timing.cu times each kernel on the GPU (lab_time); measure.c
 * holds what needs no GPU and is unit-tested: the student's samples held
 * until no process of the student is alive, then settled, and the rates.
 *
 * The order, as the harness follows it (harness.cu):
 *   lab_measure_begin      the options (args.c) and the GPU's side of settling
 *   lab_time               each kernel: the student's samples are held
 *   lab_measure_settle     the student's samples: its runner stopped, the
 *                          canaries judged, the write-back of its outputs
 *                          taken off, its statistics (a baseline's lab_time
 *                          calls it first; lab_measure_rates calls it too)
 *   lab_measure_rates      every row's rate, from settled statistics
 *   lab_measure_disturbed  why the student's times cannot be trusted, or ""
 */
#ifndef LAB_MEASURE_H
#define LAB_MEASURE_H

#include "lab.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One call of the kernel under test, on input set `set`. */
typedef void (*lab_call_fn)(void *ctx, int set);
/* Run for each set of a batch once its clock runs, before the calls (e.g.
 * poison the output of that set so a call that skips work is caught); the
 * empty batch runs it too, so its cost is subtracted. May be NULL. */
typedef void (*lab_prepare_fn)(void *ctx, int set);

/* What a batch's check found wrong, counted on the GPU. */
typedef struct {
    unsigned long long wrong;     /* elements outside their bound, NaN included */
    unsigned long long imprecise; /* sets whose samples, taken together, have
                                     more rounding error than the checks allow */
    unsigned long long worst;     /* the largest error of those over its limit,
                                     as the bits of a double (atomicMax orders
                                     non-negative doubles by their bits) */
} lab_batch_bad;

/* Calls are timed in batches (timing.cu; judge/README.md, "The judge"): at
 * the start of a batch, its clock running, refresh gives each input set
 * fresh data from a seed nobody knew (and poisons its outputs); after the
 * calls, check launches ONE kernel that checks the outputs of sets first
 * .. first + count - 1 (samples picked then) and counts in *bad (device
 * memory) what it finds wrong. One small launch, of the same cost for every
 * kernel timed, so that the check weighs the same on all of them. */
typedef void (*lab_refresh_fn)(void *ctx, int set, uint64_t seed);
typedef void (*lab_check_fn)(void *ctx, int first, int count, lab_batch_bad *bad);

/* One kernel to time, with its hooks. */
typedef struct {
    lab_call_fn call;
    lab_prepare_fn prepare;
    lab_refresh_fn refresh;
    lab_check_fn check;
    /* one sentence on what a wrong timed element suggests (NULL: state kept
     * from an earlier call, or a call that returns early) */
    const char *wrong_hint;
    /* the bytes each call writes (its output): the timing takes out of a
     * call's time what writing that much back from L2 costs the flush after
     * it, which events never see (flush.cu; LAB_JUDGE_WRITEBACK=0 leaves it
     * in) */
    size_t writes;
    /* the student's calls, which run where the backend says (backend.h),
     * with errors said to the student */
    int is_student;
} lab_timed;

/* A timed kernel's row of the table. */
typedef struct {
    const char *name;  /* "student", "cublas", "baseline", "copy", ...   */
    const char *label; /* what a person reads in the table               */
    lab_stats st;      /* milliseconds                                    */
    double rate;       /* work / median time, in the family's unit        */
    int last_set;      /* the input set of the last timed call            */
} lab_timing;

/* What settling needs of the GPU: timing.cu's lab_measure_on_gpu, or a unit
 * test's stand-ins. */
typedef struct {
    void (*stop_student)(void);           /* no process of the student alive */
    double (*canary_ms)(void);            /* one canary flush, by events      */
    double (*writeback_ms)(size_t bytes); /* what a flush pays after a call
                                             that wrote that much             */
} lab_measure_gpu;

struct CUevent_st; /* cudaEvent_t's, for a header without CUDA */

typedef struct {
    const lab_measure_gpu *gpu;
    int trace;                /* LAB_JUDGE_TRACE (args.c): where the time goes */
    const lab_timed *kernel;  /* the one lab_time is timing                   */
    struct {                  /* timing.cu's, made on its first lab_time      */
        struct CUevent_st *e0, *e1;
        lab_batch_bad *bad, *scratch;
    } dev;
    /* The student's samples, held until no process of the student is alive:
     * its canaries wait for their reference, measured then, and the
     * write-back of its outputs is measured by events in this process. */
    struct {
        lab_timing *t;        /* the student's row, its statistics not set yet */
        double *samples, *canary; /* malloc'ed; the canaries may be NULL       */
        int n, count;         /* samples, and calls a batch                   */
        size_t writes;        /* the bytes each call wrote                    */
    } held;
    char disturbed[256];      /* "", or why the student's times are untrusted */
} lab_measure;

void lab_measure_begin(lab_measure *m, const lab_args *a, const lab_measure_gpu *gpu);
/* The student's samples (taken over, with the canaries) wait in m; t's
 * statistics stay unset until lab_measure_settle. */
void lab_measure_hold(lab_measure *m, lab_timing *t, double *samples, double *canary, int n, int count,
                      size_t writes);
/* Settle what is held (nothing held: nothing happens). */
void lab_measure_settle(lab_measure *m);
/* After the settle: each row's rate, work * scale[i] (0: 1) over its median
 * time, in work a second / 1e9. */
void lab_measure_rates(lab_measure *m, lab_timing *rows, int nrows, double work, const double *scale);
/* "", or why the student's times cannot be trusted (its canaries ran slow:
 * GPU work of the student between its calls); after the settle. */
const char *lab_measure_disturbed(const lab_measure *m);

#ifdef __cplusplus
}
#endif

#endif /* LAB_MEASURE_H */
