/*
 * intake.c: each student's kernel.cu files, taken out of their folder or
 * archive into OUT/students/NAME/kernels/ (grader/intake/submission.c's rules). A hash of
 * the entry is kept (OUT/students/NAME/submission.hash) so that the next
 * run sees a submission replaced since and takes it in again, and when it
 * came (OUT/students/NAME/submission.tsv, grader/class/late.c).
 */
#include "class.h"
#include "grader.h"
#include "names.h"
#include "submission.h"

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

/* ====================================================== what was sent */
/* FNV-1a, 64 bits: enough to tell a replaced submission from the same one. */
static unsigned long long hash_bytes(unsigned long long h, const void *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        h = (h ^ ((const unsigned char *)p)[i]) * 0x100000001b3ull;
    return h;
}

/* h with the bytes of the plain file path (no more than an archive or
 * all it unpacks to may hold), and *budget lessened by them. */
static unsigned long long hash_file(unsigned long long h, const char *path, long long *budget)
{
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    char buf[65536];
    ssize_t n;
    while (fd >= 0 && *budget > 0 && (n = read(fd, buf, sizeof buf)) > 0) {
        h = hash_bytes(h, buf, (size_t)n);
        *budget -= n;
    }
    if (fd >= 0)
        close(fd);
    return h;
}

/* h with a folder's entries, sorted: each one's name, kind and bytes (a
 * link: where it points), OS litter left out. */
static unsigned long long hash_tree(unsigned long long h, const char *dir, int depth, long long *budget)
{
    struct dirent **e;
    int m = depth > MAX_NESTING ? -1 : scandir(dir, &e, NULL, alphasort);
    for (int i = 0; i < m; i++) {
        const char *d = e[i]->d_name;
        if (strcmp(d, ".") && strcmp(d, "..") && !intake_is_os_litter(d)) {
            char *path = lab_asprintf("%s/%s", dir, d), target[PATH_MAX];
            struct stat st;
            h = hash_bytes(h, d, strlen(d) + 1);
            if (!lstat(path, &st) && S_ISDIR(st.st_mode)) {
                h = hash_tree(hash_bytes(h, "d", 1), path, depth + 1, budget);
            } else if (S_ISLNK(st.st_mode)) {
                ssize_t n = readlink(path, target, sizeof target);
                h = hash_bytes(hash_bytes(h, "l", 1), target, n > 0 ? (size_t)n : 0);
            } else {
                h = hash_file(hash_bytes(h, "f", 1), path, budget);
            }
            free(path);
        }
        free(e[i]);
    }
    if (m >= 0)
        free(e);
    return h;
}

/* The hash of the student's entry as it is now (new string): an archive's
 * bytes, or a folder's tree (the instructor's link to one followed). */
static char *submission_hash(const char *submissions, int student)
{
    char *src = lab_asprintf("%s/%s", submissions, cls.entries[student]);
    long long budget = MAX_UNPACKED_BYTES;
    unsigned long long h = 0xcbf29ce484222325ull;
    h = lab_is_dir(src) ? hash_tree(h, src, 0, &budget) : hash_file(h, src, &budget);
    free(src);
    return lab_asprintf("%016llx", h);
}

int class_submission_changed(const char *submissions, int student)
{
    const char *name = cls.names[student];
    char *path = lab_asprintf("%s/students/%s/submission.hash", cls.out, name);
    char *kept = lab_read_file(path, 0), *now = submission_hash(submissions, student);
    int changed = kept && strcmp(kept, now);
    if (changed)
        class_say("%s: the submission changed since it was graded: grading it again", name);
    free(now);
    free(kept);
    free(path);
    return changed;
}

int class_intake(const char *submissions, int student)
{
    const char *name = cls.names[student], *entry = cls.entries[student];
    char *dir = lab_asprintf("%s/students/%s", cls.out, name), *unpacked = lab_asprintf("%s/work/%s.unpacked", cls.out, name);
    char *src = lab_asprintf("%s/%s", submissions, entry), *kernels = lab_asprintf("%s/kernels", dir), *why = NULL;
    lab_remove_tree(dir);
    lab_mkdirs(kernels);
    submission_stages st = {cls.stages, cls.nstages};
    int n = intake_take_kernels(src, &st, unpacked, kernels, &why);
    if (n == 0) {
        char *notes = lab_asprintf("%s has no kernel.cu of a graded stage (expected exercises/NN_name/kernel.cu or "
                          "NN_name/kernel.cu)", entry);
        class_write_row(name, "no submission", notes, NULL);
        free(notes);
    }
    class_record_sent(submissions, student);
    char *hash = submission_hash(submissions, student), *hash_path = lab_asprintf("%s/submission.hash", dir);
    if (lab_write_atomic(hash_path, hash))
        lab_warn("cannot write %s: a change to this submission will not be seen", hash_path);
    free(hash_path);
    free(hash);
    if (why) {
        char *notes = lab_asprintf("%s: %s", entry, why);
        class_write_row(name, "refused", notes, NULL);
        free(notes);
        free(why);
    }
    free(kernels);
    free(src);
    free(unpacked);
    free(dir);
    return n > 0;
}

/* Whether the student sent stage st (OUT/students/NAME/kernels/st). */
int class_submitted_stage(const char *name, const char *st)
{
    char *k = lab_asprintf("%s/students/%s/kernels/%s/kernel.cu", cls.out, name, st);
    int there = lab_exists(k);
    free(k);
    return there;
}
