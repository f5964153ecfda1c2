/*
 * spawn.c: starting a process, waiting for it, and finding a program
 * (spawn.h).
 */
#include "spawn.h"
#include "fdio.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

double lab_spawn_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

int lab_spawn_exit_code(int status)
{
    return WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WEXITSTATUS(status);
}

int lab_find_program(const char *name, char *out)
{
    if (strchr(name, '/'))
        return access(name, X_OK) == 0 && realpath(name, out) ? 0 : -1;
    const char *path = getenv("PATH");
    for (const char *p = path ? path : ""; *p;) {
        size_t n = strcspn(p, ":");
        char candidate[PATH_MAX];
        if (n && snprintf(candidate, sizeof candidate, "%.*s/%s", (int)n, p, name) < (int)sizeof candidate &&
            access(candidate, X_OK) == 0 && realpath(candidate, out))
            return 0;
        p += n + (p[n] == ':');
    }
    errno = ENOENT;
    return -1;
}

/* ========================================================= the child's side */

/* One line on stderr, with write(2) alone: "WHO: WHAT ARG: strerror". */
static void child_says(const char *who, const char *what, const char *arg, int err)
{
    if (!who)
        return;
    const char *parts[] = {who, ": ", what, " ", arg, ": ", strerror(err), "\n"};
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++)
        if (write(2, parts[i], strlen(parts[i])) < 0)
            return;
}

/* The default action for the signals a caller may have caught or ignored
 * for itself (an ignored SIGPIPE survives exec), none blocked. */
static void default_signals(void)
{
    static const int reset[] = {SIGPIPE, SIGINT, SIGTERM, SIGCHLD};
    for (size_t i = 0; i < sizeof reset / sizeof reset[0]; i++)
        signal(reset[i], SIG_DFL);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
}

/* Is fd one of the numbers the child's descriptors go to? */
static int is_target(const lab_spawn *s, int fd)
{
    for (int i = 0; i < s->nfds; i++)
        if (s->fds[i].to == fd)
            return 1;
    return 0;
}

/* stdin, stdout, stderr (io[k]: -1 inherited; stderr LAB_IO_STDOUT) and
 * the extra descriptors at their numbers: each first moved above every
 * number any of them goes to (one could sit where another goes), then
 * placed (dup2 clears close-on-exec on the copy). */
static int place_descriptors(const lab_spawn *s, int io[3])
{
    int above = 3, from[LAB_SPAWN_MAX_FDS];
    for (int i = 0; i < s->nfds; i++)
        if (s->fds[i].to + 1 > above)
            above = s->fds[i].to + 1;
    for (int k = 0; k < 3; k++)
        if (io[k] >= 0 && (io[k] = fcntl(io[k], F_DUPFD_CLOEXEC, above)) < 0)
            return -1;
    for (int i = 0; i < s->nfds; i++)
        if ((from[i] = fcntl(s->fds[i].from, F_DUPFD_CLOEXEC, above)) < 0)
            return -1;
    for (int k = 0; k < 2; k++)
        if (io[k] >= 0 && dup2(io[k], k) < 0)
            return -1;
    if (s->err.kind == LAB_IO_STDOUT ? dup2(1, 2) < 0 : io[2] >= 0 && dup2(io[2], 2) < 0)
        return -1;
    for (int i = 0; i < s->nfds; i++)
        if (dup2(from[i], s->fds[i].to) < 0)
            return -1;
    if (s->close_others)
        for (int fd = 3; fd < 1024; fd++)
            if (!is_target(s, fd))
                close(fd);
    return 0;
}

/* After fork: the child becomes what s says, then runs. Never returns. */
static void child_side(const lab_spawn *s, int io[3], char **envp)
{
    if (s->group == LAB_SPAWN_GROUP)
        setpgid(0, 0);
    else if (s->group == LAB_SPAWN_SESSION)
        setsid();
    default_signals();
    if (place_descriptors(s, io))
        _exit(LAB_SPAWN_NOT_STARTED);
    if (envp)
        environ = envp;
    if (s->dir && chdir(s->dir)) {
        child_says(s->who, "cannot enter", s->dir, errno);
        _exit(LAB_SPAWN_NOT_STARTED);
    }
    if (s->before_exec && s->before_exec(s->arg))
        _exit(LAB_SPAWN_NOT_STARTED);
    if (!s->argv)
        _exit(s->run(s->arg));
    if (strchr(s->argv[0], '/'))
        execv(s->argv[0], s->argv);
    else
        execvp(s->argv[0], s->argv);
    child_says(s->who, "cannot run", s->argv[0], errno);
    _exit(LAB_SPAWN_NOT_STARTED);
}

/* ======================================================== the parent's side */

/* Does entry ("NAME=VALUE") name the variable name (up to its '=')? */
static int names(const char *entry, const char *name)
{
    size_t n = strcspn(name, "=");
    return !strncmp(entry, name, n) && entry[n] == '=';
}

/* The child's environment: ours, less env_unset and what env_set sets
 * again, then env_set. NULL: ours unchanged (or no memory: -1 in *failed). */
static char **child_environment(const lab_spawn *s, int *failed)
{
    *failed = 0;
    if (!s->env_set && !s->env_unset)
        return NULL;
    size_t n = 0, k = 0;
    while (environ && environ[n])
        n++;
    for (size_t i = 0; s->env_set && s->env_set[i]; i++)
        n++;
    char **env = malloc((n + 1) * sizeof *env);
    if (!env) {
        *failed = 1;
        return NULL;
    }
    for (size_t i = 0; environ && environ[i]; i++) {
        int drop = 0;
        for (size_t u = 0; s->env_unset && s->env_unset[u] && !drop; u++)
            drop = names(environ[i], s->env_unset[u]);
        for (size_t v = 0; s->env_set && s->env_set[v] && !drop; v++)
            drop = names(environ[i], s->env_set[v]);
        if (!drop)
            env[k++] = environ[i];
    }
    for (size_t i = 0; s->env_set && s->env_set[i]; i++)
        env[k++] = s->env_set[i];
    env[k] = NULL;
    return env;
}

/* The descriptor the child's stdin (k 0), stdout or stderr is made from,
 * opened here; a pipe's other end in *ours. -1 inherited; -2 failed. */
static int open_io(const lab_io *io, int k, int *ours)
{
    int p[2];
    switch (io->kind) {
    case LAB_IO_NULL:
        return open("/dev/null", (k ? O_WRONLY : O_RDONLY) | O_CLOEXEC);
    case LAB_IO_FILE:
    case LAB_IO_APPEND:
        return open(io->path, O_WRONLY | O_CREAT | O_CLOEXEC | (io->kind == LAB_IO_APPEND ? O_APPEND : O_TRUNC),
                    0644);
    case LAB_IO_PIPE:
        if (pipe2(p, O_CLOEXEC))
            return -2;
        *ours = p[k ? 0 : 1];
        return p[k ? 1 : 0];
    default:
        return -1;
    }
}

static void close_all(int *fds, int n)
{
    for (int i = 0; i < n; i++)
        if (fds[i] >= 0) {
            close(fds[i]);
            fds[i] = -1;
        }
}

int lab_spawn_start(const lab_spawn *s, lab_child *c)
{
    memset(c, 0, sizeof *c);
    c->pid = -1;
    c->limit_s = s->limit_s;
    int io[3] = {-1, -1, -1}, ours[3] = {-1, -1, -1}, failed = 0;
    const lab_io *how[3] = {&s->in, &s->out, &s->err};
    for (int k = 0; k < 3 && !failed; k++)
        if ((io[k] = open_io(how[k], k, &ours[k])) == -2 ||
            (io[k] < 0 && how[k]->kind != LAB_IO_INHERIT && how[k]->kind != LAB_IO_STDOUT))
            failed = 1;
    char **envp = failed ? NULL : child_environment(s, &failed);
    int err = errno;
    pid_t pid = -1;
    if (!failed) {
        fflush(NULL);
        pid = fork();
        err = errno;
    }
    if (pid == 0)
        child_side(s, io, envp);
    free(envp);
    close_all(io, 3);
    if (pid < 0) {
        close_all(ours, 3);
        errno = err;
        return -1;
    }
    c->pid = pid;
    c->started = lab_spawn_now();
    if (s->group != LAB_SPAWN_SAME_GROUP) {
        setpgid(pid, pid); /* also here, so that a kill right away finds the group */
        c->own_group = 1;
    }
    if (ours[0] >= 0) {
        if (s->input)
            lab_write_all(ours[0], s->input, strlen(s->input));
        close(ours[0]);
    }
    c->in = -1;
    c->out = ours[1];
    c->err = ours[2];
    return 0;
}

int lab_spawn_check(lab_child *c)
{
    if (c->pid <= 0 || c->reaped)
        return 1;
    siginfo_t si;
    memset(&si, 0, sizeof si);
    int ended = waitid(P_PID, (id_t)c->pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0 && si.si_pid == c->pid;
    if (!ended && (c->limit_s <= 0 || lab_spawn_now() - c->started <= c->limit_s))
        return 0;
    kill(c->own_group ? -c->pid : c->pid, SIGKILL);
    while (waitpid(c->pid, &c->status, 0) < 0 && errno == EINTR)
        ;
    c->reaped = 1;
    c->timed_out = !ended;
    return 1;
}

int lab_spawn_wait(lab_child *c)
{
    if (c->pid <= 0)
        return LAB_SPAWN_NOT_STARTED;
    if (c->limit_s > 0) {
        while (!lab_spawn_check(c))
            nanosleep(&(struct timespec){0, 20000000}, NULL);
    } else if (!c->reaped) {
        while (waitpid(c->pid, &c->status, 0) < 0)
            if (errno != EINTR)
                return LAB_SPAWN_NOT_STARTED;
        c->reaped = 1;
    }
    return c->timed_out ? LAB_SPAWN_TIMED_OUT : lab_spawn_exit_code(c->status);
}

int lab_spawn_run(const lab_spawn *s, char **text, size_t max, int *truncated)
{
    lab_child c;
    if (text)
        *text = NULL;
    /* it reads stdout to its end, then waits: a stderr pipe nobody reads
     * could fill and stop the child for good, and a time limit would be
     * kept only once stdout ended (lab_spawn_start is for those) */
    if (s->err.kind == LAB_IO_PIPE || (s->out.kind == LAB_IO_PIPE && s->limit_s > 0)) {
        errno = EINVAL;
        return LAB_SPAWN_NOT_STARTED;
    }
    if (lab_spawn_start(s, &c))
        return LAB_SPAWN_NOT_STARTED;
    if (c.out >= 0) {
        char *got = lab_read_to_end(c.out, max, NULL, truncated);
        close(c.out);
        if (text)
            *text = got;
        else
            free(got);
    }
    if (c.err >= 0)
        close(c.err);
    return lab_spawn_wait(&c);
}
