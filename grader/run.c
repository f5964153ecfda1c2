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

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t current_group;

void run_kill_current(void)
{
    pid_t g = current_group;
    if (g > 0)
        kill(-g, SIGKILL);
}


/* The child side: plumbing, then exec. Only async-signal-safe calls. */
static void child(char *const argv[], int out_w, int rec_w, int record_fd, int prog_w,
                  int progress_fd)
{
    setpgid(0, 0);
    /* undo what the grader set for itself: ignored SIGPIPE survives exec */
    signal(SIGPIPE, SIG_DFL);
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    struct rlimit no_core = {0, 0};
    setrlimit(RLIMIT_CORE, &no_core); /* a crash must not fill the disk */
    int null = open("/dev/null", O_RDONLY);
    if (null >= 0 && null != 0) {
        dup2(null, 0);
        close(null);
    }
    /* move the record and progress pipes above every place they go (1, 2,
     * record_fd, progress_fd: one could sit where the other goes), then
     * place them; dup2 clears close-on-exec on the copy */
    int above = (record_fd > progress_fd ? record_fd : progress_fd) + 1;
    if (above < 3)
        above = 3;
    if (rec_w >= 0)
        rec_w = fcntl(rec_w, F_DUPFD_CLOEXEC, above);
    if (prog_w >= 0)
        prog_w = fcntl(prog_w, F_DUPFD_CLOEXEC, above);
    dup2(out_w, 1);
    dup2(out_w, 2);
    if (rec_w >= 0)
        dup2(rec_w, record_fd);
    if (prog_w >= 0)
        dup2(prog_w, progress_fd);
    /* every other descriptor of the grader is close-on-exec */
    execvp(argv[0], argv);
    /* the grader reads this as the program's output */
    static const char msg[] = "cannot start the program\n";
    ssize_t ignored = write(2, msg, sizeof msg - 1);
    (void)ignored;
    _exit(127);
}

/* Keep the last `keep` bytes of everything appended: a ring buffer. */
typedef struct {
    char *buf;
    size_t keep, start, len;
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

/* Read what is there on fd; returns 0 at end of file, 1 otherwise. */
static int drain_output(int fd, ring *rg, unsigned long long *total)
{
    char buf[65536];
    for (int turn = 0; turn < READS_PER_TURN; turn++) {
        ssize_t n = read(fd, buf, sizeof buf);
        if (n > 0) {
            ring_add(rg, buf, (size_t)n);
            *total += (unsigned long long)n;
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

static int drain_record(int fd, run_result *r, size_t *cap)
{
    char buf[65536];
    for (int turn = 0; turn < READS_PER_TURN; turn++) {
        ssize_t n = read(fd, buf, sizeof buf);
        if (n > 0) {
            if (r->record_len + (size_t)n > RECORD_LIMIT) {
                r->record_overflow = 1; /* keep reading, keep nothing more */
                continue;
            }
            if (r->record_len + (size_t)n + 1 > *cap) {
                size_t want = *cap ? *cap : 8192;
                while (want < r->record_len + (size_t)n + 1)
                    want *= 2;
                char *grown = realloc(r->record, want);
                if (!grown) {
                    r->record_overflow = 1;
                    continue;
                }
                r->record = grown;
                *cap = want;
            }
            memcpy(r->record + r->record_len, buf, (size_t)n);
            r->record_len += (size_t)n;
            r->record[r->record_len] = 0;
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

void run_program(char *const argv[], int record_fd, double limit_s, size_t keep, run_result *r)
{
    run_program_progress(argv, record_fd, -1, limit_s, keep, r);
}

/* The three pipes from a child: its output, its record and its progress
 * lines (-1 where not asked for); [0] read here, [1] the child's. */
typedef struct {
    int out[2], rec[2], prog[2];
} pipes;

/* The pipes and the child, in a process group of its own; the child's
 * pid, or -1 with why in rg. */
static pid_t start_child(char *const argv[], int record_fd, int progress_fd, pipes *p, ring *rg, run_result *r)
{
    if (pipe2(p->out, O_CLOEXEC) || (record_fd >= 3 && pipe2(p->rec, O_CLOEXEC)) ||
        (progress_fd >= 3 && progress_fd != record_fd && pipe2(p->prog, O_CLOEXEC))) {
        static const char msg[] = "cannot create pipes\n";
        ring_add(rg, msg, sizeof msg - 1);
        return -1;
    }
    pid_t pid = fork();
    if (pid < 0) {
        static const char msg[] = "cannot fork\n";
        ring_add(rg, msg, sizeof msg - 1);
        return -1;
    }
    if (pid == 0)
        child(argv, p->out[1], p->rec[1], record_fd, p->prog[1], progress_fd);
    setpgid(pid, pid); /* also here, so a kill right away finds the group */
    current_group = pid;
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
    return pid;
}

/* Has the child ended, or run past limit_s? Then its whole group is
 * killed (whatever it left behind) and it is reaped: 1, its wait status in
 * *status. Looked at without reaping first, so that the group id stays
 * ours while the rest of the group is killed. */
static int reap_if_done(pid_t pid, double t0, double limit_s, int *status, run_result *r)
{
    siginfo_t si;
    memset(&si, 0, sizeof si);
    int ended = waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0 && si.si_pid == pid;
    if (!ended && now_s() - t0 <= limit_s)
        return 0;
    kill(-pid, SIGKILL);
    waitpid(pid, status, 0);
    r->timed_out = !ended;
    r->seconds = now_s() - t0;
    return 1;
}

/* Read the child's pipes until it has ended and they are closed; its wait
 * status. */
static int watch(pid_t pid, pipes *p, double t0, double limit_s, ring *rg, ring *pg,
                 unsigned long long *progress_bytes, run_result *r)
{
    int out_open = 1, rec_open = p->rec[0] >= 0, prog_open = p->prog[0] >= 0, reaped = 0, status = 0;
    size_t rec_cap = 0;
    double ended_at = 0;
    for (;;) {
        struct pollfd pf[3];
        int npf = 0;
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
            out_open = drain_output(p->out[0], rg, &r->output_bytes);
        if (rec_open)
            rec_open = drain_record(p->rec[0], r, &rec_cap);
        if (prog_open)
            prog_open = drain_output(p->prog[0], pg, progress_bytes);
        if (!reaped && (reaped = reap_if_done(pid, t0, limit_s, &status, r)))
            ended_at = now_s();
        if (reaped && !out_open && !rec_open && !prog_open)
            break;
        /* a process that left the group could hold the pipes open: stop
         * reading a second after the program ended */
        if (reaped && now_s() - ended_at > 1.0)
            break;
    }
    return status;
}

void run_program_progress(char *const argv[], int record_fd, int progress_fd, double limit_s,
                          size_t keep, run_result *r)
{
    memset(r, 0, sizeof *r);
    ring rg = {malloc(keep ? keep : 1), keep, 0, 0};
    ring pg = {malloc(PROGRESS_KEEP), PROGRESS_KEEP, 0, 0};
    pipes p = {{-1, -1}, {-1, -1}, {-1, -1}};
    unsigned long long progress_bytes = 0;
    const double t0 = now_s();
    pid_t pid = -1;
    if (!rg.buf || !pg.buf) {
        static const char msg[] = "cannot create pipes\n";
        ring_add(&rg, msg, sizeof msg - 1);
    } else {
        pid = start_child(argv, record_fd, progress_fd, &p, &rg, r);
    }
    if (pid > 0) {
        int status = watch(pid, &p, t0, limit_s, &rg, &pg, &progress_bytes, r);
        current_group = 0;
        if (!r->timed_out && WIFEXITED(status)) {
            r->exited = 1;
            r->status = WEXITSTATUS(status);
        } else if (!r->timed_out && WIFSIGNALED(status)) {
            r->signal = WTERMSIG(status);
        }
    }
    for (int i = 0; i < 2; i++) {
        if (p.out[i] >= 0)
            close(p.out[i]);
        if (p.rec[i] >= 0)
            close(p.rec[i]);
        if (p.prog[i] >= 0)
            close(p.prog[i]);
    }
    r->tail = ring_take(&rg, &r->tail_len);
    free(rg.buf);
    if (pg.buf) {
        r->progress = ring_take(&pg, &r->progress_len);
        r->progress_cut = progress_bytes > pg.len;
    }
    free(pg.buf);
}

void run_result_free(run_result *r)
{
    free(r->record);
    free(r->tail);
    free(r->progress);
    r->record = r->tail = r->progress = NULL;
}
