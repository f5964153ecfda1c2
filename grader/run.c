/*
 * run.c: run one program the way the grader needs it run.
 *
 * The program gets its own process group, so that a time limit, or the end
 * of the program, can kill everything it started at once. Its stdout and
 * stderr go into one pipe that is read all the time (so the program never
 * blocks on a full pipe) into a ring that keeps only the last bytes: 100 MB
 * of output costs the grader 16 KiB. The record arrives on a second pipe,
 * capped at RECORD_LIMIT; the driver's progress lines on a third, of which
 * the last PROGRESS_KEEP bytes are kept. poll() waits on the pipes with a
 * short timeout so that the time limit is checked even when the program is
 * silent.
 */
#include "grader.h"
#include "grading.h"
#include "spawn.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t current_group;

void grader_run_kill_current(void)
{
    pid_t g = current_group;
    if (g > 0)
        kill(-g, SIGKILL);
}


/* In the child, before exec: a crash must not fill the disk. */
static int no_core_files(void *unused)
{
    (void)unused;
    struct rlimit no_core = {0, 0};
    setrlimit(RLIMIT_CORE, &no_core);
    return 0;
}

/* Keep the last `keep` bytes of everything appended: a ring buffer. */
typedef struct {
    char *buf;
    size_t keep, start, len;
    unsigned long long read;    /* bytes read from its pipe */
} ring;

static void ring_add(ring *r, const char *data, size_t n)
{
    if (r->keep == 0)
        return;
    if (n >= r->keep) {
        memcpy(r->buf, data + n - r->keep, r->keep);
        r->start = 0;
        r->len = r->keep;
        return;
    }
    for (size_t i = 0; i < n; i++) {
        size_t at = (r->start + r->len) % r->keep;
        r->buf[at] = data[i];
        if (r->len < r->keep)
            r->len++;
        else
            r->start = (r->start + 1) % r->keep;
    }
}

/* The ring's contents in order, NUL-terminated, in a new allocation. */
static char *ring_take(ring *r, size_t *len)
{
    char *out = malloc(r->len + 1);
    if (!out) {
        *len = 0;
        return NULL;
    }
    for (size_t i = 0; i < r->len; i++)
        out[i] = r->buf[(r->start + i) % r->keep];
    out[r->len] = 0;
    *len = r->len;
    return out;
}

/* Reads per call: a program that writes without pause must not keep the
 * grader from looking at the clock. */
enum { READS_PER_TURN = 16 };

/* Read what is there on fd, each piece handed to keep(to, ...); returns
 * 0 at end of file, 1 otherwise. */
static int drain(int fd, void (*keep)(void *to, const char *data, size_t n), void *to)
{
    char buf[65536];
    for (int turn = 0; turn < READS_PER_TURN; turn++) {
        ssize_t n = read(fd, buf, sizeof buf);
        if (n > 0) {
            keep(to, buf, (size_t)n);
            continue;
        }
        if (n == 0)
            return 0;
        if (errno == EINTR)
            continue;
        return errno == EAGAIN || errno == EWOULDBLOCK ? 1 : 0;
    }
    return 1;
}

/* Output and progress lines: the ring's last bytes, and their count. */
static void keep_output(void *to, const char *data, size_t n)
{
    ring *r = to;
    ring_add(r, data, n);
    r->read += n;
}

/* The record: all of it, up to RECORD_LIMIT. */
static void keep_record(void *to, const char *data, size_t n)
{
    run_result *r = to;
    char *grown = r->record_len + n > RECORD_LIMIT ? NULL : realloc(r->record, r->record_len + n + 1);
    if (!grown) {
        r->record_overflow = 1; /* keep reading, keep nothing more */
        return;
    }
    r->record = grown;
    memcpy(r->record + r->record_len, data, n);
    r->record_len += n;
    r->record[r->record_len] = 0;
}

void grader_run_program(char *const argv[], int record_fd, double limit_s, size_t keep, run_result *r)
{
    grader_run_program_progress(argv, record_fd, -1, limit_s, keep, r);
}

/* The three pipes from a child: its output, its record and its progress
 * lines (-1 where not asked for); [0] read here, [1] the child's. */
typedef struct {
    int out[2], rec[2], prog[2];
} pipes;

/* The pipes and the child, in a process group of its own (stdin
 * /dev/null, stdout and stderr into one pipe, the record's and progress's
 * pipes at their numbers); 0, or -1 with why in rg. */
static int spawn_child(char *const argv[], int record_fd, int progress_fd, double limit_s, const pipes *p,
                       lab_child *c)
{
    lab_spawn s = {.argv = argv, .who = "grade", .in = {LAB_IO_NULL, NULL}, .group = LAB_SPAWN_GROUP,
                   .limit_s = limit_s, .before_exec = no_core_files};
    s.fds[s.nfds++] = (lab_fd_map){p->out[1], 1};
    s.fds[s.nfds++] = (lab_fd_map){p->out[1], 2};
    if (p->rec[1] >= 0)
        s.fds[s.nfds++] = (lab_fd_map){p->rec[1], record_fd};
    if (p->prog[1] >= 0)
        s.fds[s.nfds++] = (lab_fd_map){p->prog[1], progress_fd};
    return lab_spawn_start(&s, c);
}

/* ================================================================ worker */

/* One judge for a grade's stages (judge/worker.cu), started by the first
 * stage run through it; LAB_JUDGE_WORKER=0: a judge a stage. */
static struct {
    lab_child c;
    int sock;      /* the grader's end of its socket; -1: no worker   */
    int answer[2]; /* the stage's exit status, and whether it goes on */
    int answered, gone;
} W = {.sock = -1};

static int worker_start(const char *judge)
{
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv))
        return -1;
    char *argv[] = {(char *)judge, "--worker", "5", NULL};
    lab_spawn s = {.argv = argv, .who = "grade", .in = {LAB_IO_NULL, NULL}, .out = {LAB_IO_NULL, NULL},
                   .err = {LAB_IO_NULL, NULL}, .group = LAB_SPAWN_GROUP, .before_exec = no_core_files};
    s.fds[s.nfds++] = (lab_fd_map){sv[1], 5};
    memset(&W.c, 0, sizeof W.c);
    int rc = lab_spawn_start(&s, &W.c);
    close(sv[1]);
    if (rc) {
        close(sv[0]);
        return -1;
    }
    W.sock = sv[0];
    return 0;
}

void grader_worker_end(void)
{
    if (W.sock < 0)
        return;
    close(W.sock);
    W.sock = -1;
    if (!W.c.reaped) {
        W.c.started = lab_spawn_now();
        W.c.limit_s = 30; /* its echo runner stopped, its contexts let go of */
        lab_spawn_wait(&W.c);
    }
}

/* One stage to the worker (started first where there is none): argv, then
 * identity, as NUL-separated words, with the pipes' ends; 0, or -1. */
static int worker_send(char *const argv[], const char *const identity[], const pipes *p, double limit_s)
{
    if (W.sock < 0 && worker_start(argv[0]))
        return -1;
    char buf[16384];
    size_t n = 0;
    for (int pass = 0; pass < 2; pass++)
        for (const char *const *a = pass ? identity : (const char *const *)argv; *a; a++) {
            size_t k = strlen(*a) + 1;
            if (n + k > sizeof buf)
                return -1;
            memcpy(buf + n, *a, k);
            n += k;
        }
    const int fds[3] = {p->out[1], p->rec[1], p->prog[1]};
    union {
        struct cmsghdr h;
        char space[CMSG_SPACE(sizeof fds)];
    } control;
    memset(&control, 0, sizeof control);
    struct iovec io = {buf, n};
    struct msghdr m = {.msg_iov = &io, .msg_iovlen = 1, .msg_control = control.space,
                       .msg_controllen = sizeof control.space};
    struct cmsghdr *c = CMSG_FIRSTHDR(&m);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof fds);
    memcpy(CMSG_DATA(c), fds, sizeof fds);
    if (sendmsg(W.sock, &m, MSG_NOSIGNAL) != (ssize_t)n) {
        grader_worker_end();
        return -1;
    }
    W.answered = W.gone = 0;
    W.c.started = lab_spawn_now(); /* the stage's clock and limit */
    W.c.limit_s = limit_s;
    return 0;
}

/* The stage's end: the worker's answer, or its end (or its limit) */
static int worker_ended(lab_child *c)
{
    if (!W.gone) {
        ssize_t n = recv(W.sock, W.answer, sizeof W.answer, MSG_DONTWAIT);
        if (n == (ssize_t)sizeof W.answer)
            return W.answered = 1;
        W.gone = n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR);
    }
    return lab_spawn_check(c);
}

/* The pipes and the child, in a process group of its own (stdin
 * /dev/null, stdout and stderr into one pipe, the record's and progress's
 * pipes at their numbers), or the stage sent to the worker (identity not
 * NULL); 0, or -1 with why in rg. */
static int start_child(char *const argv[], const char *const identity[], int record_fd, int progress_fd,
                       double limit_s, pipes *p, ring *rg, lab_child *c, run_result *r)
{
    if (pipe2(p->out, O_CLOEXEC) || (record_fd >= 3 && pipe2(p->rec, O_CLOEXEC)) ||
        (progress_fd >= 3 && progress_fd != record_fd && pipe2(p->prog, O_CLOEXEC))) {
        static const char msg[] = "cannot create pipes\n";
        ring_add(rg, msg, sizeof msg - 1);
        return -1;
    }
    if (identity ? worker_send(argv, identity, p, limit_s) : spawn_child(argv, record_fd, progress_fd, limit_s, p, c)) {
        static const char msg[] = "cannot fork\n";
        ring_add(rg, msg, sizeof msg - 1);
        return -1;
    }
    current_group = c->pid;
    r->started = 1;
    int *ends[3] = {p->out, p->rec, p->prog};
    for (int i = 0; i < 3; i++) {
        if (ends[i][1] >= 0) {
            close(ends[i][1]);
            ends[i][1] = -1;
        }
        if (ends[i][0] >= 0)
            fcntl(ends[i][0], F_SETFL, O_NONBLOCK);
    }
    return 0;
}

/* Whether the run has ended: the child reaped (or stopped at its limit:
 * lab_spawn_check kills its group either way), or the worker's answer in. */
typedef int (*ended_fn)(lab_child *c);

/* Read the child's pipes until it has ended and they are closed. */
static void watch(lab_child *c, ended_fn ended, int wake, pipes *p, ring *rg, ring *pg, run_result *r)
{
    int out_open = 1, rec_open = p->rec[0] >= 0, prog_open = p->prog[0] >= 0, reaped = 0;
    double ended_at = 0;
    for (;;) {
        struct pollfd pf[4];
        int npf = 0;
        if (wake >= 0 && !reaped && !W.gone) /* the worker's answer */
            pf[npf++] = (struct pollfd){wake, POLLIN, 0};
        if (out_open)
            pf[npf++] = (struct pollfd){p->out[0], POLLIN, 0};
        if (rec_open)
            pf[npf++] = (struct pollfd){p->rec[0], POLLIN, 0};
        if (prog_open)
            pf[npf++] = (struct pollfd){p->prog[0], POLLIN, 0};
        if (npf)
            poll(pf, (nfds_t)npf, 50);
        else if (!reaped)
            usleep(20000);
        if (out_open)
            out_open = drain(p->out[0], keep_output, rg);
        if (rec_open)
            rec_open = drain(p->rec[0], keep_record, r);
        if (prog_open)
            prog_open = drain(p->prog[0], keep_output, pg);
        if (!reaped && (reaped = ended(c))) {
            ended_at = lab_spawn_now();
            r->timed_out = c->timed_out;
            r->seconds = ended_at - c->started;
        }
        if (reaped && !out_open && !rec_open && !prog_open)
            break;
        /* a process that left the group could hold the pipes open: stop
         * reading a second after the program ended */
        if (reaped && lab_spawn_now() - ended_at > 1.0)
            break;
    }
}

/* How the child ended, into r (unless stopped at its limit). */
static void take_status(int status, run_result *r)
{
    if (!r->timed_out && WIFEXITED(status)) {
        r->exited = 1;
        r->status = WEXITSTATUS(status);
    } else if (!r->timed_out && WIFSIGNALED(status)) {
        r->signal = WTERMSIG(status);
    }
}

/* After a stage the worker ran: its answer, or its end (it is reaped). */
static void worker_after(run_result *r)
{
    if (!W.answered) {
        take_status(W.c.status, r);
        close(W.sock);
        W.sock = -1;
        return;
    }
    r->exited = 1;
    r->status = W.answer[0];
    W.c.limit_s = 0; /* idle until the next stage */
    if (!W.answer[1])
        grader_worker_end();
}

static void run(char *const argv[], const char *const identity[], int record_fd, int progress_fd, double limit_s,
                size_t keep, run_result *r)
{
    memset(r, 0, sizeof *r);
    ring rg = {malloc(keep ? keep : 1), keep, 0, 0, 0};
    ring pg = {malloc(PROGRESS_KEEP), PROGRESS_KEEP, 0, 0, 0};
    pipes p = {{-1, -1}, {-1, -1}, {-1, -1}};
    lab_child own = {.limit_s = limit_s}, *c = identity ? &W.c : &own;
    int started = 0;
    if (!rg.buf || !pg.buf) {
        static const char msg[] = "cannot create pipes\n";
        ring_add(&rg, msg, sizeof msg - 1);
    } else {
        started = start_child(argv, identity, record_fd, progress_fd, limit_s, &p, &rg, c, r) == 0;
    }
    if (started) {
        watch(c, identity ? worker_ended : lab_spawn_check, identity ? W.sock : -1, &p, &rg, &pg, r);
        current_group = 0;
        if (identity)
            worker_after(r);
        else
            take_status(c->status, r);
    }
    for (int i = 0; i < 2; i++) {
        if (p.out[i] >= 0)
            close(p.out[i]);
        if (p.rec[i] >= 0)
            close(p.rec[i]);
        if (p.prog[i] >= 0)
            close(p.prog[i]);
    }
    r->output_bytes = rg.read;
    r->tail = ring_take(&rg, &r->tail_len);
    free(rg.buf);
    if (pg.buf) {
        r->progress = ring_take(&pg, &r->progress_len);
        r->progress_cut = pg.read > pg.len;
    }
    free(pg.buf);
}

void grader_run_program_progress(char *const argv[], int record_fd, int progress_fd, double limit_s,
                          size_t keep, run_result *r)
{
    run(argv, NULL, record_fd, progress_fd, limit_s, keep, r);
}

void grader_run_judged(char *const argv[], const char *const identity[], double limit_s, size_t keep,
                       run_result *r)
{
    const char *e = getenv("LAB_JUDGE_WORKER");
    int worker = !(e && !strcmp(e, "0"));
    run(argv, worker ? identity : NULL, RUN_RECORD_FD, RUN_PROGRESS_FD, limit_s, keep, r);
    if (worker && !r->started) { /* no worker could start: the judge alone */
        grader_run_result_free(r);
        run(argv, NULL, RUN_RECORD_FD, RUN_PROGRESS_FD, limit_s, keep, r);
    }
}

void grader_run_result_free(run_result *r)
{
    free(r->record);
    free(r->tail);
    free(r->progress);
    r->record = r->tail = r->progress = NULL;
}
