/*
 * baseline.c: a baseline timed by one stage of a grade, handed to the later
 * stages of its family (grader/README.md, "The naive baseline, timed once a
 * grade"): what a record offers, and the words that hand it on.
 */
#include "grader.h"
#include "grading.h"

#include <stdio.h>
#include <string.h>

/* A baseline the record offers to the next stages of its family: timed in
 * this run (not itself handed on), at the record's timing size, in a run
 * that ended well. */
void offer_baseline(stage_result *s, const jvalue *rec, int status)
{
    const char *size = json_string_at(rec, "timing.size");
    const jvalue *kernels = json_path(rec, "timing.kernels");
    if (status != 0 || json_bool_at(rec, "timing.baseline_reusable") != 1 || json_path(rec, "timing.baseline_from") ||
        !size || strlen(size) >= sizeof s->baseline_at || !kernels || kernels->type != J_ARRAY)
        return;
    for (int i = 0; i < kernels->count; i++) {
        const char *name = json_string_at(kernels->items[i], "name");
        double ms, reps;
        if (name && !strcmp(name, "baseline") && json_number_at(kernels->items[i], "median_ms", &ms) == 0 &&
            json_number_at(kernels->items[i], "reps", &reps) == 0 && reps > 0 && ms > 0) {
            s->baseline_ms = ms;
            snprintf(s->baseline_at, sizeof s->baseline_at, "%s", size);
        }
    }
}

/* The last stage before this one, of the same family, whose record offered
 * its baseline (measured there, not itself reused). The time is the
 * judge's (or the events') in this grade, seconds earlier, on this GPU;
 * the driver uses it only at the same size. */
const extra_args *reuse_baseline(extra_args *x, const stage_result *earlier, int n, const target *t,
                                 const target *this_one)
{
    for (int i = n - 1; i >= 0; i--) {
        if (strcmp(t[i].family, this_one->family) || !(earlier[i].baseline_ms > 0))
            continue;
        snprintf(x->ms, sizeof x->ms, "%.9g", earlier[i].baseline_ms);
        snprintf(x->at, sizeof x->at, "%s", earlier[i].baseline_at);
        x->argv[0] = "--baseline-ms";
        x->argv[1] = x->ms;
        x->argv[2] = "--baseline-at";
        x->argv[3] = x->at;
        x->argv[4] = NULL;
        return x;
    }
    return NULL;
}
