/* test_stats.c: timing summaries and the stopping rule. */
#include <math.h>

#include "lab.h"
#include "unit.h"

void test_stats(void)
{
    lab_stats s;
    double odd[] = {5, 1, 3};
    lab_stats_compute(odd, 3, &s);
    CHECK(s.median == 3 && s.min == 1 && s.max == 5 && s.mean == 3 && s.reps == 3);
    CHECK(s.p25 == 2 && s.p75 == 4);

    double even[] = {4, 1, 3, 2};
    lab_stats_compute(even, 4, &s);
    CHECK(s.median == 2.5);

    double flat[] = {2, 2, 2, 2, 2};
    lab_stats_compute(flat, 5, &s);
    CHECK(s.rse == 0);

    double one[] = {7};
    lab_stats_compute(one, 1, &s);
    CHECK(s.median == 7 && s.rse == 1.0);

    /* 1, 2, 3: interquartile range 1 (1.5 to 2.5), median 2: the median's
     * rse = 1.2533 (1 / 1.349) / sqrt(3) / 2 */
    double three[] = {1, 2, 3};
    lab_stats_compute(three, 3, &s);
    CHECK(fabs(s.rse - 1.2533 / 1.349 / sqrt(3.0) / 2.0) < 1e-12);

    /* a stalled sample moves the mean's error, not the median's */
    double stalled[] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 100};
    lab_stats_compute(stalled, 10, &s);
    CHECK(s.rse == 0 && s.median == 1 && s.mean > 10);

    lab_timing_policy p = {.min_trials = 3, .max_trials = 6, .target_rse = 0.01, .budget_ms = 1000.0};
    CHECK(!lab_timing_done(flat, 2, &p));           /* fewer than min_trials     */
    CHECK(lab_timing_done(flat, 3, &p));            /* steady: rse 0            */
    double noisy[] = {1, 9, 1, 9, 1, 9};
    CHECK(!lab_timing_done(noisy, 4, &p));          /* noisy, under budget      */
    CHECK(lab_timing_done(noisy, 6, &p));           /* max_trials reached       */
    p.max_trials = 20;
    CHECK(lab_timing_done(stalled, 10, &p));        /* one stall: the median is known */
    double slow[] = {600, 300, 900};
    p.budget_ms = 1500;
    CHECK(lab_timing_done(slow, 3, &p));            /* 1800 ms spent > budget   */
}
