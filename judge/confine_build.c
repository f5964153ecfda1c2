/*
 * confine_build.c: what a build's run needs beyond a program's (see confine.h):
 * its limits, the folder it may not run in, and, where the machine cannot
 * confine and the caller allows it (--or-unconfined), running it plainly
 * (started as root: as the user nobody, or not at all).
 * Its two children (confine --probe, and a try as the user nobody) start
 * as every process of the lab does (common/spawn.c); the confined tree
 * does not (confine.c says why).
 */
#include "confine.h"
#include "spawn.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

int judge_confine_build_limits(long memory_mb, long file_mb, char *why, size_t len)
{
    struct rlimit mem = {(rlim_t)memory_mb << 20, (rlim_t)memory_mb << 20};
    struct rlimit file = {(rlim_t)file_mb << 20, (rlim_t)file_mb << 20};
    struct rlimit none = {0, 0};
    if (setrlimit(RLIMIT_AS, &mem) || setrlimit(RLIMIT_FSIZE, &file) || setrlimit(RLIMIT_CORE, &none)) {
        snprintf(why, len, "cannot set the build's limits: %s", strerror(errno));
        return -1;
    }
    /* a file past the limit is an error the compiler reports, not a signal */
    signal(SIGXFSZ, SIG_IGN);
    setenv("TMPDIR", "/dev/shm", 1);
    return 0;
}

/* A build must not run where the folders it may read hold the lab: a lab
 * beneath /usr would show its solutions to every build. */
static int beneath(const char *path, const char *dir)
{
    char real[PATH_MAX];
    if (!realpath(dir, real))
        return 0;
    size_t n = strlen(real);
    return !strncmp(path, real, n) && (path[n] == '/' || path[n] == 0 || (n == 1 && real[0] == '/'));
}

void judge_confine_build_check_folder(const confine_paths *paths, const char *label)
{
    char here[PATH_MAX];
    if (!getcwd(here, sizeof here))
        return;
    const char *inside = NULL;
    for (int i = 0; confine_system_dirs[i] && !inside; i++)
        if (beneath(here, confine_system_dirs[i]))
            inside = confine_system_dirs[i];
    for (int i = 0; confine_config_dirs[i] && !inside; i++)
        if (beneath(here, confine_config_dirs[i]))
            inside = confine_config_dirs[i];
    for (int i = 0; i < paths->nread_exec && !inside; i++)
        if (beneath(here, paths->read_exec[i]))
            inside = paths->read_exec[i];
    if (inside) {
        fprintf(stderr, "confine: %s: error: the build runs in %s, beneath %s, which every build may read: "
                        "move the lab (and the class's folder) out of the system's folders and the CUDA Toolkit\n",
                label, here, inside);
        exit(CONFINE_UNAVAILABLE);
    }
}

/* The child of a build without its wall, as root: its limits, then the
 * user nobody, before the exec. */
static int limited_as_nobody(void *limits)
{
    const confine_build_limits_t *l = limits;
    char why[512];
    if (judge_confine_build_limits(l->memory_mb, l->file_mb, why, sizeof why) ||
        judge_confine_leave_root(why, sizeof why)) {
        fprintf(stderr, "confine: %s\n", why);
        return -1;
    }
    return 0;
}

/* Root without the wall: the build as the user nobody under its limits
 * (time included), its output root's again after; where nobody cannot
 * build here, not built, one line. Never returns. */
static void build_as_nobody_unwalled(char *const argv[], const confine_paths *paths, const char *label,
                                     const confine_build_limits_t *limits, const char *probe_said)
{
    char why[512] = "";
    judge_confine_find_nobody();
    if (judge_confine_build_as_nobody(paths, why, sizeof why)) {
        fprintf(stderr, "confine: %s: error: not built: this machine cannot confine (%s), and a build started "
                        "as root runs without its wall only as the user nobody, who cannot here (%s): build as a "
                        "user who is not root, or where the wall can be had\n",
                label, probe_said, why);
        exit(CONFINE_UNAVAILABLE);
    }
    fprintf(stderr, "confine: note: %s is built as the user nobody without its wall (%s); make class requires "
                    "the wall\n", label, probe_said);
    lab_spawn s = {.argv = argv, .arg = (void *)limits, .before_exec = limited_as_nobody,
                   .group = LAB_SPAWN_GROUP, .limit_s = limits->time_s};
    lab_child c;
    int code = lab_spawn_start(&s, &c) ? LAB_SPAWN_NOT_STARTED : lab_spawn_wait(&c);
    if (judge_confine_build_give_back(paths))
        exit(CONFINE_UNAVAILABLE); /* its outputs are still nobody's: not used */
    if (code == LAB_SPAWN_TIMED_OUT)
        fprintf(stderr, "%s: error: the build ran past its time limit (%g s) and was stopped\n", label,
                limits->time_s);
    exit(code == LAB_SPAWN_TIMED_OUT ? CONFINE_TIME_LIMIT : code);
}

/* --or-unconfined (confine.h); the probe is confine --probe, run again as a
 * process of its own. */
void judge_confine_build_plainly_if_unconfinable(char *const argv[], const char *path,
                                                const confine_paths *paths, const char *label,
                                                const confine_build_limits_t *limits)
{
    char *probe[] = {"/proc/self/exe", "--probe", NULL}, *line = NULL;
    lab_spawn s = {.argv = probe, .out = {LAB_IO_PIPE, NULL}};
    lab_spawn_run(&s, &line, 511, NULL);
    if (line && !strncmp(line, "confined: ", 10)) {
        free(line);
        return;
    }
    if (line)
        line[strcspn(line, "\n")] = 0;
    const char *said = line && line[0] ? line : "the probe said nothing";
    if (geteuid() == 0)
        build_as_nobody_unwalled(argv, paths, label, limits, said);
    fprintf(stderr, "confine: note: %s is built without its wall (%s); make class requires the wall\n", label,
            said);
    char why[256];
    if (judge_confine_build_limits(limits->memory_mb, limits->file_mb, why, sizeof why))
        fprintf(stderr, "confine: %s\n", why);
    execv(path, argv);
    fprintf(stderr, "confine: cannot start %s: %s\n", path, strerror(errno));
    exit(CONFINE_EXEC_FAILED);
}

/* --paths FILE: "tool PATH" and "read PATH" lines (tools/wall-paths.sh). */
int judge_confine_build_paths(confine_paths *paths, const char *file, char *why, size_t len)
{
    FILE *f = fopen(file, "r");
    if (!f) {
        snprintf(why, len, "cannot read the build's paths %s: %s", file, strerror(errno));
        return -1;
    }
    char line[PATH_MAX + 16];
    int rc = 0;
    while (!rc && fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = 0;
        int tool = !strncmp(line, "tool /", 6), read = !strncmp(line, "read /", 6);
        if (!line[0] || line[0] == '#')
            continue;
        if (!tool && !read) {
            snprintf(why, len, "%s: not a \"tool PATH\" or \"read PATH\" line: %.80s", file, line);
            rc = -1;
        } else if ((tool ? paths->nread_exec : paths->nread) >= CONFINE_MAX_PATHS - 2) {
            snprintf(why, len, "%s: more than %d paths of one kind", file, CONFINE_MAX_PATHS - 2);
            rc = -1;
        } else if (tool) {
            char *path = strdup(line + 5);
            paths->read_exec[paths->nread_exec++] = path;
            /* its loader may be executed, its libraries read */
            if (judge_confine_libraries(path, &paths->files) < 0 && paths->files.n == CONFINE_MAX_FILES) {
                snprintf(why, len, "the build's tools need more than %d files", CONFINE_MAX_FILES);
                rc = -1;
            }
        } else {
            paths->read[paths->nread++] = strdup(line + 5);
        }
    }
    fclose(f);
    return rc;
}

/* Whether the user nobody may open path for mode (R_OK, W_OK | X_OK), as
 * seen by a child that has become nobody. */
static int nobody_reaches(const confine_paths *paths, char *why, size_t len)
{
    char here[PATH_MAX];
    const char *no = NULL;
    if (getcwd(here, sizeof here) && access(here, X_OK))
        no = here;
    for (int i = 0; i < paths->nread && !no; i++)
        if (access(paths->read[i], R_OK))
            no = paths->read[i];
    for (int i = 0; i < paths->nread_exec && !no; i++)
        if (access(paths->read_exec[i], R_OK))
            no = paths->read_exec[i];
    for (int i = 0; i < paths->files.n && !no; i++)
        if (access(paths->files.path[i], R_OK))
            no = paths->files.path[i];
    if (no)
        snprintf(why, len, "the user nobody cannot reach %.400s", no);
    return no ? -1 : 0;
}

/* In a child of its own: become nobody and try the paths; why on stdout. */
static int try_as_nobody(void *paths)
{
    char said[512] = "";
    int rc = judge_confine_leave_root(said, sizeof said) || nobody_reaches(paths, said, sizeof said);
    if (rc && write(1, said, strlen(said)) < 0)
        return 2;
    return rc;
}

int judge_confine_build_as_nobody(const confine_paths *paths, char *why, size_t len)
{
    char *said = NULL;
    lab_spawn s = {.run = try_as_nobody, .arg = (void *)paths, .out = {LAB_IO_PIPE, NULL}};
    int status = lab_spawn_run(&s, &said, len - 1, NULL);
    snprintf(why, len, "%s", said ? said : "");
    free(said);
    if (status != 0) {
        if (!why[0])
            snprintf(why, len, "the user nobody cannot reach the build's paths");
        return -1;
    }
    /* its output folders are nobody's to write */
    unsigned uid, gid;
    judge_confine_nobody_ids(&uid, &gid);
    for (int i = 0; i < paths->nwrite; i++)
        if (chown(paths->write[i], uid, gid)) {
            snprintf(why, len, "cannot give %s to the user nobody: %s", paths->write[i], strerror(errno));
            return -1;
        }
    return 0;
}

/* After a build as nobody: what it wrote becomes root's again, so that no
 * other process of the user nobody can change it before it is used. */
int judge_confine_build_give_back(const confine_paths *paths)
{
    int failed = 0;
    for (int i = 0; i < paths->nwrite; i++) {
        DIR *d = opendir(paths->write[i]);
        for (struct dirent *e; d && (e = readdir(d));)
            if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") &&
                fchownat(dirfd(d), e->d_name, 0, 0, AT_SYMLINK_NOFOLLOW) && errno != ENOENT) {
                fprintf(stderr, "confine: error: cannot make %s/%s root's again: %s\n", paths->write[i], e->d_name,
                        strerror(errno));
                failed = 1;
            }
        if (d)
            closedir(d);
        if (chown(paths->write[i], 0, 0)) {
            fprintf(stderr, "confine: error: cannot make %s root's again: %s\n", paths->write[i], strerror(errno));
            failed = 1;
        }
    }
    return failed ? -1 : 0;
}
