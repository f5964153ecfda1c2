/*
 * checkpage.c: OUT/report.html of a check (make class CHECK=1): no GPU, no
 * points. Per stage: how many students sent it, how many of those compiled
 * and how many did not, how many were correct on the CPU emulator and how
 * many wrong there, how many are still the skeleton; then each student
 * whose stage has a problem, with its first message whole (the compiler's
 * first error, the emulator's first finding: the student's check.tsv,
 * grader/class/check.c). Then the totals: the gradebook's words and notes.
 */
#include "report.h"

#include <stdlib.h>
#include <string.h>

/* A stage's counts, from the gradebook's words. */
typedef struct {
    int sent, compiled, not_compiled, correct, wrong, skeleton, unsubmitted;
} stage_counts;

static stage_counts count_stage(const class_rec *c, int st)
{
    stage_counts n = {0};
    for (int i = 0; i < c->nstudents; i++) {
        const char *cell = c->students[i].points[st];
        if (!*cell)
            continue;
        if (!strcmp(cell, "not submitted")) {
            n.unsubmitted++;
            continue;
        }
        n.sent++;
        n.not_compiled += !strcmp(cell, "does not compile");
        n.correct += !strcmp(cell, "correct (emulated)");
        n.wrong += !strcmp(cell, "wrong (emulated)");
        n.skeleton += !strcmp(cell, "skeleton");
    }
    n.compiled = n.sent - n.not_compiled;
    return n;
}

/* Each student whose stage has a first message: who, the word, the message. */
static void problems(FILE *f, const class_rec *c, int st)
{
    int shown = 0;
    for (int i = 0; i < c->nstudents; i++) {
        const student_rec *s = &c->students[i];
        const char *message = s->messages ? s->messages[st] : "";
        if (!*message)
            continue;
        if (!shown++)
            fputs("<table class=\"problems\">\n<tr><th>student</th><th>check</th><th>first message</th></tr>\n", f);
        fputs("<tr><td>", f);
        report_html_put(f, s->shown);
        fputs("</td><td>", f);
        report_html_put(f, s->points[st]);
        fputs("</td><td class=\"message\">", f);
        char *a = report_anonymised(s, message);
        report_html_put(f, a);
        free(a);
        fputs("</td></tr>\n", f);
    }
    fputs(shown ? "</table>\n" : "<p>No problem found.</p>\n", f);
}

static void check_section(FILE *f, const class_rec *c, int st)
{
    stage_counts n = count_stage(c, st);
    report_section_head(f, c->stages[st]);
    fprintf(f, "<p class=\"counts\" data-sent=\"%d\" data-compiled=\"%d\" data-not-compiled=\"%d\" "
               "data-correct=\"%d\" data-wrong=\"%d\" data-skeleton=\"%d\">%d sent: %d compiled, %d did not "
               "compile; on the CPU emulator %d correct, %d wrong; %d still the skeleton; %d not submitted.</p>\n",
            n.sent, n.compiled, n.not_compiled, n.correct, n.wrong, n.skeleton, n.sent, n.compiled, n.not_compiled,
            n.correct, n.wrong, n.skeleton, n.unsubmitted);
    problems(f, c, st);
    fputs("</section>\n", f);
}

void report_check_page(FILE *f, const class_rec *c, int anon)
{
    report_page_head(f, "Class check");
    fprintf(f, "<p class=\"summary\">%d students, checked without a GPU (make class CHECK=1); seed ", c->nstudents);
    report_html_put(f, c->seed);
    fprintf(f, "%s. Each stage a student sent was built as a grade builds it and, where the lab has its CPU "
               "emulator, its checks ran there: no points, which the grading on a GPU gives. Each student's "
               "grade.log holds the build's messages and each emulated run's output.</p>\n",
            anon ? "; names replaced (student-NN)" : "");
    report_page_body(f, c, check_section);
}
