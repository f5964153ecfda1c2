/*
 * json.c: the lab's JSON reader (common/jsonread.c) for the scripts, so that
 * no script parses a record (grade.json, make bench's results/ files, the
 * records under measurements/) with awk or sed of its own.
 *
 *   build/tools/json get FILE PATH     the value at PATH ("stages.3.points"):
 *                                      a string as it is, a number as written,
 *                                      true, false, null; an array or an object:
 *                                      its number of members
 *   build/tools/json check FILE [PATH...]
 *                                      nothing, where FILE is JSON and each PATH
 *                                      has a value (a results.json's "score",
 *                                      "tests"); else what is wrong, on stderr
 *   build/tools/json flat [--names] FILE...
 *                                      every scalar, in order, one a line:
 *                                      "PATH<TAB>VALUE" ("stages.0.stage<TAB>01_naive");
 *                                      with --names, "FILE<TAB>PATH<TAB>VALUE".
 *                                      A tab, a newline, a CR and a backslash in a
 *                                      string are written \t \n \r \\
 *
 * Exit status: 0 done, 1 usage, 2 a FILE cannot be read, 3 a FILE is not
 * JSON (or beyond the reader's limits), 4 no value at PATH.
 */
#include "util.h"

#include <stdio.h>
#include <string.h>

enum { JSON_OK, JSON_USAGE, JSON_NO_FILE, JSON_NOT_JSON, JSON_NO_PATH };

#define JSON_MAX_BYTES (64u << 20)

/* The file parsed, or NULL with the reason said and *rc set. */
static jvalue *load(const char *file, int *rc)
{
    char err[256];
    jvalue *v = lab_json_read(file, JSON_MAX_BYTES, err, sizeof err);
    if (!v) {
        *rc = strstr(err, "cannot read") == err ? JSON_NO_FILE : JSON_NOT_JSON;
        fprintf(stderr, "json: %s: %s\n", file, err);
    }
    return v;
}

/* A scalar as get and flat print it; escaped: one line whatever it holds. */
static void put_scalar(const jvalue *x, int escaped)
{
    if (x->type == J_STRING && escaped) {
        for (const char *p = x->string; *p; p++) {
            const char *e = *p == '\t' ? "\\t" : *p == '\n' ? "\\n" : *p == '\r' ? "\\r" : *p == '\\' ? "\\\\" : NULL;
            if (e)
                fputs(e, stdout);
            else
                putchar(*p);
        }
    } else if (x->type == J_STRING || x->type == J_NUMBER) {
        fputs(x->string, stdout);
    } else if (x->type == J_BOOL) {
        fputs(x->boolean ? "true" : "false", stdout);
    } else if (x->type == J_NULL) {
        fputs("null", stdout);
    } else {
        printf("%d", x->count);
    }
    putchar('\n');
}

/* Each PATH's value in FILE, printed (get) or only looked for (check). */
static int lookup(const char *file, char **paths, int n, int print)
{
    int rc = JSON_OK;
    jvalue *v = load(file, &rc);
    if (!v)
        return rc;
    for (int i = 0; i < n; i++) {
        const jvalue *x = lab_json_path(v, paths[i]);
        if (!x) {
            fprintf(stderr, "json: %s: no value at %s\n", file, paths[i]);
            rc = JSON_NO_PATH;
        } else if (print) {
            put_scalar(x, 0);
        }
    }
    lab_json_free(v);
    return rc;
}

/* Every scalar under v, its path below prefix (path holds room for it). */
static void flat(const char *name, const jvalue *v, char *path, size_t len, size_t cap)
{
    if (v->type != J_ARRAY && v->type != J_OBJECT) {
        if (name)
            printf("%s\t", name);
        printf("%s\t", path);
        put_scalar(v, 1);
        return;
    }
    for (int i = 0; i < v->count; i++) {
        int n = v->keys ? snprintf(path + len, cap - len, "%s%s", len ? "." : "", v->keys[i])
                        : snprintf(path + len, cap - len, "%s%d", len ? "." : "", i);
        if (n > 0 && len + (size_t)n < cap)
            flat(name, v->items[i], path, len + (size_t)n, cap);
        path[len] = 0;
    }
}

int main(int argc, char **argv)
{
    if (argc == 4 && !strcmp(argv[1], "get"))
        return lookup(argv[2], argv + 3, 1, 1);
    if (argc >= 3 && !strcmp(argv[1], "check"))
        return lookup(argv[2], argv + 3, argc - 3, 0);
    int names = argc > 2 && !strcmp(argv[2], "--names"), first = 2 + names;
    if (argc <= first || strcmp(argv[1], "flat")) {
        fprintf(stderr, "usage: json get FILE PATH | json check FILE [PATH...] | json flat [--names] FILE...\n");
        return JSON_USAGE;
    }
    int rc = JSON_OK;
    for (int i = first; i < argc; i++) {
        jvalue *v = load(argv[i], &rc);
        if (!v)
            continue;
        static char path[4096];
        path[0] = 0;
        flat(names ? argv[i] : NULL, v, path, 0, sizeof path);
        lab_json_free(v);
    }
    return rc;
}
