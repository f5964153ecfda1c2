/*
 * classdata.c: a class's OUT as make class left it: gradebook.csv (one row
 * a student: points per stage, total, max, status, seed, notes; with a
 * roster or a deadline, grader/class/book.c's columns beside them) and each
 * student's grade.json, read with the grader's own JSON reader, which takes
 * nothing in a record on trust. A student without a record (refused, not
 * graded) keeps the gradebook's row alone. A check (class.conf: check=1)
 * has no records: each student's check.tsv instead (grader/class/check.c),
 * the first message of each stage.
 */
#include "report.h"

#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static int number(const jvalue *v, const char *path, int fallback)
{
    double d;
    return lab_json_number_at(v, path, &d) == 0 ? (int)d : fallback;
}

static void read_tiers(const jvalue *st, stage_rec *r)
{
    const jvalue *tiers = lab_json_get(st, "tiers");
    for (int k = 0; tiers && tiers->type == J_ARRAY && k < tiers->count && r->ntiers < 4; k++) {
        const jvalue *t = tiers->items[k];
        tier_rec *o = &r->tiers[r->ntiers++];
        const char *s;
        snprintf(o->name, sizeof o->name, "%s", (s = lab_json_string_at(t, "name")) ? s : "?");
        snprintf(o->field, sizeof o->field, "%s", (s = lab_json_string_at(t, "field")) ? s : "");
        snprintf(o->op, sizeof o->op, "%s", (s = lab_json_string_at(t, "op")) && !strcmp(s, "<=") ? "<=" : ">=");
        o->points = number(t, "points", 0);
        o->max = number(t, "max_points", 0);
        o->graded = lab_json_bool_at(t, "graded") == 1;
        o->have_threshold = lab_json_number_at(t, "threshold", &o->threshold) == 0;
        o->have_value = lab_json_number_at(t, "value", &o->value) == 0;
    }
}

/* The student's grade.json into s->stages (one per class stage). */
static void read_record(const char *out, class_rec *c, student_rec *s)
{
    s->stages = lab_alloc((size_t)c->nstages * sizeof *s->stages);
    char *path = lab_asprintf("%s/students/%s/grade.json", out, s->name);
    size_t len;
    int link;
    char *text = report_read_plain(path, &len, &link);
    free(path);
    if (!text)
        return;
    char err[256];
    jvalue *v = lab_json_parse(text, len, err, sizeof err);
    free(text);
    if (!v) {
        s->record_error = lab_asprintf("grade.json is not the grader's: %s", err);
        return;
    }
    s->have_record = 1;
    const char *gpu = lab_json_string_at(v, "gpu");
    if (gpu && *gpu && !c->gpu)
        c->gpu = lab_strdup(gpu);
    const jvalue *stages = lab_json_get(v, "stages");
    for (int k = 0; stages && stages->type == J_ARRAY && k < stages->count; k++) {
        const jvalue *st = stages->items[k];
        const char *name = lab_json_string_at(st, "stage");
        for (int i = 0; name && i < c->nstages; i++) {
            if (strcmp(name, c->stages[i]) || s->stages[i].present)
                continue;
            stage_rec *r = &s->stages[i];
            r->present = 1;
            r->points = number(st, "points", 0);
            r->max = number(st, "max_points", 0);
            r->correct = lab_json_bool_at(st, "correct") == 1;
            r->flagged = lab_json_bool_at(st, "flagged") == 1;
            r->ran = lab_json_bool_at(st, "ran") == 1;
            r->bonus = lab_json_bool_at(st, "bonus") == 1;
            const char *why = lab_json_string_at(st, "reason");
            r->reason = lab_strdup(why ? why : "");
            read_tiers(st, r);
        }
    }
    lab_json_free(v);
}

/* The student's check.tsv: "stage<TAB>word<TAB>message" a line after its
 * header; each class stage's message into s->messages ("" when none). */
static void read_check(const char *out, class_rec *c, student_rec *s)
{
    s->messages = lab_alloc((size_t)(c->nstages + 1) * sizeof *s->messages);
    for (int i = 0; i < c->nstages; i++)
        s->messages[i] = lab_strdup("");
    char *path = lab_asprintf("%s/students/%s/check.tsv", out, s->name), *text = report_read_plain(path, NULL, NULL);
    free(path);
    for (char *line = text, *next; line && *line; line = next) {
        next = line + strcspn(line, "\n");
        if (*next)
            *next++ = 0;
        char *tab = strchr(line, '\t'), *tab2 = tab ? strchr(tab + 1, '\t') : NULL;
        if (!tab2)
            continue;
        *tab = 0;
        for (int i = 0; i < c->nstages; i++)
            if (!strcmp(line, c->stages[i])) {
                free(s->messages[i]);
                s->messages[i] = lab_strdup(tab2 + 1);
            }
    }
    free(text);
}

/* Whether OUT is a check (make class CHECK=1): class.conf's check=1. */
static int is_check(const char *out)
{
    char *path = lab_asprintf("%s/class.conf", out), *text = report_read_plain(path, NULL, NULL);
    free(path);
    int check = text && (!strncmp(text, "check=1\n", 8) || strstr(text, "\ncheck=1\n"));
    free(text);
    return check;
}

/* FNV-1a of the name and the class's seed: the order of the pseudonyms,
 * so that student-01 is not the first name in the alphabet. */
static uint64_t mix(const char *name, const char *seed)
{
    uint64_t h = 1469598103934665603ull;
    for (const char *p = seed; *p; p++)
        h = (h ^ (unsigned char)*p) * 1099511628211ull;
    for (const char *p = name; *p; p++)
        h = (h ^ (unsigned char)*p) * 1099511628211ull;
    return h;
}

static const class_rec *sorting;
static int by_mix(const void *a, const void *b)
{
    uint64_t x = mix(sorting->students[*(const int *)a].name, sorting->seed);
    uint64_t y = mix(sorting->students[*(const int *)b].name, sorting->seed);
    return x < y ? -1 : x > y;
}

void class_read(const char *out, int anon, class_rec *c)
{
    memset(c, 0, sizeof *c);
    char *path = lab_asprintf("%s/gradebook.csv", out);
    char *text = report_read_plain(path, NULL, NULL);
    if (!text)
        lab_fatal(REPORT_FAILED, "no %s: run make class first (the report is made from its gradebook)", path);
    free(path);
    c->check = is_check(out);
    int nlines, nh = 0;
    char **line = lab_lines(text, &nlines), **head = nlines ? lab_csv_fields(line[0], &nh) : NULL;
    free(text);
    /* student, [id], the stages (NN_name), [submitted, days_late,
     * late_penalty], total, max, status, seed, notes */
    if (!head || nh < 6 || strcmp(head[0], "student") || strcmp(head[nh - 5], "total") || strcmp(head[nh - 1], "notes"))
        lab_fatal(REPORT_FAILED, "%s/gradebook.csv does not start with make class's header", out);
    int *col = lab_alloc((size_t)nh * sizeof *col);
    c->stages = lab_alloc((size_t)nh * sizeof *c->stages);
    for (int i = 1; i < nh - 5; i++)
        if (isdigit((unsigned char)head[i][0]) && isdigit((unsigned char)head[i][1]) && head[i][2] == '_') {
            col[c->nstages] = i;
            c->stages[c->nstages++] = lab_strdup(head[i]);
        }
    c->seed = lab_strdup("");
    for (int k = 1; k < nlines; k++) {
        int n = 0;
        char **f = lab_csv_fields(line[k], &n);
        if (!f || n != nh || !*f[0]) {
            lab_list_free(f);
            continue;
        }
        c->students = lab_grow(c->students, (size_t)(c->nstudents + 1) * sizeof *c->students);
        student_rec *s = &c->students[c->nstudents++];
        memset(s, 0, sizeof *s);
        s->name = lab_strdup(f[0]);
        s->points = lab_alloc((size_t)c->nstages * sizeof *s->points);
        for (int i = 0; i < c->nstages; i++)
            s->points[i] = lab_strdup(f[col[i]]);
        s->total = lab_strdup(f[nh - 5]);
        s->max = lab_strdup(f[nh - 4]);
        s->status = lab_strdup(f[nh - 3]);
        if (!*c->seed && *f[nh - 2]) {
            free(c->seed);
            c->seed = lab_strdup(f[nh - 2]);
        }
        s->notes = lab_strdup(f[nh - 1]);
        lab_list_free(f);
        read_record(out, c, s);
        if (c->check)
            read_check(out, c, s);
    }
    lab_list_free(head);
    lab_list_free(line);
    free(col);
    int *order = lab_alloc((size_t)(c->nstudents + 1) * sizeof *order);
    for (int i = 0; i < c->nstudents; i++)
        order[i] = i;
    sorting = c;
    if (anon)
        qsort(order, (size_t)c->nstudents, sizeof *order, by_mix);
    /* in the order of the names shown: anonymised rows in the alphabet's
     * order would tell who is who */
    student_rec *sorted = lab_alloc((size_t)(c->nstudents + 1) * sizeof *sorted);
    for (int k = 0; k < c->nstudents; k++) {
        sorted[k] = c->students[order[k]];
        sorted[k].shown = anon ? lab_asprintf("student-%02d", k + 1) : lab_strdup(sorted[k].name);
    }
    free(c->students);
    c->students = sorted;
    free(order);
}

char *report_anonymised(const student_rec *s, const char *text)
{
    if (!strcmp(s->name, s->shown) || !*s->name)
        return lab_strdup(text);
    size_t nl = strlen(s->name), sl = strlen(s->shown), n = 0;
    for (const char *q = text; (q = strstr(q, s->name)); q += nl)
        n++;
    char *o = lab_alloc(strlen(text) + n * sl + 1), *w = o;
    for (const char *q = text, *hit; *q; q = hit + nl) {
        if (!(hit = strstr(q, s->name))) {
            strcpy(w, q);
            break;
        }
        memcpy(w, q, (size_t)(hit - q));
        w += hit - q;
        memcpy(w, s->shown, sl);
        w += sl;
        *w = 0;
    }
    return o;
}
