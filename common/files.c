/*
 * files.c: files and programs for the lab's host programs (util.h).
 */
#include "fdio.h"
#include "spawn.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

char *lab_read_file(const char *path, size_t max)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    char *text = lab_read_to_end(fd, max ? max : SIZE_MAX - 1, NULL, NULL);
    close(fd);
    return text;
}

int lab_mkdirs(const char *path)
{
    char *buf = lab_strdup(path);
    int ok = 1;
    for (char *p = buf + 1; ok && *p; p++)
        if (*p == '/') {
            *p = 0;
            ok = mkdir(buf, 0755) == 0 || errno == EEXIST;
            *p = '/';
        }
    ok = ok && (mkdir(buf, 0755) == 0 || errno == EEXIST);
    struct stat st;
    if (ok && (stat(buf, &st) || !S_ISDIR(st.st_mode))) {
        ok = 0;
        errno = ENOTDIR;
    }
    free(buf);
    return ok ? 0 : -1;
}

int lab_have_program(const char *name)
{
    char found[PATH_MAX];
    return lab_find_program(name, found) == 0;
}
