/*
 * confine.c: confine [--read PATH]... [--read-list FILE] -- PROGRAM [ARG...]
 *         confine --build [--paths FILE] [--read-exec DIR]... [--read PATH]... [--write DIR]...
 *                 [--time-limit S] [--memory-mb M] [--file-mb M] [--label TEXT] -- COMPILER [ARG...]
 *         confine --probe
 *
 * Runs PROGRAM confined (confine.h says how), with the descriptors,
 * environment and working folder it was given, and ends the way PROGRAM
 * ended: its exit status, or the same signal. Three processes:
 *
 *   confine        outside: waits, and passes PROGRAM's fate on;
 *   └─ init        process 1 of the new PID namespace: private mounts, then
 *                  waits (when it ends, the kernel ends everything left in
 *                  the namespace: nothing PROGRAM started can outlive it);
 *      └─ PROGRAM  process 2: Landlock, no capabilities, the system-call
 *                  filter, then exec. Not process 1, which the kernel
 *                  shields from its own signals (abort() would not abort).
 *
 * --probe sets every layer up in a child that then exits, and prints one
 * line: what confinement this machine gives, or why it gives none.
 * --build confines a compiler (confine.h says how), under limits: its time
 * (--time-limit, default 300 s: then everything in it is stopped), each
 * process's memory (--memory-mb, default 8192: address space) and the size
 * of a file it writes (--file-mb, default 64: an honest object is a few
 * MB, a linked program under 20). --paths names the tools it runs and the
 * folders it reads (tools/wall-paths.sh). --label names what is built
 * in the one line said when a limit stops it. --or-unconfined: where this
 * machine cannot confine, a note, and the build runs plainly (a student's
 * own machine; a class's grading never says it).
 * Exit status: PROGRAM's; 124 a build stopped at its time limit, 125 usage,
 * 126 cannot confine here, 127 PROGRAM could not be started.
 */
#include "confine.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/capability.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef PR_CAP_AMBIENT
#define PR_CAP_AMBIENT 47
#define PR_CAP_AMBIENT_CLEAR_ALL 4
#endif

static const char *USAGE = "usage: confine [--read PATH]... [--read-list FILE] -- PROGRAM [ARG...]\n"
                           "       confine --build [--or-unconfined] [--paths FILE] [--read-exec DIR]... [--read PATH]...\n"
                           "               [--write DIR]...\n"
                           "               [--time-limit S] [--memory-mb M] [--file-mb M] [--label TEXT] -- COMPILER [ARG...]\n"
                           "       confine --probe\n"
                           "  to find what a program needs that the confinement refuses (diagnosis only:\n"
                           "  the program is then not fully confined):\n"
                           "       confine [--without landlock|seccomp|caps]... [--write PATH]... [--log] -- PROGRAM\n";

/* --without LAYER: diagnosis only, never used by the grader */
static int g_without_landlock, g_without_seccomp, g_without_caps;
static int g_root; /* root, with no user namespace: process 2 becomes nobody */
static int g_left_root; /* started as root: the program runs as nobody */
/* --build's limits, and what is built (for the line a limit says) */
static double g_time_limit = 300;
static long g_memory_mb = 8192, g_file_mb = 64;
static const char *g_label = "the build";
/* the empty path of confine's own execveat: the system-call filter lets
 * through the one execveat whose path is this very array (seccomp.c) */
static char g_exec_self[1];

/* ----------------------------------------------------------- the program */

/* PROGRAM as a path: as given when it has a slash, else found on PATH. */
static int find_program(const char *name, char *out, size_t len)
{
    if (strchr(name, '/'))
        return realpath(name, out) ? 0 : -1;
    const char *path = getenv("PATH");
    for (const char *p = path ? path : ""; *p;) {
        size_t n = strcspn(p, ":");
        char candidate[PATH_MAX];
        snprintf(candidate, sizeof candidate, "%.*s/%s", (int)n, p, name);
        if (n && access(candidate, X_OK) == 0 && realpath(candidate, out))
            return 0;
        p += n + (p[n] == ':');
    }
    (void)len;
    errno = ENOENT;
    return -1;
}

/* The ELF interpreter a program names (PT_INTERP), or the interpreter of a
 * #! script, into out; "" when it has none. */
static void interpreter_of(const char *program, char *out, size_t len)
{
    out[0] = 0;
    int fd = open(program, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return;
    Elf64_Ehdr eh;
    ssize_t got = pread(fd, &eh, sizeof eh, 0);
    if (got >= 2 && ((char *)&eh)[0] == '#' && ((char *)&eh)[1] == '!') {
        char *line = (char *)&eh + 2;
        ((char *)&eh)[got < (ssize_t)sizeof eh ? got : (ssize_t)sizeof eh - 1] = 0;
        line += strspn(line, " \t");
        size_t n = strcspn(line, " \t\n");
        snprintf(out, len, "%.*s", (int)n, line);
    } else if (got == (ssize_t)sizeof eh && !memcmp(eh.e_ident, ELFMAG, SELFMAG) &&
               eh.e_ident[EI_CLASS] == ELFCLASS64) {
        for (int i = 0; i < eh.e_phnum; i++) {
            Elf64_Phdr ph;
            if (pread(fd, &ph, sizeof ph, (off_t)(eh.e_phoff + (Elf64_Off)i * eh.e_phentsize)) != sizeof ph)
                break;
            if (ph.p_type == PT_INTERP && ph.p_filesz > 1 && ph.p_filesz < len) {
                if (pread(fd, out, ph.p_filesz, (off_t)ph.p_offset) != (ssize_t)ph.p_filesz)
                    out[0] = 0;
                else
                    out[ph.p_filesz - 1] = 0;
                break;
            }
        }
    }
    close(fd);
}

/* --------------------------------------------------------------- privilege */

/* Drop every capability (those of the new user namespace, or root's) for
 * good: the bounding set, the ambient set, and the effective, permitted and
 * inheritable sets; securebits locked so that exec gives none back. Root
 * becomes the user nobody here. */
static int drop_capabilities(char *why, size_t len)
{
    for (int cap = 0; cap <= 63; cap++)
        if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) && errno != EINVAL) {
            snprintf(why, len, "cannot drop capability %d: %s", cap, strerror(errno));
            return -1;
        }
    prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
    /* SECBIT_NOROOT and its lock, and the locks of SECBIT_NO_SETUID_FIXUP (off) and SECBIT_KEEP_CAPS */
    if (prctl(PR_SET_SECUREBITS, 0x01 | 0x02 | 0x08 | 0x20, 0, 0, 0)) {
        snprintf(why, len, "cannot lock the securebits: %s", strerror(errno));
        return -1;
    }
    /* root: the user nobody, which clears the capabilities too (a build
     * whose paths nobody cannot reach stays root without capabilities, and
     * said so: Landlock, not the user, is then its wall) */
    if (g_root && g_left_root && confine_leave_root(why, len))
        return -1;
    struct __user_cap_header_struct h = {_LINUX_CAPABILITY_VERSION_3, 0};
    struct __user_cap_data_struct d[2];
    memset(d, 0, sizeof d);
    if (syscall(SYS_capset, &h, d)) {
        snprintf(why, len, "cannot drop the capabilities: %s", strerror(errno));
        return -1;
    }
    return 0;
}

/* --------------------------------------------------------------- the tree */

/* Pass a child's fate on as our own: its exit status, or its signal. */
static void end_like(int status)
{
    if (WIFSIGNALED(status)) {
        int sig = WTERMSIG(status);
        signal(sig, SIG_DFL);
        sigset_t set;
        sigemptyset(&set);
        sigaddset(&set, sig);
        sigprocmask(SIG_UNBLOCK, &set, NULL);
        raise(sig);
        _exit(128 + sig);
    }
    _exit(WIFEXITED(status) ? WEXITSTATUS(status) : CONFINE_EXEC_FAILED);
}

static int g_probe; /* --probe: failures are the answer, on stdout */

static void fail(int status, const char *what, const char *why)
{
    if (g_probe) {
        printf("not confined: %s\n", why);
        fflush(stdout);
    } else {
        fprintf(stderr, "confine: %s: %s\n", what, why);
    }
    _exit(status);
}

/* Process 2: the last layers, then PROGRAM (or, probing, a report). */
static void program(const confine_paths *paths, char *const argv[], const char *path, int probe,
                    int fresh_proc)
{
    char why[512] = "";
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (paths->build && confine_build_limits(g_memory_mb, g_file_mb, why, sizeof why))
        fail(CONFINE_UNAVAILABLE, "cannot confine here", why);
    if ((!g_without_landlock && confine_landlock(paths, why, sizeof why)) ||
        (!g_without_caps && drop_capabilities(why, sizeof why)) ||
        (!g_without_seccomp && confine_seccomp(g_exec_self, paths->build, why, sizeof why)))
        fail(CONFINE_UNAVAILABLE, "cannot confine here", why);
    if (probe) {
        printf("confined: %sPID, mount, network and IPC namespaces%s; Landlock ABI %d; "
               "system-call filter; no capabilities%s\n",
               g_root ? "" : "user, ", fresh_proc ? ", a /proc of its own" : " (the outer /proc)",
               confine_landlock_abi(), g_left_root ? "; as the user nobody" : "");
        fflush(stdout);
        _exit(0);
    }
    /* the program as confine opened it (before any change of user) */
    extern char **environ;
    syscall(SYS_execveat, paths->exec_fd[0], g_exec_self, argv, environ, AT_EMPTY_PATH);
    int err = errno;
    fprintf(stderr, "confine: cannot start %s: %s%s\n", path, strerror(err),
            err == EACCES && g_left_root ? " (started as root, confine runs it as the user nobody: the program "
                                           "must be executable by all, chmod -R a+rX build)"
                                         : "");
    _exit(CONFINE_EXEC_FAILED);
}

/* Process 1 of the namespace: mounts, then PROGRAM's parent. Writes
 * PROGRAM's raw wait status on report. */
static void init(const confine_paths *paths, char *const argv[], const char *path, int probe, int report)
{
    char why[512] = "";
    int fresh_proc = 0;
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (confine_mounts(g_left_root, paths->build, &fresh_proc, why, sizeof why))
        fail(CONFINE_UNAVAILABLE, "cannot confine here", why);
    pid_t pid = fork();
    if (pid < 0)
        fail(CONFINE_UNAVAILABLE, "cannot confine here", strerror(errno));
    if (pid == 0) {
        close(report);
        program(paths, argv, path, probe, fresh_proc);
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    if (write(report, &status, sizeof status) != (ssize_t)sizeof status)
        _exit(CONFINE_EXEC_FAILED);
    _exit(0);
}

/* A number option's value, or a usage error. */
static double number_arg(const char *option, const char *text, double min)
{
    char *end;
    double v = strtod(text, &end);
    if (*end || v < min) {
        fprintf(stderr, "confine: %s takes a number of at least %g, not '%s'\n", option, min, text);
        exit(CONFINE_USAGE);
    }
    return v;
}

static volatile sig_atomic_t g_timed_out;
static void on_alarm(int sig)
{
    (void)sig;
    g_timed_out = 1;
}

int main(int argc, char **argv)
{
    static confine_paths paths;
    int probe = 0, i = 1;
    const char *read_list = NULL, *paths_file = NULL;
    int or_unconfined = 0;
    for (; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--")) {
            i++;
            break;
        } else if (!strcmp(a, "--probe")) {
            probe = g_probe = 1;
        } else if (!strcmp(a, "--log")) {
            paths.log = 1;
        } else if (!strcmp(a, "--build")) {
            paths.build = 1;
        } else if (!strcmp(a, "--or-unconfined")) {
            or_unconfined = 1;
        } else if (v && !strcmp(a, "--paths")) {
            paths_file = argv[++i];
        } else if (v && !strcmp(a, "--read-list")) {
            read_list = argv[++i];
        } else if (v && !strcmp(a, "--time-limit")) {
            g_time_limit = number_arg(a, argv[++i], 1);
        } else if (v && !strcmp(a, "--memory-mb")) {
            g_memory_mb = (long)number_arg(a, argv[++i], 64);
        } else if (v && !strcmp(a, "--file-mb")) {
            g_file_mb = (long)number_arg(a, argv[++i], 1);
        } else if (v && !strcmp(a, "--label")) {
            g_label = argv[++i];
        } else if (v && !strcmp(a, "--read-exec")) {
            if (paths.nread_exec == CONFINE_MAX_PATHS) {
                fprintf(stderr, "confine: too many --read-exec options\n");
                return CONFINE_USAGE;
            }
            paths.read_exec[paths.nread_exec++] = argv[++i];
        } else if (v && !strcmp(a, "--without")) {
            const char *layer = argv[++i];
            if (!strcmp(layer, "landlock"))
                g_without_landlock = 1;
            else if (!strcmp(layer, "seccomp"))
                g_without_seccomp = 1;
            else if (!strcmp(layer, "caps"))
                g_without_caps = 1;
            else {
                fprintf(stderr, "confine: --without takes landlock, seccomp or caps, not '%s'\n", layer);
                return CONFINE_USAGE;
            }
            fprintf(stderr, "confine: diagnosis: without %s, the program is not fully confined\n", layer);
        } else if (v && (!strcmp(a, "--read") || !strcmp(a, "--exec") || !strcmp(a, "--write"))) {
            char kind = a[2];
            int *count = kind == 'r' ? &paths.nread : kind == 'e' ? &paths.nexec : &paths.nwrite;
            if (*count == CONFINE_MAX_PATHS - 2) {
                fprintf(stderr, "confine: too many %s options\n", a);
                return CONFINE_USAGE;
            }
            const char **list = kind == 'r' ? paths.read : kind == 'e' ? paths.exec : paths.write;
            list[(*count)++] = argv[++i];
            if (kind == 'w' && !paths.build)
                fprintf(stderr, "confine: diagnosis: %s may be written\n", argv[i]);
        } else if (!strcmp(a, "--help")) {
            fputs(USAGE, stdout);
            return 0;
        } else {
            fprintf(stderr, "confine: unknown option '%s'\n%s", a, USAGE);
            return CONFINE_USAGE;
        }
    }
    if (read_list && confine_list_read(&paths.files, read_list)) {
        fprintf(stderr, "confine: cannot read the list of files %s: %s\n", read_list, strerror(errno));
        return CONFINE_USAGE;
    }
    char why[512] = "";
    if (paths_file && confine_build_paths(&paths, paths_file, why, sizeof why)) {
        fprintf(stderr, "confine: %s\n", why);
        return CONFINE_USAGE;
    }
    static char path[PATH_MAX], interp[PATH_MAX], interp2[PATH_MAX];
    if (!probe) {
        if (i >= argc) {
            fputs(USAGE, stderr);
            return CONFINE_USAGE;
        }
        if (find_program(argv[i], path, sizeof path)) {
            fprintf(stderr, "confine: cannot find %s: %s\n", argv[i], strerror(errno));
            return CONFINE_EXEC_FAILED;
        }
        /* the program, its interpreter, and a script interpreter's own */
        paths.exec[paths.nexec++] = path;
        interpreter_of(path, interp, sizeof interp);
        if (interp[0]) {
            paths.exec[paths.nexec++] = interp;
            interpreter_of(interp, interp2, sizeof interp2);
            if (interp2[0] && paths.nexec < CONFINE_MAX_PATHS)
                paths.exec[paths.nexec++] = interp2;
        }
        /* what they are linked with: the only libraries the run may read
         * (a build's other tools add theirs: --paths) */
        for (int k = 0; k < paths.nexec; k++)
            if (confine_libraries(paths.exec[k], &paths.files) < 0 && paths.files.n == CONFINE_MAX_FILES) {
                fprintf(stderr, "confine: %s needs more than %d files\n", path, CONFINE_MAX_FILES);
                return CONFINE_USAGE;
            }
        if (paths.build)
            confine_build_check_folder(&paths, g_label);
        if (paths.build && or_unconfined)
            confine_build_plainly_if_unconfinable(argv + i, path, g_label, g_memory_mb, g_file_mb);
    }
    g_root = geteuid() == 0;
    confine_find_nobody();
    g_left_root = g_root;
    if (g_root && paths.build && !probe && confine_build_as_nobody(&paths, why, sizeof why)) {
        /* a lab beneath a folder only root may enter: Landlock alone */
        fprintf(stderr, "confine: note: %s is built as root without capabilities, not as the user nobody (%s)\n",
                g_label, why);
        g_left_root = 0;
    }
    confine_open_paths(&paths);
    if (!probe && paths.exec_fd[0] < 0 && (paths.exec_fd[0] = open(path, O_PATH)) < 0) {
        fprintf(stderr, "confine: cannot start %s: %s\n", path, strerror(errno));
        return CONFINE_EXEC_FAILED;
    }
    if (confine_unshare(&g_root, why, sizeof why)) {
        if (probe)
            printf("not confined: %s\n", why);
        else
            fprintf(stderr, "confine: cannot confine here: %s\n", why);
        return CONFINE_UNAVAILABLE;
    }
    int report[2];
    if (pipe2(report, O_CLOEXEC)) {
        perror("confine: pipe");
        return CONFINE_UNAVAILABLE;
    }
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        perror("confine: fork");
        return CONFINE_UNAVAILABLE;
    }
    if (pid == 0) {
        close(report[0]);
        init(&paths, probe ? NULL : argv + i, path, probe, report[1]);
    }
    close(report[1]);
    if (paths.build) {
        /* the time limit: init killed, the kernel ends every process of the
         * namespace with it */
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_alarm;
        sigaction(SIGALRM, &sa, NULL); /* no SA_RESTART: read returns EINTR */
        struct itimerval t = {{0, 0}, {(time_t)g_time_limit, (suseconds_t)((g_time_limit - (time_t)g_time_limit) * 1e6)}};
        setitimer(ITIMER_REAL, &t, NULL);
    }
    int init_status = 0, status = 0;
    ssize_t got;
    while ((got = read(report[0], &status, sizeof status)) < 0 && errno == EINTR && !g_timed_out)
        ;
    if (g_timed_out) {
        kill(pid, SIGKILL);
        while (waitpid(pid, &init_status, 0) < 0 && errno == EINTR)
            ;
        fprintf(stderr, "%s: error: the build ran past its time limit (%g s) and was stopped\n", g_label,
                g_time_limit);
        return CONFINE_TIME_LIMIT;
    }
    while (waitpid(pid, &init_status, 0) < 0 && errno == EINTR)
        ;
    if (got != (ssize_t)sizeof status)
        end_like(init_status); /* init itself failed (its message said why) */
    if (paths.build && g_left_root)
        confine_build_give_back(&paths);
    if (paths.build && !(WIFEXITED(status) && WEXITSTATUS(status) == 0)) {
        /* near the memory limit: say so, in case the compiler did not */
        struct rusage ru;
        if (getrusage(RUSAGE_CHILDREN, &ru) == 0 && ru.ru_maxrss >= g_memory_mb * 1024 * 3 / 4)
            fprintf(stderr, "%s: error: the build reached its memory limit (%ld MiB a process)\n", g_label,
                    g_memory_mb);
    }
    end_like(status);
    return 0;
}
