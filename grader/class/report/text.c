/*
 * text.c: what the report and the similarity review share: plain files
 * read without following links and text escaped for an HTML page (memory
 * and lab_fatal: common/util.h; the gradebook's CSV fields:
 * grader/intake/intake.h).
 */
#include "report.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

char *report_read_plain(const char *path, size_t *len, int *is_link)
{
    if (is_link)
        *is_link = 0;
    /* O_NOFOLLOW: a link in a submission is refused, never read through */
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) {
        if (errno == ELOOP && is_link)
            *is_link = 1;
        return NULL;
    }
    struct stat st;
    if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_size > (64 << 20)) {
        close(fd);
        return NULL;
    }
    char *buf = lab_alloc((size_t)st.st_size + 1);
    size_t got = 0;
    ssize_t n;
    while (got < (size_t)st.st_size && (n = read(fd, buf + got, (size_t)st.st_size - got)) > 0)
        got += (size_t)n;
    close(fd);
    buf[got] = 0;
    if (len)
        *len = got;
    return buf;
}

void report_html_putn(FILE *f, const char *s, size_t n)
{
    const unsigned char *u = (const unsigned char *)s;
    for (size_t i = 0; i < n && u[i]; i++) {
        unsigned char c = u[i];
        switch (c) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        case '\'': fputs("&#39;", f); break;
        case '\n': case '\t': fputc(c, f); break;
        default:
            if (c < 0x20 || c == 0x7F) {
                fputc('?', f);
            } else if (c < 0x80) {
                fputc(c, f);
            } else {
                size_t k = lab_utf8_len(u + i, n - i);
                if (!k) {
                    fputc('?', f);
                } else {
                    fwrite(u + i, 1, k, f);
                    i += k - 1;
                }
            }
        }
    }
}

void report_html_put(FILE *f, const char *s)
{
    report_html_putn(f, s ? s : "", s ? strlen(s) : 0);
}
