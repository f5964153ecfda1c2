/*
 * report.c: build/grader/report --out OUT [--anon]: OUT/report.html from a
 * class's gradebook and records (make report OUT=dir; make class writes it
 * at its end). One page, nothing fetched and no script: the charts are
 * inline SVG, so it reads offline, prints (print CSS), and can be mailed.
 *
 * Per stage: the distribution of points; the speed figure each tier is
 * scored on (% of cuBLAS, % of memcpy, x over the baseline), one dot a
 * student, with the tier's threshold drawn in; who lost points and why;
 * flagged and timed-out stages; compile errors. Then the totals. A check
 * (make class CHECK=1) has a page of its own (checkpage.c). With
 * --anon (ANON=1) every name is student-NN, also inside the grader's
 * reasons, for showing the class. Everything that came from a submission
 * (names, reasons, compiler messages) is HTML-escaped.
 */
#include "report.h"
#include "stages.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* What a tier's field measures, in words (stages.tsv's figure lines: for
 * every tier's field of every family), and its unit. */
static const char *field_words(const char *stage, const char *field, const char **unit)
{
    static const struct { const char *family, *field, *words; } figures[] = {LAB_STAGE_FIGURES};
    const char *fam = report_family_of(stage);
    *unit = strstr(field, "pct_") ? "%" : "x";
    for (size_t i = 0; figures[i].family; i++)
        if (!strcmp(figures[i].family, fam) && !strcmp(figures[i].field, field))
            return figures[i].words;
    return field;
}

/* The first line of the grader's reason, at most max bytes (new string). */
static char *first_words(const char *text, size_t max)
{
    size_t n = strcspn(text, "\n");
    if (n > max)
        n = max;
    char *s = lab_alloc(n + 4);
    memcpy(s, text, n);
    if (n < strcspn(text, "\n") || (n == max && text[n]))
        strcpy(s + n, "...");
    return s;
}

/* ================================================================ charts */

#define W 720
#define PANEL_H 120

/* Bars of how many students got each number of points, 0 to max. */
static int points_panel(FILE *f, const class_rec *c, int st, int y0)
{
    int max = 0;
    for (int i = 0; i < c->nstudents; i++)
        if (c->students[i].stages[st].present && c->students[i].stages[st].max > max)
            max = c->students[i].stages[st].max;
    if (max <= 0)
        max = 10;
    int *count = lab_alloc((size_t)(max + 1) * sizeof *count), top = 1, none = 0;
    for (int i = 0; i < c->nstudents; i++) {
        const stage_rec *r = &c->students[i].stages[st];
        if (!r->present) {
            none++;
            continue;
        }
        int p = r->points < 0 ? 0 : r->points > max ? max : r->points;
        if (++count[p] > top)
            top = count[p];
    }
    fprintf(f, "<text x=\"10\" y=\"%d\" class=\"ttl\">points (of %d); %d without a record</text>\n", y0 + 14, max,
            none);
    double bw = (W - 80.0) / (max + 1);
    for (int p = 0; p <= max; p++) {
        double h = 80.0 * count[p] / top, x = 60 + p * bw;
        fprintf(f, "<rect class=\"bar\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" data-points=\"%d\" "
                   "data-count=\"%d\"><title>%d points: %d student%s</title></rect>\n",
                x + 2, y0 + 100 - h, bw - 4, h, p, count[p], p, count[p], count[p] == 1 ? "" : "s");
        fprintf(f, "<text x=\"%.1f\" y=\"%d\" class=\"tick\">%d</text>\n", x + bw / 2 - 4, y0 + 114, p);
        if (count[p])
            fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" class=\"tick\">%d</text>\n", x + bw / 2 - 4, y0 + 96 - h,
                    count[p]);
    }
    free(count);
    return y0 + PANEL_H;
}

/* One dot a student on the axis of a tier's field, thresholds drawn in. */
static int speed_panel(FILE *f, const class_rec *c, int st, const char *field, int y0)
{
    const char *unit, *words = field_words(c->stages[st], field, &unit);
    double top = 0;
    int n = 0;
    for (int i = 0; i < c->nstudents; i++) {
        const stage_rec *r = &c->students[i].stages[st];
        for (int k = 0; k < r->ntiers; k++)
            if (!strcmp(r->tiers[k].field, field)) {
                /* a flagged time cannot be real: it does not set the scale */
                if (r->tiers[k].have_value && isfinite(r->tiers[k].value) && r->tiers[k].value > top && !r->flagged)
                    top = r->tiers[k].value;
                if (r->tiers[k].have_threshold && r->tiers[k].threshold > top)
                    top = r->tiers[k].threshold;
            }
    }
    top = top > 0 ? top * 1.1 : 1;
    double x0 = 60, span = W - 110;
    fprintf(f, "<text x=\"10\" y=\"%d\" class=\"ttl\">", y0 + 14);
    report_html_put(f, words);
    fprintf(f, " (%s): one dot a timed student</text>\n", field);
    fprintf(f, "<line class=\"axis\" x1=\"%.0f\" y1=\"%d\" x2=\"%.0f\" y2=\"%d\"/>\n", x0, y0 + 100, x0 + span,
            y0 + 100);
    for (int t = 0; t <= 4; t++)
        fprintf(f, "<text x=\"%.1f\" y=\"%d\" class=\"tick\" text-anchor=\"middle\">%.3g%s</text>\n", x0 + span * t / 4, y0 + 114,
                top * t / 4, unit);
    /* the thresholds: the same for every student of a class (one GPU) */
    char drawn[4][32] = {{0}};
    for (int i = 0; i < c->nstudents; i++) {
        const stage_rec *r = &c->students[i].stages[st];
        for (int k = 0; k < r->ntiers && k < 4; k++) {
            const tier_rec *t = &r->tiers[k];
            if (strcmp(t->field, field) || !t->have_threshold || *drawn[k])
                continue;
            snprintf(drawn[k], sizeof drawn[k], "%s", t->name);
            double x = x0 + span * t->threshold / top;
            fprintf(f, "<line class=\"thr\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" data-tier=\"", x, y0 + 22,
                    x, y0 + 100);
            report_html_put(f, t->name);
            fprintf(f, "\" data-threshold=\"%.6g\"/>\n<text x=\"%.1f\" y=\"%d\" class=\"thrlabel\">", t->threshold,
                    x + 3, y0 + 30 + 11 * k);
            report_html_put(f, t->name);
            fprintf(f, " %s %.3g%s</text>\n", !strcmp(t->op, "<=") ? "&lt;=" : "&gt;=", t->threshold, unit);
        }
    }
    for (int i = 0; i < c->nstudents; i++) {
        const student_rec *s = &c->students[i];
        const stage_rec *r = &s->stages[st];
        for (int k = 0; k < r->ntiers; k++) {
            const tier_rec *t = &r->tiers[k];
            if (strcmp(t->field, field) || !t->have_value || !isfinite(t->value))
                continue;
            /* off the scale (a flagged time): drawn at its right end */
            double v = t->value < 0 ? 0 : t->value > top ? top : t->value, x = x0 + span * v / top;
            int y = y0 + 40 + (n++ * 7) % 56;   /* spread so that equal values stay visible */
            fprintf(f, "<circle class=\"%s\" cx=\"%.1f\" cy=\"%d\" r=\"4\" data-student=\"", r->flagged ? "flag" : "dot",
                    x, y);
            report_html_put(f, s->shown);
            fprintf(f, "\" data-value=\"%.6g\"><title>", t->value);
            report_html_put(f, s->shown);
            fprintf(f, ": %.4g%s%s%s</title></circle>\n", t->value, unit, r->flagged ? " (flagged)" : "",
                    t->value > top ? ", off the scale" : "");
            break;
        }
    }
    return y0 + PANEL_H;
}

/* The stage's figure: points, then one panel per field its tiers use. */
static void stage_chart(FILE *f, const class_rec *c, int st)
{
    const char *fields[4];
    int nf = 0;
    for (int i = 0; i < c->nstudents; i++) {
        const stage_rec *r = &c->students[i].stages[st];
        for (int k = 0; k < r->ntiers; k++) {
            int seen = 0;
            for (int j = 0; j < nf; j++)
                seen |= !strcmp(fields[j], r->tiers[k].field);
            if (!seen && nf < 4 && *r->tiers[k].field)
                fields[nf++] = r->tiers[k].field;
        }
    }
    fprintf(f, "<svg class=\"stage-chart\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
               "viewBox=\"0 0 %d %d\" role=\"img\">\n", W, PANEL_H * (1 + nf), W, PANEL_H * (1 + nf));
    int y = points_panel(f, c, st, 0);
    for (int j = 0; j < nf; j++)
        y = speed_panel(f, c, st, fields[j], y);
    fputs("</svg>\n", f);
}

/* ================================================================ tables */

/* Why the student lost points at this stage, in a few words. */
static void why(FILE *f, const student_rec *s, const stage_rec *r)
{
    if (*r->reason) {
        char *a = report_anonymised(s, r->reason), *w = first_words(a, 160);
        report_html_put(f, w);
        free(w);
        free(a);
        return;
    }
    if (r->flagged) {
        fputs("correct; its time cannot be real (flagged): no speed points", f);
        return;
    }
    fputs("correct; missed", f);
    for (int k = 0; k < r->ntiers; k++) {
        const tier_rec *t = &r->tiers[k];
        if (t->points >= t->max)
            continue;
        fputc(' ', f);
        report_html_put(f, t->name);
        if (t->have_value && t->have_threshold) {
            const char *unit;
            field_words("", t->field, &unit);
            fprintf(f, " (%.3g%s, needs %s %.3g%s)", t->value, unit, !strcmp(t->op, "<=") ? "&lt;=" : "&gt;=",
                    t->threshold, unit);
        }
    }
}

static void stage_section(FILE *f, const class_rec *c, int st)
{
    report_section_head(f, c->stages[st]);
    stage_chart(f, c, st);
    int lost = 0, flagged = 0, timed_out = 0, compile = 0;
    fputs("<h3>Lost points</h3>\n<table class=\"lost\">\n<tr><th>student</th><th>points</th><th>why</th></tr>\n", f);
    for (int i = 0; i < c->nstudents; i++) {
        const student_rec *s = &c->students[i];
        const stage_rec *r = &s->stages[st];
        if (!r->present || r->points >= r->max)
            continue;
        lost++;
        flagged += r->flagged;
        timed_out += strstr(r->reason, "timed out") != NULL;
        compile += !strncmp(r->reason, "did not compile", 15);
        fputs("<tr><td>", f);
        report_html_put(f, s->shown);
        fprintf(f, "</td><td>%d/%d</td><td>", r->points, r->max);
        why(f, s, r);
        fputs("</td></tr>\n", f);
    }
    fprintf(f, "</table>\n<p class=\"counts\">%d lost points; %d flagged; %d timed out; %d did not compile.</p>\n",
            lost, flagged, timed_out, compile);
    /* the compile errors whole (their first lines), where a TA looks for them */
    if (compile) {
        fputs("<h3>Compile errors</h3>\n", f);
        for (int i = 0; i < c->nstudents; i++) {
            const student_rec *s = &c->students[i];
            const stage_rec *r = &s->stages[st];
            if (!r->present || strncmp(r->reason, "did not compile", 15))
                continue;
            char *a = report_anonymised(s, r->reason), *w = first_words(a, 400);
            fputs("<pre class=\"err\">", f);
            report_html_put(f, s->shown);
            fputs(": ", f);
            report_html_put(f, w);
            fputs("</pre>\n", f);
            free(w);
            free(a);
        }
    }
    fputs("</section>\n", f);
}

static void page(FILE *f, const class_rec *c, int anon)
{
    report_page_head(f, "Class report");
    fputs("<p class=\"summary\">", f);
    int graded = 0;
    double sum = 0;
    for (int i = 0; i < c->nstudents; i++)
        if (!strcmp(c->students[i].status, "graded")) {
            graded++;
            sum += atof(c->students[i].total);
        }
    fprintf(f, "%d students, %d graded", c->nstudents, graded);
    if (graded)
        fprintf(f, ", a mean total of %.1f", sum / graded);
    if (c->gpu) {
        fputs("; graded on ", f);
        report_html_put(f, c->gpu);
    }
    fputs("; seed ", f);
    report_html_put(f, c->seed);
    fprintf(f, "%s. Each stage: the points, the speed figure its tiers are scored on with their thresholds "
               "(a red dot: a time the grader flagged as impossible), and who lost points and why.</p>\n",
            anon ? "; names replaced (student-NN)" : "");
    report_page_body(f, c, stage_section);
}

int main(int argc, char **argv)
{
    const char *out = NULL, *dest = NULL;
    int anon = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--out") && i + 1 < argc)
            out = argv[++i];
        else if (!strcmp(argv[i], "--html") && i + 1 < argc)
            dest = argv[++i];
        else if (!strcmp(argv[i], "--anon"))
            anon = 1;
        else
            lab_fatal(REPORT_USAGE, "usage: report --out CLASS_OUT [--anon] [--html FILE]  (default FILE: "
                                "CLASS_OUT/report.html)");
    }
    if (!out)
        lab_fatal(REPORT_USAGE, "say which class: make report OUT=dir (the OUT of make class)");
    class_rec c;
    class_read(out, anon, &c);
    char *path = dest ? lab_strdup(dest) : lab_asprintf("%s/report.html", out), *tmp = lab_asprintf("%s.tmp", path);
    FILE *f = fopen(tmp, "w");
    if (!f)
        lab_fatal(REPORT_FAILED, "cannot write %s", tmp);
    if (c.check)
        report_check_page(f, &c, anon);
    else
        page(f, &c, anon);
    if (fclose(f) || rename(tmp, path))
        lab_fatal(REPORT_FAILED, "cannot write %s", path);
    printf("report: %s (%d students, %d stages%s%s)\n", path, c.nstudents, c.nstages, c.check ? ", a check" : "",
           anon ? ", anonymised" : "");
    return REPORT_OK;
}
