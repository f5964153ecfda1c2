/*
 * recordtsv.c: a driver's run record (results/<stage>.json, make bench; the
 * records under measurements/) as tab-separated lines, for the scripts that
 * draw plots (tools/records2dat.sh): the lab's one JSON reader (jsonread.c)
 * reads it, so that no script parses JSON.
 *
 *   build/grader/grade --record-tsv RECORD.json
 *
 * prints a header line, then one line per kernel: every object, at any
 * depth, with a string "name" and a number "rate" (but the GPU's own
 * object), in the order of the record, after the objects inside it:
 *   stage metric gpu date variant name rate median_ms
 * stage, metric ("metric" or "timing.metric"), gpu ("gpu" or "device": a
 * string, or an object's "name"), date and variant are the record's and
 * the same on every line ("-" where it has none); median_ms is the
 * kernel's own ("-" where it has none). Exit 0; 2 when the file
 * cannot be read or is not JSON; 1 when it names no kernel with a rate.
 */
#include "grader.h"

#include <stdlib.h>
#include <string.h>

/* The record's string at path, or "-"; tabs and line ends become blanks. */
static void field(const jvalue *rec, const char *path, char *out, size_t len)
{
    const char *s = lab_json_string_at(rec, path);
    snprintf(out, len, "%s", s && s[0] ? s : "-");
    for (char *p = out; *p; p++)
        if (*p == '\t' || *p == '\n' || *p == '\r')
            *p = ' ';
}

typedef struct {
    char meta[5][NAME_LEN + 8]; /* stage, metric, gpu, date, variant, with their tabs */
    int rows;
} record_out;

/* v stands under key (its array's key, for an array's members). */
static void kernels(const jvalue *v, const char *key, record_out *o)
{
    if (v->type != J_OBJECT && v->type != J_ARRAY)
        return;
    for (int i = 0; i < v->count; i++)
        kernels(v->items[i], v->type == J_OBJECT ? v->keys[i] : key, o);
    if (v->type != J_OBJECT || !strcmp(key, "gpu") || !strcmp(key, "device"))
        return;
    const char *name = lab_json_string_at(v, "name");
    double rate;
    if (!name || lab_json_number_at(v, "rate", &rate))
        return;
    printf("%s%s%s%s%s", o->meta[0], o->meta[1], o->meta[2], o->meta[3], o->meta[4]);
    for (const char *p = name; *p; p++)
        putchar(*p == '\t' || *p == '\n' || *p == '\r' ? ' ' : *p);
    double ms;
    if (lab_json_number_at(v, "median_ms", &ms))
        printf("\t%.15g\t-\n", rate);
    else
        printf("\t%.15g\t%.15g\n", rate, ms);
    o->rows++;
}

int grader_record_tsv(const char *path)
{
    char err[256];
    jvalue *rec = lab_json_read(path, 16u << 20, err, sizeof err);
    if (!rec) {
        fprintf(stderr, "grade: --record-tsv %s: %s\n", path, err);
        return GRADE_USAGE;
    }
    record_out o = {0};
    static const char *const paths[5][2] = {
        {"stage", NULL}, {"metric", "timing.metric"}, {"gpu", "device"}, {"date", NULL}, {"variant", NULL}};
    for (int k = 0; k < 5; k++) {
        char one[NAME_LEN];
        field(rec, paths[k][0], one, sizeof one);
        if (!strcmp(one, "-") && paths[k][1])
            field(rec, paths[k][1], one, sizeof one);
        if (!strcmp(one, "-") && k == 2) { /* the GPU as an object with its name */
            field(rec, "gpu.name", one, sizeof one);
            if (!strcmp(one, "-"))
                field(rec, "device.name", one, sizeof one);
        }
        snprintf(o.meta[k], sizeof o.meta[k], "%s\t", one);
    }
    printf("stage\tmetric\tgpu\tdate\tvariant\tname\trate\tmedian_ms\n");
    kernels(rec, "", &o);
    lab_json_free(rec);
    if (!o.rows)
        fprintf(stderr, "grade: --record-tsv %s: no kernel with a name and a rate\n", path);
    return o.rows ? 0 : 1;
}
