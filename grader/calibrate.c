/*
 * calibrate.c: make calibrate. Each speed tier is earned by the technique
 * its advice names, so each tier's threshold comes from its own reference
 * kernel (a reference line of stages.tsv: the plain form of that advice),
 * not from the stage's solution: the reference's least favourable value over a few
 * runs times the tier's margin. The stages' solutions run too. Beside each
 * threshold the table shows how far the reference clears it, how far the
 * tier before it (the stage's previous tier, or the previous stage's last)
 * and the previous stage's solution miss it, and how far the stage's own
 * solution clears it; the thresholds go into the rubric for this GPU.
 */
#include "grader.h"
#include "grading.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* A threshold must keep this far (as a fraction) from the kernels on both
 * sides: its reference and the solution clear it, the tier before misses it. */
#define MIN_MARGIN 0.05
#define MAX_FIELDS 16

/* The record fields the rubric's tiers read: measured for every program. */
static const char *fields[MAX_FIELDS];
static int nfields;

typedef struct {
    int ok;
    double lo[MAX_FIELDS], hi[MAX_FIELDS]; /* over the runs */
    int have[MAX_FIELDS];
} measured;

static int field_index(const char *field)
{
    for (int f = 0; f < nfields; f++)
        if (!strcmp(fields[f], field))
            return f;
    return -1;
}

static void collect_fields(const rubric *rb)
{
    nfields = 0;
    for (int i = 0; i < rb->nstages; i++)
        for (int k = 0; k < rb->stages[i].ntiers; k++)
            if (field_index(rb->stages[i].tiers[k].field) < 0 && nfields < MAX_FIELDS)
                fields[nfields++] = rb->stages[i].tiers[k].field;
}

/* The program of a stage (tier "") or of a tier's reference: its index, or -1. */
static int find(const target *t, int n, const char *stage, const char *tier)
{
    for (int i = 0; i < n; i++)
        if (!strcmp(t[i].stage, stage) && !strcmp(t[i].tier, tier))
            return i;
    return -1;
}

int grader_calibration_targets(target *t, int n, int max, const tier_reference *refs, int nrefs, const rubric *rb,
                        const char *lab, int judge)
{
    int total = n;
    for (int i = 0; i < n; i++) {
        const stage_rubric *sr = grader_rubric_stage(rb, t[i].stage);
        /* a stage calibrated: all its tiers; one compared with: its last */
        for (int k = sr ? (t[i].compare_only ? sr->ntiers - 1 : 0) : 0; sr && k < sr->ntiers; k++) {
            const tier_reference *ref = grader_reference_find(refs, nrefs, t[i].stage, sr->tiers[k].name);
            if (!ref)
                continue;
            if (total == max)
                return -1;
            t[total] = t[i];
            grader_reference_target(&t[total], lab, ref, judge);
            total++;
        }
    }
    return total;
}

/* Run a program o->runs times; its values of every field into m, and the
 * GPU's name into gpu when it is not known yet. A run that the judge saw
 * disturbed is not counted and runs again (twice at most in all). */
static void measure(const options *o, const target *t, const rubric *rb, measured *m, char *gpu, size_t gpulen)
{
    const stage_rubric *sr = grader_rubric_stage(rb, t->stage);
    m->ok = 1;
    int counted = 0, again = 0;
    for (int run = 0; counted < o->runs && m->ok; run++) {
        static command_line line;
        grader_run_args(&line, t, rb, sr, o->conf, o->seed + (unsigned long long)run);
        run_result r;
        grader_run_program_progress(line.argv, RUN_RECORD_FD, RUN_PROGRESS_FD,
                             sr && sr->limit_s > 0 ? sr->limit_s : rb->limit_s, OUTPUT_TAIL, &r);
        char why[REASON_LEN];
        jvalue *rec = grader_record_validate(&r, t->stage, why, sizeof why);
        const char *disturbed = rec ? lab_json_string_at(rec, "timing.disturbed") : NULL;
        if (rec && r.status != 0)
            snprintf(why, sizeof why, "%s", lab_json_string_at(rec, "message") ? lab_json_string_at(rec, "message") : "failed");
        if (rec && r.status == 0 && disturbed && again < 2) {
            printf(" run %d disturbed, again", run + 1);
            again++;
        } else if (!rec || r.status != 0 || lab_json_bool_at(rec, "timing.plausible") == 0 || disturbed) {
            printf(" FAILED: %s\n", why[0] ? why : disturbed ? disturbed : "implausibly fast");
            m->ok = 0;
        } else {
            for (int f = 0; f < nfields; f++) {
                double v;
                if (lab_json_number_at(rec, fields[f], &v))
                    continue;
                m->lo[f] = m->have[f] && m->lo[f] < v ? m->lo[f] : v;
                m->hi[f] = m->have[f] && m->hi[f] > v ? m->hi[f] : v;
                m->have[f] = 1;
            }
            for (int k = 0; sr && k < sr->ntiers; k++)
                if (field_index(sr->tiers[k].field) < 0 || !m->have[field_index(sr->tiers[k].field)])
                    printf("\n    error: the record has no number %s (tier %s)", sr->tiers[k].field,
                           sr->tiers[k].name);
            printf(" run %d ok", run + 1);
            counted++;
        }
        if (rec && !gpu[0] && lab_json_string_at(rec, "gpu.name"))
            snprintf(gpu, gpulen, "%s", lab_json_string_at(rec, "gpu.name"));
        fflush(stdout);
        lab_json_free(rec);
        grader_run_result_free(&r);
    }
    if (m->ok)
        printf("\n");
}

/* ============================================================ the table */

/* How far a value lies on the right side of a threshold, as a fraction:
 * above it for a >= tier, below it for a <= tier; negative on the wrong side. */
static double clearance(double value, double threshold, int at_most)
{
    if (value <= 0 || threshold <= 0)
        return 0;
    return at_most ? threshold / value - 1 : value / threshold - 1;
}

/* One column of the table for a program that must clear the threshold
 * (must_pass) or miss it: "name value (by%)", with a mark where the
 * margin is under MIN_MARGIN. Returns 1 when it warns. */
static int margin_text(char *out, size_t len, const char *name, const measured *m, int f, double threshold,
                       int at_most, int must_pass)
{
    if (!m || !m->ok || f < 0 || !m->have[f]) {
        snprintf(out, len, "%s%s", name[0] ? name : "", name[0] ? ": not measured" : "-");
        return 0;
    }
    /* the side that is least favourable to the verdict */
    double v = must_pass == !at_most ? m->lo[f] : m->hi[f];
    double c = clearance(v, threshold, at_most);
    double by = must_pass ? c : -c / (1 + c);
    if (by < 0) {
        snprintf(out, len, "%s%s%.3g %s", name, name[0] ? " " : "", v, must_pass ? "FAILS IT" : "WOULD PASS");
        return 1;
    }
    snprintf(out, len, "%s%s%.3g (%.0f%%)%s", name, name[0] ? " " : "", v, 100 * by, by < MIN_MARGIN ? "!" : "");
    return by < MIN_MARGIN;
}

/* The threshold of one tier, with its row of the table; 0 when none. */
static int tier_threshold(const target *t, int n, const measured *m, const rubric *rb, int s, int k,
                          new_threshold *th, int *warnings)
{
    const stage_rubric *sr = grader_rubric_stage(rb, t[s].stage);
    const tier *tr = &sr->tiers[k];
    int f = field_index(tr->field);
    const char *shown = !strncmp(tr->field, "timing.", 7) ? tr->field + 7 : tr->field;
    /* its reference kernel, or the solution when the tier has none */
    int ref = find(t, n, t[s].stage, tr->name);
    int from = ref >= 0 ? ref : s;
    double margin = grader_rubric_margin(rb, t[s].stage, tr->name);
    if (!m[from].ok || f < 0 || !m[from].have[f] || margin <= 0) {
        printf("  %-20s %-8s %-22s  %s: left as it is\n", t[s].stage, tr->name, shown,
               !m[from].ok ? "its kernel failed" : margin <= 0 ? "no margin for the tier" : "not measured");
        return 0;
    }
    double worst = tr->at_most ? m[from].hi[f] : m[from].lo[f];
    double value = tr->at_most ? worst / margin : worst * margin;

    /* the tier before: this stage's previous tier, or the previous stage's last */
    char before_name[2 * NAME_LEN + 2] = "", prev_name[NAME_LEN] = "";
    int before = -1, prev = -1;
    for (int q = s - 1; q >= 0 && prev < 0; q--)
        if (!t[q].tier[0] && !strcmp(t[q].family, t[s].family))
            prev = q;
    if (k > 0) {
        before = find(t, n, t[s].stage, sr->tiers[k - 1].name);
        snprintf(before_name, sizeof before_name, "%s", sr->tiers[k - 1].name);
    } else if (prev >= 0 && grader_rubric_stage(rb, t[prev].stage)) {
        const stage_rubric *pr = grader_rubric_stage(rb, t[prev].stage);
        before = pr->ntiers ? find(t, n, t[prev].stage, pr->tiers[pr->ntiers - 1].name) : -1;
        if (pr->ntiers)
            snprintf(before_name, sizeof before_name, "%s %s", t[prev].stage, pr->tiers[pr->ntiers - 1].name);
    }
    if (prev >= 0)
        snprintf(prev_name, sizeof prev_name, "%s", t[prev].stage);

    char clears[32], before_text[160], prev_text[160], own_text[96];
    double c = clearance(worst, value, tr->at_most);
    snprintf(clears, sizeof clears, "%.0f%%%s", 100 * c, c < MIN_MARGIN ? "!" : "");
    *warnings += c < MIN_MARGIN;
    *warnings += before_name[0] && margin_text(before_text, sizeof before_text, before_name,
                                               before >= 0 ? &m[before] : NULL, f, value, tr->at_most, 0);
    if (!before_name[0])
        snprintf(before_text, sizeof before_text, "-");
    *warnings += prev >= 0 && margin_text(prev_text, sizeof prev_text, prev_name, &m[prev], f, value, tr->at_most, 0);
    if (prev < 0)
        snprintf(prev_text, sizeof prev_text, "-");
    *warnings += margin_text(own_text, sizeof own_text, "", &m[s], f, value, tr->at_most, 1);
    printf("  %-20s %-8s %-22s %10.3g%s %9.3g %7s  %-34s %-26s %s\n", t[s].stage, tr->name, shown, worst,
           ref >= 0 ? " " : "*", value, clears, before_text, prev_text, own_text);
    snprintf(th->stage, sizeof th->stage, "%s", t[s].stage);
    snprintf(th->tier, sizeof th->tier, "%s", tr->name);
    th->value = value;
    return 1;
}

/* Run each program (a tier's reference kernel, or a solution) into m;
 * the GPU's name from their records into gpu; the programs that failed. */
static int measure_all(const options *o, target *t, int n, const rubric *rb, const policy *pol, const char *log,
                       measured *m, char *gpu, size_t gpulen)
{
    int failures = 0;
    for (int i = 0; i < n; i++) {
        printf("[%d/%d] %s (%s%s%s):", i + 1, n, t[i].stage, t[i].tier[0] ? "the reference kernel of tier " : "solution",
               t[i].tier, t[i].compare_only && !t[i].tier[0] ? ", for comparison with the next stage" : "");
        fflush(stdout);
        /* a tier whose reference is the solution as it is: measured once */
        int twin = -1;
        for (int j = 0; j < i && twin < 0; j++)
            if (!strcmp(t[j].binary, t[i].binary))
                twin = j;
        if (twin >= 0) {
            m[i] = m[twin];
            printf(" the stage's solution, measured above\n");
            continue;
        }
        if (!grader_target_built(&t[i])) {
            char first[REASON_LEN], lines[4096];
            grader_build_errors(log, t[i].stage, first, sizeof first, lines, sizeof lines);
            printf(" did not build: %s\n", first);
            failures++;
            continue;
        }
        char msg[REASON_LEN];
        if (t[i].object[0] && grader_policy_check(pol, t[i].object, t[i].header[0] ? t[i].header : NULL, msg, sizeof msg))
            printf("\n    warning: the policy refuses this kernel itself: %s\n   ", msg);
        if (t[i].object[0] && grader_library_check(&t[i], msg, sizeof msg))
            printf("\n    warning: the header check refuses this kernel itself: kernel.cu %s\n   ", msg);
        measure(o, &t[i], rb, &m[i], gpu, gpulen);
        failures += !m[i].ok;
    }
    return failures;
}

/* Each tier's new threshold from its reference's runs, as a table with
 * its margins; the count of thresholds, the margins under 5% in *warnings. */
static int new_thresholds(const target *t, int n, const measured *m, const rubric *rb, const char *gpu,
                          new_threshold *th, int *warnings)
{
    int nth = 0, fallbacks = 0;
    printf("\nthresholds for %s: each tier's reference kernel, its least favourable run times the margin "
           "in %s\n", gpu, rb->path);
    printf("  %-20s %-8s %-22s %11s %9s %7s  %-34s %-26s %s\n", "stage", "tier", "field", "reference",
           "threshold", "clears", "the tier before (misses by)", "previous stage (misses)", "solution (clears)");
    for (int i = 0; i < n; i++) {
        const stage_rubric *sr = grader_rubric_stage(rb, t[i].stage);
        for (int k = 0; sr && !t[i].tier[0] && !t[i].compare_only && k < sr->ntiers; k++) {
            nth += tier_threshold(t, n, m, rb, i, k, &th[nth], warnings);
            fallbacks += find(t, n, t[i].stage, sr->tiers[k].name) < 0;
        }
    }
    if (fallbacks)
        printf("  (*: the tier has no reference line in stages.tsv: its threshold comes from the "
               "stage's solution)\n");
    if (*warnings)
        printf("\nwarning: %d margin(s) under 5%% (marked ! or in capitals): a reference or solution that does "
               "not clear its threshold by 5%% loses points to noise; a tier before that misses it by less "
               "does not tell the techniques apart. Change the tier's reference line (stages.tsv), its "
               "margin or its field in %s.\n", *warnings, rb->path);
    return nth;
}

/* This GPU's rows for stages not measured now stay as they were, in the
 * new block, which replaces every earlier row for this GPU: added to th
 * after its nth; how many were kept. */
static int keep_unmeasured(const rubric *rb, const char *gpu, new_threshold *th, int *nth)
{
    int kept = 0;
    for (int i = 0; i < rb->nstages; i++)
        for (int k = 0; k < rb->stages[i].ntiers; k++) {
            const tier *tr = &rb->stages[i].tiers[k];
            double v;
            int is_default, done = 0;
            for (int q = 0; q < *nth && !done; q++)
                done = !strcmp(th[q].stage, rb->stages[i].stage) && !strcmp(th[q].tier, tr->name);
            if (done || grader_rubric_threshold(tr, gpu, &v, &is_default) || is_default ||
                *nth == MAX_STAGES * MAX_TIERS)
                continue;
            snprintf(th[*nth].stage, sizeof th[*nth].stage, "%s", rb->stages[i].stage);
            snprintf(th[*nth].tier, sizeof th[*nth].tier, "%s", tr->name);
            th[(*nth)++].value = v;
            kept++;
        }
    return kept;
}

int grader_calibrate(const options *o, target *t, int n, const rubric *rb, const policy *pol, const char *log)
{
    static measured m[MAX_TARGETS];
    memset(m, 0, sizeof m);
    collect_fields(rb);
    char gpu[NAME_LEN] = "";
    int failures = measure_all(o, t, n, rb, pol, log, m, gpu, sizeof gpu);
    if (!gpu[0]) {
        printf("no program produced a record: nothing to calibrate\n");
        return GRADE_FAILED;
    }
    static new_threshold th[MAX_STAGES * MAX_TIERS];
    int warnings = 0;
    int nth = new_thresholds(t, n, m, rb, gpu, th, &warnings);
    int kept = keep_unmeasured(rb, gpu, th, &nth);
    time_t now = time(NULL);
    char date[32], comment[320], err[512];
    strftime(date, sizeof date, "%Y-%m-%d", gmtime(&now));
    snprintf(comment, sizeof comment, "make calibrate on %s: each tier's reference kernel (stages.tsv), "
                                      "least favourable of %d runs, times the tier's margin%s", date, o->runs,
             kept ? " (rows of stages not measured this time kept as they were)" : "");
    if (nth && grader_rubric_write_thresholds(rb->path, gpu, th, nth, comment, err, sizeof err)) {
        fprintf(stderr, "grade: %s\n", err);
        return GRADE_FAILED;
    }
    printf("\nwrote %d thresholds for %s into %s%s\n", nth - kept, gpu, rb->path,
           kept ? " (and kept this GPU's rows of stages not measured now)" : "");
    return failures ? GRADE_FAILED : GRADE_OK;
}
