/*
 * util.c: memory that never comes back NULL, formatted strings, UTF-8, and
 * the one way a host program of the lab ends on an error (util.h).
 */
#include "util.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* "PROGRAM: message" on stderr, after what stdout holds. */
static void say_error(const char *fmt, va_list ap)
{
    fflush(stdout);
    fprintf(stderr, "%s: ", program_invocation_short_name);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
}

void lab_fatal(int status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    say_error(fmt, ap);
    va_end(ap);
    exit(status);
}

void lab_warn(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    say_error(fmt, ap);
    va_end(ap);
}

void *lab_alloc(size_t n)
{
    void *p = calloc(1, n ? n : 1);
    if (!p)
        lab_fatal(LAB_OUT_OF_MEMORY, "out of memory");
    return p;
}

void *lab_grow(void *p, size_t n)
{
    p = realloc(p, n ? n : 1);
    if (!p)
        lab_fatal(LAB_OUT_OF_MEMORY, "out of memory");
    return p;
}

char *lab_strdup(const char *s)
{
    size_t n = strlen(s) + 1;
    return memcpy(lab_alloc(n), s, n);
}

char *lab_asprintf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *s = lab_alloc((size_t)n + 1);
    va_start(ap, fmt);
    vsnprintf(s, (size_t)n + 1, fmt, ap);
    va_end(ap);
    return s;
}

size_t lab_utf8_len(const unsigned char *p, size_t n)
{
    unsigned char c = p[0];
    size_t len;
    unsigned char lo = 0x80, hi = 0xbf;
    if (c >= 0xc2 && c <= 0xdf) len = 2;
    else if (c >= 0xe0 && c <= 0xef) len = 3;
    else if (c >= 0xf0 && c <= 0xf4) len = 4;
    else return 0;
    /* no overlong forms, no surrogates, nothing past U+10FFFF */
    if (c == 0xe0) lo = 0xa0;
    if (c == 0xed) hi = 0x9f;
    if (c == 0xf0) lo = 0x90;
    if (c == 0xf4) hi = 0x8f;
    if (n < len || p[1] < lo || p[1] > hi)
        return 0;
    for (size_t i = 2; i < len; i++)
        if (p[i] < 0x80 || p[i] > 0xbf)
            return 0;
    return len;
}
