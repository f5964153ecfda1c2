/*
 * fdio.c: writing all of a buffer, reading a pipe to its end (fdio.h).
 */
#include "fdio.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int lab_write_all(int fd, const void *buf, size_t len)
{
    const char *p = (const char *)buf;
    while (len > 0) {
        ssize_t w = write(fd, p, len);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        p += w;
        len -= (size_t)w;
    }
    return 0;
}

char *lab_read_to_end(int fd, size_t max, size_t *len, int *truncated)
{
    size_t n = 0, cap = 0;
    char *text = NULL, buf[65536];
    int cut = 0, failed = 0;
    ssize_t got;
    while ((got = read(fd, buf, sizeof buf)) != 0) {
        if (got < 0) {
            if (errno == EINTR)
                continue;
            break;
        }
        size_t take = (size_t)got;
        if (n + take > max)
            take = max - n, cut = 1;
        if (n + take + 1 > cap) {
            /* keep reading when memory runs out: the writer must not block */
            char *grown = failed ? NULL : realloc(text, cap = (n + take + 1) * 2);
            if (!grown) {
                failed = 1;
                continue;
            }
            text = grown;
        }
        memcpy(text + n, buf, take);
        n += take;
    }
    if (truncated)
        *truncated = cut;
    if (failed) {
        free(text);
        return NULL;
    }
    char *whole = realloc(text, n + 1);
    if (!whole) {
        free(text);
        return NULL;
    }
    whole[n] = 0;
    if (len)
        *len = n;
    return whole;
}
