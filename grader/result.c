/*
 * result.c: a stage's result as the grader fills it in (grader.h,
 * stage_result): begun from the rubric, failed with a reason, advice added
 * for the student, freed. Below score.c and wrong.c: score.c calls
 * wrong.c's explain_wrong, both fill results through this file, and
 * wrong.c calls nothing of score.c (no circle).
 */
#include "grader.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

void grader_score_add_advice(stage_result *s, const char *fmt, ...)
{
    if (s->nadvice == MAX_ADVICE)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(s->advice[s->nadvice++], REASON_LEN, fmt, ap);
    va_end(ap);
}

void grader_score_begin(stage_result *s, const char *stage, const stage_rubric *sr, const rubric *r)
{
    memset(s, 0, sizeof *s);
    snprintf(s->stage, sizeof s->stage, "%s", stage);
    s->correct_max = sr ? sr->correct_points : r->correct_points;
    s->max = s->correct_max;
    s->bonus = sr && sr->bonus;
    s->barriers = sr && sr->barriers;
    if (!sr) {
        snprintf(s->note, sizeof s->note,
                 "the rubric has no entry for %s: graded on correctness only", stage);
        return;
    }
    for (int i = 0; i < sr->ntiers; i++) {
        tier_result *t = &s->tiers[s->ntiers++];
        snprintf(t->name, sizeof t->name, "%s", sr->tiers[i].name);
        snprintf(t->field, sizeof t->field, "%s", sr->tiers[i].field);
        snprintf(t->unit, sizeof t->unit, "%s", sr->tiers[i].unit);
        t->max = sr->tiers[i].points;
        t->at_most = sr->tiers[i].at_most;
        s->max += t->max;
    }
}

void grader_score_fail(stage_result *s, const char *reason, const char *advice)
{
    snprintf(s->reason, sizeof s->reason, "%s", reason);
    s->correct = 0;
    s->correct_points = 0;
    s->points = 0;
    for (int i = 0; i < s->ntiers; i++)
        s->tiers[i].points = 0;
    if (advice && *advice)
        grader_score_add_advice(s, "%s", advice);
}

void grader_stage_result_free(stage_result *s)
{
    free(s->output);
    s->output = NULL;
}
