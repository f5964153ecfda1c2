/*
 * util.c: small helpers every part of the grader uses: appending to a
 * message, cleaning untrusted text, what a student types to run a stage
 * (UTF-8, mkdir -p and finding a program:
 * the helper library, common/util.h).
 */
#include "grader.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void grader_appendf(char *buf, size_t size, const char *fmt, ...)
{
    size_t used = strlen(buf);
    if (used + 1 >= size)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf + used, size - used, fmt, ap);
    va_end(ap);
}

void grader_text_clean(const char *text, size_t len, char *out, size_t outlen)
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
            size_t n = lab_utf8_len(p + i, len - i);
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

char *grader_text_cleaned(const char *text)
{
    size_t n = text ? strlen(text) : 0;
    char *clean = lab_alloc(n + 1);
    grader_text_clean(text ? text : "", n, clean, n + 1);
    return clean;
}

/* What a student types to see a stage for themselves: make run EX=03,
 * with SEED=... when the inputs matter. */
void grader_run_command(const char *stage, const unsigned long long *seed, char *out, size_t len)
{
    size_t digits = strspn(stage, "0123456789");
    snprintf(out, len, "make run EX=%.*s", (int)(digits ? digits : strlen(stage)), stage);
    if (seed)
        grader_appendf(out, len, " SEED=%llu", *seed);
}
