/* test_measure.c: the student's samples are settled before any rate is
 * computed, whichever kernel is timed last (measure.c). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "measure.h"
#include "unit.h"

/* Stand-ins for the GPU's side: a flush costs 0.5 ms more after a call
 * that wrote anything; a canary flush 1 ms with no process of the student
 * alive; what was called, in order. */
static char calls[16];
static int ncalls;
static void stop_student(void) { calls[ncalls++] = 's'; }
static double canary_ms(void) { calls[ncalls++] = 'c'; return 1.0; }
static double writeback_ms(size_t bytes) { calls[ncalls++] = 'w'; return bytes ? 0.5 : 0.0; }
static const lab_measure_gpu fake = {stop_student, canary_ms, writeback_ms};

static double *samples_of(double v, int n)
{
    double *ms = (double *)malloc(sizeof(double) * (size_t)n);
    for (int i = 0; i < n; i++)
        ms[i] = v;
    return ms;
}

/* A baseline's row, as lab_time leaves it: its statistics set. */
static void baseline_row(lab_timing *t, double ms)
{
    double s[3] = {ms, ms, ms};
    lab_stats_compute(s, 3, &t->st);
}

void test_measure(void)
{
    lab_args a;
    memset(&a, 0, sizeof a);
    lab_measure m;
    lab_timing rows[2];
    memset(rows, 0, sizeof rows);
    rows[0].label = "your kernel";
    rows[1].label = "cuBLAS";
    const double work = 2e9, scale[2] = {0, 0};

    /* the student timed LAST: 3 ms a call by the clock, batches of 4
     * calls, 3 of which have a flush after them that writes back 0.5 ms:
     * 3 - 0.375 = 2.625 ms a call once settled */
    ncalls = 0;
    lab_measure_begin(&m, &a, &fake);
    baseline_row(&rows[1], 2.0);
    lab_measure_hold(&m, &rows[0], samples_of(3.0, 10), samples_of(1.05, 10), 10, 4, 4096);
    CHECK(rows[0].st.median == 0); /* not settled: no statistics to make a rate of */
    lab_measure_rates(&m, rows, 2, work, scale);
    CHECK(fabs(rows[0].st.median - 2.625) < 1e-12);
    CHECK(fabs(rows[0].rate - work / 2.625e-3 / 1e9) < 1e-9);
    CHECK(fabs(rows[1].rate - work / 2.0e-3 / 1e9) < 1e-9);
    /* the runner stopped before the canaries' reference and the write-back */
    CHECK(ncalls >= 3 && calls[0] == 's' && calls[1] == 'c' && calls[ncalls - 1] == 'w');
    CHECK(lab_measure_disturbed(&m)[0] == 0); /* 1.05 against 1: honest */
    CHECK(m.held.t == NULL);

    /* the student FIRST: a baseline's lab_time settles at its start, and
     * the rates come out the same; a second settle changes nothing */
    ncalls = 0;
    memset(rows, 0, sizeof rows);
    lab_measure_begin(&m, &a, &fake);
    lab_measure_hold(&m, &rows[0], samples_of(3.0, 10), NULL, 10, 4, 4096);
    lab_measure_settle(&m);
    baseline_row(&rows[1], 2.0);
    lab_measure_rates(&m, rows, 2, work, scale);
    CHECK(fabs(rows[0].rate - work / 2.625e-3 / 1e9) < 1e-9);
    CHECK(ncalls == 2 && calls[0] == 's' && calls[1] == 'w'); /* no canaries: no reference */

    /* canaries at twice their reference: the student's times are flagged */
    memset(rows, 0, sizeof rows);
    rows[0].label = "your kernel (a test: this warning is expected)";
    lab_measure_begin(&m, &a, &fake);
    lab_measure_hold(&m, &rows[0], samples_of(3.0, 8), samples_of(2.0, 8), 8, 4, 0);
    lab_measure_settle(&m);
    CHECK(strstr(lab_measure_disturbed(&m), "ran slower while your code was idle") != NULL);
    CHECK(rows[0].st.median == 3.0); /* wrote nothing: nothing taken off */
}
