/*
 * remote.h: the judge and its runners (judge/README.md, "The judge").
 *
 * The judge is the harness without the student's code: it makes the inputs,
 * checks, times and writes the record. A runner is a separate process with
 * the student's kernel.cu (or none: the echo runner), started confined, that
 * maps the judge's buffers (CUDA IPC) and, when asked, calls the contract
 * function on them, synchronizes and answers. This file is the plain-C half:
 * the messages, starting a runner, and talking to it with a time limit.
 * Nothing a runner sends is believed beyond "done" and an error's name; its
 * death is read from waitpid, never from what it says.
 *
 * Messages are fixed-size structs on two pipes: requests on the runner's
 * descriptor LAB_RUNNER_IN_FD, answers on LAB_RUNNER_OUT_FD.
 */
#ifndef LAB_REMOTE_H
#define LAB_REMOTE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

#define LAB_REMOTE_MAGIC 0x4c616231u /* "Lab1" */
#define LAB_RUNNER_IN_FD 3
#define LAB_RUNNER_OUT_FD 4
#define LAB_REMOTE_MAX_CALLS 64  /* calls in one batch                  */
#define LAB_REMOTE_MAX_ARGS 4    /* pointers (and integers) of one call */
#define LAB_REMOTE_MAX_BUFFERS 256

enum lab_remote_op {
    LAB_OP_HELLO = 1, /* who are you: the answer names the family      */
    LAB_OP_MAP,       /* open a buffer's IPC handle as buffer id        */
    LAB_OP_UNMAP,     /* close buffer id                                */
    LAB_OP_CALLS,     /* count calls, then synchronize                  */
    LAB_OP_PROFILE,   /* one call between cudaProfilerStart and Stop    */
    LAB_OP_QUIT
};

/* Function numbers of a call: the contract function; a no-op kernel (the
 * echo runner's, which measures the round trip). Nothing else: a runner is
 * asked for nothing the judge relies on (the flushes, the inputs, the
 * poisoning are the judge's own work; README.md, "The judge"). */
enum { LAB_FN_CONTRACT = 0, LAB_FN_NOOP = 1 };

typedef struct {
    int32_t fn;
    int32_t buffer[LAB_REMOTE_MAX_ARGS]; /* buffer ids, -1: none        */
    int64_t offset[LAB_REMOTE_MAX_ARGS]; /* bytes into the buffer       */
    int64_t value[LAB_REMOTE_MAX_ARGS];  /* the integer arguments       */
} lab_remote_call;

typedef struct {
    uint32_t magic;
    uint32_t op;
    int32_t id;                /* MAP, UNMAP: the buffer id             */
    int32_t count;             /* CALLS: calls that follow              */
    uint64_t bytes;            /* MAP: the buffer's size                */
    unsigned char handle[64];  /* MAP: a cudaIpcMemHandle_t             */
    lab_remote_call calls[LAB_REMOTE_MAX_CALLS];
} lab_remote_request;

typedef struct {
    uint32_t magic;
    uint32_t op;     /* the request's                                   */
    int32_t status;  /* 0 ok; else a cudaError_t value                  */
    char text[120];  /* the family (HELLO) or the error's name          */
} lab_remote_answer;

/* A runner as the judge sees it: two processes, the device server it
 * talks to (the lab's, with the GPU) and the runner proper (the student's
 * host code, without one; forward.h). */
typedef struct {
    pid_t pid;           /* the device server                            */
    pid_t runner;        /* the runner proper                            */
    int runner_reaped, runner_status;
    int to, from;        /* the judge's ends of the two pipes            */
    char what[64];       /* "your kernel", "the echo runner"             */
    int reaped;          /* waitpid has its status                       */
    int status;          /* as waitpid gives it                          */
    int timed_out;
} lab_runner;

/* How a conversation with a runner went. */
enum lab_remote_result {
    LAB_REMOTE_OK = 0,
    LAB_REMOTE_ERROR,    /* it answered with a CUDA error (status, text)   */
    LAB_REMOTE_TIMEOUT,  /* no answer in time: it was killed               */
    LAB_REMOTE_DIED,     /* it ended (see lab_runner_fate)                 */
    LAB_REMOTE_GARBLED   /* it answered something that is not an answer    */
};

/* Start a runner: the device server `server` (stdin /dev/null, stdout and
 * stderr shared with the judge, the judge's pipes on LAB_RUNNER_IN_FD and
 * LAB_RUNNER_OUT_FD, the runner's on forward.h's, the file fatbin, the
 * device code it may load, opened on LAB_FWD_SERVER_FATBIN when not NULL)
 * and the runner `program` (its pipes to the server, nothing else), every
 * other descriptor closed. When confine is not NULL, the server is started
 * as `confine [--read-list files] -- server`: it may read itself, the
 * libraries it is linked with and the files listed in files (the GPU
 * driver's; "" for none); the runner as `confine --no-gpu -- program`: no
 * GPU device, no driver file. program NULL: the server alone (a test's
 * fake one). quiet: both processes' stdout and stderr are /dev/null, not
 * this process's (the echo runner, which in a judge's worker outlives the
 * stage whose output this process's are). Returns 0, or -1 with errno. */
int lab_runner_start(lab_runner *r, const char *server, const char *program, const char *fatbin,
                     const char *confine, const char *files, const char *what, int quiet);

/* Send a request (count calls of it); wait at most limit_s for the answer.
 * On TIMEOUT the runner is killed; on DIED, GARBLED it is reaped. */
int lab_runner_ask(lab_runner *r, const lab_remote_request *q, double limit_s, lab_remote_answer *a);
/* The two halves of lab_runner_ask, for a request whose answer is read
 * later (the HELLO sent as the runner starts: its start-up then runs
 * beside the judge's own): send (OK or DIED), then the answer to op, with
 * limit_s counted from this call. */
int lab_runner_send(lab_runner *r, const lab_remote_request *q);
int lab_runner_answer(lab_runner *r, uint32_t op, double limit_s, lab_remote_answer *a);

/* Why a runner is gone, in words ("exited with status 0", "was killed by
 * segmentation fault (SIGSEGV)"), after LAB_REMOTE_DIED or TIMEOUT: the
 * server's fate, or the runner's where the server ended for want of it. */
void lab_runner_fate(lab_runner *r, char *out, size_t len);

/* Whether it still runs (0: it has ended, and is reaped). */
int lab_runner_alive(lab_runner *r);

/* Ask it to quit, give it a moment, then kill and reap it. */
void lab_runner_stop(lab_runner *r);

/* The runner's side: read one request (0), or -1 at end of input. */
int lab_remote_read_request(int fd, lab_remote_request *q);
/* ... and answer it. */
int lab_remote_answer_with(int fd, uint32_t op, int32_t status, const char *text);

#ifdef __cplusplus
}
#endif

#endif /* LAB_REMOTE_H */
