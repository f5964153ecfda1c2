/*
 * fake_runner.c: a runner without a GPU, for testing the judge's side of
 * the conversation (judge/remote.c). It behaves as LAB_FAKE_RUNNER_MODE says
 * (a runner gets no arguments):
 *
 *   good     answers every request (HELLO with "matmul"), as a runner does
 *   hang     answers HELLO, then never answers CALLS
 *   die      answers HELLO, then exits with status 0 on CALLS
 *   leave    answers HELLO and CALLS, then exits with status 0 (gone
 *            between two requests)
 *   crash    answers HELLO, then dies of SIGSEGV on CALLS
 *   garble   answers HELLO, then answers CALLS with a wrong magic number
 *   error    answers CALLS with error 700 (an illegal address)
 *   escape   answers HELLO, then tries to create the file LAB_FAKE_RUNNER_TARGET
 *            and answers CALLS with status 0 if it could, 1 if not
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "remote.h"

int main(void)
{
    const char *mode = getenv("LAB_FAKE_RUNNER_MODE") ? getenv("LAB_FAKE_RUNNER_MODE") : "good";
    const char *target = getenv("LAB_FAKE_RUNNER_TARGET");
    static lab_remote_request q;
    const int out = LAB_RUNNER_OUT_FD;
    if (!strcmp(mode, "crash-start"))
        raise(SIGSEGV); /* before it has read anything */
    while (lab_remote_read_request(LAB_RUNNER_IN_FD, &q) == 0) {
        if (q.op == LAB_OP_QUIT)
            return 0;
        if (q.op == LAB_OP_HELLO) {
            if (!strcmp(mode, "slow-hello"))
                usleep(600000); /* a start-up: a context, the device code */
            lab_remote_answer_with(out, q.op, 0, "matmul");
            continue;
        }
        if (!strcmp(mode, "hang"))
            for (;;)
                pause();
        if (!strcmp(mode, "die"))
            _exit(0);
        if (!strcmp(mode, "leave")) {
            lab_remote_answer_with(out, q.op, 0, "done");
            _exit(0);
        }
        if (!strcmp(mode, "crash"))
            raise(SIGSEGV);
        if (!strcmp(mode, "garble")) {
            lab_remote_answer a;
            memset(&a, 0, sizeof a);
            a.magic = 0x12345678u;
            if (write(out, &a, sizeof a) != (ssize_t)sizeof a)
                return 1;
            continue;
        }
        if (!strcmp(mode, "error")) {
            lab_remote_answer_with(out, q.op, 700, "cudaErrorIllegalAddress");
            continue;
        }
        if (!strcmp(mode, "escape")) {
            int fd = target ? open(target, O_WRONLY | O_CREAT, 0644) : -1;
            lab_remote_answer_with(out, q.op, fd >= 0 ? 0 : 1, fd >= 0 ? "escaped" : "refused");
            continue;
        }
        lab_remote_answer_with(out, q.op, 0, "cudaSuccess");
    }
    return 0;
}
