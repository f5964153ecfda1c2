/*
 * measure.c: the part of a measurement that needs no GPU (measure.h): the
 * student's samples held, then settled, and the rates. Unit-tested
 * (tests/unit/test_measure.c) with stand-ins for the GPU's side.
 */
#include "measure.h"

#include <stdlib.h>
#include <string.h>

void lab_measure_begin(lab_measure *m, const lab_args *a, const lab_measure_gpu *gpu)
{
    memset(m, 0, sizeof *m);
    m->gpu = gpu;
    m->trace = a->judge_trace;
}

void lab_measure_hold(lab_measure *m, lab_timing *t, double *samples, double *canary, int n, int count,
                      size_t writes)
{
    lab_measure_settle(m); /* an earlier student's, were there one */
    memset(&t->st, 0, sizeof t->st);
    m->held.t = t;
    m->held.samples = samples;
    m->held.canary = canary;
    m->held.n = n;
    m->held.count = count;
    m->held.writes = writes;
}

/* The canaries against their reference: a median over 1.25 times, or more
 * than a quarter over 1.5 times, flags the student's times (the record says
 * so, and the grader scores no speed points). What honest runs give, and so
 * why these bounds: judge/README.md, "The judge". */
static void canary_verdict(lab_measure *m, double reference)
{
    const double *canary = m->held.canary;
    const int n = m->held.n;
    const char *label = m->held.t->label;
    if (n <= 0 || reference <= 0)
        return;
    int slow = 0;
    for (int i = 0; i < n; i++)
        slow += canary[i] > 1.5 * reference;
    lab_stats cs;
    lab_stats_compute(canary, n, &cs);
    if (m->trace)
        fprintf(stderr, "judge trace: %s: canary flushes %.4f ms with no process of yours, %.4f ms between your "
                        "batches (median), %d of %d over 1.5 times\n",
                label, reference, cs.median, slow, n);
    if (cs.median > 1.25 * reference || slow * 4 > n) {
        snprintf(m->disturbed, sizeof m->disturbed,
                 "the judge's own GPU work ran slower while your code was idle between its calls (%.4f "
                 "against %.4f ms; %d of %d checks over 1.5 times): does it run GPU work outside its calls?",
                 cs.median, reference, slow, n);
        fprintf(stderr, "warning: %s: %s\n", label, m->disturbed);
    }
}

void lab_measure_settle(lab_measure *m)
{
    lab_timing *t = m->held.t;
    if (!t)
        return;
    m->gpu->stop_student();
    if (m->held.canary) {
        double c[5];
        for (int i = 0; i < 5; i++)
            c[i] = m->gpu->canary_ms();
        lab_stats cs;
        lab_stats_compute(c, 5, &cs);
        canary_verdict(m, cs.median);
    }
    /* every call of a batch but the last had a flush after it */
    const int count = m->held.count > 0 ? m->held.count : 1;
    const double wb = m->gpu->writeback_ms(m->held.writes) * (count - 1) / count;
    double *ms = m->held.samples;
    for (int i = 0; i < m->held.n; i++)
        ms[i] = ms[i] > wb ? ms[i] - wb : 0;
    lab_stats_compute(ms, m->held.n > 0 ? m->held.n : 1, &t->st);
    if (m->trace && wb > 0)
        fprintf(stderr, "judge trace: %s: writing back %.4f ms a call taken off afterwards: %.4f ms a call\n",
                t->label, wb, t->st.median);
    free(m->held.samples);
    free(m->held.canary);
    memset(&m->held, 0, sizeof m->held);
}

void lab_measure_rates(lab_measure *m, lab_timing *rows, int nrows, double work, const double *scale)
{
    lab_measure_settle(m);
    for (int i = 0; i < nrows; i++)
        rows[i].rate = work * (scale && scale[i] > 0 ? scale[i] : 1.0) / (rows[i].st.median * 1e-3) / 1e9;
}

const char *lab_measure_disturbed(const lab_measure *m)
{
    return m->disturbed;
}
