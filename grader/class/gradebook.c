/*
 * gradebook.c: the rows and the gradebook. Each student's row is
 * OUT/students/NAME/row.csv, written in one step (a temporary file and a
 * rename), so that a row is whole or absent and a student with a row is
 * done; OUT/gradebook.csv is put together from the rows (grader/class/book.c
 * adds a roster's id and a deadline's columns):
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

/* A field a spreadsheet would take for a formula (=, +, @, or - before
 * anything but a number: a name from a student's own Gradescope metadata,
 * say) gets a leading apostrophe, which shows the text as text. */
static int formula_like(const char *v)
{
    return *v == '=' || *v == '+' || *v == '@' || *v == '\t' ||
           (*v == '-' && v[1] && !(v[1] >= '0' && v[1] <= '9') && v[1] != '.');
}

char *class_csv(const char *text)
{
    char *v = formula_like(text) ? lab_asprintf("'%s", text) : lab_strdup(text);
    for (char *c = v; *c; c++)
        if (*c == '\n' || *c == '\r')
            *c = ' ';
    if (!strpbrk(v, ",\""))
        return v;
    char *q = lab_grow(NULL, 2 * strlen(v) + 3), *o = q;
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

void class_csv_line(char **text, const char *const *field, int n)
{
    for (int i = 0; i < n; i++) {
        char *v = class_csv(field[i]);
        lab_appendf(text, "%s%s", v, i + 1 < n ? "," : "\n");
        free(v);
    }
}

int class_has_row(const char *name)
{
    char *row = class_row_path(name);
    int there = lab_exists(row);
    free(row);
    return there;
}

int class_done_count(void)
{
    int n = 0;
    for (int i = 0; i < cls.nstudents; i++)
        n += class_has_row(cls.names[i]);
    return n;
}

void class_write_row(const char *name, const char *status, const char *notes, const points *pts)
{
    char *line = class_csv(name);
    for (int s = 0; s < cls.nstages; s++) {
        const stage_points *sp = class_points_stage(pts, cls.stages[s]);
        lab_appendf(&line, ",%s", sp ? sp->points : "");
    }
    lab_appendf(&line, ",%s", pts ? pts->score : "");
    lab_appendf(&line, ",%s", pts ? pts->max : "");
    char *field = class_csv(status);
    lab_appendf(&line, ",%s", field);
    free(field);
    /* the seed the record says it was graded with (the class's, written as
     * the class wrote it, where the two are one number) */
    const char *seed = cls.seed;
    if (pts && *pts->seed && strtod(pts->seed, NULL) != strtod(cls.seed, NULL))
        seed = pts->seed;
    lab_appendf(&line, ",%s", seed);
    char *cut = lab_strdup(notes);
    if (strlen(cut) > NOTES_MAX) {
        size_t n = NOTES_MAX;
        while (n > 0 && ((unsigned char)cut[n] & 0xC0) == 0x80)
            n--;
        cut[n] = 0;
    }
    field = class_csv(cut);
    lab_appendf(&line, ",%s", field);
    char *text = lab_asprintf("%s\n", line);
    char *dir = lab_asprintf("%s/students/%s", cls.out, name), *row = class_row_path(name);
    if (lab_mkdirs(dir) || lab_write_atomic(row, text))
        lab_warn("cannot write %s", row);
    free(row);
    free(dir);
    free(text);
    free(field);
    free(cut);
    free(line);
}

/* Field n (from 1) of the student's row ("" when it has none). */
static char *row_field(const char *name, int n)
{
    char *row = class_row_path(name), *text = lab_read_file(row, 0);
    int count = 0;
    char **f = text ? lab_csv_fields(text, &count) : NULL;
    char *v = lab_strdup(f && n >= 1 && n <= count ? f[n - 1] : "");
    lab_list_free(f);
    free(text);
    free(row);
    return v;
}

/* The status and the notes: the columns after the stages' points, the
 * total and the maximum. */
char *class_row_status(const char *name)
{
    return row_field(name, cls.nstages + 4);
}

char *class_row_notes(const char *name)
{
    return row_field(name, cls.nstages + 6);
}

void class_collect(void)
{
    book b;
    class_book_make(&b);
    char *text = lab_strdup("");
    for (int r = -1; r < b.nrows; r++) {
        char **f = r < 0 ? b.head : b.rows[r];
        class_csv_line(&text, (const char *const *)f, b.ncols);
    }
    char *path = lab_asprintf("%s/gradebook.csv", cls.out);
    if (lab_write_atomic(path, text))
        lab_fatal(CLASS_FAILED, "cannot write %s", path);
    free(path);
    free(text);
    class_summary();
    int n;
    char **said = lab_lines(b.said, &n);
    for (int i = 0; i < n; i++)
        class_say("%s", said[i]);
    lab_list_free(said);
    class_book_free(&b);
}

static int by_text(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* "gradebook: OUT/gradebook.csv, M students (graded: 3, refused: 1)". */
void class_summary(void)
{
    int m = cls.nstudents;
    char **status = lab_grow(NULL, (m + 1) * sizeof *status);
    for (int i = 0; i < m; i++)
        status[i] = class_has_row(cls.names[i]) ? class_row_status(cls.names[i]) : lab_strdup("not graded");
    qsort(status, m, sizeof *status, by_text);
    char *counts = lab_strdup("");
    for (int i = 0, j; i < m; i = j) {
        for (j = i; j < m && !strcmp(status[j], status[i]); j++)
            ;
        lab_appendf(&counts, "%s%s: %d", *counts ? ", " : "", status[i], j - i);
    }
    class_say("gradebook: %s/gradebook.csv, %d student%s%s%s%s", cls.out, m, m == 1 ? "" : "s", *counts ? " (" : "",
        counts, *counts ? ")" : "");
    for (int i = 0; i < m; i++)
        free(status[i]);
    free(status);
    free(counts);
}
