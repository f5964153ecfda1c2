/*
 * submission.c: a submission's kernel.cu files (submission.h), as every
 * door takes them in: make class each student's (grader/class/intake.c),
 * make grade GRADE_SRC= (grader/build.c), the CPU grade, make explain
 * KERNEL= and Gradescope through take.c. An archive is listed first, and
 * refused when a member is a link or a special file, has an absolute path
 * or a .. component, or when it holds or unpacks to too much; the unpacked
 * tree is checked again. What an operating system adds (__MACOSX/,
 * .DS_Store) is passed over. Only the kernel.cu files are taken, so
 * nothing else a student sends can replace the harness or the grader.
 */
#include "submission.h"
#include "grader.h"
#include "intake.h"
#include "names.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *base_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

static int is_zip(const char *a)
{
    size_t n = strlen(a);
    return n >= 4 && !strcmp(a + n - 4, ".zip");
}

/* The member lines of a listing: names, and each member's type (the first
 * character of its long listing: - d l h c b p). */
typedef struct {
    char **names;
    int n;
    char *types;          /* one per name, 0 where the listing had none */
    long long total;      /* bytes unpacked                              */
} listing;

static int list_zip(const char *a, listing *l, char **why)
{
    char *names_argv[] = {"unzip", "-Z1", (char *)a, NULL};
    char *names = intake_output_of(names_argv, a);
    if (!names) {
        *why = lab_strdup("not a readable zip file");
        return -1;
    }
    l->names = lab_lines(names, &l->n);
    free(names);
    /* unzip -Z: two lines of heading, a member a line, a line of totals */
    char *long_argv[] = {"unzip", "-Z", (char *)a, NULL};
    char *text = intake_output_of(long_argv, a);
    int n;
    char **line = lab_lines(text, &n);
    l->types = lab_grow(NULL, l->n + 1);
    for (int i = 0; i < l->n; i++)
        l->types[i] = i + 3 < n ? line[i + 2][0] : 0;
    lab_list_free(line);
    free(text);
    char *totals_argv[] = {"unzip", "-Zt", (char *)a, NULL};
    text = intake_output_of(totals_argv, a);
    const char *bytes = text ? strstr(text, " bytes uncompressed") : NULL;
    if (bytes) {
        while (bytes > text && bytes[-1] >= '0' && bytes[-1] <= '9')
            bytes--;
        l->total = atoll(bytes);
    }
    free(text);
    return 0;
}

static int list_tar(const char *a, const char *dest, listing *l, char **why)
{
    char *err = lab_asprintf("%s.err", dest);
    char *long_argv[] = {"tar", "--numeric-owner", "-tvf", (char *)a, NULL};
    char *long_text = NULL, *names_text = NULL;
    int cut = 0, names_cut = 0;
    if (intake_run_archiver(long_argv, a, NULL, &long_text, err, &cut) != 0) {
        char *text = lab_read_file(err, 0), *said = lab_strdup("");
        int n;
        char **line = lab_lines(text, &n);
        for (int i = 0; i < n && !*said; i++)
            if (strncmp(line[i], "tar: Exiting", 12)) {
                free(said);
                said = lab_strdup(line[i]);
            }
        *why = lab_asprintf("not a readable tar archive: %s", said);
        lab_list_free(line);
        free(said);
        free(text);
        free(long_text);
        remove(err);
        free(err);
        return -1;
    }
    remove(err);
    free(err);
    /* the names as the archive has them (-P: a leading / kept) */
    char *names_argv[] = {"tar", "-tPf", (char *)a, NULL};
    intake_run_archiver(names_argv, a, NULL, &names_text, NULL, &names_cut);
    l->names = lab_lines(names_text, &l->n);
    int n;
    char **line = lab_lines(long_text, &n);
    l->types = lab_grow(NULL, l->n + 1);
    for (int i = 0; i < l->n; i++)
        l->types[i] = i < n ? line[i][0] : 0;
    for (int i = 0; i < n; i++) {
        long long size = 0;
        if (sscanf(line[i], "%*s %*s %lld", &size) == 1)
            l->total += size;
    }
    /* a listing cut short holds more members than any limit */
    if (cut || names_cut)
        l->n = MAX_MEMBERS + 1;
    lab_list_free(line);
    free(long_text);
    free(names_text);
    return 0;
}

static char bad_member[PATH_MAX];
static size_t walk_skip;

static int find_odd(const char *path, const struct stat *st, int flag, struct FTW *f)
{
    (void)f;
    (void)flag;
    if (S_ISREG(st->st_mode) || S_ISDIR(st->st_mode))
        return 0;
    snprintf(bad_member, sizeof bad_member, "%s", path + walk_skip);
    return 1;
}

/* Unpack archive a into dest: NULL, or why not (a new string). */
static char *unpack(const char *a, const char *dest)
{
    struct stat st;
    if (stat(a, &st))
        return lab_asprintf("cannot read %s", base_of(a));
    if (st.st_size > MAX_ARCHIVE_BYTES)
        return lab_asprintf("%s is larger than %lld MiB", base_of(a), MAX_ARCHIVE_BYTES >> 20);
    listing l = {0};
    char *why = NULL;
    if (is_zip(a)) {
        if (!lab_have_program("unzip"))
            return lab_asprintf("%s is a zip file and unzip is not installed here: install unzip or ask for a tarball",
                       base_of(a));
        if (list_zip(a, &l, &why))
            return why;
    } else if (list_tar(a, dest, &l, &why)) {
        return why;
    }
    if (l.n > MAX_MEMBERS)
        why = lab_asprintf("holds more than %d files", MAX_MEMBERS);
    else if (l.total > MAX_UNPACKED_BYTES)
        why = lab_asprintf("unpacks to more than %lld MiB", MAX_UNPACKED_BYTES >> 20);
    for (int i = 0; !why && i < l.n; i++)
        if (l.names[i][0] == '/')
            why = lab_asprintf("member with an absolute path: %s", l.names[i]);
    for (int i = 0; !why && i < l.n; i++) {
        char *padded = lab_asprintf("/%s/", l.names[i]);
        if (strstr(padded, "/../"))
            why = lab_asprintf("member outside the archive's folder: %s", l.names[i]);
        free(padded);
    }
    for (int i = 0; !why && i < l.n; i++)
        if (l.types[i] && l.types[i] != '-' && l.types[i] != 'd')
            why = lab_asprintf("member that is a link or a special file: %s", l.names[i]);
    lab_list_free(l.names);
    free(l.types);
    if (why)
        return why;
    if (lab_mkdirs(dest))
        return lab_asprintf("could not unpack: cannot create %s", dest);
    char *zip_argv[] = {"unzip", "-q", "-o", (char *)a, "-d", (char *)dest, NULL};
    char *tar_argv[] = {"tar", "-xf", (char *)a, "-C", (char *)dest, "--no-same-owner", "--no-same-permissions",
                        NULL};
    char *said_text = NULL;
    if (intake_run_archiver(is_zip(a) ? zip_argv : tar_argv, a, dest, &said_text, "-", NULL) != 0) {
        char *said = lab_first_line(said_text);
        why = lab_asprintf("could not unpack: %s", said);
        free(said);
        free(said_text);
        return why;
    }
    free(said_text);
    /* every folder readable, then nothing but plain files and folders */
    char *chmod_argv[] = {"chmod", "-R", "u+rwX", (char *)dest, NULL};
    intake_run_archiver(chmod_argv, NULL, NULL, NULL, NULL, NULL);
    walk_skip = strlen(dest) + 1;
    if (nftw(dest, find_odd, 16, FTW_PHYS) == 1)
        return lab_asprintf("member that is a link or a special file: %s", bad_member);
    return NULL;
}

/* The kernel.cu of each stage under root, as exercises/<stage>/kernel.cu
 * or <stage>/kernel.cu, or under root's only folder when root holds
 * nothing else; with one stage, a kernel.cu alone is that stage's.
 * Returns how many, their paths into found[]; LONE_KERNEL for a kernel.cu
 * alone where there are several stages (which one is not said). */
enum { LONE_KERNEL = -2 };
static int find_kernels(const char *root, const submission_stages *st, char **found, int depth)
{
    int n = 0;
    for (int s = 0; s < st->n; s++) {
        found[s] = NULL;
        char *f[2] = {lab_asprintf("%s/exercises/%s/kernel.cu", root, st->names[s]), lab_asprintf("%s/%s/kernel.cu", root, st->names[s])};
        for (int k = 0; k < 2; k++) {
            if (!found[s] && lab_exists(f[k])) {
                found[s] = f[k];
                n++;
            } else {
                free(f[k]);
            }
        }
    }
    char *lone = lab_asprintf("%s/kernel.cu", root);
    if (!n && lab_exists(lone)) {
        n = st->n == 1 ? 1 : LONE_KERNEL;
        if (st->n == 1)
            found[0] = lone;
        else
            free(lone);
        return n;
    }
    free(lone);
    if (n || depth >= MAX_NESTING)
        return n;
    struct dirent **e;
    int m = scandir(root, &e, NULL, NULL), seen = 0;
    char *only = NULL;
    for (int i = 0; i < m; i++) {
        if (e[i]->d_name[0] != '.' && !intake_is_os_litter(e[i]->d_name)) {
            seen++;
            free(only);
            only = lab_asprintf("%s/%s", root, e[i]->d_name);
        }
        free(e[i]);
    }
    if (m >= 0)
        free(e);
    if (seen == 1 && lab_is_dir(only) && !lab_is_link(only))
        n = find_kernels(only, st, found, depth + 1);
    free(only);
    return n;
}

/* Is the open fd a plain file of its own (no other name: a hard link to
 * a solution would have one)? 0, or -1 with errno set. */
static int plain_of_its_own(int fd)
{
    struct stat st;
    if (fstat(fd, &st))
        return -1;
    if (!S_ISREG(st.st_mode) || st.st_nlink != 1) {
        errno = S_ISREG(st.st_mode) ? EMLINK : EINVAL;
        return -1;
    }
    return 0;
}

/* Why name (opened or not, errno set) is not taken: a new string. */
static char *not_plain(const char *name)
{
    return lab_asprintf("%s is not a plain file of its own (%s): submit the file itself, no links", name,
               errno == ELOOP || errno == ENOTDIR ? "a link on its path"
               : errno == EMLINK                 ? "a file with other names"
               : errno == EINVAL                 ? "a link, a folder or a device"
                                                 : strerror(errno));
}

/* Open root/rel for reading without following a link at any step below
 * root (each folder opened with O_NOFOLLOW, then the file): a descriptor
 * of a plain file of its own, or -1 with why in *why (a new string). What
 * is checked is what is read: nothing can be swapped for a link in
 * between. */
static int open_plain(const char *root, const char *rel, char **why)
{
    int dir = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    char *path = lab_strdup(rel), *part = path;
    for (char *slash; dir >= 0 && (slash = strchr(part, '/')); part = slash + 1) {
        *slash = 0;
        int next = openat(dir, part, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        close(dir);
        dir = next;
    }
    int fd = dir >= 0 ? openat(dir, part, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC) : -1;
    if (dir >= 0)
        close(dir);
    free(path);
    if (fd >= 0 && plain_of_its_own(fd)) {
        int err = errno;
        close(fd);
        fd = -1;
        errno = err;
    }
    if (fd < 0)
        *why = not_plain(rel);
    return fd;
}

/* The bytes of the open plain file in, at most max: a new buffer (its
 * length in *len), NULL with *len 1 when it is larger, 0 when it cannot
 * be read. */
static char *read_capped(int in, long long max, size_t *len)
{
    char *text = lab_grow(NULL, (size_t)max + 1);
    size_t total = 0;
    ssize_t n;
    while ((n = read(in, text + total, (size_t)max + 1 - total)) != 0) {
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 || (total += (size_t)n) > (size_t)max) {
            free(text);
            *len = n > 0;
            return NULL;
        }
    }
    *len = total;
    return text;
}

/* The open plain file in copied into into/stage/kernel.cu, at most
 * MAX_KERNEL_BYTES; an unchanged copy is left as it is (its time too, so
 * that make builds nothing again): NULL, or why not (a new string). */
static char *copy_in(int in, const char *name, const char *into, const char *stage)
{
    size_t len;
    char *text = read_capped(in, MAX_KERNEL_BYTES, &len);
    if (!text)
        return len ? lab_asprintf("%s is larger than %lld KiB", name, MAX_KERNEL_BYTES >> 10) : lab_asprintf("cannot read %s", name);
    char *d = lab_asprintf("%s/%s", into, stage), *to = lab_asprintf("%s/kernel.cu", d), *tmp = lab_asprintf("%s.new", to), *why = NULL;
    int fd = open(to, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    size_t old_len = 1;
    char *old = fd >= 0 ? read_capped(fd, MAX_KERNEL_BYTES, &old_len) : NULL;
    if (fd >= 0)
        close(fd);
    if (!old || old_len != len || memcmp(old, text, len)) {
        int out = lab_mkdirs(d) ? -1 : open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
        int ok = out >= 0 && write(out, text, len) == (ssize_t)len;
        if (out >= 0 && close(out))
            ok = 0;
        if (!ok || rename(tmp, to)) {
            unlink(tmp);
            why = lab_asprintf("cannot copy %s into %s", name, to);
        }
    }
    free(old);
    free(text);
    free(d);
    free(to);
    free(tmp);
    return why;
}

/* One found kernel.cu (root's relative path rel) copied into
 * into/stage/kernel.cu: NULL, or why not (a new string). */
static char *take_one(const char *root, const char *root_real, const char *f, const char *into, const char *stage)
{
    const char *rel = f + strlen(root) + 1;
    size_t real_len = root_real ? strlen(root_real) : 0;
    char *real = realpath(f, NULL), *why = NULL;
    struct stat st;
    if (lab_is_link(f) || stat(f, &st) || !S_ISREG(st.st_mode))
        why = lab_asprintf("%s is not a plain file of its own (a link?): submit the file itself", rel);
    else if (!real || !root_real || strncmp(real, root_real, real_len) || real[real_len] != '/')
        why = lab_asprintf("%s lies outside the submission", rel);
    else if (st.st_size > MAX_KERNEL_BYTES)
        why = lab_asprintf("%s is larger than %lld KiB", rel, MAX_KERNEL_BYTES >> 10);
    free(real);
    if (why)
        return why;
    /* the checks above name the usual faults; this open is the one
     * that holds: no link anywhere on the path, a plain file */
    int fd = open_plain(root, rel, &why);
    if (fd < 0)
        return why;
    why = copy_in(fd, rel, into, stage);
    close(fd);
    return why;
}

/* into/<stage>/kernel.cu of each stage not in found[] removed (a folder
 * taken into again keeps nothing of an earlier submission). */
static void drop_others(const submission_stages *st, char *const *found, int n, const char *into)
{
    for (int s = 0; s < st->n; s++)
        if (n <= 0 || !found[s]) {
            char *k = lab_asprintf("%s/%s/kernel.cu", into, st->names[s]);
            unlink(k);
            free(k);
        }
}

int intake_take_kernels(const char *src, const submission_stages *st, const char *unpacked, const char *into, char **why)
{
    /* a folder, or the instructor's link to one: its kernel.cu files must
     * lie in the folder it names */
    const char *root = src;
    char *found[MAX_SUBMISSION_STAGES];
    int n = 0;
    *why = NULL;
    lab_remove_tree(unpacked);
    if (!lab_is_dir(src)) {
        root = unpacked;
        *why = unpack(src, unpacked);
    }
    if (!*why && (n = find_kernels(root, st, found, 0)) == LONE_KERNEL)
        *why = lab_asprintf("a kernel.cu alone does not say its stage: submit it as exercises/NN_name/kernel.cu or "
                   "NN_name/kernel.cu (e.g. exercises/%s/kernel.cu)", st->names[0]);
    char *root_real = realpath(root, NULL);
    for (int s = 0; !*why && n > 0 && s < st->n; s++)
        if (found[s])
            *why = take_one(root, root_real, found[s], into, st->names[s]);
    if (!*why)
        drop_others(st, found, n, into);
    for (int s = 0; n > 0 && s < st->n; s++)
        free(found[s]);
    free(root_real);
    lab_remove_tree(unpacked);
    if (*why)
        lab_remove_tree(into);
    return *why ? -1 : n;
}

int intake_take_kernel_file(const char *file, const char *stage, const char *into, char **why)
{
    /* the file itself, never what a link names (the folders above it
     * are the caller's own path) */
    int fd = open(file, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd >= 0 && plain_of_its_own(fd)) {
        int err = errno;
        close(fd);
        fd = -1;
        errno = err;
    }
    if (fd < 0) {
        *why = errno == ENOENT ? lab_asprintf("%s: no such file", file) : not_plain(file);
        return -1;
    }
    *why = copy_in(fd, file, into, stage);
    close(fd);
    return *why ? -1 : 1;
}
