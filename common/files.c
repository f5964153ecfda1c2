/*
 * files.c: files, folders and programs for the lab's host programs (util.h).
 */
#include "fdio.h"
#include "spawn.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <string.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
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

int lab_write_atomic(const char *path, const char *text)
{
    char *tmp = lab_asprintf("%s.tmp", path);
    FILE *f = fopen(tmp, "w");
    int ok = f && fputs(text, f) >= 0;
    if (f && fclose(f))
        ok = 0;
    ok = ok && rename(tmp, path) == 0;
    if (!ok)
        unlink(tmp);
    free(tmp);
    return ok ? 0 : -1;
}

int lab_have_program(const char *name)
{
    char found[PATH_MAX];
    return lab_find_program(name, found) == 0;
}

/* Empty the folder dir (a descriptor, closed here), then nothing else. */
static void empty_dir(int dir)
{
    fchmod(dir, 0700);
    DIR *d = fdopendir(dir);
    if (!d) {
        close(dir);
        return;
    }
    struct dirent *e;
    while ((e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        if (unlinkat(dirfd(d), e->d_name, 0) == 0)
            continue;
        int sub = openat(dirfd(d), e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (sub >= 0) {
            empty_dir(sub);
            unlinkat(dirfd(d), e->d_name, AT_REMOVEDIR);
        }
    }
    closedir(d);
}

void lab_remove_tree(const char *path)
{
    if (unlink(path) == 0 || errno == ENOENT)
        return;
    int d = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (d >= 0) {
        empty_dir(d);
        rmdir(path);
    }
}

int lab_exists(const char *path)
{
    struct stat st;
    return lstat(path, &st) == 0;
}

int lab_is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

int lab_is_link(const char *path)
{
    struct stat st;
    return lstat(path, &st) == 0 && S_ISLNK(st.st_mode);
}
