/*
 * text.c: a text cut into lines, words and CSV fields, its first and last
 * line, and a string that grows as more is printed after it (util.h).
 */
#include "util.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A new list of the n strings before it, with s (len bytes) added. */
static char **list_add(char **list, int n, const char *s, size_t len)
{
    list = lab_grow(list, (size_t)(n + 2) * sizeof *list);
    list[n] = memcpy(lab_grow(NULL, len + 1), s, len);
    list[n][len] = 0;
    list[n + 1] = NULL;
    return list;
}

char **lab_lines(const char *text, int *count)
{
    char **l = lab_alloc(sizeof *l);
    int n = 0;
    for (const char *p = text; p && *p;) {
        size_t len = strcspn(p, "\n");
        l = list_add(l, n++, p, len);
        p += len + (p[len] == '\n');
    }
    if (count)
        *count = n;
    return l;
}

char **lab_file_lines(const char *path, int *count)
{
    char *text = lab_read_file(path, 0);
    char **l = text ? lab_lines(text, count) : NULL;
    if (!text && count)
        *count = 0;
    free(text);
    return l;
}

char **lab_words(const char *text, int *count)
{
    char **w = lab_alloc(sizeof *w);
    int n = 0;
    while (text && *text) {
        text += strspn(text, " \t\n");
        size_t len = strcspn(text, " \t\n");
        if (!len)
            break;
        w = list_add(w, n++, text, len);
        text += len;
    }
    if (count)
        *count = n;
    return w;
}

void lab_list_free(char **list)
{
    for (int i = 0; list && list[i]; i++)
        free(list[i]);
    free(list);
}

char **lab_csv_fields(const char *line, int *count)
{
    char **f = lab_alloc(sizeof *f);
    int n = 0;
    for (const char *p = line;;) {
        char *v = lab_grow(NULL, strlen(p) + 1);
        size_t k = 0;
        if (*p == '"') {
            /* quoted: "" is one quote; the field ends at the lone quote */
            for (p++; *p && !(*p == '"' && p[1] != '"'); p++)
                v[k++] = *p == '"' ? *p++ : *p;
            if (!*p) {
                free(v);
                lab_list_free(f);
                return NULL;
            }
            p++;
        }
        for (; *p && *p != ',' && *p != '\n' && !(*p == '\r' && (!p[1] || p[1] == '\n')); p++)
            v[k++] = *p;
        v[k] = 0;
        f = lab_grow(f, (size_t)(n + 2) * sizeof *f);
        f[n++] = v;
        f[n] = NULL;
        if (*p != ',')
            break;
        p++;
    }
    if (count)
        *count = n;
    return f;
}

char *lab_first_line(const char *text)
{
    size_t n = text ? strcspn(text, "\n") : 0;
    char *s = lab_grow(NULL, n + 1);
    if (n)
        memcpy(s, text, n);
    s[n] = 0;
    return s;
}

char *lab_last_line(const char *text, const char *skip)
{
    const char *best = NULL;
    size_t best_len = 0;
    for (const char *p = text; p && *p;) {
        size_t n = strcspn(p, "\n");
        if (n && !(skip && !strncmp(p, skip, strlen(skip))))
            best = p, best_len = n;
        p += n + (p[n] == '\n');
    }
    char *s = lab_grow(NULL, best_len + 1);
    if (best_len)
        memcpy(s, best, best_len);
    s[best_len] = 0;
    return s;
}

void lab_appendf(char **text, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *more = NULL;
    int n = vasprintf(&more, fmt, ap);
    va_end(ap);
    if (n < 0)
        lab_fatal(LAB_OUT_OF_MEMORY, "out of memory");
    char *all = lab_asprintf("%s%s", *text ? *text : "", more);
    free(more);
    free(*text);
    *text = all;
}

void lab_join(char **list, const char *sep, const char *word)
{
    lab_appendf(list, "%s%s", *list && **list ? sep : "", word);
}
