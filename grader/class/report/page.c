/*
 * page.c: the frame both pages of a class share (report.c's report and
 * checkpage.c's check): the head and its style, a stage's section head
 * (its lesson from stages.tsv), the links, the totals table and the end.
 * Everything that came from a submission is HTML-escaped.
 */
#include "report.h"
#include "stages.h"

#include <stdlib.h>
#include <string.h>

static const struct { const char *name, *family, *knob, *sweep, *lesson; } stage_table[] = {LAB_STAGE_TABLE};

const char *report_family_of(const char *stage)
{
    for (size_t i = 0; i < sizeof stage_table / sizeof *stage_table; i++)
        if (!strcmp(stage_table[i].name, stage))
            return stage_table[i].family;
    return "";
}

void report_section_head(FILE *f, const char *stage)
{
    fputs("<section class=\"stage\" id=\"stage-", f);
    report_html_put(f, stage);
    fputs("\">\n<h2>", f);
    report_html_put(f, stage);
    fputs("</h2>\n<p class=\"lesson\">", f);
    for (size_t i = 0; i < sizeof stage_table / sizeof *stage_table; i++)
        if (!strcmp(stage_table[i].name, stage))
            report_html_put(f, stage_table[i].lesson);
    fputs("</p>\n", f);
}

static void totals(FILE *f, const class_rec *c)
{
    fputs("<section class=\"totals\" id=\"totals\">\n<h2>Totals</h2>\n<table class=\"totals\">\n<tr><th>student</th>", f);
    for (int st = 0; st < c->nstages; st++) {
        fputs("<th>", f);
        report_html_put(f, c->stages[st]);
        fputs("</th>", f);
    }
    fputs(c->check ? "<th>status</th><th>notes</th></tr>\n" : "<th>total</th><th>status</th><th>notes</th></tr>\n", f);
    for (int i = 0; i < c->nstudents; i++) {
        const student_rec *s = &c->students[i];
        fputs("<tr><td>", f);
        report_html_put(f, s->shown);
        fputs("</td>", f);
        for (int st = 0; st < c->nstages; st++) {
            fputs("<td class=\"pts\" data-stage=\"", f);
            report_html_put(f, c->stages[st]);
            fputs("\" data-student=\"", f);
            report_html_put(f, s->shown);
            fputs("\">", f);
            report_html_put(f, s->points[st]);
            fputs("</td>", f);
        }
        if (!c->check) {
            fputs("<td class=\"total\">", f);
            if (*s->total || *s->max) {
                report_html_put(f, s->total);
                fputs("/", f);
                report_html_put(f, s->max);
            }
            fputs("</td>", f);
        }
        fputs("<td>", f);
        report_html_put(f, s->status);
        fputs("</td><td class=\"notes\">", f);
        char *notes = report_anonymised(s, s->notes);
        if (s->record_error) {
            report_html_put(f, s->record_error);
            fputs("; ", f);
        }
        report_html_put(f, notes);
        free(notes);
        fputs("</td></tr>\n", f);
    }
    fputs("</table>\n</section>\n", f);
}

static const char *style =
    "body{font-family:sans-serif;max-width:60em;margin:1em auto;color:#111}\n"
    "table{border-collapse:collapse;font-size:90%}td,th{border:1px solid #bbb;padding:2px 6px;text-align:left;"
    "vertical-align:top}td:first-child{white-space:nowrap}\n"
    "svg{display:block;margin:0.5em 0}.bar{fill:#4a78b5}.dot{fill:#2a8a3a;fill-opacity:0.7}"
    ".flag{fill:#c33}\n"
    ".thr{stroke:#c60;stroke-width:2;stroke-dasharray:5 3}.axis{stroke:#555}.ttl{font-size:13px;font-weight:bold}"
    ".tick,.thrlabel{font-size:11px}.thrlabel{fill:#a50}\n"
    "pre.err{white-space:pre-wrap;background:#f6f0f0;padding:4px}.notes{font-size:85%}\n"
    "@media print{body{max-width:none;margin:0;font-size:10pt}section{break-inside:avoid-page}"
    "section.totals{break-before:page}.dot{fill-opacity:1}}\n";

void report_page_head(FILE *f, const char *title)
{
    fprintf(f, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n<title>%s</title>\n"
               "<style>\n%s</style>\n</head>\n<body>\n<h1>%s</h1>\n",
            title, style, title);
}

/* After the summary: the links, each stage's section, the totals. */
void report_page_body(FILE *f, const class_rec *c, void (*section)(FILE *, const class_rec *, int))
{
    fputs("<nav><p>", f);
    for (int st = 0; st < c->nstages; st++) {
        fputs("<a href=\"#stage-", f);
        report_html_put(f, c->stages[st]);
        fputs("\">", f);
        report_html_put(f, c->stages[st]);
        fputs("</a> ", f);
    }
    fputs("<a href=\"#totals\">totals</a></p></nav>\n", f);
    for (int st = 0; st < c->nstages; st++)
        section(f, c, st);
    totals(f, c);
    fputs("</body>\n</html>\n", f);
}
