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
#include "spawn.h"

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
static int start_child(char *const argv[], int record_fd, int progress_fd, double limit_s, pipes *p, ring *rg,
                       lab_child *c, run_result *r)
{
    if (pipe2(p->out, O_CLOEXEC) || (record_fd >= 3 && pipe2(p->rec, O_CLOEXEC)) ||
        (progress_fd >= 3 && progress_fd != record_fd && pipe2(p->prog, O_CLOEXEC))) {
        static const char msg[] = "cannot create pipes\n";
        ring_add(rg, msg, sizeof msg - 1);
        return -1;
    }
    lab_spawn s = {.argv = argv, .who = "grade", .in = {LAB_IO_NULL, NULL}, .group = LAB_SPAWN_GROUP,
                   .limit_s = limit_s, .before_exec = no_core_files};
    s.fds[s.nfds++] = (lab_fd_map){p->out[1], 1};
    s.fds[s.nfds++] = (lab_fd_map){p->out[1], 2};
    if (p->rec[1] >= 0)
        s.fds[s.nfds++] = (lab_fd_map){p->rec[1], record_fd};
    if (p->prog[1] >= 0)
        s.fds[s.nfds++] = (lab_fd_map){p->prog[1], progress_fd};
    if (lab_spawn_start(&s, c)) {
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

/* Read the child's pipes until it has ended (or been stopped at its
 * limit: lab_spawn_check kills its group either way) and they are
 * closed. */
static void watch(lab_child *c, pipes *p, ring *rg, ring *pg, run_result *r)
{
    int out_open = 1, rec_open = p->rec[0] >= 0, prog_open = p->prog[0] >= 0, reaped = 0;
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
            out_open = drain(p->out[0], keep_output, rg);
        if (rec_open)
            rec_open = drain(p->rec[0], keep_record, r);
        if (prog_open)
            prog_open = drain(p->prog[0], keep_output, pg);
        if (!reaped && (reaped = lab_spawn_check(c))) {
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

void grader_run_program_progress(char *const argv[], int record_fd, int progress_fd, double limit_s,
                          size_t keep, run_result *r)
{
    memset(r, 0, sizeof *r);
    ring rg = {malloc(keep ? keep : 1), keep, 0, 0, 0};
    ring pg = {malloc(PROGRESS_KEEP), PROGRESS_KEEP, 0, 0, 0};
    pipes p = {{-1, -1}, {-1, -1}, {-1, -1}};
    lab_child c = {.limit_s = limit_s};
    int started = 0;
    if (!rg.buf || !pg.buf) {
        static const char msg[] = "cannot create pipes\n";
        ring_add(&rg, msg, sizeof msg - 1);
    } else {
        started = start_child(argv, record_fd, progress_fd, limit_s, &p, &rg, &c, r) == 0;
    }
    if (started) {
        watch(&c, &p, &rg, &pg, r);
        current_group = 0;
        int status = c.status;
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
    r->output_bytes = rg.read;
    r->tail = ring_take(&rg, &r->tail_len);
    free(rg.buf);
    if (pg.buf) {
        r->progress = ring_take(&pg, &r->progress_len);
        r->progress_cut = pg.read > pg.len;
    }
    free(pg.buf);
}

void grader_run_result_free(run_result *r)
{
    free(r->record);
    free(r->tail);
    free(r->progress);
    r->record = r->tail = r->progress = NULL;
}
