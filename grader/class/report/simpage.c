/*
 * simpage.c: similarity.html, for a person to read: the ranked pairs, then
 * each pair worth a look side by side, the runs of tokens the two files
 * share marked in both. Every byte of a submission is HTML-escaped; the page
 * has no script and fetches nothing. It says how alike two files are and
 * where; whether that means anything is for the reader to judge.
 */
#include "report.h"

#include <stdlib.h>
#include <string.h>

/* At least this many pairs are shown side by side, whatever their score. */
#define SHOW_AT_LEAST 10

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
        html_putn(f, d->src + at, from - at);
        fputs("<mark>", f);
        html_putn(f, d->src + from, to - from);
        fputs("</mark>", f);
        at = to;
        t = e;
    }
    html_putn(f, d->src + at, d->len - at);
}

static void side_by_side(FILE *f, const sim_pair *p, int k)
{
    fprintf(f, "<section class=\"pair\" id=\"pair-%d\">\n<h2>%d. ", k + 1, k + 1);
    html_put(f, p->stage);
    fputs(": ", f);
    html_put(f, p->a->who);
    fputs(" and ", f);
    html_put(f, p->b->who);
    fprintf(f, ", %.1f</h2>\n<p>%d fingerprints in common (of %d and %d).</p>\n<table class=\"sbs\"><tr><th>", p->score,
            p->shared, p->a->nprints, p->b->nprints);
    html_put(f, p->a->who);
    fputs("</th><th>", f);
    html_put(f, p->b->who);
    fputs("</th></tr>\n<tr><td><pre>", f);
    unsigned char *ma = xalloc((size_t)p->a->ntok + SIM_K + 1), *mb = xalloc((size_t)p->b->ntok + SIM_K + 1);
    mark_shared(p->a, p->b, ma);
    mark_shared(p->b, p->a, mb);
    source(f, p->a, ma);
    fputs("</pre></td><td><pre>", f);
    source(f, p->b, mb);
    fputs("</pre></td></tr></table>\n</section>\n", f);
    free(ma);
    free(mb);
}

void sim_page(FILE *f, const sim_pair *p, int n, double review, const char *how)
{
    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n<title>Similarity</title>\n<style>\n"
          "body{font-family:sans-serif;margin:1em}table{border-collapse:collapse}td,th{border:1px solid #bbb;"
          "padding:2px 6px;text-align:left;vertical-align:top}\n"
          "pre{font-size:12px;margin:0;white-space:pre-wrap}mark{background:#ffd54a}table.sbs td{width:50%}\n"
          "@media print{section.pair{break-before:page}mark{background:#ddd;outline:1px solid #000}}\n"
          "</style>\n</head>\n<body>\n<h1>Similarity of the submitted kernels</h1>\n<p>", f);
    html_put(f, how);
    fprintf(f, " Pairs at %.0f or above are shown side by side below (and the first %d in any case). "
               "A score is no finding: it says how much of the smaller file's fingerprints the other has, "
               "after the skeleton's text is taken out. It changes no grade.</p>\n",
            review, SHOW_AT_LEAST);
    fputs("<table class=\"ranking\">\n<tr><th>#</th><th>stage</th><th>student</th><th>other</th><th>score</th></tr>\n",
          f);
    for (int k = 0; k < n && p[k].score > 0; k++) {
        int shown = p[k].score >= review || k < SHOW_AT_LEAST;
        fprintf(f, "<tr%s><td>", p[k].score >= review ? " class=\"review\"" : "");
        if (shown)
            fprintf(f, "<a href=\"#pair-%d\">%d</a>", k + 1, k + 1);
        else
            fprintf(f, "%d", k + 1);
        fputs("</td><td>", f);
        html_put(f, p[k].stage);
        fputs("</td><td>", f);
        html_put(f, p[k].a->who);
        fputs("</td><td>", f);
        html_put(f, p[k].b->who);
        fprintf(f, "</td><td>%.1f</td></tr>\n", p[k].score);
    }
    fputs("</table>\n<p>Pairs with nothing in common are left out here (similarity.csv has every pair).</p>\n", f);
    for (int k = 0; k < n && p[k].score > 0; k++)
        if (p[k].score >= review || k < SHOW_AT_LEAST)
            side_by_side(f, &p[k], k);
    fputs("</body>\n</html>\n", f);
}
