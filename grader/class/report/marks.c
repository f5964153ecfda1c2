/*
 * marks.c: each stage's review mark, read from marks.tsv (beside this file),
 * which research/similarity-class.sh marks writes from its measurements: the
 * highest score of an honest pair of the stage and the lowest of a copy and
 * its source. A stage has a mark only where the two stand apart; where they
 * do not (an honest kernel of a small stage scores as a copy does), the page
 * says so instead of marking everyone.
 */
#include "report.h"

#include <stdlib.h>
#include <string.h>

/* One line of marks.tsv into m: stage, mark (or "none"), honest_max,
 * honest_pairs, copy_min, copies. 0 when the line is not of that form. */
static int parse_line(char *line, stage_mark *m)
{
    char *f[6];
    int n = 0;
    for (char *save = NULL, *t = strtok_r(line, "\t", &save); t && n < 6; t = strtok_r(NULL, "\t", &save))
        f[n++] = t;
    if (n != 6)
        return 0;
    char *end[5];
    m->usable = strcmp(f[1], "none") != 0;
    if (m->usable)
        m->mark = strtod(f[1], &end[0]);
    else
        end[0] = f[1] + strlen(f[1]);
    m->honest_max = strtod(f[2], &end[1]);
    m->honest_pairs = (int)strtol(f[3], &end[2], 10);
    m->copy_min = strtod(f[4], &end[3]);
    m->copies = (int)strtol(f[5], &end[4], 10);
    for (int i = 0; i < 5; i++)
        if (*end[i] || end[i] == f[i + 1])
            return 0;
    m->measured = 1;
    snprintf(m->stage, sizeof m->stage, "%s", f[0]);
    return 1;
}

stage_mark *report_marks_read(const char *path, char *const *stages, int n, double review)
{
    stage_mark *m = lab_alloc((size_t)n * sizeof *m);
    for (int s = 0; s < n; s++) {
        snprintf(m[s].stage, sizeof m[s].stage, "%s", stages[s]);
        m[s].usable = review >= 0;
        m[s].mark = review;
        m[s].override = review >= 0;
    }
    if (review >= 0)
        return m;
    size_t len;
    char *text = report_read_plain(path, &len, NULL), *record = NULL;
    if (!text)
        lab_fatal(REPORT_USAGE, "cannot read %s: each stage's mark is there (research/similarity-class.sh "
                            "marks --write makes it), or say --review SCORE for one mark at every stage", path);
    int lineno = 0;
    for (char *save = NULL, *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        lineno++;
        if (!strncmp(line, "# record: ", 10) && !record)
            record = lab_strdup(line + 10);
        if (line[0] == '#')
            continue;
        stage_mark got = {0};
        if (!parse_line(line, &got))
            lab_fatal(REPORT_USAGE, "%s, line %d: not stage, mark (or none), honest_max, honest_pairs, "
                                "copy_min, copies separated by tabs", path, lineno);
        for (int s = 0; s < n; s++) {
            if (strcmp(m[s].stage, got.stage))
                continue;
            got.record = record;
            m[s] = got;
        }
    }
    free(text);
    return m;
}

char *report_mark_said(const stage_mark *m)
{
    if (m->override)
        return lab_asprintf("Pairs at %.1f or above are marked for review (--review, every stage).", m->mark);
    if (!m->measured)
        return lab_asprintf("No mark at this stage: marks.tsv has no line for %s (research/similarity-class.sh marks "
                    "measures one). Read the ranking: no score here has been measured against honest work.",
                    m->stage);
    char *from = lab_asprintf("the highest of %d honest pairs measured (independently written kernels, the references, "
                      "the solutions) scores %.1f, the lowest of %d copies against its source %.1f (%s)",
                      m->honest_pairs, m->honest_max, m->copies, m->copy_min, m->record ? m->record : "marks.tsv");
    char *said = m->usable ? lab_asprintf("Pairs at %.1f or above are marked for review: %s.", m->mark, from)
                           : lab_asprintf("No mark at this stage: honest kernels of this stage cannot be told apart from "
                                  "copies by score: %s. A high score here says little; read the code.",
                                  from);
    free(from);
    return said;
}

int report_mark_reached(const stage_mark *m, double score)
{
    return m->usable && score >= m->mark;
}
