/*
 * text.c: key/value tables, numbers read and shown as the report wants them,
 * and the lines of the files ncu and the drivers leave.
 */
#include "profile.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

void *xmalloc(size_t size)
{
    void *p = malloc(size ? size : 1);
    if (!p) {
        fprintf(stderr, "error: out of memory\n");
        exit(1);
    }
    return p;
}

char *xstrdup(const char *s)
{
    size_t n = strlen(s) + 1;
    return memcpy(xmalloc(n), s, n);
}

char *xasprintf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *s = xmalloc((size_t)n + 1);
    va_start(ap, fmt);
    vsnprintf(s, (size_t)n + 1, fmt, ap);
    va_end(ap);
    return s;
}

/* ------------------------------------------------------------ tables */

static int kv_find(const struct kv *t, const char *key)
{
    for (int i = 0; i < t->n; i++)
        if (strcmp(t->key[i], key) == 0)
            return i;
    return -1;
}

void kv_set(struct kv *t, const char *key, const char *val)
{
    int i = kv_find(t, key);
    if (i >= 0) {
        free(t->val[i]);
        t->val[i] = xstrdup(val);
        return;
    }
    if (t->n == t->cap) {
        t->cap = t->cap ? 2 * t->cap : 32;
        char **k = realloc(t->key, (size_t)t->cap * sizeof *k);
        char **v = k ? realloc(t->val, (size_t)t->cap * sizeof *v) : NULL;
        if (!k || !v) {
            fprintf(stderr, "error: out of memory\n");
            exit(1);
        }
        t->key = k;
        t->val = v;
    }
    t->key[t->n] = xstrdup(key);
    t->val[t->n] = xstrdup(val);
    t->n++;
}

const char *kv_get(const struct kv *t, const char *key)
{
    int i = kv_find(t, key);
    return i >= 0 ? t->val[i] : "";
}

int kv_has(const struct kv *t, const char *key)
{
    return kv_find(t, key) >= 0;
}

void kv_free(struct kv *t)
{
    for (int i = 0; i < t->n; i++) {
        free(t->key[i]);
        free(t->val[i]);
    }
    free(t->key);
    free(t->val);
    t->n = t->cap = 0;
    t->key = t->val = NULL;
}

int kv_write(const struct kv *t, FILE *f)
{
    for (int i = 0; i < t->n; i++)
        fprintf(f, "%s\t%s\n", t->key[i], t->val[i]);
    return ferror(f) ? -1 : 0;
}

/* ----------------------------------------------------------- numbers */

static const char *digits(const char *s)
{
    while (*s >= '0' && *s <= '9')
        s++;
    return s;
}

int is_number(const char *s)
{
    if (*s == '+' || *s == '-')
        s++;
    const char *d = digits(s);
    if (d == s)
        return 0;
    s = d;
    if (*s == '.')
        s = digits(s + 1);
    if (*s == 'e' || *s == 'E') {
        s++;
        if (*s == '+' || *s == '-')
            s++;
        d = digits(s);
        if (d == s)
            return 0;
        s = d;
    }
    return *s == '\0';
}

int number_of(const struct kv *t, const char *key, double *v)
{
    const char *s = kv_get(t, key);
    if (!is_number(s))
        return 0;
    *v = strtod(s, NULL);
    return 1;
}

void whole(char *buf, size_t size, double v)
{
    if (fabs(v) < 9e18)
        snprintf(buf, size, "%lld", (long long)v);
    else
        snprintf(buf, size, "%.0f", trunc(v));
}

void grouped(char *buf, size_t size, double v)
{
    char text[64];
    whole(text, sizeof text, v);
    const char *d = text[0] == '-' ? text + 1 : text;
    size_t n = strlen(d), o = 0;
    if (d != text && o + 1 < size)
        buf[o++] = '-';
    for (size_t i = 0; i < n && o + 1 < size; i++) {
        if (i > 0 && (n - i) % 3 == 0 && o + 2 < size)
            buf[o++] = ',';
        buf[o++] = d[i];
    }
    buf[o] = '\0';
}

/* ------------------------------------------------------------- files */

char **read_lines(const char *path, int *n)
{
    *n = 0;
    FILE *f = fopen(path, "r");
    if (!f)
        return NULL;
    int cap = 64;
    char **lines = xmalloc((size_t)cap * sizeof *lines);
    char *line = NULL;
    size_t len = 0;
    ssize_t got;
    while ((got = getline(&line, &len, f)) >= 0) {
        if (got > 0 && line[got - 1] == '\n')
            line[got - 1] = '\0';
        if (*n == cap) {
            cap *= 2;
            char **more = realloc(lines, (size_t)cap * sizeof *lines);
            if (!more) {
                fprintf(stderr, "error: out of memory\n");
                exit(1);
            }
            lines = more;
        }
        lines[(*n)++] = xstrdup(line);
    }
    free(line);
    fclose(f);
    return lines;
}

void free_lines(char **lines, int n)
{
    for (int i = 0; i < n; i++)
        free(lines[i]);
    free(lines);
}

int file_has(const char *path, const char *text)
{
    int n, found = 0;
    char **lines = read_lines(path, &n);
    for (int i = 0; i < n && !found; i++)
        found = strstr(lines[i], text) != NULL;
    free_lines(lines, n);
    return found;
}

int nonempty(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && st.st_size > 0;
}
