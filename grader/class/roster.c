/*
 * roster.c: the class's roster (make class ROSTER=roster.csv): a line a
 * student, "name or folder, student id, email, extra days" (the email and
 * the extra days may be empty), read and checked once, then kept as
 * OUT/roster.csv for every later run and the gradebook job. book.c gives
 * each entry its row and its id; late.c's deadline moves by its extra days.
 * Also the reading of a CSV file that an instructor gives (ROSTER, TIMES).
 */
#include "class.h"
#include "grader.h"
#include "names.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Files an instructor gives are small: 4 MiB is some 50000 students. */
#define MAX_GIVEN_BYTES (4u << 20)
#define MAX_EXTRA_DAYS 365

static const char *const roster_heads[] = {"name", "student", "folder", NULL};

/* The field without the blanks around it, in place. */
static char *trim(char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    size_t n = strlen(s);
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
        s[--n] = 0;
    return s;
}

/* A header: its first field one of heads, in any case. */
static int is_header(const char *first, const char *const *heads)
{
    for (int i = 0; heads[i]; i++)
        if (!strcasecmp(first, heads[i]))
            return 1;
    return 0;
}

int class_csv_file(const char *path, const char *const *heads, csv_row **rows, char **why)
{
    *rows = NULL;
    char *text = lab_read_file(path, MAX_GIVEN_BYTES);
    if (!text) {
        *why = lab_asprintf("cannot read %s", path);
        return -1;
    }
    int nlines, n = 0;
    /* a spreadsheet's UTF-8 byte-order mark */
    char **line = lab_lines(strncmp(text, "\xEF\xBB\xBF", 3) ? text : text + 3, &nlines);
    free(text);
    for (int i = 0; i < nlines; i++) {
        int count;
        char **f = lab_csv_fields(line[i], &count);
        if (!f) {
            *why = lab_asprintf("%s line %d: a quote is left open (a field that holds a comma is written \"Lee, Jo\")", path,
                       i + 1);
            lab_list_free(line);
            class_csv_rows_free(*rows, n);
            *rows = NULL;
            return -1;
        }
        for (int k = 0; k < count; k++) {
            char *t = trim(f[k]);
            memmove(f[k], t, strlen(t) + 1);
        }
        int blank = count == 1 && !*f[0];
        if (blank || (n == 0 && is_header(f[0], heads))) {
            lab_list_free(f);
            continue;
        }
        *rows = lab_grow(*rows, (size_t)(n + 1) * sizeof **rows);
        (*rows)[n++] = (csv_row){f, count, i + 1};
    }
    lab_list_free(line);
    return n;
}

char *class_keep_given(const char *path, const char *as)
{
    char *text = lab_read_file(path, MAX_GIVEN_BYTES), *kept = lab_asprintf("%s/%s", cls.out, as);
    if (!text || lab_write_atomic(kept, text))
        lab_fatal(CLASS_FAILED, "cannot copy %s to %s", path, kept);
    free(text);
    return kept;
}

void class_csv_rows_free(csv_row *rows, int n)
{
    for (int i = 0; i < n; i++)
        lab_list_free(rows[i].f);
    free(rows);
}

/* What is wrong with one row of the roster (new string), or NULL. */
static char *entry_fault(const csv_row *r, roster_entry *e)
{
    if (r->n < 3 || r->n > 4)
        return lab_asprintf("has %d field%s, not: name or folder, student id, email[, extra days]", r->n,
                   r->n == 1 ? "" : "s");
    const char *days = r->n == 4 ? r->f[3] : "";
    *e = (roster_entry){.name = r->f[0], .id = r->f[1], .email = r->f[2], .line = r->line};
    if (!*e->name || !*e->id)
        return lab_strdup(!*e->name ? "has no name or folder" : "has no student id");
    for (const char *c = e->id; *c; c++)
        if (iscntrl((unsigned char)*c) || *c == ' ')
            return lab_asprintf("has a student id with a blank or a control character: '%s'", e->id);
    if (*e->email && (!strchr(e->email, '@') || strpbrk(e->email, " \t,")))
        return lab_asprintf("has an email that is not one: '%s'", e->email);
    if (days[strspn(days, "0123456789")] || strlen(days) > 3 || atoi(days) > MAX_EXTRA_DAYS)
        return lab_asprintf("has extra days that are not a whole number of days from 0 to %d: '%s'", MAX_EXTRA_DAYS, days);
    e->extra_days = atoi(days);
    return NULL;
}

/* Two entries of one id, email or student: the sentence, or NULL. */
static char *clash(const roster_entry *e, int n)
{
    for (int i = 0; i < n; i++)
        for (int j = 0; j < i; j++) {
            if (!strcmp(e[i].id, e[j].id))
                return lab_asprintf("lines %d and %d have one student id, %s", e[j].line, e[i].line, e[i].id);
            if (*e[i].email && !strcasecmp(e[i].email, e[j].email))
                return lab_asprintf("lines %d and %d have one email, %s (Gradescope matches a student by it)", e[j].line,
                           e[i].line, e[i].email);
            if (!strcmp(e[i].student, e[j].student))
                return lab_asprintf("lines %d and %d are one student, %s ('%s' and '%s')", e[j].line, e[i].line,
                           e[i].student, e[j].name, e[i].name);
        }
    return NULL;
}

/* The roster at path: its entries (new strings), or -1 with why. */
static int roster_read(const char *path, roster_entry **out, char **why)
{
    csv_row *rows;
    int n = class_csv_file(path, roster_heads, &rows, why);
    *out = NULL;
    if (n < 0)
        return -1;
    roster_entry *e = lab_grow(NULL, (size_t)(n + 1) * sizeof *e);
    char *fault = NULL;
    int k = 0;
    for (; k < n; k++) {
        fault = entry_fault(&rows[k], &e[k]);
        if (fault) {
            char *more = lab_asprintf("%s line %d %s", path, rows[k].line, fault);
            free(fault);
            fault = more;
            break;
        }
        e[k].name = lab_strdup(e[k].name);
        e[k].id = lab_strdup(e[k].id);
        e[k].email = lab_strdup(e[k].email);
        e[k].student = intake_student_name(e[k].name);
    }
    class_csv_rows_free(rows, n);
    char *twice = fault ? NULL : clash(e, k);
    if (twice)
        fault = lab_asprintf("%s: %s", path, twice);
    free(twice);
    if (!fault && k == 0)
        fault = lab_asprintf("%s names no student (a line a student: name or folder, student id, email[, extra days])", path);
    if (fault) {
        class_roster_free(e, k);
        *why = fault;
        return -1;
    }
    *out = e;
    return k;
}

void class_roster_free(roster_entry *r, int n)
{
    for (int i = 0; i < n; i++) {
        free(r[i].name);
        free(r[i].student);
        free(r[i].id);
        free(r[i].email);
    }
    free(r);
}

void class_roster_keep(const char *path)
{
    roster_entry *e;
    char *why = NULL;
    int n = roster_read(path, &e, &why);
    if (n < 0)
        lab_fatal(CLASS_BAD_TERM, "ROSTER %s; fix it and run again", why);
    class_roster_free(e, n);
    char *kept = class_keep_given(path, "roster.csv");
    class_say("roster: %d students (%s, kept as %s)", n, path, kept);
    free(kept);
}

int class_roster_load(roster_entry **out)
{
    char *kept = lab_asprintf("%s/roster.csv", cls.out), *why = NULL;
    *out = NULL;
    int n = 0;
    if (lab_exists(kept) && (n = roster_read(kept, out, &why)) < 0)
        lab_fatal(CLASS_BAD_TERM, "the class's roster %s; give make class ROSTER= again", why);
    free(kept);
    return n;
}
