/*
 * points.c: a student's grade.json, as make grade wrote it, into what the
 * gradebook needs: the score, the maximum, the seed, the bonus, each
 * stage's points, and for each stage that lost points a phrase of a few
 * words (PHRASE_MAX characters at most) saying why: the head of the
 * grader's reason ("wrong result at n=17", "timed out after 60 s", "did not
 * compile: " and the compiler's first error), or the speed tiers a correct
 * kernel missed. The details stay in the student's grade.log and
 * grade.json. The record is read with the grader's own JSON reader
 * (common/jsonread.c), which takes no input on trust.
 */
#include "class.h"
#include "grader.h"
#include "stages.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A number as make grade wrote it (whole numbers without a point), a
 * string as it is; "" for anything else or nothing. */
static char *text_of(const jvalue *v)
{
    if (v && v->type == J_NUMBER && isfinite(v->number)) {
        if (v->number == floor(v->number) && fabs(v->number) < 1e15)
            return lab_asprintf("%.0f", v->number);
        return lab_asprintf("%.10g", v->number);
    }
    if (v && v->type == J_STRING)
        return lab_strdup(v->string);
    return lab_strdup("");
}

/* Cut s to at most max bytes without splitting a UTF-8 character. */
static void cut_utf8(char *s, size_t max)
{
    size_t n = strlen(s);
    if (n <= max)
        return;
    while (max > 0 && ((unsigned char)s[max] & 0xC0) == 0x80)
        max--;
    s[max] = 0;
}

/* The text before its first ": " or "; " outside parentheses; what is
 * left, when still longer than PHRASE_MAX, without its first " (" on. */
static void head(const char *text, char *out, size_t len)
{
    snprintf(out, len, "%s", text);
    int depth = 0;
    size_t n = strlen(out);
    for (size_t i = 0; i + 1 < n; i++) {
        char c = out[i];
        if (c == '(')
            depth++;
        else if (c == ')' && depth > 0)
            depth--;
        else if (depth == 0 && (c == ':' || c == ';') && out[i + 1] == ' ') {
            out[i] = 0;
            break;
        }
    }
    char *paren;
    if (strlen(out) > PHRASE_MAX && (paren = strstr(out, " (")))
        *paren = 0;
}

void class_phrase_of(const char *reason, int flagged, const char *missed, char *out, size_t len)
{
    char p[4096], h[4096];
    if (!*reason) {
        if (flagged)
            snprintf(p, sizeof p, "correct; its time cannot be real: no speed points");
        else if (*missed)
            snprintf(p, sizeof p, "correct, too slow for the %s tier%s", missed, strstr(missed, ", ") ? "s" : "");
        else
            snprintf(p, sizeof p, "lost points (see grade.log)");
    } else if (!strncmp(reason, "did not compile", 15)) {
        /* the compiler's first error, without the file and line before it */
        const char *e = strstr(reason, "error: ");
        snprintf(p, sizeof p, "did not compile%s%s", e ? ": " : "", e ? e + 7 : "");
    } else if (!strncmp(reason, "crashed: ", 9) || !strncmp(reason, "refused: ", 9) ||
               !strncmp(reason, "compute-sanitizer: ", 19)) {
        const char *rest = strstr(reason, ": ") + 2;
        head(rest, h, sizeof h);
        size_t n = (size_t)(rest - reason);
        memcpy(p, reason, n);
        snprintf(p + n, sizeof p - n, "%s", h);
    } else {
        head(reason, p, sizeof p);
    }
    if (strstr(reason, "TODO(lab)") && !strstr(p, "TODO(lab)")) {
        size_t n = strlen(p);
        snprintf(p + n, sizeof p - n, " (TODO(lab) left)");
    }
    if (strlen(p) > PHRASE_MAX) {
        cut_utf8(p, PHRASE_MAX - 3);
        strcat(p, "...");
    }
    snprintf(out, len, "%s", p);
}

/* One stage of the record: its points and, when it lost some, why. */
static void read_stage(const jvalue *st, stage_points *s)
{
    s->name = text_of(lab_json_get(st, "stage"));
    s->points = text_of(lab_json_get(st, "points"));
    s->phrase[0] = 0;
    double points, max;
    if (lab_json_number_at(st, "points", &points) == 0 && lab_json_number_at(st, "max_points", &max) == 0 &&
        points >= max)
        return;
    /* the speed tiers it missed, in order */
    char missed[1024] = "";
    const jvalue *tiers = lab_json_get(st, "tiers");
    for (int k = 0; tiers && tiers->type == J_ARRAY && k < tiers->count; k++) {
        const char *name = lab_json_string_at(tiers->items[k], "name");
        double tp, tm;
        if (name && *name && lab_json_number_at(tiers->items[k], "points", &tp) == 0 &&
            lab_json_number_at(tiers->items[k], "max_points", &tm) == 0 && tp < tm) {
            size_t n = strlen(missed);
            snprintf(missed + n, sizeof missed - n, "%s%s", n ? ", " : "", name);
        }
    }
    /* the reason on one line */
    const char *r = lab_json_string_at(st, "reason");
    char *reason = lab_strdup(r ? r : "");
    for (char *c = reason; *c; c++)
        if (*c == '\n' || *c == '\t')
            *c = ' ';
    class_phrase_of(reason, lab_json_bool_at(st, "flagged") == 1, missed, s->phrase, sizeof s->phrase);
    free(reason);
}

int class_points_read(const char *path, points *p, char *err, size_t errlen)
{
    memset(p, 0, sizeof *p);
    char *text = lab_read_file(path, 0);
    if (!text) {
        snprintf(err, errlen, "cannot read %s", path);
        return -1;
    }
    jvalue *root = lab_json_parse(text, strlen(text), err, errlen);
    free(text);
    if (!root)
        return -1;
    p->score = text_of(lab_json_get(root, "score"));
    p->max = text_of(lab_json_get(root, "max_score"));
    p->seed = text_of(lab_json_get(root, "seed"));
    p->bonus = text_of(lab_json_get(root, "bonus_score"));
    p->bonus_max = text_of(lab_json_get(root, "bonus_max"));
    const jvalue *stages = lab_json_get(root, "stages");
    int n = stages && stages->type == J_ARRAY ? stages->count : 0;
    p->stages = lab_grow(NULL, (n + 1) * sizeof *p->stages);
    for (int i = 0; i < n; i++)
        if (stages->items[i]->type == J_OBJECT)
            read_stage(stages->items[i], &p->stages[p->nstages++]);
    lab_json_free(root);
    return 0;
}

void class_points_free(points *p)
{
    free(p->score);
    free(p->max);
    free(p->seed);
    free(p->bonus);
    free(p->bonus_max);
    for (int i = 0; i < p->nstages; i++) {
        free(p->stages[i].name);
        free(p->stages[i].points);
    }
    free(p->stages);
    memset(p, 0, sizeof *p);
}

const stage_points *class_points_stage(const points *p, const char *stage)
{
    for (int i = 0; p && i < p->nstages; i++)
        if (!strcmp(p->stages[i].name, stage))
            return &p->stages[i];
    return NULL;
}

/* ===================================================== not submitted */
/* A stage's most points (its points line and its tiers' points in
 * stages.tsv, compiled in: build/stages.h), and whether it is a bonus. */
static double stage_max(const char *stage, int *bonus)
{
    static const struct {
        int line;
        const char *text;
    } rubric[] = {LAB_STAGE_RUBRIC};
    double max = 0;
    *bonus = 0;
    for (size_t i = 0; rubric[i].text; i++) { /* the table ends with {0, NULL} */
        char kind[16], name[128], third[128];
        double value;
        int got = sscanf(rubric[i].text, "%15[^\t]\t%127[^\t]\t%127[^\t]\t%lf", kind, name, third, &value);
        if (got < 2 || strcmp(name, stage))
            continue;
        if (!strcmp(kind, "bonus"))
            *bonus = 1;
        else if (!strcmp(kind, "points") && got >= 3)
            max += atof(third);
        else if (!strcmp(kind, "tier") && got == 4)
            max += value;
    }
    return max;
}

/* Add x to the number text *t ("" counts as 0). */
static void add_to(char **t, double x)
{
    char *sum = lab_asprintf("%.10g", atof(*t) + x);
    free(*t);
    *t = sum;
}

void class_points_add_missing(points *p, const char *missing)
{
    char **w = lab_words(missing, NULL);
    for (int i = 0; w[i]; i++) {
        if (class_points_stage(p, w[i]))
            continue;
        int bonus;
        double max = stage_max(w[i], &bonus);
        p->stages = lab_grow(p->stages, (p->nstages + 1) * sizeof *p->stages);
        stage_points *sp = &p->stages[p->nstages++];
        sp->name = lab_strdup(w[i]);
        sp->points = lab_strdup("0");
        snprintf(sp->phrase, sizeof sp->phrase, "not submitted");
        add_to(bonus ? &p->bonus_max : &p->max, max);
        if (bonus)
            add_to(&p->bonus, 0);
        else
            add_to(&p->score, 0);
    }
    lab_list_free(w);
}
