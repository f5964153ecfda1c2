/*
 * fdio.h: descriptors, however the kernel hands their bytes over: writing
 * all of a buffer, reading a pipe to its end. Plain C; the harness (a
 * record on its descriptor), the judge (requests to a runner) and
 * spawn.c (a child's input and output) share them.
 */
#ifndef LAB_FDIO_H
#define LAB_FDIO_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Write all len bytes of buf to fd (a short write goes on, EINTR is
 * retried): 0, or -1 when the descriptor refused. */
int lab_write_all(int fd, const void *buf, size_t len);

/* Read fd to its end: a new NUL-terminated text of at most max bytes (the
 * rest is read and dropped, *truncated set when truncated is not NULL),
 * its length in *len when len is not NULL; NULL when out of memory. */
char *lab_read_to_end(int fd, size_t max, size_t *len, int *truncated);

#ifdef __cplusplus
}
#endif

#endif /* LAB_FDIO_H */
