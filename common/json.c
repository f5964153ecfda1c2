/*
 * json.c: a small streaming JSON writer for the drivers' records.
 */
#include "lab.h"

#include <math.h>
#include <stdlib.h>

/* Write s as a JSON string literal, escaping what JSON requires. */
static void quoted(FILE *f, const char *s)
{
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\')
            fprintf(f, "\\%c", *p);
        else if (*p == '\n')
            fputs("\\n", f);
        else if (*p == '\t')
            fputs("\\t", f);
        else if (*p < 0x20)
            fprintf(f, "\\u%04x", *p);
        else
            fputc(*p, f);
    }
    fputc('"', f);
}

/* Start a member: comma after the previous one, newline, indentation, key. */
static void member(lab_json *j, const char *key)
{
    if (j->count[j->depth]++)
        fputc(',', j->f);
    fputc('\n', j->f);
    for (int i = 0; i <= j->depth; i++)
        fputs("  ", j->f);
    if (key) {
        quoted(j->f, key);
        fputs(": ", j->f);
    }
}

void lab_json_start(lab_json *j, FILE *f)
{
    j->f = f;
    j->depth = 0;
    j->count[0] = 0;
    j->close[0] = '}';
    fputc('{', f);
}

void lab_json_finish(lab_json *j)
{
    while (j->depth > 0)
        lab_json_end(j);
    fputs("\n}\n", j->f);
    fflush(j->f);
}

/* Open an object or array one level down; the writer's own records never
 * nest deeper than LAB_JSON_DEPTH, so running out is a bug in the lab. */
static void open_nested(lab_json *j, const char *key, char open, char close)
{
    if (j->depth + 1 >= LAB_JSON_DEPTH) {
        fprintf(stderr, "lab_json: records nest deeper than %d levels\n", LAB_JSON_DEPTH);
        abort();
    }
    member(j, key);
    fputc(open, j->f);
    j->depth++;
    j->count[j->depth] = 0;
    j->close[j->depth] = close;
}

void lab_json_object(lab_json *j, const char *key) { open_nested(j, key, '{', '}'); }
void lab_json_array(lab_json *j, const char *key) { open_nested(j, key, '[', ']'); }

void lab_json_end(lab_json *j)
{
    if (j->depth == 0)
        return;
    if (j->count[j->depth]) {
        fputc('\n', j->f);
        for (int i = 0; i < j->depth; i++)
            fputs("  ", j->f);
    }
    fputc(j->close[j->depth], j->f);
    j->depth--;
}

void lab_json_string(lab_json *j, const char *key, const char *value)
{
    member(j, key);
    quoted(j->f, value ? value : "");
}

void lab_json_number(lab_json *j, const char *key, double value)
{
    member(j, key);
    if (isfinite(value))
        fprintf(j->f, "%.6g", value);
    else
        fputs("null", j->f);
}

void lab_json_int(lab_json *j, const char *key, long long value)
{
    member(j, key);
    fprintf(j->f, "%lld", value);
}

void lab_json_bool(lab_json *j, const char *key, int value)
{
    member(j, key);
    fputs(value ? "true" : "false", j->f);
}
