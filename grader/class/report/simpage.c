/*
 * simpage.c: similarity.html, for a person to read: per stage, what its
 * review mark was measured from (or that it has none), the pairs ranked
 * within the stage, then each pair worth a look side by side, the runs of
 * tokens the two files share marked in both. Every byte of a submission is HTML-escaped; the page
 * has no script and fetches nothing. It says how alike two files are and
 * where; whether that means anything is for the reader to judge.
 */
#include "report.h"

#include <stdlib.h>
#include <string.h>

/* At least this many pairs of each stage are shown side by side, whatever
 * their score. */
#define SHOW_AT_LEAST 3

/* The source of d, escaped, the marked tokens' bytes inside <mark>. */
static void source(FILE *f, const doc *d, const unsigned char *marks)
{
    size_t at = 0;
    for (int t = 0; t < d->ntok; t++) {
        if (!marks[t])
            continue;
        int e = t;
        while (e + 1 < d->ntok && marks[e + 1])
            e++;
        size_t from = d->tok[t].start, to = d->tok[e].end;
        report_html_putn(f, d->src + at, from - at);
        fputs("<mark>", f);
        report_html_putn(f, d->src + from, to - from);
        fputs("</mark>", f);
        at = to;
        t = e;
    }
    report_html_putn(f, d->src + at, d->len - at);
}

static void side_by_side(FILE *f, const sim_pair *p, int k)
{
    fprintf(f, "<section class=\"pair\" id=\"pair-%d\">\n<h2>%d. ", k + 1, k + 1);
    report_html_put(f, p->stage);
    fputs(": ", f);
    report_html_put(f, p->a->who);
    fputs(" and ", f);
    report_html_put(f, p->b->who);
    fprintf(f, ", %.1f</h2>\n<p>%d fingerprints in common (of %d and %d).</p>\n<table class=\"sbs\"><tr><th>", p->score,
            p->shared, p->a->nprints, p->b->nprints);
    report_html_put(f, p->a->who);
    fputs("</th><th>", f);
    report_html_put(f, p->b->who);
    fputs("</th></tr>\n<tr><td><pre>", f);
    unsigned char *ma = lab_alloc((size_t)p->a->ntok + SIM_K + 1), *mb = lab_alloc((size_t)p->b->ntok + SIM_K + 1);
    report_mark_shared(p->a, p->b, ma);
    report_mark_shared(p->b, p->a, mb);
    source(f, p->a, ma);
    fputs("</pre></td><td><pre>", f);
    source(f, p->b, mb);
    fputs("</pre></td></tr></table>\n</section>\n", f);
    free(ma);
    free(mb);
}

/* Pair k is shown side by side: marked, or among the first of its stage. */
static int shown(const sim_pair *p, int k, int first)
{
    return p[k].score > 0 && (report_mark_reached(p[k].mark, p[k].score) || k - first < SHOW_AT_LEAST);
}

/* One stage's section: its mark said, then its pairs (from first, up to
 * end) ranked. */
static void stage_ranking(FILE *f, const sim_pair *p, int first, int end, const stage_mark *m)
{
    fputs("<section class=\"stage\" id=\"stage-", f);
    report_html_put(f, m->stage);
    fputs("\">\n<h2>", f);
    report_html_put(f, m->stage);
    fprintf(f, "</h2>\n<p class=\"%s\">", m->usable ? "mark" : "no-mark");
    char *said = report_mark_said(m);
    report_html_put(f, said);
    free(said);
    fputs("</p>\n", f);
    if (first == end || p[first].score <= 0) {
        fputs("<p>No pair of this stage has anything in common.</p>\n</section>\n", f);
        return;
    }
    fputs("<table class=\"ranking\">\n<tr><th>#</th><th>student</th><th>other</th><th>score</th></tr>\n", f);
    for (int k = first; k < end && p[k].score > 0; k++) {
        fprintf(f, "<tr%s><td>", report_mark_reached(m, p[k].score) ? " class=\"review\"" : "");
        if (shown(p, k, first))
            fprintf(f, "<a href=\"#pair-%d\">%d</a>", k + 1, k - first + 1);
        else
            fprintf(f, "%d", k - first + 1);
        fputs("</td><td>", f);
        report_html_put(f, p[k].a->who);
        fputs("</td><td>", f);
        report_html_put(f, p[k].b->who);
        fprintf(f, "</td><td>%.1f</td></tr>\n", p[k].score);
    }
    fputs("</table>\n</section>\n", f);
}

void report_sim_page(FILE *f, const sim_pair *p, int n, const stage_mark *marks, int nstages, const char *how)
{
    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n<title>Similarity</title>\n<style>\n"
          "body{font-family:sans-serif;margin:1em}table{border-collapse:collapse}td,th{border:1px solid #bbb;"
          "padding:2px 6px;text-align:left;vertical-align:top}\n"
          "pre{font-size:12px;margin:0;white-space:pre-wrap}mark{background:#ffd54a}table.sbs td{width:50%}\n"
          "tr.review td{background:#fde2e2}p.no-mark{font-weight:bold}\n"
          "@media print{section.pair{break-before:page}mark{background:#ddd;outline:1px solid #000}}\n"
          "</style>\n</head>\n<body>\n<h1>Similarity of the submitted kernels</h1>\n<p>", f);
    report_html_put(f, how);
    fprintf(f, " Each stage is ranked on its own, with its own mark, measured on honest kernels and copies; "
               "pairs at the mark are shown side by side below (and the first %d of each stage in any case). "
               "A score is no finding: it says how much of the smaller file's fingerprints the other has, "
               "after the skeleton's text is taken out. It changes no grade.</p>\n",
            SHOW_AT_LEAST);
    for (int s = 0, k = 0; s < nstages; s++) {
        int first = k;
        while (k < n && !strcmp(p[k].stage, marks[s].stage))
            k++;
        stage_ranking(f, p, first, k, &marks[s]);
    }
    fputs("<p>Pairs with nothing in common are left out here (similarity.csv has every pair).</p>\n", f);
    for (int s = 0, k = 0; s < nstages; s++)
        for (int first = k; k < n && !strcmp(p[k].stage, marks[s].stage); k++)
            if (shown(p, k, first))
                side_by_side(f, &p[k], k);
    fputs("</body>\n</html>\n", f);
}
