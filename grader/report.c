/*
 * report.c: what the grader shows and writes.
 *
 * The table and the advice go to the terminal; grade.json holds everything
 * (one key per line, written with the harness's own JSON writer), and
 * results.json is Gradescope's format: score, execution_time, output, and
 * one test per stage with name, score, max_score, status and output;
 * grade.tsv has the stages' lines for scripts (report_tsv says which).
 * Text that came from the student's program is cleaned first, so it can
 * neither break the JSON nor send escape sequences to a terminal.
 */
#include "grader.h"
#include "lab.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>


/* A string member, cleaned. */
static void put_text(lab_json *j, const char *key, const char *text)
{
    char *clean = grader_text_cleaned(text);
    lab_json_string(j, key, clean);
    free(clean);
}

/* ================================================================= table */

/* "pass 16.2%>=13% +3" for one tier, into buf. */
static void tier_text(const tier_result *t, char *buf, size_t len)
{
    if (!t->graded || !t->have_value) {
        snprintf(buf, len, "%s -", t->name);
        return;
    }
    int met = t->at_most ? t->value <= t->threshold : t->value >= t->threshold;
    snprintf(buf, len, "%s %.3g%s%s%.3g%s +%d", t->name, t->value, t->unit,
             met ? (t->at_most ? "<=" : ">=") : (t->at_most ? ">" : "<"), t->threshold, t->unit,
             t->points);
}

/* The points of the stages, and of the bonus stages beside them. */
typedef struct {
    int total, max, bonus, bonus_max;
} points;

static points count_points(const stage_result *s, int n)
{
    points p = {0, 0, 0, 0};
    for (int i = 0; i < n; i++) {
        *(s[i].bonus ? &p.bonus : &p.total) += s[i].points;
        *(s[i].bonus ? &p.bonus_max : &p.max) += s[i].max;
    }
    return p;
}

/* One stage's row of the table. */
static void table_row(FILE *out, const stage_result *r)
{
    char speedup[32] = "-", pct[32] = "-", tiers[256] = "";
    if (r->speed_scored && r->have_speedup)
        snprintf(speedup, sizeof speedup, "%.2fx", r->speedup);
    if (r->speed_scored && r->have_pct)
        snprintf(pct, sizeof pct, "%.1f%%", r->pct);
    if (!r->speed_scored && r->ntiers)
        snprintf(tiers, sizeof tiers, "%s",
                 r->correct ? "(not timed: no speed points)" : "(scored once every check passes)");
    for (int k = 0; r->speed_scored && k < r->ntiers; k++) {
        char one[96];
        tier_text(&r->tiers[k], one, sizeof one);
        grader_appendf(tiers, sizeof tiers, "%s%s", k ? ", " : "", one);
    }
    if (r->speed_scored && r->flagged)
        grader_appendf(tiers, sizeof tiers, " FLAGGED");
    char points[32];
    snprintf(points, sizeof points, "%d/%d", r->points, r->max);
    char name[NAME_LEN + 16];
    snprintf(name, sizeof name, "%s%s", r->stage, r->bonus ? " (bonus)" : "");
    fprintf(out, "%-22s %-7s %9s %9s %7s  %s\n", name, r->correct ? "yes" : "NO", speedup, pct, points, tiers);
}

/* Where points were lost, and what to do: each such stage's reason,
 * notes and advice. */
static void where_lost(FILE *out, const stage_result *s, int n)
{
    int lost = 0;
    for (int i = 0; i < n; i++)
        lost |= s[i].points < s[i].max || s[i].note[0] || s[i].sanitizer[0];
    if (lost)
        fprintf(out, "\nWhere points were lost, and what to do:\n");
    for (int i = 0; i < n; i++) {
        const stage_result *r = &s[i];
        if (r->points == r->max && !r->note[0] && !r->sanitizer[0])
            continue;
        fprintf(out, "  %s (%d/%d)%s%s\n", r->stage, r->points, r->max, r->reason[0] ? ": " : "",
                r->reason);
        if (r->sanitizer[0] && !strstr(r->reason, r->sanitizer))
            fprintf(out, "    compute-sanitizer: %s\n", r->sanitizer);
        if (r->note[0])
            fprintf(out, "    note: %s\n", r->note);
        for (int k = 0; k < r->nadvice; k++)
            fprintf(out, "    - %s\n", r->advice[k]);
    }
}

/* The warnings: what the CPU emulation names in stages correct on the
 * GPU, which cost no points. */
static void warnings(FILE *out, const stage_result *s, int n)
{
    int any = 0;
    for (int i = 0; i < n; i++)
        any |= s[i].warning[0] != 0;
    if (any)
        fprintf(out, "\nWarnings:\n");
    for (int i = 0; i < n; i++)
        if (s[i].warning[0])
            fprintf(out, "  %s: %s\n", s[i].stage, s[i].warning);
}

/* The rubric's default rows, where this GPU has none; the seed; what
 * makes the grade unofficial. */
static void footnotes(FILE *out, const stage_result *s, int n, const grade_info *g)
{
    const char *default_gpu = NULL;
    char defaulted[512] = ""; /* the stages that fell back to the default rows */
    int ndefault = 0, scored = 0;
    for (int i = 0; i < n; i++) {
        const stage_result *r = &s[i];
        if (r->thresholds_default && !default_gpu)
            default_gpu = r->gpu;
        if (r->thresholds_default)
            grader_appendf(defaulted, sizeof defaulted, "%s%s", ndefault++ ? ", " : "", r->stage);
        scored += r->speed_scored && r->ntiers > 0;
    }
    if (default_gpu && ndefault < scored)
        fprintf(out, "\nwarning: %s has no thresholds for this GPU (%s) for %s: the rubric's default rows "
                     "were used there. An instructor can run `make calibrate` on it.\n",
                g->rubric_path, default_gpu[0] ? default_gpu : "unknown", defaulted);
    else if (default_gpu)
        fprintf(out, "\nwarning: %s has no thresholds for this GPU (%s): the rubric's default rows were "
                     "used. An instructor can run `make calibrate` on it.\n",
                g->rubric_path, default_gpu[0] ? default_gpu : "unknown");
    fprintf(out, "\nseed %llu: `make grade SEED=%llu` repeats these inputs.\n", g->seed, g->seed);
    if (!g->confined)
        fprintf(out, "the runs were not confined (%s): a grade for your own use, not an official one.\n",
                g->confinement ? g->confinement : "no confinement");
    if (!g->judged)
        fprintf(out, "the results came from your kernel's own process (JUDGE=0): a grade for your own use, "
                     "not an official one.\n");
}

void grader_report_table(FILE *out, const stage_result *s, int n, const grade_info *g)
{
    const points p = count_points(s, n);
    fprintf(out, "\n%-22s %-7s %9s %9s %7s  %s\n", "stage", "correct", "speedup", "% of ref", "points",
            "speed tiers: measured vs needed, points");
    for (int i = 0; i < n; i++)
        table_row(out, &s[i]);
    char t[32];
    snprintf(t, sizeof t, "%d/%d", p.total, p.max);
    fprintf(out, "%-22s %-7s %9s %9s %7s\n", "total", "", "", "", t);
    if (p.bonus_max) {
        snprintf(t, sizeof t, "%d/%d", p.bonus, p.bonus_max);
        fprintf(out, "%-22s %-7s %9s %9s %7s  (bonus stages: beside the total, not in it)\n", "bonus", "", "", "",
                t);
    }
    fprintf(out, "(speedup: over the stage's naive baseline; %% of ref: of the reference "
                 "(cuBLAS, copy bandwidth, ...), both measured in the same run)\n");
    where_lost(out, s, n);
    warnings(out, s, n);
    footnotes(out, s, n, g);
}

/* ================================================================ files */

static FILE *open_report(const char *dir, const char *name, char *path, size_t len)
{
    snprintf(path, len, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    if (!f)
        fprintf(stderr, "grade: cannot write %s: %s\n", path, strerror(errno));
    return f;
}

/* What one stage's test says in results.json. */
static void stage_summary(const stage_result *r, char *buf, size_t len)
{
    buf[0] = 0;
    grader_appendf(buf, len, "correct: %s (%d/%d points)\n", r->correct ? "yes" : "no", r->correct_points,
            r->correct_max);
    if (r->reason[0])
        grader_appendf(buf, len, "%s\n", r->reason);
    for (int k = 0; k < r->ntiers; k++) {
        char one[96];
        tier_text(&r->tiers[k], one, sizeof one);
        grader_appendf(buf, len, "speed tier %s (%s)\n", one, r->tiers[k].field);
    }
    if (r->note[0])
        grader_appendf(buf, len, "note: %s\n", r->note);
    if (r->sanitizer[0])
        grader_appendf(buf, len, "compute-sanitizer: %s\n", r->sanitizer);
    if (r->warning[0])
        grader_appendf(buf, len, "warning: %s\n", r->warning);
    for (int k = 0; k < r->nadvice; k++)
        grader_appendf(buf, len, "- %s\n", r->advice[k]);
}

/* A field of grade.tsv: cleaned text on one line, without tabs; "-" when
 * empty, so that every field has a word (a shell's read splits on runs). */
static void put_field(FILE *f, const char *text, const char *after)
{
    char *clean = grader_text_cleaned(text);
    for (char *p = clean; *p; p++)
        if (*p == '\t' || *p == '\n' || *p == '\r')
            *p = ' ';
    fprintf(f, "%s%s", clean[0] ? clean : "-", after);
    free(clean);
}

/* grade.tsv: a header line, then one line a stage, tab-separated:
 *   stage      the stage's name
 *   bonus      true for a bonus stage (its points are not in the total)
 *   points     its points, of
 *   max_points
 *   correct    true when every check passed
 *   flagged    true when its time was flagged
 *   seed       the grade's seed (the same on every line)
 *   missed     the speed tiers that earned less than their points, by name,
 *              comma-separated ("-": none)
 *   reason     why it lost points ("-": none), on one line
 * The grade's score is the sum of the points of the lines whose bonus is
 * false; its bonus the sum of the others'. */
static int report_tsv(const char *dir, const stage_result *s, int n, const grade_info *g)
{
    char path[1024];
    FILE *f = open_report(dir, "grade.tsv", path, sizeof path);
    if (!f)
        return -1;
    fprintf(f, "stage\tbonus\tpoints\tmax_points\tcorrect\tflagged\tseed\tmissed\treason\n");
    for (int i = 0; i < n; i++) {
        const stage_result *r = &s[i];
        char missed[MAX_TIERS * (NAME_LEN + 1)] = "";
        for (int k = 0; k < r->ntiers; k++)
            if (r->tiers[k].points < r->tiers[k].max)
                grader_appendf(missed, sizeof missed, "%s%s", missed[0] ? "," : "", r->tiers[k].name);
        put_field(f, r->stage, "\t");
        fprintf(f, "%s\t%d\t%d\t%s\t%s\t%llu\t", r->bonus ? "true" : "false", r->points, r->max,
                r->correct ? "true" : "false", r->flagged ? "true" : "false", g->seed);
        put_field(f, missed, "\t");
        put_field(f, r->reason, "\n");
    }
    if (fclose(f)) {
        fprintf(stderr, "grade: cannot write %s\n", path);
        return -1;
    }
    return 0;
}

/* One stage in grade.json: its points, reason, warning, tiers and advice. */
static void json_stage(lab_json *j, const stage_result *r)
{
    lab_json_object(j, NULL);
    put_text(j, "stage", r->stage);
    lab_json_bool(j, "bonus", r->bonus);
    lab_json_int(j, "points", r->points);
    lab_json_int(j, "max_points", r->max);
    lab_json_bool(j, "correct", r->correct);
    lab_json_int(j, "correct_points", r->correct_points);
    lab_json_int(j, "correct_max", r->correct_max);
    lab_json_bool(j, "ran", r->ran);
    lab_json_bool(j, "flagged", r->flagged);
    lab_json_bool(j, "default_thresholds", r->thresholds_default);
    put_text(j, "reason", r->reason);
    put_text(j, "note", r->note);
    put_text(j, "sanitizer", r->sanitizer);
    put_text(j, "warning", r->warning);
    put_text(j, "metric", r->metric);
    if (r->have_speedup)
        lab_json_number(j, "speedup_vs_baseline", r->speedup);
    if (r->have_pct)
        lab_json_number(j, "pct_of_reference", r->pct);
    lab_json_number(j, "seconds", r->seconds);
    lab_json_int(j, "output_bytes", (long long)r->output_bytes);
    lab_json_array(j, "tiers");
    for (int k = 0; k < r->ntiers; k++) {
        const tier_result *t = &r->tiers[k];
        lab_json_object(j, NULL);
        put_text(j, "name", t->name);
        lab_json_int(j, "points", t->points);
        lab_json_int(j, "max_points", t->max);
        put_text(j, "field", t->field);
        lab_json_string(j, "op", t->at_most ? "<=" : ">=");
        lab_json_bool(j, "graded", t->graded);
        if (t->graded)
            lab_json_number(j, "threshold", t->threshold);
        if (t->have_value)
            lab_json_number(j, "value", t->value);
        lab_json_end(j);
    }
    lab_json_end(j);
    lab_json_array(j, "advice");
    for (int k = 0; k < r->nadvice; k++)
        put_text(j, NULL, r->advice[k]);
    lab_json_end(j);
    put_text(j, "output_tail", r->output ? r->output : "");
    lab_json_end(j);
}

/* Close a report; -1, said, when it could not be written. */
static int close_report(FILE *f, const char *path)
{
    if (!fclose(f))
        return 0;
    fprintf(stderr, "grade: cannot write %s\n", path);
    return -1;
}

/* grade.json: the whole grade, every stage's details. */
static int write_grade_json(const char *dir, const stage_result *s, int n, const grade_info *g, const points *p)
{
    char path[1024];
    FILE *f = open_report(dir, "grade.json", path, sizeof path);
    if (!f)
        return -1;
    lab_json j;
    lab_json_start(&j, f);
    lab_json_int(&j, "schema", 1);
    lab_json_int(&j, "score", p->total);
    lab_json_int(&j, "max_score", p->max);
    lab_json_int(&j, "bonus_score", p->bonus);
    lab_json_int(&j, "bonus_max", p->bonus_max);
    lab_json_int(&j, "seed", (long long)g->seed);
    put_text(&j, "gpu", g->gpu);
    lab_json_number(&j, "seconds", g->seconds);
    lab_json_bool(&j, "sanitize", g->sanitize);
    put_text(&j, "rubric", g->rubric_path);
    put_text(&j, "source", g->source);
    lab_json_bool(&j, "confined", g->confined);
    lab_json_bool(&j, "judged", g->judged);
    put_text(&j, "confinement", g->confinement ? g->confinement : "");
    lab_json_array(&j, "stages");
    for (int i = 0; i < n; i++)
        json_stage(&j, &s[i]);
    lab_json_end(&j);
    lab_json_finish(&j);
    return close_report(f, path);
}

/* results.json, Gradescope's: a test per stage, the bonus as extra credit
 * (its test's max_score 0, so that it is not counted in the maximum). */
static int write_results_json(const char *dir, const stage_result *s, int n, const grade_info *g,
                              const points *p)
{
    char path[1024];
    FILE *f = open_report(dir, "results.json", path, sizeof path);
    if (!f)
        return -1;
    lab_json j;
    lab_json_start(&j, f);
    lab_json_int(&j, "score", p->total + p->bonus);
    lab_json_number(&j, "execution_time", g->seconds);
    char head[512], extra[64] = "";
    if (p->bonus_max)
        snprintf(extra, sizeof extra, " (and %d/%d bonus)", p->bonus, p->bonus_max);
    snprintf(head, sizeof head, "%d/%d points%s on %s; seed %llu (make grade SEED=%llu repeats the inputs)%s",
             p->total, p->max, extra, g->gpu[0] ? g->gpu : "an unknown GPU", g->seed, g->seed,
             g->confined ? "" : "; the runs were NOT confined");
    put_text(&j, "output", head);
    lab_json_array(&j, "tests");
    for (int i = 0; i < n; i++) {
        const stage_result *r = &s[i];
        char text[8192];
        stage_summary(r, text, sizeof text);
        if (!r->correct && r->output && r->output[0]) {
            /* the end of the program's own output shows the failure */
            size_t len = strlen(r->output);
            const char *tail = len > 2000 ? r->output + len - 2000 : r->output;
            grader_appendf(text, sizeof text, "\nlast lines of the output:\n%s", tail);
        }
        if (r->bonus)
            grader_appendf(text, sizeof text, "\na bonus stage: its %d points are extra credit, not in the maximum\n", r->max);
        lab_json_object(&j, NULL);
        put_text(&j, "name", r->stage);
        lab_json_int(&j, "score", r->points);
        lab_json_int(&j, "max_score", r->bonus ? 0 : r->max);
        lab_json_string(&j, "status", r->points == r->max ? "passed" : "failed");
        put_text(&j, "output", text);
        lab_json_end(&j);
    }
    lab_json_end(&j);
    lab_json_finish(&j);
    return close_report(f, path);
}

int grader_report_write(const char *dir, const stage_result *s, int n, const grade_info *g)
{
    points p = count_points(s, n);
    if (write_grade_json(dir, s, n, g, &p) || write_results_json(dir, s, n, g, &p))
        return -1;
    return report_tsv(dir, s, n, g);
}
