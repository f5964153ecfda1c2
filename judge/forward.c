/*
 * forward.c: the messages between the runner and the device server
 * (forward.h), for both sides.
 */
#include "forward.h"

#include "fdio.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

int lab_fwd_send2(int fd, uint32_t op, const void *a, uint32_t alen, const void *b, uint32_t blen)
{
    if (alen > LAB_FWD_MAX_PAYLOAD || blen > LAB_FWD_MAX_PAYLOAD - alen)
        return -1;
    /* one write for the whole message: the other side never waits for a half */
    static char buf[sizeof(lab_fwd_header) + LAB_FWD_MAX_PAYLOAD];
    lab_fwd_header h = {LAB_FWD_MAGIC, op, alen + blen, 0};
    memcpy(buf, &h, sizeof h);
    if (alen)
        memcpy(buf + sizeof h, a, alen);
    if (blen)
        memcpy(buf + sizeof h + alen, b, blen);
    return lab_write_all(fd, buf, sizeof h + alen + blen);
}

int lab_fwd_send(int fd, uint32_t op, const void *payload, uint32_t len)
{
    return lab_fwd_send2(fd, op, payload, len, NULL, 0);
}

/* Reads through a buffer: a batch's launches, written at once, are taken
 * in one system call. Each side reads one descriptor only. */
static int read_exact(int fd, void *buf, size_t len)
{
    static char in[1 << 16];
    static size_t at, have;
    char *p = (char *)buf;
    while (len > 0) {
        if (at == have) {
            ssize_t got = read(fd, in, sizeof in);
            if (got < 0 && errno == EINTR)
                continue;
            if (got <= 0)
                return -1;
            at = 0;
            have = (size_t)got;
        }
        size_t take = have - at < len ? have - at : len;
        memcpy(p, in + at, take);
        at += take;
        p += take;
        len -= take;
    }
    return 0;
}

int lab_fwd_read(int fd, lab_fwd_header *h, void *payload)
{
    if (read_exact(fd, h, sizeof *h) || h->magic != LAB_FWD_MAGIC || h->len > LAB_FWD_MAX_PAYLOAD)
        return -1;
    return read_exact(fd, payload, h->len);
}
