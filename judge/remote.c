/*
 * remote.c: starting a runner and talking to it (remote.h).
 *
 * Everything here is written for a runner that lies, hangs or dies at the
 * worst moment: every read has a deadline, every answer is checked for its
 * size and magic number, and a runner's death is read from waitpid.
 */
#include "fdio.h"
#include "lab.h"
#include "forward.h"
#include "remote.h"
#include "spawn.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* How long a read polls before it sleeps. A runner's answer to a timed
 * batch comes a millisecond or two after its request, an empty batch's in
 * a tenth of one: a process that slept through the first wakes later than
 * one that slept through the second (the core idles deeper), and the
 * difference would be counted as the student's. Polling, the judge wakes
 * as fast after either (MEASUREMENTS.md, "The judge's wait"). */
#define SPIN_S 0.02

/* Read exactly len bytes before the deadline (a CLOCK_MONOTONIC time; 0:
 * none). 0 ok, -1 end of input or error, -2 the deadline passed. */
static int read_all(int fd, void *buf, size_t len, double deadline)
{
    char *p = (char *)buf;
    while (len > 0) {
        if (deadline > 0) {
            double left = deadline - lab_spawn_now();
            if (left <= 0)
                return -2;
            struct pollfd pf = {fd, POLLIN, 0};
            int ms = left > 1e6 ? 1000000000 : (int)(left * 1000) + 1;
            int rc = 0;
            const double spin_until = lab_spawn_now() + SPIN_S;
            while (rc == 0 && lab_spawn_now() < spin_until && lab_spawn_now() < deadline)
                rc = poll(&pf, 1, 0);
            if (rc == 0)
                rc = poll(&pf, 1, ms);
            if (rc < 0 && errno == EINTR)
                continue;
            if (rc == 0)
                return -2;
            if (rc < 0)
                return -1;
        }
        ssize_t got = read(fd, p, len);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            return -1;
        p += got;
        len -= (size_t)got;
    }
    return 0;
}

/* Start one process of a runner: argv, and fds (from, to) pairs. */
static int start_one(char **argv, const int (*fds)[2], int nfds, int quiet, pid_t *pid)
{
    const lab_io out = {quiet ? LAB_IO_NULL : LAB_IO_INHERIT, NULL};
    lab_spawn s = {.argv = argv, .in = {LAB_IO_NULL, NULL}, .out = out, .err = out, .nfds = nfds, .close_others = 1};
    for (int i = 0; i < nfds; i++) {
        s.fds[i].from = fds[i][0];
        s.fds[i].to = fds[i][1];
    }
    lab_child c;
    if (lab_spawn_start(&s, &c))
        return -1;
    *pid = c.pid;
    return 0;
}

static void close_all(int *fd, int n)
{
    for (int i = 0; i < n; i++)
        if (fd[i] >= 0)
            close(fd[i]);
}

int lab_runner_start(lab_runner *r, const char *server, const char *program, const char *fatbin,
                     const char *confine, const char *files, const char *what, int quiet)
{
    /* a runner that is gone must be a death the judge reports, not a
     * SIGPIPE that kills the judge when it writes the next request */
    signal(SIGPIPE, SIG_IGN);
    memset(r, 0, sizeof *r);
    r->pid = r->runner = -1;
    snprintf(r->what, sizeof r->what, "%s", what);
    /* judge -> server, server -> judge, server -> runner, runner -> server */
    int p[8] = {-1, -1, -1, -1, -1, -1, -1, -1}, fb = -1;
    for (int i = 0; i < 8; i += 2)
        if (pipe2(p + i, O_CLOEXEC)) {
            close_all(p, 8);
            return -1;
        }
    if (fatbin && (fb = open(fatbin, O_RDONLY | O_CLOEXEC)) < 0) {
        close_all(p, 8);
        return -1;
    }
    char *with_files[] = {(char *)confine, "--read-list", (char *)files, "--", (char *)server, NULL};
    char *without[] = {(char *)confine, "--", (char *)server, NULL};
    char *alone[] = {(char *)server, NULL};
    char *no_gpu[] = {(char *)confine, "--no-gpu", "--", (char *)program, NULL};
    char *plain[] = {(char *)program, NULL};
    const int server_fds[5][2] = {{p[0], LAB_RUNNER_IN_FD},
                                  {p[3], LAB_RUNNER_OUT_FD},
                                  {p[6], LAB_FWD_SERVER_FROM},
                                  {p[5], LAB_FWD_SERVER_TO},
                                  {fb, LAB_FWD_SERVER_FATBIN}};
    const int runner_fds[2][2] = {{p[4], LAB_FWD_RUNNER_IN}, {p[7], LAB_FWD_RUNNER_OUT}};
    int rc = start_one(!confine ? alone : files && files[0] ? with_files : without, server_fds, fb >= 0 ? 5 : 4,
                       quiet, &r->pid);
    if (rc == 0 && program && start_one(confine ? no_gpu : plain, runner_fds, 2, quiet, &r->runner)) {
        kill(r->pid, SIGKILL);
        waitpid(r->pid, NULL, 0);
        rc = -1;
    }
    /* the judge keeps its two ends; the rest are the children's */
    int keep_to = p[1], keep_from = p[2];
    p[1] = p[2] = -1;
    close_all(p, 8);
    if (fb >= 0)
        close(fb);
    if (rc) {
        close(keep_to);
        close(keep_from);
        r->pid = r->runner = -1;
        return -1;
    }
    r->to = keep_to;
    r->from = keep_from;
    return 0;
}

/* Reap both processes (blocking: they have ended or been killed). */
static void reap(lab_runner *r)
{
    if (r->pid > 0 && !r->reaped) {
        while (waitpid(r->pid, &r->status, 0) < 0 && errno == EINTR)
            ;
        r->reaped = 1;
    }
    if (r->runner > 0 && !r->runner_reaped) {
        while (waitpid(r->runner, &r->runner_status, 0) < 0 && errno == EINTR)
            ;
        r->runner_reaped = 1;
    }
}

/* Whether one of them ended (reaped then), without waiting. */
static int ended(pid_t pid, int *reaped, int *status)
{
    if (pid <= 0 || *reaped)
        return 1;
    if (waitpid(pid, status, WNOHANG) == pid) {
        *reaped = 1;
        return 1;
    }
    return 0;
}

int lab_runner_alive(lab_runner *r)
{
    int server_ended = ended(r->pid, &r->reaped, &r->status);
    int runner_ended = r->runner > 0 && ended(r->runner, &r->runner_reaped, &r->runner_status);
    return !server_ended && !runner_ended;
}

static void kill_runner(lab_runner *r)
{
    if (r->pid > 0 && !r->reaped)
        kill(r->pid, SIGKILL);
    if (r->runner > 0 && !r->runner_reaped)
        kill(r->runner, SIGKILL);
    reap(r);
}

int lab_runner_send(lab_runner *r, const lab_remote_request *q)
{
    if (r->pid <= 0 || r->reaped)
        return LAB_REMOTE_DIED;
    size_t len = offsetof(lab_remote_request, calls) +
                 (q->op == LAB_OP_CALLS || q->op == LAB_OP_PROFILE ? (size_t)q->count : 0) *
                     sizeof(lab_remote_call);
    if (lab_write_all(r->to, q, len)) {
        kill_runner(r);
        return LAB_REMOTE_DIED;
    }
    return LAB_REMOTE_OK;
}

int lab_runner_answer(lab_runner *r, uint32_t op, double limit_s, lab_remote_answer *a)
{
    memset(a, 0, sizeof *a);
    if (r->pid <= 0 || r->reaped)
        return LAB_REMOTE_DIED;
    int rc = read_all(r->from, a, sizeof *a, lab_spawn_now() + limit_s);
    if (rc == -2) {
        r->timed_out = 1;
        kill_runner(r);
        return LAB_REMOTE_TIMEOUT;
    }
    if (rc < 0) {
        kill_runner(r);
        return LAB_REMOTE_DIED;
    }
    a->text[sizeof a->text - 1] = 0;
    if (a->magic != LAB_REMOTE_MAGIC || a->op != op) {
        kill_runner(r);
        return LAB_REMOTE_GARBLED;
    }
    return a->status == 0 ? LAB_REMOTE_OK : LAB_REMOTE_ERROR;
}

int lab_runner_ask(lab_runner *r, const lab_remote_request *q, double limit_s, lab_remote_answer *a)
{
    memset(a, 0, sizeof *a);
    int rc = lab_runner_send(r, q);
    return rc != LAB_REMOTE_OK ? rc : lab_runner_answer(r, q->op, limit_s, a);
}


void lab_runner_fate(lab_runner *r, char *out, size_t len)
{
    /* the server's fate, but where it ended because its runner was gone:
     * then the runner's (the student's process) */
    reap(r);
    int runner_first = r->runner > 0 && r->reaped && WIFEXITED(r->status) &&
                       WEXITSTATUS(r->status) == LAB_FWD_RUNNER_GONE;
    int status = runner_first ? r->runner_status : r->status;
    if (r->timed_out)
        snprintf(out, len, "did not answer in time and was stopped");
    else if (!r->reaped)
        snprintf(out, len, "is still running");
    else if (WIFEXITED(status))
        snprintf(out, len, "ended the process (exit status %d)", WEXITSTATUS(status));
    else if (WIFSIGNALED(status))
        snprintf(out, len, "was killed by %s", lab_signal_text(WTERMSIG(status)));
    else
        snprintf(out, len, "ended");
}

void lab_runner_stop(lab_runner *r)
{
    if (r->pid <= 0)
        return;
    if (!r->reaped || !r->runner_reaped) {
        lab_remote_request q;
        memset(&q, 0, offsetof(lab_remote_request, calls));
        q.magic = LAB_REMOTE_MAGIC;
        q.op = LAB_OP_QUIT;
        lab_write_all(r->to, &q, offsetof(lab_remote_request, calls));
        /* a moment to let go of its mappings, then no more */
        for (int i = 0; i < 50 && waitpid(r->pid, &r->status, WNOHANG) == 0; i++)
            usleep(10000);
        if (waitpid(r->pid, &r->status, WNOHANG) == r->pid)
            r->reaped = 1;
        kill_runner(r);
    }
    close(r->to);
    close(r->from);
    r->pid = r->runner = -1;
}

int lab_remote_read_request(int fd, lab_remote_request *q)
{
    size_t head = offsetof(lab_remote_request, calls);
    if (read_all(fd, q, head, 0))
        return -1;
    if (q->magic != LAB_REMOTE_MAGIC)
        return -1;
    if (q->op == LAB_OP_CALLS || q->op == LAB_OP_PROFILE) {
        if (q->count < 0 || q->count > LAB_REMOTE_MAX_CALLS)
            return -1;
        if (read_all(fd, q->calls, (size_t)q->count * sizeof(lab_remote_call), 0))
            return -1;
    }
    return 0;
}

int lab_remote_answer_with(int fd, uint32_t op, int32_t status, const char *text)
{
    lab_remote_answer a;
    memset(&a, 0, sizeof a);
    a.magic = LAB_REMOTE_MAGIC;
    a.op = op;
    a.status = status;
    snprintf(a.text, sizeof a.text, "%s", text ? text : "");
    return lab_write_all(fd, &a, sizeof a);
}
