/*
 * gradebook.c: the rows and the gradebook. Each student's row is
 * OUT/students/NAME/row.csv, written in one step (a temporary file and a
 * rename), so that a row is whole or absent and a student with a row is
 * done; OUT/gradebook.csv is put together from the rows:
 *
 *   student, points per stage, total, max, status, seed, notes
 */
#include "class.h"
#include "grader.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* How much of the notes a row keeps. */
#define NOTES_MAX 600

char *csv(const char *text)
{
    char *v = xstrdup(text);
    for (char *c = v; *c; c++)
        if (*c == '\n' || *c == '\r')
            *c = ' ';
    if (!strpbrk(v, ",\""))
        return v;
    char *q = xrealloc(NULL, 2 * strlen(v) + 3), *o = q;
    *o++ = '"';
    for (const char *c = v; *c; c++) {
        if (*c == '"')
            *o++ = '"';
        *o++ = *c;
    }
    *o++ = '"';
    *o = 0;
    free(v);
    return q;
}

char *row_path(const char *name)
{
    return fmt("%s/students/%s/row.csv", cls.out, name);
}

int has_row(const char *name)
{
    char *row = row_path(name);
    int there = exists(row);
    free(row);
    return there;
}

int done_count(void)
{
    int n = 0;
    for (int i = 0; i < cls.nstudents; i++)
        n += has_row(cls.names[i]);
    return n;
}

/* Append ",text" to *line. */
static void add(char **line, const char *text)
{
    char *more = fmt("%s,%s", *line, text);
    free(*line);
    *line = more;
}

void write_row(const char *name, const char *status, const char *notes, const points *pts)
{
    char *line = csv(name);
    for (int s = 0; s < cls.nstages; s++) {
        const stage_points *sp = points_stage(pts, cls.stages[s]);
        add(&line, sp ? sp->points : "");
    }
    add(&line, pts ? pts->score : "");
    add(&line, pts ? pts->max : "");
    char *field = csv(status);
    add(&line, field);
    free(field);
    /* the seed the record says it was graded with (the class's, written as
     * the class wrote it, where the two are one number) */
    const char *seed = cls.seed;
    if (pts && *pts->seed && strtod(pts->seed, NULL) != strtod(cls.seed, NULL))
        seed = pts->seed;
    add(&line, seed);
    char *cut = xstrdup(notes);
    if (strlen(cut) > NOTES_MAX) {
        size_t n = NOTES_MAX;
        while (n > 0 && ((unsigned char)cut[n] & 0xC0) == 0x80)
            n--;
        cut[n] = 0;
    }
    field = csv(cut);
    add(&line, field);
    char *text = fmt("%s\n", line);
    char *dir = fmt("%s/students/%s", cls.out, name), *row = row_path(name);
    if (mkdirs(dir) || write_atomic(row, text))
        warn("cannot write %s", row);
    free(row);
    free(dir);
    free(text);
    free(field);
    free(cut);
    free(line);
}

char *row_field(const char *row_file, int n)
{
    char *text = read_file_text(row_file, 0);
    if (!text)
        return NULL;
    char *line = first_line(text);
    free(text);
    const char *p = line;
    char *v = xstrdup("");
    for (int f = 1; f <= n; f++) {
        free(v);
        size_t len = strlen(p);
        v = xrealloc(NULL, len + 1);
        size_t k = 0;
        if (*p == '"') {
            p++;
            for (;;) {
                const char *q = strchr(p, '"');
                if (!q) {
                    memcpy(v + k, p, strlen(p));
                    k += strlen(p);
                    p += strlen(p);
                    break;
                }
                memcpy(v + k, p, (size_t)(q - p));
                k += (size_t)(q - p);
                p = q + 1;
                if (*p != '"')
                    break;
                v[k++] = '"';
                p++;
            }
            if (*p)
                p++;
        } else {
            size_t m = strcspn(p, ",");
            memcpy(v + k, p, m);
            k += m;
            p += m + (p[m] == ',');
        }
        v[k] = 0;
    }
    free(line);
    return v;
}

/* The status and the notes: the columns after the stages' points, the
 * total and the maximum. */
char *row_status(const char *name)
{
    char *row = row_path(name), *v = row_field(row, cls.nstages + 4);
    free(row);
    return v ? v : xstrdup("");
}

char *row_notes(const char *name)
{
    char *row = row_path(name), *v = row_field(row, cls.nstages + 6);
    free(row);
    return v ? v : xstrdup("");
}

void collect(void)
{
    char *book = xstrdup("student");
    for (int s = 0; s < cls.nstages; s++)
        add(&book, cls.stages[s]);
    char *more = fmt("%s,total,max,status,seed,notes\n", book);
    free(book);
    book = more;
    for (int i = 0; i < cls.nstudents; i++) {
        char *row = row_path(cls.names[i]), *text = read_file_text(row, 0);
        if (!text) {
            /* no result: the student's row says so */
            char *line = csv(cls.names[i]);
            for (int s = 0; s < cls.nstages; s++)
                add(&line, "");
            char *notes = fmt("no result: grading was stopped or its job ended first (run make class again; "
                              "see %s/logs)", cls.out);
            char *field = csv(notes);
            text = fmt("%s,,,not graded,%s,%s\n", line, cls.seed, field);
            free(field);
            free(notes);
            free(line);
        }
        more = fmt("%s%s", book, text);
        free(book);
        book = more;
        free(text);
        free(row);
    }
    char *path = fmt("%s/gradebook.csv", cls.out);
    if (write_atomic(path, book))
        die("cannot write %s", path);
    free(path);
    free(book);
    summary();
}

static int by_text(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* "gradebook: OUT/gradebook.csv, M students (graded: 3, refused: 1)". */
void summary(void)
{
    int m = cls.nstudents;
    char **status = xrealloc(NULL, (m + 1) * sizeof *status);
    for (int i = 0; i < m; i++)
        status[i] = has_row(cls.names[i]) ? row_status(cls.names[i]) : xstrdup("not graded");
    qsort(status, m, sizeof *status, by_text);
    char *counts = xstrdup("");
    for (int i = 0, j; i < m; i = j) {
        for (j = i; j < m && !strcmp(status[j], status[i]); j++)
            ;
        char *more = fmt("%s%s%s: %d", counts, *counts ? ", " : "", status[i], j - i);
        free(counts);
        counts = more;
    }
    say("gradebook: %s/gradebook.csv, %d student%s%s%s%s", cls.out, m, m == 1 ? "" : "s", *counts ? " (" : "",
        counts, *counts ? ")" : "");
    for (int i = 0; i < m; i++)
        free(status[i]);
    free(status);
    free(counts);
}
