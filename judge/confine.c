/*
 * confine.c: confine [--no-gpu] [--read PATH]... [--read-list FILE] -- PROGRAM [ARG...]
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
 * --no-gpu: PROGRAM may not open the GPU's devices (a runner, whose CUDA
 * calls go to its device server: judge/forward.h), nor start threads.
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
 * own machine; a class's grading never says it): started as root, as the
 * user nobody, or not at all.
 * Exit status: PROGRAM's; 124 a build stopped at its time limit, 125 usage,
 * 126 cannot confine here, 127 PROGRAM could not be started.
 */
#include "confine.h"
#include "spawn.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
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

static const char *USAGE = "usage: confine [--no-gpu] [--read PATH]... [--read-list FILE] -- PROGRAM [ARG...]\n"
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
    if (paths->build && judge_confine_build_limits(g_memory_mb, g_file_mb, why, sizeof why))
        fail(CONFINE_UNAVAILABLE, "cannot confine here", why);
    if ((!g_without_landlock && judge_confine_landlock(paths, why, sizeof why)) ||
        (!g_without_caps && judge_confine_drop_capabilities(g_root && g_left_root, why, sizeof why)) ||
        (!g_without_seccomp && judge_confine_seccomp(g_exec_self, paths->build, !paths->no_gpu, why, sizeof why)))
        fail(CONFINE_UNAVAILABLE, "cannot confine here", why);
    if (probe) {
        printf("confined: %sPID, mount, network and IPC namespaces%s; Landlock ABI %d; "
               "system-call filter; no capabilities%s\n",
               g_root ? "" : "user, ", fresh_proc ? ", a /proc of its own" : " (the outer /proc)",
               judge_confine_landlock_abi(), g_left_root ? "; as the user nobody" : "");
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
    if (judge_confine_mounts(g_left_root, paths->build, &fresh_proc, why, sizeof why))
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

/* ------------------------------------------------------- the command line */

/* What the command line asked, beyond the paths (which go to
 * confine_paths), and the program as found: static, since paths->exec
 * points into it. */
typedef struct {
    int probe, or_unconfined;
    const char *read_list, *paths_file;
    char **argv; /* PROGRAM [ARG...] */
    char path[PATH_MAX], interp[PATH_MAX], interp2[PATH_MAX];
} invocation;

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

/* --without LAYER: diagnosis only */
static void without_layer(const char *layer)
{
    if (!strcmp(layer, "landlock"))
        g_without_landlock = 1;
    else if (!strcmp(layer, "seccomp"))
        g_without_seccomp = 1;
    else if (!strcmp(layer, "caps"))
        g_without_caps = 1;
    else {
        fprintf(stderr, "confine: --without takes landlock, seccomp or caps, not '%s'\n", layer);
        exit(CONFINE_USAGE);
    }
    fprintf(stderr, "confine: diagnosis: without %s, the program is not fully confined\n", layer);
}

/* --read-exec, --read, --exec or --write PATH */
static void add_path(confine_paths *paths, const char *option, const char *path)
{
    if (!strcmp(option, "--read-exec")) {
        if (paths->nread_exec == CONFINE_MAX_PATHS) {
            fprintf(stderr, "confine: too many --read-exec options\n");
            exit(CONFINE_USAGE);
        }
        paths->read_exec[paths->nread_exec++] = path;
        return;
    }
    char kind = option[2];
    int *count = kind == 'r' ? &paths->nread : kind == 'e' ? &paths->nexec : &paths->nwrite;
    if (*count == CONFINE_MAX_PATHS - 2) {
        fprintf(stderr, "confine: too many %s options\n", option);
        exit(CONFINE_USAGE);
    }
    const char **list = kind == 'r' ? paths->read : kind == 'e' ? paths->exec : paths->write;
    list[(*count)++] = path;
    if (kind == 'w' && !paths->build)
        fprintf(stderr, "confine: diagnosis: %s may be written\n", path);
}

/* The options, up to "--"; a usage error ends confine (CONFINE_USAGE). */
static void read_options(int argc, char **argv, confine_paths *paths, invocation *inv)
{
    int i = 1;
    for (; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--")) {
            i++;
            break;
        } else if (!strcmp(a, "--probe")) {
            inv->probe = g_probe = 1;
        } else if (!strcmp(a, "--log")) {
            paths->log = 1;
        } else if (!strcmp(a, "--build")) {
            paths->build = 1;
        } else if (!strcmp(a, "--no-gpu")) {
            paths->no_gpu = 1;
        } else if (!strcmp(a, "--or-unconfined")) {
            inv->or_unconfined = 1;
        } else if (!strcmp(a, "--help")) {
            fputs(USAGE, stdout);
            exit(0);
        } else if (v && !strcmp(a, "--paths")) {
            inv->paths_file = argv[++i];
        } else if (v && !strcmp(a, "--read-list")) {
            inv->read_list = argv[++i];
        } else if (v && !strcmp(a, "--time-limit")) {
            g_time_limit = number_arg(a, argv[++i], 1);
        } else if (v && !strcmp(a, "--memory-mb")) {
            g_memory_mb = (long)number_arg(a, argv[++i], 64);
        } else if (v && !strcmp(a, "--file-mb")) {
            g_file_mb = (long)number_arg(a, argv[++i], 1);
        } else if (v && !strcmp(a, "--label")) {
            g_label = argv[++i];
        } else if (v && !strcmp(a, "--without")) {
            without_layer(argv[++i]);
        } else if (v && (!strcmp(a, "--read-exec") || !strcmp(a, "--read") || !strcmp(a, "--exec") ||
                         !strcmp(a, "--write"))) {
            add_path(paths, a, argv[++i]);
        } else {
            fprintf(stderr, "confine: unknown option '%s'\n%s", a, USAGE);
            exit(CONFINE_USAGE);
        }
    }
    inv->argv = argv + i;
}

/* ------------------------------------------------------------------ paths */

/* --read-list and --paths: the files a run may read, a build's tools and
 * folders. */
static void read_path_lists(confine_paths *paths, const invocation *inv)
{
    char why[512] = "";
    if (inv->read_list && judge_confine_list_read(&paths->files, inv->read_list)) {
        fprintf(stderr, "confine: cannot read the list of files %s: %s\n", inv->read_list, strerror(errno));
        exit(CONFINE_USAGE);
    }
    if (inv->paths_file && judge_confine_build_paths(paths, inv->paths_file, why, sizeof why)) {
        fprintf(stderr, "confine: %s\n", why);
        exit(CONFINE_USAGE);
    }
}

/* PROGRAM, its interpreter and a script interpreter's own: what the run
 * may execute; and what they are linked with: the only libraries it may
 * read (a build's other tools add theirs: --paths). */
static void find_what_runs(confine_paths *paths, invocation *inv)
{
    if (!inv->argv[0]) {
        fputs(USAGE, stderr);
        exit(CONFINE_USAGE);
    }
    if (lab_find_program(inv->argv[0], inv->path)) {
        fprintf(stderr, "confine: cannot find %s: %s\n", inv->argv[0], strerror(errno));
        exit(CONFINE_EXEC_FAILED);
    }
    /* PROGRAM first (the one confine executes), then the other programs
     * --exec named (a build's that PROGRAM starts) */
    memmove(&paths->exec[1], &paths->exec[0], (size_t)paths->nexec * sizeof paths->exec[0]);
    paths->exec[0] = inv->path;
    paths->nexec++;
    judge_confine_interpreter(inv->path, inv->interp, sizeof inv->interp);
    if (inv->interp[0]) {
        paths->exec[paths->nexec++] = inv->interp;
        judge_confine_interpreter(inv->interp, inv->interp2, sizeof inv->interp2);
        if (inv->interp2[0] && paths->nexec < CONFINE_MAX_PATHS)
            paths->exec[paths->nexec++] = inv->interp2;
    }
    for (int k = 0; k < paths->nexec; k++)
        if (judge_confine_libraries(paths->exec[k], &paths->files) < 0 && paths->files.n == CONFINE_MAX_FILES) {
            fprintf(stderr, "confine: %s needs more than %d files\n", inv->path, CONFINE_MAX_FILES);
            exit(CONFINE_USAGE);
        }
}

/* A build: not in a folder every build may read; with --or-unconfined,
 * run plainly where this machine cannot confine (then never returns). */
static void check_build(const confine_paths *paths, const invocation *inv)
{
    if (!paths->build)
        return;
    judge_confine_build_check_folder(paths, g_label);
    confine_build_limits_t limits = {g_time_limit, g_memory_mb, g_file_mb};
    if (inv->or_unconfined)
        judge_confine_build_plainly_if_unconfinable(inv->argv, inv->path, paths, g_label, &limits);
}

/* Root: the program will run as the user nobody; a build only where
 * nobody can reach its paths (a lab beneath a folder only root may enter:
 * Landlock alone). */
static void choose_user(const confine_paths *paths, const invocation *inv)
{
    char why[512] = "";
    g_root = geteuid() == 0;
    judge_confine_find_nobody();
    g_left_root = g_root;
    if (g_root && paths->build && !inv->probe && judge_confine_build_as_nobody(paths, why, sizeof why)) {
        fprintf(stderr, "confine: note: %s is built as root without capabilities, not as the user nobody (%s)\n",
                g_label, why);
        g_left_root = 0;
    }
}

/* Every path opened now, while the caller may still reach them all. */
static void open_paths(confine_paths *paths, const invocation *inv)
{
    judge_confine_open_paths(paths);
    if (!inv->probe && paths->exec_fd[0] < 0 && (paths->exec_fd[0] = open(inv->path, O_PATH)) < 0) {
        fprintf(stderr, "confine: cannot start %s: %s\n", inv->path, strerror(errno));
        exit(CONFINE_EXEC_FAILED);
    }
}

/* ------------------------------------------------------------- namespaces */

/* confine enters the new namespaces; its next child is their process 1. */
static void enter_namespaces(const invocation *inv)
{
    char why[512] = "";
    if (judge_confine_unshare(&g_root, why, sizeof why)) {
        if (inv->probe)
            printf("not confined: %s\n", why);
        else
            fprintf(stderr, "confine: cannot confine here: %s\n", why);
        exit(CONFINE_UNAVAILABLE);
    }
}

/* init (mounts), which starts PROGRAM (limits, Landlock, capabilities,
 * seccomp, exec: program()). init's pid; PROGRAM's wait status will come
 * on *report. These two forks are not common/spawn.c's: the first child
 * must be process 1 of the namespaces just entered and never exec, and
 * the second must exec with the one execveat the system-call filter lets
 * through (of the descriptor opened before the user changed, at the path
 * g_exec_self), keeping every descriptor and signal as confine got them. */
static pid_t start_tree(const confine_paths *paths, const invocation *inv, int *report)
{
    int ends[2];
    if (pipe2(ends, O_CLOEXEC)) {
        perror("confine: pipe");
        exit(CONFINE_UNAVAILABLE);
    }
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        perror("confine: fork");
        exit(CONFINE_UNAVAILABLE);
    }
    if (pid == 0) {
        close(ends[0]);
        init(paths, inv->probe ? NULL : inv->argv, inv->path, inv->probe, ends[1]);
    }
    close(ends[1]);
    *report = ends[0];
    return pid;
}

/* ------------------------------------------------------------------ the end */

static volatile sig_atomic_t g_timed_out;
static void on_alarm(int sig)
{
    (void)sig;
    g_timed_out = 1;
}

/* --build's time limit: SIGALRM, without SA_RESTART, so that the wait's
 * read returns EINTR. */
static void arm_time_limit(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_alarm;
    sigaction(SIGALRM, &sa, NULL);
    struct itimerval t = {{0, 0}, {(time_t)g_time_limit, (suseconds_t)((g_time_limit - (time_t)g_time_limit) * 1e6)}};
    setitimer(ITIMER_REAL, &t, NULL);
}

/* PROGRAM's wait status, as init reports it. Past the time limit: init
 * killed (the kernel ends every process of the namespace with it), and
 * confine ends; when init itself failed, confine ends as init did. */
static int wait_for_program(pid_t init_pid, int report)
{
    int init_status = 0, status = 0;
    ssize_t got;
    while ((got = read(report, &status, sizeof status)) < 0 && errno == EINTR && !g_timed_out)
        ;
    if (g_timed_out) {
        kill(init_pid, SIGKILL);
        while (waitpid(init_pid, &init_status, 0) < 0 && errno == EINTR)
            ;
        fprintf(stderr, "%s: error: the build ran past its time limit (%g s) and was stopped\n", g_label,
                g_time_limit);
        exit(CONFINE_TIME_LIMIT);
    }
    while (waitpid(init_pid, &init_status, 0) < 0 && errno == EINTR)
        ;
    if (got != (ssize_t)sizeof status)
        end_like(init_status); /* init itself failed (its message said why) */
    return status;
}

/* A build's files become root's again (or it fails: its outputs are not
 * used); near the memory limit, say so, in case the compiler did not. */
static int after_build(const confine_paths *paths, int status)
{
    if (!paths->build)
        return status;
    if (g_left_root && judge_confine_build_give_back(paths))
        return CONFINE_UNAVAILABLE << 8; /* as waitpid gives an exit status */
    struct rusage ru;
    if (!(WIFEXITED(status) && WEXITSTATUS(status) == 0) && getrusage(RUSAGE_CHILDREN, &ru) == 0 &&
        ru.ru_maxrss >= g_memory_mb * 1024 * 3 / 4)
        fprintf(stderr, "%s: error: the build reached its memory limit (%ld MiB a process)\n", g_label, g_memory_mb);
    return status;
}

/* The wall in its order: options, paths, the user, namespaces; then init
 * and PROGRAM (program(): limits, Landlock, capabilities, seccomp, exec);
 * confine ends as PROGRAM did. */
int main(int argc, char **argv)
{
    static confine_paths paths;
    static invocation inv;
    read_options(argc, argv, &paths, &inv);
    read_path_lists(&paths, &inv);
    if (!inv.probe) {
        find_what_runs(&paths, &inv);
        check_build(&paths, &inv);
    }
    choose_user(&paths, &inv);
    open_paths(&paths, &inv);
    enter_namespaces(&inv);
    int report;
    pid_t init_pid = start_tree(&paths, &inv, &report);
    if (paths.build)
        arm_time_limit();
    int status = wait_for_program(init_pid, report);
    end_like(after_build(&paths, status));
    return 0;
}
