/*
 * stats.c: summaries of repeated timings, and when to stop repeating.
 */
#include "lab.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The q-quantile of sorted values, interpolating between neighbours. */
static double quantile(const double *sorted, int n, double q)
{
    double pos = q * (n - 1);
    int lo = (int)pos;
    int hi = lo + 1 < n ? lo + 1 : lo;
    return sorted[lo] + (pos - lo) * (sorted[hi] - sorted[lo]);
}

void lab_stats_compute(const double *ms, int n, lab_stats *out)
{
    double *s = malloc(sizeof *s * (size_t)n);
    memcpy(s, ms, sizeof *s * (size_t)n);
    qsort(s, (size_t)n, sizeof *s, cmp_double);
    double sum = 0;
    for (int i = 0; i < n; i++)
        sum += s[i];
    double mean = sum / n;
    out->reps = n;
    out->median = quantile(s, n, 0.5);
    out->p25 = quantile(s, n, 0.25);
    out->p75 = quantile(s, n, 0.75);
    out->min = s[0];
    out->max = s[n - 1];
    out->mean = mean;
    /* The median is the figure, so its standard error: about 1.2533 sigma /
     * sqrt(n) for normal samples, sigma estimated from the interquartile
     * range (IQR / 1.349), which a few stalled batches do not move as they
     * move the standard deviation (MEASUREMENTS.md, "the median's error").
     * With one sample nothing is known about the spread: 100%. */
    out->rse = n > 1 && out->median > 0
                   ? 1.2533 * ((out->p75 - out->p25) / 1.349) / sqrt((double)n) / out->median
                   : 1.0;
    free(s);
}

int lab_timing_done(const double *ms, int n, const lab_timing_policy *p)
{
    if (n < p->min_trials)
        return 0;
    if (n >= p->max_trials)
        return 1;
    double spent = 0;
    for (int i = 0; i < n; i++)
        spent += ms[i];
    if (spent >= p->budget_ms)
        return 1;
    lab_stats st;
    lab_stats_compute(ms, n, &st);
    return st.rse <= p->target_rse;
}
