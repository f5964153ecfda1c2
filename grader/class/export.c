/*
 * export.c: make export: the gradebook (grader/class/book.c) in the forms
 * a course's other tools import, each as OUT/gradebook-FORMAT.csv:
 *
 *   gradescope  Name, SID, Email, Total Score
 *   canvas      Student, ID, SIS User ID, SIS Login ID, Section, ASSIGNMENT;
 *               a Points Possible row first
 *   plain       id, total, each stage's points
 *
 * Who is in them: each row of the roster (a class without one: each row
 * with a Gradescope export's SID), by its id. The score is the gradebook's
 * total, the late penalty taken off; 0 for "no submission" and "refused";
 * blank where grading did not end (not graded, no GPU, ...: an import then
 * leaves that grade as it is), those students named.
 *
 * The columns are those the importing tools document. Canvas: its
 * Instructor Guide, "How do I import grades in the Gradebook?", whose rules
 * a university's guide restates (teaching.resources.osu.edu, "Import CSV
 * File for Carmen Grades"): the student named by Student name, ID or SIS
 * User ID (the roster's id goes there; ID is Canvas's own user number, left
 * blank), then SIS Login ID and Section, then a column per assignment
 * named as the assignment (a new name makes a new assignment); the Points
 * Possible row is the one Canvas's own gradebook export has under its
 * header; CSV as Canvas's "SIS CSV Format" says (a header row, quotes as
 * RFC 4180, UTF-8). Gradescope: "Adding Students and Staff"
 * (guides.gradescope.com: a roster's Name and Email columns, one email a
 * student, SID beside them), whose grade upload matches a student by Email
 * or SID and takes a score column.
 */
#include "class.h"
#include "grader.h"

#include <stdlib.h>
#include <string.h>

static const char *const formats_known[] = {"gradescope", "canvas", "plain"};

/* The row's score for an import: its total; 0 where nothing gradable was
 * sent; NULL where grading did not end. */
static const char *score_of(const book *b, int r)
{
    const char *total = b->rows[r][class_book_column(b, "total")], *status = b->rows[r][class_book_column(b, "status")];
    if (*total)
        return total;
    if (!strcmp(status, "no submission") || !strcmp(status, "refused"))
        return "0";
    return NULL;
}

/* The file of one format: its header, then a line a row that has an id
 * and a score (*rows: how many). */
static char *format_text(const book *b, const char *format, const char *assignment, int *rows)
{
    int id = class_book_column(b, "id"), max = class_book_column(b, "max");
    int first = id + 1, nstages = cls.nstages;
    char *text = lab_strdup(""), *most = NULL;
    for (int r = 0; r < b->nrows && !most; r++)
        if (*b->rows[r][max])
            most = b->rows[r][max];
    if (!strcmp(format, "gradescope")) {
        const char *head[] = {"Name", "SID", "Email", "Total Score"};
        class_csv_line(&text, head, 4);
    } else if (!strcmp(format, "canvas")) {
        const char *head[] = {"Student", "ID", "SIS User ID", "SIS Login ID", "Section", assignment};
        const char *possible[] = {"Points Possible", "", "", "", "", most ? most : ""};
        class_csv_line(&text, head, 6);
        class_csv_line(&text, possible, 6);
    } else {
        const char **head = lab_grow(NULL, (size_t)(nstages + 2) * sizeof *head);
        head[0] = "id", head[1] = "total";
        for (int s = 0; s < nstages; s++)
            head[2 + s] = cls.stages[s];
        class_csv_line(&text, head, nstages + 2);
        free(head);
    }
    *rows = 0;
    for (int r = 0; r < b->nrows; r++) {
        const char *score = score_of(b, r), *sid = b->rows[r][id];
        if (!b->listed[r] || !*sid || !score)
            continue;
        (*rows)++;
        if (!strcmp(format, "gradescope")) {
            const char *line[] = {b->full_name[r], sid, b->email[r], score};
            class_csv_line(&text, line, 4);
        } else if (!strcmp(format, "canvas")) {
            const char *line[] = {b->full_name[r], "", sid, "", "", score};
            class_csv_line(&text, line, 6);
        } else {
            const char **line = lab_grow(NULL, (size_t)(nstages + 2) * sizeof *line);
            line[0] = sid, line[1] = score;
            for (int s = 0; s < nstages; s++)
                line[2 + s] = b->rows[r][first + s];
            class_csv_line(&text, line, nstages + 2);
            free(line);
        }
    }
    return text;
}

/* The rows an export leaves out, and why, said in lines. */
static void say_left_out(const book *b)
{
    char *no_id = lab_strdup(""), *blank = lab_strdup("");
    int id = class_book_column(b, "id");
    for (int r = 0; r < b->nrows; r++) {
        char **list = !b->listed[r] || !*b->rows[r][id] ? &no_id : !score_of(b, r) ? &blank : NULL;
        if (!list)
            continue;
        lab_join(list, ", ", b->rows[r][0]);
    }
    if (*no_id)
        class_say("left out, not on the roster or without an id: %s", no_id);
    if (*blank)
        class_say("left blank, their grading did not end (make class again, then make export): %s", blank);
    free(no_id);
    free(blank);
}

void class_export(const char *formats, const char *assignment)
{
    int n;
    char **want = lab_words(formats, &n);
    if (!n)
        lab_fatal(CLASS_USAGE, "FORMAT names no format: gradescope, canvas or plain, or several of them");
    for (int i = 0; i < n; i++) {
        int known = 0;
        for (int k = 0; k < 3; k++)
            known |= !strcmp(want[i], formats_known[k]);
        if (!known)
            lab_fatal(CLASS_USAGE, "FORMAT is gradescope, canvas or plain, or several of them, not '%s'", want[i]);
    }
    if (!*assignment)
        lab_fatal(CLASS_USAGE, "ASSIGNMENT is the name of the assignment in Canvas; give one");
    if (cls.sw[SW_CHECK])
        lab_fatal(CLASS_BAD_TERM, "%s is a check (CHECK=1): no points to export; export a graded class", cls.out);
    book b;
    class_book_make(&b);
    if (class_book_column(&b, "id") < 0)
        lab_fatal(CLASS_BAD_TERM, "no student of %s has an id: give the class its roster (make class "
                   "SUBMISSIONS=... OUT=%s ROSTER=roster.csv: it grades no one again), then make export", cls.out,
                   cls.out);
    for (int i = 0; i < n; i++) {
        int rows;
        char *text = format_text(&b, want[i], assignment, &rows);
        char *path = lab_asprintf("%s/gradebook-%s.csv", cls.out, want[i]);
        if (lab_write_atomic(path, text))
            lab_fatal(CLASS_FAILED, "cannot write %s", path);
        class_say("export: %s, %d student%s", path, rows, rows == 1 ? "" : "s");
        free(path);
        free(text);
    }
    say_left_out(&b);
    lab_list_free(want);
    class_book_free(&b);
}
