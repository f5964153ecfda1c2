/*
 * util.c: small helpers every part of the grader uses: appending to a
 * message, cleaning untrusted text, whether a program is there, mkdir -p
 * (the clock and finding a program: common/spawn.c).
 */
#include "fdio.h"
#include "grader.h"
#include "grading.h"
#include "spawn.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void appendf(char *buf, size_t size, const char *fmt, ...)
{
    size_t used = strlen(buf);
    if (used + 1 >= size)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf + used, size - used, fmt, ap);
    va_end(ap);
}

/* Length of the valid UTF-8 sequence at p (at most n bytes), or 0. */
static size_t utf8_len(const unsigned char *p, size_t n)
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

void text_clean(const char *text, size_t len, char *out, size_t outlen)
{
    const unsigned char *p = (const unsigned char *)text;
    size_t o = 0, i = 0;
    if (outlen == 0)
        return;
    while (i < len && o + 1 < outlen) {
        unsigned char c = p[i];
        if (c == '\n' || c == '\t' || (c >= 0x20 && c < 0x7f)) {
            out[o++] = (char)c;
            i++;
        } else if (c == '\r') {
            i++;
        } else if (c >= 0x80) {
            size_t n = utf8_len(p + i, len - i);
            if (n && o + n < outlen) {
                memcpy(out + o, p + i, n);
                o += n;
                i += n;
            } else {
                out[o++] = '?';
                i += n ? n : 1;
            }
        } else {
            out[o++] = '?';
            i++;
        }
    }
    out[o] = 0;
}

int have_program(const char *name)
{
    char found[PATH_MAX];
    return lab_find_program(name, found) == 0;
}

int mkdirs(const char *path)
{
    char buf[PATH_MAX];
    snprintf(buf, sizeof buf, "%s", path);
    for (char *p = buf + 1; *p; p++)
        if (*p == '/') {
            *p = 0;
            if (mkdir(buf, 0755) && errno != EEXIST)
                return -1;
            *p = '/';
        }
    return mkdir(buf, 0755) && errno != EEXIST ? -1 : 0;
}
