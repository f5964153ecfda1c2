/*
 * text.c: key/value tables, numbers read and shown as the report wants them,
 * and the lines of the files ncu and the drivers leave.
 */
#include "profile.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* ------------------------------------------------------------ tables */

static int kv_find(const struct kv *t, const char *key)
{
    for (int i = 0; i < t->n; i++)
        if (strcmp(t->key[i], key) == 0)
            return i;
    return -1;
}

void profile_kv_set(struct kv *t, const char *key, const char *val)
{
    int i = kv_find(t, key);
    if (i >= 0) {
        free(t->val[i]);
        t->val[i] = lab_strdup(val);
        return;
    }
    if (t->n == t->cap) {
        t->cap = t->cap ? 2 * t->cap : 32;
        t->key = lab_grow(t->key, (size_t)t->cap * sizeof *t->key);
        t->val = lab_grow(t->val, (size_t)t->cap * sizeof *t->val);
    }
    t->key[t->n] = lab_strdup(key);
    t->val[t->n] = lab_strdup(val);
    t->n++;
}

const char *profile_kv_get(const struct kv *t, const char *key)
{
    int i = kv_find(t, key);
    return i >= 0 ? t->val[i] : "";
}

int profile_kv_has(const struct kv *t, const char *key)
{
    return kv_find(t, key) >= 0;
}

void profile_kv_free(struct kv *t)
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

int profile_kv_write(const struct kv *t, FILE *f)
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

int profile_is_number(const char *s)
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

int profile_number_of(const struct kv *t, const char *key, double *v)
{
    const char *s = profile_kv_get(t, key);
    if (!profile_is_number(s))
        return 0;
    *v = strtod(s, NULL);
    return 1;
}

void profile_whole(char *buf, size_t size, double v)
{
    if (fabs(v) < 9e18)
        snprintf(buf, size, "%lld", (long long)v);
    else
        snprintf(buf, size, "%.0f", trunc(v));
}

void profile_grouped(char *buf, size_t size, double v)
{
    char text[64];
    profile_whole(text, sizeof text, v);
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

int profile_file_has(const char *path, const char *text)
{
    int n, found = 0;
    char **lines = lab_file_lines(path, &n);
    for (int i = 0; i < n && !found; i++)
        found = strstr(lines[i], text) != NULL;
    lab_list_free(lines);
    return found;
}

int profile_nonempty(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && st.st_size > 0;
}
