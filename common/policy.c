/*
 * policy.c: the one timing policy (lab.h, lab_timing_policy): every
 * setting of how a kernel is timed, its defaults here and nowhere else,
 * filled by lab_policy_fill alone, written whole into each record
 * (timing_policy) and printed by --print-policy. Which setting wins:
 * common/README.md, "The timing policy".
 */
#include <stddef.h>

#include "lab.h"

/* The defaults: what make run times with. */
static const lab_timing_policy DEFAULTS = {
    .min_trials = 10,
    .max_trials = 200,
    .target_rse = 0.01,
    .budget_ms = 1000.0,
    .warm_up_again_below_ms = 100.0,
    .max_batch = LAB_MAX_BATCH,
    .max_calls = 2400,
    .long_call_ms = 5.0,
    .batch_ms = 20.0,
    .slow_call_ms = 100.0,
    .slow_trials = 3,
    .slower_call_ms = 250.0,
    .slower_trials = 2,
    .l2_flush_l2s = 2,
    .l2_flush_min_mib = 32,
};

void lab_policy_fill(lab_timing_policy *p, const lab_args *a)
{
    /* 1. the defaults */
    *p = DEFAULTS;
    /* 2. the rubric's (grader/rubric.tsv: setting args), 3. the stage's
     * line's (stages.tsv: points ... EXTRA ARGS) and 4. the command line's
     * own: a graded run's first arguments are the rubric's, then the stage
     * line's (grader/stage.c, run_args), then the run's; lab_parse_args
     * reads them in that order, so the last given wins */
    if (a->have_budget)
        p->budget_ms = a->budget_ms;
    /* LAB_JUDGE_RSE, an experiment (args.c): stop at that relative standard
     * error instead. A sample is the difference of two batches, noisier
     * than one event-timed call (MEASUREMENTS.md) */
    if (a->judge_rse > 0)
        p->target_rse = a->judge_rse;
}

/* Every field, by name, for the record and --print-policy. */
static const struct {
    const char *name;
    size_t at;
    int is_int;
} FIELDS[] = {
#define LAB_FIELD(f, i) {#f, offsetof(lab_timing_policy, f), i}
    LAB_FIELD(warm_up_again_below_ms, 0), LAB_FIELD(min_trials, 1), LAB_FIELD(max_trials, 1),
    LAB_FIELD(target_rse, 0),     LAB_FIELD(budget_ms, 0),
    LAB_FIELD(max_batch, 1),      LAB_FIELD(max_calls, 1),      LAB_FIELD(long_call_ms, 0),
    LAB_FIELD(batch_ms, 0),       LAB_FIELD(slow_call_ms, 0),   LAB_FIELD(slow_trials, 1),
    LAB_FIELD(slower_call_ms, 0), LAB_FIELD(slower_trials, 1),  LAB_FIELD(l2_flush_l2s, 1),
    LAB_FIELD(l2_flush_min_mib, 1),
#undef LAB_FIELD
};
enum { NFIELDS = sizeof FIELDS / sizeof FIELDS[0] };

static double field(const lab_timing_policy *p, int i)
{
    const char *at = (const char *)p + FIELDS[i].at;
    return FIELDS[i].is_int ? *(const int *)at : *(const double *)at;
}

void lab_policy_json(lab_json *j, const lab_timing_policy *p)
{
    lab_json_object(j, "timing_policy");
    for (int i = 0; i < NFIELDS; i++)
        lab_json_number(j, FIELDS[i].name, field(p, i));
    lab_json_end(j);
}

void lab_policy_print(FILE *out, const lab_timing_policy *p)
{
    for (int i = 0; i < NFIELDS; i++)
        fprintf(out, "%s %g\n", FIELDS[i].name, field(p, i));
}
