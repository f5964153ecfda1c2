/*
 * calibrate.c: make calibrate. Runs each solution a few times and writes
 * this GPU's thresholds into the rubric: the least favourable value times
 * the tier's margin, beside the previous stage's solution on the same field.
 */
#include "grader.h"
#include "grading.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* A tier must keep this far (as a fraction) from the solutions on both
 * sides: the stage's own clears it, the previous stage's misses it. */
#define MIN_MARGIN 0.05


typedef struct {
    int ok;
    double worst[MAX_TIERS]; /* the least favourable of the runs, per tier */
    double best[MAX_TIERS];
    int have[MAX_TIERS];
    /* the fields of the next stage's tiers (in the family) that are not
     * this stage's own: their highest and lowest values over the runs */
    const char *next_field[MAX_TIERS];
    double next_max[MAX_TIERS], next_min[MAX_TIERS];
    int next_have[MAX_TIERS], nnext;
} measured;

/* The next stage's tier fields that stage i's own tiers do not read. */
static void next_fields(measured *m, const target *t, int n, int i, const rubric *rb)
{
    const stage_rubric *sr = rubric_stage(rb, t[i].stage), *nr = NULL;
    for (int j = i + 1; j < n && !nr; j++)
        if (!strcmp(t[j].family, t[i].family))
            nr = rubric_stage(rb, t[j].stage);
    for (int q = 0; nr && q < nr->ntiers && m->nnext < MAX_TIERS; q++) {
        int own = 0;
        for (int k = 0; sr && k < sr->ntiers; k++)
            own |= !strcmp(sr->tiers[k].field, nr->tiers[q].field);
        for (int k = 0; k < m->nnext; k++)
            own |= !strcmp(m->next_field[k], nr->tiers[q].field);
        if (!own)
            m->next_field[m->nnext++] = nr->tiers[q].field;
    }
}

int calibrate(const options *o, target *t, int n, const rubric *rb, const policy *pol,
                     const char *log)
{
    measured m[MAX_STAGES];
    memset(m, 0, sizeof m);
    char gpu[NAME_LEN] = "";
    int failures = 0;
    for (int i = 0; i < n; i++) {
        const stage_rubric *sr = rubric_stage(rb, t[i].stage);
        printf("[%d/%d] %s (solution%s):", i + 1, n, t[i].stage,
               t[i].compare_only ? ", for comparison with the next stage" : "");
        fflush(stdout);
        if (!target_built(&t[i])) {
            char first[REASON_LEN], lines[4096];
            build_errors(log, t[i].stage, first, sizeof first, lines, sizeof lines);
            printf(" did not build: %s\n", first);
            failures++;
            continue;
        }
        char msg[REASON_LEN];
        if (t[i].object[0] && policy_check(pol, t[i].object, t[i].header[0] ? t[i].header : NULL, msg, sizeof msg))
            printf("\n    warning: the policy refuses the solution itself: %s\n   ", msg);
        if (t[i].object[0] && library_check(&t[i], msg, sizeof msg))
            printf("\n    warning: the header check refuses the solution itself: kernel.cu %s\n   ", msg);
        m[i].ok = 1;
        next_fields(&m[i], t, n, i, rb);
        for (int run = 0; run < o->runs && m[i].ok; run++) {
            static command_line line;
            run_args(&line, &t[i], rb, sr, o->conf, o->seed + (unsigned long long)run);
            run_result r;
            run_program_progress(line.argv, RUN_RECORD_FD, RUN_PROGRESS_FD,
                                 sr && sr->limit_s > 0 ? sr->limit_s : rb->limit_s, OUTPUT_TAIL, &r);
            char why[REASON_LEN];
            jvalue *rec = record_validate(&r, t[i].stage, why, sizeof why);
            if (rec && r.status != 0)
                snprintf(why, sizeof why, "%s", json_string_at(rec, "message") ? json_string_at(rec, "message") : "failed");
            if (!rec || r.status != 0 || json_bool_at(rec, "timing.plausible") == 0) {
                printf(" FAILED: %s\n", why[0] ? why : "implausibly fast");
                m[i].ok = 0;
                failures++;
            }
            for (int k = 0; m[i].ok && sr && k < sr->ntiers; k++) {
                double v;
                if (json_number_at(rec, sr->tiers[k].field, &v)) {
                    printf("\n    error: the record has no number %s (tier %s)", sr->tiers[k].field,
                           sr->tiers[k].name);
                    continue;
                }
                int lower_better = sr->tiers[k].at_most;
                if (!m[i].have[k]) {
                    m[i].worst[k] = m[i].best[k] = v;
                    m[i].have[k] = 1;
                } else {
                    double w = m[i].worst[k], b = m[i].best[k];
                    m[i].worst[k] = lower_better ? (v > w ? v : w) : (v < w ? v : w);
                    m[i].best[k] = lower_better ? (v < b ? v : b) : (v > b ? v : b);
                }
            }
            for (int k = 0; m[i].ok && k < m[i].nnext; k++) {
                double v;
                if (json_number_at(rec, m[i].next_field[k], &v))
                    continue;
                m[i].next_max[k] = m[i].next_have[k] && m[i].next_max[k] > v ? m[i].next_max[k] : v;
                m[i].next_min[k] = m[i].next_have[k] && m[i].next_min[k] < v ? m[i].next_min[k] : v;
                m[i].next_have[k] = 1;
            }
            if (rec && !gpu[0] && json_string_at(rec, "gpu.name"))
                snprintf(gpu, sizeof gpu, "%s", json_string_at(rec, "gpu.name"));
            if (m[i].ok)
                printf(" run %d ok", run + 1);
            fflush(stdout);
            json_free(rec);
            run_result_free(&r);
        }
        if (m[i].ok)
            printf("\n");
    }
    if (!gpu[0]) {
        printf("no solution produced a record: nothing to calibrate\n");
        return GRADE_FAILED;
    }

    /* thresholds: the solution's least favourable value times the margin */
    static new_threshold th[MAX_STAGES * MAX_TIERS];
    int nth = 0, warnings = 0;
    printf("\nthresholds for %s (margins from %s):\n", gpu, rb->path);
    printf("  %-22s %-8s %-30s %10s %10s %8s  %s\n", "stage", "tier", "field", "solution", "threshold",
           "clears", "previous stage's solution (fails the tier by)");
    for (int i = 0; i < n; i++) {
        const stage_rubric *sr = rubric_stage(rb, t[i].stage);
        if (!m[i].ok || !sr || t[i].compare_only)
            continue;
        /* the previous stage of the same family tells whether a threshold
         * separates this stage's technique from the one before */
        int prev = -1;
        for (int k = i - 1; k >= 0 && prev < 0; k--)
            if (!strcmp(t[k].family, t[i].family))
                prev = k;
        for (int k = 0; k < sr->ntiers; k++) {
            const tier *tr = &sr->tiers[k];
            double margin = rubric_margin(rb, t[i].stage, tr->name);
            if (!m[i].have[k] || margin <= 0) {
                printf("  %-22s %-8s %-30s %10s %10s  (no margin for tier %s: left as it is)\n", t[i].stage,
                       tr->name, tr->field, "-", "-", tr->name);
                continue;
            }
            double value = tr->at_most ? m[i].worst[k] / margin : m[i].worst[k] * margin;
            char prev_text[160] = "-";
            if (prev >= 0 && m[prev].ok) {
                const stage_rubric *pr = rubric_stage(rb, t[prev].stage);
                /* the previous stage's best value of the same field */
                double pv = 0;
                int have = 0;
                for (int q = 0; pr && q < pr->ntiers; q++)
                    if (!strcmp(pr->tiers[q].field, tr->field) && m[prev].have[q]) {
                        pv = m[prev].best[q];
                        have = 1;
                    }
                /* or a field of its record that only this stage's tiers read */
                for (int q = 0; !have && q < m[prev].nnext; q++)
                    if (!strcmp(m[prev].next_field[q], tr->field) && m[prev].next_have[q]) {
                        pv = tr->at_most ? m[prev].next_min[q] : m[prev].next_max[q];
                        have = 1;
                    }
                if (have) {
                    int passes = tr->at_most ? pv <= value : pv >= value;
                    /* how far below the threshold it stays, as a fraction */
                    double fails_by = pv > 0 && value > 0 ? (tr->at_most ? pv / value : value / pv) - 1 : 0;
                    if (passes)
                        snprintf(prev_text, sizeof prev_text, "%s %.3g  WARNING: would pass too", t[prev].stage, pv);
                    else
                        snprintf(prev_text, sizeof prev_text, "%s %.3g (%.0f%%)%s", t[prev].stage, pv,
                                 100 * fails_by, fails_by < MIN_MARGIN ? "  WARNING: closer than 5%" : "");
                    if (passes || fails_by < MIN_MARGIN)
                        warnings++;
                } else {
                    snprintf(prev_text, sizeof prev_text, "%s: not measured on this field", t[prev].stage);
                }
            }
            /* how far the solution's least favourable run clears it */
            double clears = value > 0 && m[i].worst[k] > 0
                                ? (tr->at_most ? value / m[i].worst[k] : m[i].worst[k] / value) - 1 : 0;
            char clears_text[32];
            snprintf(clears_text, sizeof clears_text, "%.0f%%%s", 100 * clears, clears < MIN_MARGIN ? "!" : "");
            if (clears < MIN_MARGIN)
                warnings++;
            printf("  %-22s %-8s %-30s %10.3g %10.3g %8s  %s\n", t[i].stage, tr->name, tr->field, m[i].worst[k],
                   value, clears_text, prev_text);
            snprintf(th[nth].stage, sizeof th[nth].stage, "%s", t[i].stage);
            snprintf(th[nth].tier, sizeof th[nth].tier, "%s", tr->name);
            th[nth].value = value;
            nth++;
        }
    }
    if (warnings)
        printf("\nwarning: %d threshold(s) are within 5%% of a solution: the stage's own (clears, marked !)"
               " or the previous stage's, which would pass too or nearly (the threshold does not tell the"
               " stages apart). Move them by hand in %s, choose another field, or make the solutions"
               " differ more.\n", warnings, rb->path);
    /* this GPU's rows for stages not measured now stay as they were, in
     * the new block, which replaces every earlier row for this GPU */
    int kept = 0;
    for (int i = 0; i < rb->nstages; i++)
        for (int k = 0; k < rb->stages[i].ntiers; k++) {
            const tier *tr = &rb->stages[i].tiers[k];
            double v;
            int is_default, done = 0;
            for (int q = 0; q < nth && !done; q++)
                done = !strcmp(th[q].stage, rb->stages[i].stage) && !strcmp(th[q].tier, tr->name);
            if (done || rubric_threshold(tr, gpu, &v, &is_default) || is_default ||
                nth == MAX_STAGES * MAX_TIERS)
                continue;
            snprintf(th[nth].stage, sizeof th[nth].stage, "%s", rb->stages[i].stage);
            snprintf(th[nth].tier, sizeof th[nth].tier, "%s", tr->name);
            th[nth++].value = v;
            kept++;
        }
    time_t now = time(NULL);
    char date[32], comment[256], err[512];
    strftime(date, sizeof date, "%Y-%m-%d", gmtime(&now));
    snprintf(comment, sizeof comment, "make calibrate on %s, least favourable of %d runs of each solution "
                                      "times the tier's margin%s", date, o->runs,
             kept ? " (rows of stages not measured this time kept as they were)" : "");
    if (nth && rubric_write_thresholds(rb->path, gpu, th, nth, comment, err, sizeof err)) {
        fprintf(stderr, "grade: %s\n", err);
        return GRADE_FAILED;
    }
    printf("\nwrote %d thresholds for %s into %s%s\n", nth - kept, gpu, rb->path,
           kept ? " (and kept this GPU's rows of stages not measured now)" : "");
    return failures ? GRADE_FAILED : GRADE_OK;
}

