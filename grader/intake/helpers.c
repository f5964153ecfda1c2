/*
 * helpers.c: the intake's text and file helpers (intake.h), which class
 * grading and its report use too, and its one way to run an archiver (common/spawn.c);
 * memory and formatted strings are the helper library's (common/util.h).
 * An archiver reading a submission's archive runs inside the build's wall
 * (build/confine/confine --build): it reads the archive, writes the folder
 * it unpacks to, and nothing else.
 */
#include "intake.h"
#include "spawn.h"
#include "walled.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

char **intake_lines(const char *text, int *count)
{
    char **l = lab_grow(NULL, sizeof *l);
    int n = 0;
    for (const char *p = text; p && *p;) {
        size_t len = strcspn(p, "\n");
        l = lab_grow(l, (n + 2) * sizeof *l);
        l[n] = memcpy(lab_grow(NULL, len + 1), p, len);
        l[n++][len] = 0;
        p += len + (p[len] == '\n');
    }
    l[n] = NULL;
    if (count)
        *count = n;
    return l;
}

void intake_words_free(char **w)
{
    for (int i = 0; w && w[i]; i++)
        free(w[i]);
    free(w);
}

char *intake_first_line(const char *text)
{
    size_t n = text ? strcspn(text, "\n") : 0;
    char *s = lab_grow(NULL, n + 1);
    if (n)
        memcpy(s, text, n);
    s[n] = 0;
    return s;
}

char **intake_csv_fields(const char *line, int *count)
{
    char **f = lab_grow(NULL, sizeof *f);
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
                f[n] = NULL;
                intake_words_free(f);
                return NULL;
            }
            p++;
        }
        for (; *p && *p != ',' && *p != '\n' && !(*p == '\r' && (!p[1] || p[1] == '\n')); p++)
            v[k++] = *p;
        v[k] = 0;
        f = lab_grow(f, (size_t)(n + 2) * sizeof *f);
        f[n++] = v;
        if (*p != ',')
            break;
        p++;
    }
    f[n] = NULL;
    if (count)
        *count = n;
    return f;
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

void intake_remove_tree(const char *path)
{
    if (unlink(path) == 0 || errno == ENOENT)
        return;
    int d = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (d >= 0) {
        empty_dir(d);
        rmdir(path);
    }
}

int intake_exists(const char *path)
{
    struct stat st;
    return lstat(path, &st) == 0;
}

int intake_is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

int intake_is_link(const char *path)
{
    struct stat st;
    return lstat(path, &st) == 0 && S_ISLNK(st.st_mode);
}

/* The decompressors tar may start for a compressed archive. */
static const char *const DECOMPRESSORS[] = {"gzip", "bzip2", "xz", "zstd", "lzip", "lzma", "lzop"};

char *intake_output_of(char *const argv[], const char *archive)
{
    char *text = NULL;
    if (intake_run_archiver(argv, archive, NULL, &text, NULL, NULL) != 0) {
        free(text);
        return NULL;
    }
    return text;
}

int intake_run_archiver(char *const argv[], const char *archive, const char *dest, char **out, const char *err_path,
                        int *truncated)
{
    enum { N = sizeof DECOMPRESSORS / sizeof DECOMPRESSORS[0] };
    static char found[N][PATH_MAX];
    static const char *exec[N + 1]; /* those found here, NULL-ended */
    static int looked;
    for (int k = 0, n = 0; !looked && k < N; k++)
        if (lab_find_program(DECOMPRESSORS[k], found[n]) == 0) {
            exec[n] = found[n];
            n++;
        }
    looked = 1;
    const lab_wall w = {"the submission's archive", NULL, exec, archive, dest, 60, 1024, 64};
    char **walled = archive ? lab_walled_argv(&w, argv) : NULL;
    lab_spawn s = {.argv = walled ? walled : argv,
                   .who = "intake",
                   .in = {LAB_IO_NULL, NULL},
                   .out = {out ? LAB_IO_PIPE : LAB_IO_NULL, NULL},
                   .err = {!err_path ? LAB_IO_NULL : strcmp(err_path, "-") ? LAB_IO_FILE : LAB_IO_STDOUT, err_path}};
    int cut = 0;
    int status = lab_spawn_run(&s, out, 32u << 20, &cut);
    free(walled);
    if (out && !*out)
        *out = lab_strdup("");
    if (truncated)
        *truncated = cut;
    return status;
}
