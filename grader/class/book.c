/*
 * book.c: the gradebook's rows, made afresh from what grading wrote (each
 * student's OUT/students/NAME/row.csv) and the term's side of the class
 * (roster.c, late.c) whenever the gradebook is written (class_collect(),
 * grader/class/gradebook.c) or exported (export.c):
 *
 *   student, [id], points per stage, [submitted, days_late, late_penalty],
 *   total, max, status, seed, notes
 *
 * With a roster, a row for each of its entries in its order, with the
 * entry's id ("no submission" where SUBMISSIONS has nothing of it), then
 * the students it does not name, their notes saying so; the id column is
 * there too where a Gradescope export gives the students' SIDs. With a
 * deadline, when each submission came, the days late and the points
 * taken off the total.
 */
#include "class.h"
#include "grader.h"
#include "names.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Where the student's row is (OUT/students/NAME/row.csv): grading
 * writes it, the gradebook's rows are made from it. */
char *class_row_path(const char *name)
{
    return lab_asprintf("%s/students/%s/row.csv", cls.out, name);
}

/* What the rows are made from. */
typedef struct {
    roster_entry *roster;
    int nroster;
    late_policy late;
    sent_facts *sent;       /* each student's                             */
    int *entry_of;          /* each student's roster entry, or -1         */
    int with_id;
    char *late_list;        /* "carol 2 days -4 points, ..."              */
    char *unknown_list;     /* the students whose time is unknown         */
} book_input;

/* Nothing of a graded stage sent: no time, not late. */
#define NOT_SENT (-2)

/* ================================================================ rows */
/* Append v (a new copy) to the NULL-terminated fields *f, *n of them. */
static void push(char ***f, int *n, const char *v)
{
    *f = lab_grow(*f, (size_t)(*n + 2) * sizeof **f);
    (*f)[(*n)++] = lab_strdup(v);
    (*f)[*n] = NULL;
}

/* A row grading did not write: the student, no points, the status, the
 * class's seed and the notes. */
static char **fixed_row(const char *student, const char *status, const char *notes)
{
    char **f = NULL;
    int n = 0;
    push(&f, &n, student);
    for (int s = 0; s < cls.nstages + 2; s++)
        push(&f, &n, "");
    push(&f, &n, status);
    push(&f, &n, cls.seed);
    push(&f, &n, notes);
    return f;
}

/* The student's row as grading wrote it, cls.nstages + 6 fields; where
 * there is none, a row saying there is no result yet. */
static char **graded_row(const char *name)
{
    char *path = class_row_path(name), *text = lab_read_file(path, 0);
    int n = 0;
    char **f = text ? lab_csv_fields(text, &n) : NULL;
    free(text);
    free(path);
    if (!f) {
        char *notes = lab_asprintf("no result: grading was stopped or its job ended first (run make class again; see %s/logs)",
                          cls.out);
        f = fixed_row(name, "not graded", notes);
        free(notes);
        return f;
    }
    while (n < cls.nstages + 6)
        push(&f, &n, "");
    return f;
}

/* "late 2 days (1 extra day given): -4 points" and the new total, where
 * the row is late; its late columns into f. */
static char *lateness(book_input *in, char **base, long long sent, int extra, char ***f, int *n)
{
    const late_policy *p = &in->late;
    if (sent == NOT_SENT) {
        for (int k = 0; k < 3; k++)
            push(f, n, "");
        return NULL;
    }
    const char *total = base[cls.nstages + 1];
    char *end, *submitted = sent >= 0 ? class_time_text(sent) : lab_strdup("");
    double points = *total ? strtod(total, &end) : NAN;
    int days = class_days_late(p, sent, extra), graded = *total && !*end && isfinite(points);
    double off = graded ? fmin(days * p->penalty, points) : 0;
    char *days_text = sent >= 0 ? lab_asprintf("%d", days) : lab_strdup(""), *off_text = graded ? lab_asprintf("%g", off) : lab_strdup("");
    push(f, n, submitted);
    push(f, n, days_text);
    push(f, n, off_text);
    char *note = NULL;
    if (days > 0) {
        char *given = extra ? lab_asprintf(" (%d extra day%s given)", extra, extra == 1 ? "" : "s") : lab_strdup("");
        char *taken = graded && off > 0 ? lab_asprintf(": -%g points", off) : lab_strdup("");
        note = lab_asprintf("late %d day%s%s%s", days, days == 1 ? "" : "s", given, taken);
        char *line = lab_asprintf("%s %d day%s%s", base[0], days, days == 1 ? "" : "s", taken + (*taken ? 1 : 0));
        lab_join(&in->late_list, ", ", line);
        free(line);
        free(taken);
        free(given);
        free(base[cls.nstages + 1]);
        base[cls.nstages + 1] = graded ? lab_asprintf("%g", points - off) : lab_strdup("");
    } else if (sent < 0) {
        note = lab_strdup("submission time unknown (not counted late)");
        lab_join(&in->unknown_list, ", ", base[0]);
    }
    free(off_text);
    free(days_text);
    free(submitted);
    return note;
}

/* The gradebook's row from a grading row base (freed): the id, and with a
 * deadline the late columns; a note put before the notes. */
static char **book_row(book_input *in, char **base, const char *id, long long sent, int extra, const char *note)
{
    char **f = NULL, *late = NULL;
    int n = 0, s = cls.nstages;
    push(&f, &n, base[0]);
    if (in->with_id)
        push(&f, &n, id);
    for (int k = 1; k <= s; k++)
        push(&f, &n, base[k]);
    /* nothing of a graded stage was sent: no time to count late */
    if (in->late.has_deadline)
        late = lateness(in, base, strcmp(base[s + 3], "no submission") ? sent : NOT_SENT, extra, &f, &n);
    for (int k = s + 1; k <= s + 4; k++)
        push(&f, &n, base[k]);
    char *notes = lab_strdup(base[s + 5]);
    const char *before[] = {late, note};
    for (int k = 0; k < 2; k++)
        if (before[k] && *before[k]) {
            char *more = lab_asprintf("%s%s%s", before[k], *notes ? " | " : "", notes);
            free(notes);
            notes = more;
        }
    push(&f, &n, notes);
    free(notes);
    free(late);
    lab_list_free(base);
    return f;
}

/* ============================================================= matching */
/* Each roster entry's student (an index of cls.names), or -1: by the SID
 * or email a Gradescope export gives the student first, then by name
 * (the student's, or the entry's as it lies in SUBMISSIONS). A student
 * whom two entries name stops the gradebook (exit 7). */
static int *match_roster(book_input *in)
{
    int *who = lab_grow(NULL, (size_t)(in->nroster + 1) * sizeof *who);
    for (int e = 0; e < in->nroster; e++)
        who[e] = -1;
    for (int pass = 0; pass < 2; pass++)
        for (int e = 0; e < in->nroster; e++) {
            const roster_entry *r = &in->roster[e];
            for (int i = 0; i < cls.nstudents && who[e] < 0; i++) {
                const sent_facts *x = &in->sent[i];
                int hit = pass == 0 ? (*x->sid && !strcmp(x->sid, r->id)) ||
                                          (*x->email && *r->email && !strcasecmp(x->email, r->email))
                                    : !strcmp(cls.names[i], r->student) || !strcmp(cls.entries[i], r->name);
                if (!hit)
                    continue;
                int other = in->entry_of[i];
                if (other >= 0 && other != e)
                    lab_fatal(CLASS_BAD_TERM, "the roster's lines %d (%s) and %d (%s) both name the student %s: "
                               "give make class a ROSTER with one line for them", in->roster[other].line,
                               in->roster[other].name, r->line, r->name, cls.names[i]);
                in->entry_of[i] = e;
                who[e] = i;
            }
        }
    return who;
}

/* Each TIMES line's time given to the student it names (by name, folder
 * or roster id); the lines that name no one into *unused (new string). */
static void apply_times(book_input *in, char **unused)
{
    int *used = lab_grow(NULL, (size_t)(in->late.ntimes + 1) * sizeof *used);
    for (int t = 0; t < in->late.ntimes; t++) {
        const char *key = in->late.times[t].f[0];
        char *as_name = intake_student_name(key);
        used[t] = 0;
        for (int i = 0; i < cls.nstudents; i++) {
            int e = in->entry_of[i];
            if (strcmp(as_name, cls.names[i]) && strcmp(key, cls.entries[i]) && (e < 0 || strcmp(key, in->roster[e].id)))
                continue;
            in->sent[i].time = in->late.times_at[t];
            free(in->sent[i].from);
            in->sent[i].from = lab_strdup("TIMES");
            used[t] = 1;
        }
        free(as_name);
    }
    *unused = lab_strdup("");
    for (int t = 0; t < in->late.ntimes; t++)
        if (!used[t])
            lab_appendf(unused, "%s%s (line %d)", **unused ? ", " : "", in->late.times[t].f[0], in->late.times[t].line);
    free(used);
}

/* ================================================================ book */
/* The columns. */
static void make_head(book *b, const book_input *in)
{
    int n = 0;
    push(&b->head, &n, "student");
    if (in->with_id)
        push(&b->head, &n, "id");
    for (int s = 0; s < cls.nstages; s++)
        push(&b->head, &n, cls.stages[s]);
    const char *late[] = {"submitted", "days_late", "late_penalty"};
    for (int k = 0; in->late.has_deadline && k < 3; k++)
        push(&b->head, &n, late[k]);
    const char *tail[] = {"total", "max", "status", "seed", "notes"};
    for (int k = 0; k < 5; k++)
        push(&b->head, &n, tail[k]);
    b->ncols = n;
}

/* One more row, with the name and email an export shows, and whether the
 * row is the roster's (or the class has none). */
static void add_row(book *b, char **row, const char *full_name, const char *email, int listed)
{
    int n = b->nrows++;
    b->rows = lab_grow(b->rows, (size_t)b->nrows * sizeof *b->rows);
    b->full_name = lab_grow(b->full_name, (size_t)b->nrows * sizeof *b->full_name);
    b->email = lab_grow(b->email, (size_t)b->nrows * sizeof *b->email);
    b->listed = lab_grow(b->listed, (size_t)b->nrows * sizeof *b->listed);
    b->rows[n] = row;
    b->full_name[n] = lab_strdup(full_name);
    b->email[n] = lab_strdup(email);
    b->listed[n] = listed;
}

/* A line for the terminal, after the gradebook's. */
static void add_said(book *b, char *line)
{
    lab_appendf(&b->said, "%s\n", line);
    free(line);
}

/* What the run says of the roster, the late and the times. */
static void say_term(book *b, const book_input *in, const char *missing, const char *unlisted, const char *unused)
{
    if (in->nroster)
        add_said(b, lab_asprintf("roster: %d students%s%s", in->nroster, *missing ? "; no submission: " : ", each with a submission",
                        missing));
    if (*unlisted)
        add_said(b, lab_asprintf("not on the roster (rows without an id; make export leaves them out): %s", unlisted));
    if (in->late.has_deadline) {
        char *due = class_time_text(in->late.deadline);
        add_said(b, lab_asprintf("late (deadline %s, %g points off for each day late): %s", due, in->late.penalty,
                        *in->late_list ? in->late_list : "no one"));
        free(due);
    }
    if (in->late.has_deadline && *in->unknown_list)
        add_said(b, lab_asprintf("submission time unknown (not counted late; TIMES can give it): %s", in->unknown_list));
    if (*unused)
        add_said(b, lab_asprintf("TIMES names no student of SUBMISSIONS: %s", unused));
}

/* What the rows are made from: the roster, the policy, each student's
 * submission; which entry each student is. */
static void book_input_read(book_input *in)
{
    *in = (book_input){0};
    in->nroster = class_roster_load(&in->roster);
    class_late_load(&in->late);
    int m = cls.nstudents;
    in->sent = lab_grow(NULL, (size_t)(m + 1) * sizeof *in->sent);
    in->entry_of = lab_grow(NULL, (size_t)(m + 1) * sizeof *in->entry_of);
    in->with_id = in->nroster > 0;
    for (int i = 0; i < m; i++) {
        class_sent_read(cls.names[i], &in->sent[i]);
        in->entry_of[i] = -1;
        in->with_id |= *in->sent[i].sid != 0;
    }
    in->late_list = lab_strdup("");
    in->unknown_list = lab_strdup("");
}

void class_book_make(book *b)
{
    book_input in;
    book_input_read(&in);
    int *who = match_roster(&in);
    char *unused, *missing = lab_strdup(""), *unlisted = lab_strdup("");
    apply_times(&in, &unused);
    *b = (book){0};
    make_head(b, &in);
    for (int e = 0; e < in.nroster; e++) {
        const roster_entry *r = &in.roster[e];
        int i = who[e];
        char **base = i >= 0 ? graded_row(cls.names[i])
                             : fixed_row(r->student, "no submission", "on the roster; nothing of theirs in SUBMISSIONS");
        char **row = book_row(&in, base, r->id, i >= 0 ? in.sent[i].time : NOT_SENT, r->extra_days, NULL);
        add_row(b, row, r->name, r->email, 1);
        if (i < 0)
            lab_join(&missing, ", ", r->name);
    }
    for (int i = 0; i < cls.nstudents; i++) {
        if (in.entry_of[i] >= 0)
            continue;
        const sent_facts *x = &in.sent[i];
        char **row = book_row(&in, graded_row(cls.names[i]), x->sid, x->time, 0, in.nroster ? "not on the roster" : NULL);
        add_row(b, row, cls.names[i], x->email, !in.nroster);
        if (in.nroster)
            lab_join(&unlisted, ", ", cls.names[i]);
    }
    say_term(b, &in, missing, unlisted, unused);
    free(who);
    free(unused);
    free(missing);
    free(unlisted);
    for (int i = 0; i < cls.nstudents; i++)
        class_sent_free(&in.sent[i]);
    free(in.sent);
    free(in.entry_of);
    free(in.late_list);
    free(in.unknown_list);
    class_roster_free(in.roster, in.nroster);
    class_late_free(&in.late);
}

void class_book_free(book *b)
{
    for (int r = 0; r < b->nrows; r++) {
        lab_list_free(b->rows[r]);
        free(b->full_name[r]);
        free(b->email[r]);
    }
    lab_list_free(b->head);
    free(b->rows);
    free(b->full_name);
    free(b->email);
    free(b->listed);
    free(b->said);
}

int class_book_column(const book *b, const char *name)
{
    for (int c = 0; c < b->ncols; c++)
        if (!strcmp(b->head[c], name))
            return c;
    return -1;
}
