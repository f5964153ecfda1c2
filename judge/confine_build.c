/*
 * build.c: what a build's run needs beyond a program's (see confine.h):
 * its limits, the folder it may not run in, and, where the machine cannot
 * confine and the caller allows it (--or-unconfined), running it plainly.
 */
#include "confine.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

/* A build's limits, inherited by every process it starts, and its scratch
 * folder (the private /dev/shm) as TMPDIR. */
int confine_build_limits(long memory_mb, long file_mb, char *why, size_t len)
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

void confine_build_check_folder(const confine_paths *paths, const char *label)
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

/* --or-unconfined: whether this machine confines (confine --probe, run
 * again as a process of its own); when it cannot, one note, and the
 * build runs plainly under its limits of memory and file size. */
void confine_build_plainly_if_unconfinable(char *const argv[], const char *path, const char *label, long memory_mb,
                                            long file_mb)
{
    int out[2];
    if (pipe(out))
        return;
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        dup2(out[1], 1);
        close(out[0]);
        execl("/proc/self/exe", "confine", "--probe", (char *)NULL);
        _exit(127);
    }
    close(out[1]);
    char line[512] = "";
    ssize_t got = pid > 0 ? read(out[0], line, sizeof line - 1) : -1;
    line[got > 0 ? got : 0] = 0;
    close(out[0]);
    while (pid > 0 && waitpid(pid, NULL, 0) < 0 && errno == EINTR)
        ;
    if (!strncmp(line, "confined: ", 10))
        return;
    line[strcspn(line, "\n")] = 0;
    fprintf(stderr, "confine: note: %s is built without its wall (%s); make class requires the wall\n", label,
            line[0] ? line : "the probe said nothing");
    char why[256];
    if (confine_build_limits(memory_mb, file_mb, why, sizeof why))
        fprintf(stderr, "confine: %s\n", why);
    execv(path, argv);
    fprintf(stderr, "confine: cannot start %s: %s\n", path, strerror(errno));
    exit(CONFINE_EXEC_FAILED);
}

