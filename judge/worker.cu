/*
 * worker.cu: one judge for a whole grade. A judge alone makes three CUDA
 * contexts a stage and lets go of them at its end (its own, its runner's
 * and the echo runner's device servers); a worker makes its own and the
 * echo runner's once, and only the student's runner is new each stage, as
 * it must be. The grader starts it (grader/run.c, grader_run_judged):
 *
 *   build/<stage>/<variant>-judge --worker FD
 *
 * FD is a SOCK_SEQPACKET socket of the grader's. Each message on it is one
 * stage: the command line a judge would get (NUL-separated, argv[0]
 * first), with --stage NAME and --variant NAME (and --knob TEXT) saying
 * which stage it is, and three descriptors, which become the stage's
 * stdout and stderr, descriptor 3 and descriptor 4 (its --record-fd and
 * --progress-fd). The stage runs as a judge alone would run it; then its
 * runner is stopped, /dev/null takes those descriptors' numbers (the
 * grader reads to their end), and the answer is two ints: the stage's
 * exit status, and 1 where the worker goes on (0: it ends now). A stage that ends the process (lab_die) ends the worker, with
 * its exit status; so does, after its answer, a stage that did not end
 * with LAB_EXIT_OK or that left something behind (a buffer, a queued
 * call): the grader's next stage then starts a fresh one. The socket's end
 * (the grade's) ends the worker, and its exit handlers stop the echo
 * runner.
 */
#include "backend.h"
#include "judge.h"
#include "lab.h"
#include "stages.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define DECLARE(f) extern const struct lab_family_s lab_family_##f;
LAB_STAGE_FAMILIES(DECLARE)
#undef DECLARE

static const struct {
    const char *dir, *family, *sizes, *timed;
} STAGES[] = {LAB_STAGE_SIZES};

/* A worker that cannot go on (stderr is the stage's, or /dev/null) */
static void die(const char *what)
{
    fprintf(stderr, "error: worker: %s\n", what);
    exit(LAB_EXIT_USAGE);
}

static const struct lab_family_s *family_named(const char *name)
{
#define PICK(f)                                                                                                    \
    if (!strcmp(name, #f))                                                                                         \
        return &lab_family_##f;
    LAB_STAGE_FAMILIES(PICK)
#undef PICK
    return NULL;
}

/* Take --stage, --variant and --knob out of argv into the run's identity
 * (lab.h); 0, or -1 with why in err. */
static int take_identity(int *argc, char **argv, char *err, size_t len)
{
    const char *stage = NULL, *variant = NULL, *knob = "";
    int out = 1;
    for (int i = 1; i < *argc; i++) {
        const char *a = argv[i], *v = i + 1 < *argc ? argv[i + 1] : NULL;
        if (v && !strcmp(a, "--stage"))
            stage = v;
        else if (v && !strcmp(a, "--variant"))
            variant = v;
        else if (v && !strcmp(a, "--knob"))
            knob = v;
        else {
            argv[out++] = argv[i];
            continue;
        }
        i++;
    }
    argv[out] = NULL;
    *argc = out;
    if (!stage || !variant) {
        snprintf(err, len, "a worker's stage needs --stage and --variant");
        return -1;
    }
    for (size_t k = 0; k < sizeof STAGES / sizeof STAGES[0]; k++)
        if (!strcmp(STAGES[k].dir, stage) && family_named(STAGES[k].family)) {
            lab_stage = STAGES[k].dir;
            lab_stage_sizes = STAGES[k].sizes;
            lab_stage_timed = STAGES[k].timed;
            lab_family_run = family_named(STAGES[k].family);
            lab_variant = variant;
            lab_knob = knob;
            return 0;
        }
    snprintf(err, len, "--stage %s: no such stage in stages.tsv", stage);
    return -1;
}

enum { MAX_REQUEST = 16384, MAX_ARGS = 256, STAGE_FDS = 3 };

/* One request: its bytes into buf (NUL-terminated) and its descriptors;
 * the byte count, 0 at the socket's end, -1 for what is not a request. */
static ssize_t receive(int sock, char *buf, size_t len, int fds[STAGE_FDS])
{
    union {
        struct cmsghdr h;
        char space[CMSG_SPACE(STAGE_FDS * sizeof(int))];
    } control;
    struct iovec io = {buf, len - 1};
    struct msghdr m = {};
    m.msg_iov = &io;
    m.msg_iovlen = 1;
    m.msg_control = control.space;
    m.msg_controllen = sizeof control.space;
    ssize_t n = recvmsg(sock, &m, MSG_CMSG_CLOEXEC);
    if (n <= 0)
        return n;
    int got = 0;
    for (struct cmsghdr *c = CMSG_FIRSTHDR(&m); c; c = CMSG_NXTHDR(&m, c))
        if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) {
            int k = (int)((c->cmsg_len - CMSG_LEN(0)) / sizeof(int));
            for (int i = 0; i < k; i++) {
                int fd;
                memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof fd);
                if (got < STAGE_FDS)
                    fds[got++] = fd;
                else
                    close(fd);
            }
        }
    if (got != STAGE_FDS || (m.msg_flags & (MSG_TRUNC | MSG_CTRUNC))) {
        for (int i = 0; i < got; i++)
            close(fds[i]);
        return -1;
    }
    buf[n] = 0;
    return n;
}

/* The stage's descriptors at 1, 2, 3 and 4 (or /dev/null's, fds NULL). */
static void place(const int *fds, int null)
{
    const int from[4] = {fds ? fds[0] : null, fds ? fds[0] : null, fds ? fds[1] : null, fds ? fds[2] : null};
    for (int i = 0; i < 4; i++)
        if (dup2(from[i], i + 1) < 0)
            die("cannot place a stage's descriptors");
    if (fds)
        for (int i = 0; i < STAGE_FDS; i++)
            close(fds[i]);
}

static int serve(int sock, int (*stage)(int argc, char **argv))
{
    static char buf[MAX_REQUEST];
    /* above the stage's numbers, which are placed over whatever is there */
    const int opened = open("/dev/null", O_RDWR | O_CLOEXEC);
    const int null = opened < 0 ? -1 : fcntl(opened, F_DUPFD_CLOEXEC, 10);
    if (opened >= 0)
        close(opened);
    if (null < 0)
        die("cannot open /dev/null");
    /* 3 and 4 taken before CUDA opens its own files (gpu.cu, lab_start) */
    place(NULL, null);
    for (;;) {
        int fds[STAGE_FDS];
        ssize_t n = receive(sock, buf, sizeof buf, fds);
        if (n == 0)
            return LAB_EXIT_OK;
        if (n < 0)
            die("a message that is not a stage (its command line and three descriptors)");
        char *argv[MAX_ARGS];
        int argc = 0;
        for (char *p = buf; p < buf + n && argc < MAX_ARGS - 1; p += strlen(p) + 1)
            argv[argc++] = p;
        argv[argc] = NULL;
        place(fds, null);
        lab_phase_restart();
        char err[160] = "";
        int status = argc > 0 && !take_identity(&argc, argv, err, sizeof err) ? stage(argc, argv) : LAB_EXIT_USAGE;
        if (status == LAB_EXIT_USAGE && argc == 0)
            snprintf(err, sizeof err, "an empty command line");
        if (status == LAB_EXIT_USAGE && err[0])
            fprintf(stderr, "error: %s\n", err);
        int clean = lab_judge_stage_end() && status == LAB_EXIT_OK;
        fflush(stdout);
        fflush(stderr);
        place(NULL, null);
        const int answer[2] = {status, clean};
        if (send(sock, answer, sizeof answer, MSG_NOSIGNAL) != (ssize_t)sizeof answer || !clean)
            return status;
    }
}

int lab_backend_main(int argc, char **argv, int (*stage)(int argc, char **argv))
{
    if (argc != 3 || strcmp(argv[1], "--worker"))
        return stage(argc, argv);
    int given = atoi(argv[2]);
    /* above the stage's numbers, and not inherited by a runner */
    int sock = given > 4 ? fcntl(given, F_DUPFD_CLOEXEC, 10) : -1;
    if (sock < 0)
        die("--worker FD: a socket descriptor above 4");
    close(given);
    return serve(sock, stage);
}
