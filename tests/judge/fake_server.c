/*
 * fake_server.c: a device server without a GPU, for testing the runner's
 * side (judge/runner.c, judge/forward_runtime.c; judge/forward.h).
 *
 *   fake-server RUNNER honest   RUNNER holds tests/judge/forward_kernel.cu
 *   fake-server RUNNER blob     RUNNER holds the fatbin_blob attack
 *
 * It starts RUNNER on the two pipes, says HELLO, sends one matmul call on
 * made-up pointers, answers what is asked as the scenario says, and prints
 * one "ok" or "FAIL" line a check.
 */
#include <cuda_runtime_api.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "forward.h"

static int to_runner, from_runner;

static void expect(int ok, const char *what, const char *detail)
{
    printf("%s  forward: %s\n", ok ? "ok  " : "FAIL", what);
    if (!ok && detail && detail[0])
        printf("      %s\n", detail);
}

/* the next message of the runner, or op 0 when it is gone */
static uint32_t next(char *p)
{
    lab_fwd_header h;
    if (lab_fwd_read(from_runner, &h, p))
        return 0;
    p[h.len] = 0;
    return h.op;
}

static void reply(int status, const void *extra, uint32_t len)
{
    lab_fwd_reply r = {status, 0, 0};
    lab_fwd_send2(to_runner, LAB_FWD_REPLY, &r, sizeof r, extra, len);
}

int main(int argc, char **argv)
{
    if (argc != 3)
        return 2;
    int down[2], up[2];
    if (pipe(down) || pipe(up))
        return 2;
    pid_t pid = fork();
    if (pid == 0) {
        dup2(down[0], LAB_FWD_RUNNER_IN);
        dup2(up[1], LAB_FWD_RUNNER_OUT);
        execl(argv[1], argv[1], (char *)NULL);
        _exit(127);
    }
    close(down[0]);
    close(up[1]);
    to_runner = down[1];
    from_runner = up[0];
    int blob = !strcmp(argv[2], "blob");
    static char p[LAB_FWD_MAX_PAYLOAD + 1], detail[512];

    lab_fwd_send(to_runner, LAB_FWD_HELLO, NULL, 0);
    uint32_t op = next(p);
    snprintf(detail, sizeof detail, "op %u, \"%.40s\"", op, p);
    expect(op == LAB_FWD_HELLO_DONE && !strcmp(p, "matmul"), "the runner's start-up ends in HELLO_DONE naming its family",
           detail);

    lab_fwd_calls c;
    memset(&c, 0, sizeof c);
    c.count = 1;
    c.calls[0].call.fn = LAB_FN_CONTRACT;
    c.calls[0].call.value[0] = 64;
    for (int k = 0; k < 3; k++)
        c.calls[0].ptr[k] = 0x7f0000001000ull * (k + 1);
    lab_fwd_send(to_runner, LAB_FWD_CALLS, &c, (uint32_t)(offsetof(lab_fwd_calls, calls) + sizeof c.calls[0]));

    op = next(p);
    const char *want = blob ? "blob_matmul" : "_Z10mm_forwardPKfS0_Pfi";
    snprintf(detail, sizeof detail, "op %u, \"%.80s\"", op, p);
    expect(op == LAB_FWD_KERNEL && !strcmp(p, want),
           blob ? "a kernel registered from a byte array is asked for by its name, not its bytes"
                : "a launch first asks the server for its kernel by nvcc's name", detail);
    if (blob) {
        reply(cudaErrorInvalidDeviceFunction, NULL, 0); /* the walled compile has no such kernel */
        op = next(p);
        int32_t err = -1;
        memcpy(&err, p, sizeof err);
        snprintf(detail, sizeof detail, "op %u, error %d", op, err);
        expect(op == LAB_FWD_CALLS_DONE && err == cudaErrorInvalidDeviceFunction,
               "a kernel the server does not have is never launched: the calls end with its error", detail);
    } else {
        lab_fwd_kernel k = {5, 4, {8, 8, 8, 4}};
        reply(0, &k, sizeof k);
        op = next(p);
        lab_fwd_func f;
        memcpy(&f, p, sizeof f);
        snprintf(detail, sizeof detail, "op %u, kernel %d, attribute %d, value %lld", op, f.kernel, f.attr,
                 (long long)f.value);
        expect(op == LAB_FWD_FUNC_SET_ATTR && f.kernel == 5 && f.attr == cudaFuncAttributePreferredSharedMemoryCarveout &&
                   f.value == 50,
               "cudaFuncSetAttribute is asked of the server, for the kernel's number", detail);
        reply(0, NULL, 0);
        op = next(p);
        lab_fwd_launch l;
        memcpy(&l, p, sizeof l);
        uint64_t a[3];
        int32_t n = 0;
        memcpy(a, p + sizeof l, sizeof a);
        memcpy(&n, p + sizeof l + sizeof a, sizeof n);
        snprintf(detail, sizeof detail, "op %u, kernel %d, grid %u,%u block %u,%u, %d bytes, n %d", op, l.kernel,
                 l.grid[0], l.grid[1], l.block[0], l.block[1], l.param_bytes, n);
        expect(op == LAB_FWD_LAUNCH && l.kernel == 5 && l.grid[0] == 4 && l.grid[1] == 4 && l.block[0] == 16 &&
                   l.block[1] == 16 && l.param_bytes == 28 && a[0] == c.calls[0].ptr[0] && a[1] == c.calls[0].ptr[1] &&
                   a[2] == c.calls[0].ptr[2] && n == 64,
               "<<<...>>> becomes a launch message: the kernel's number, the shape, the parameters' bytes", detail);
        op = next(p);
        snprintf(detail, sizeof detail, "op %u", op);
        expect(op == LAB_FWD_LAST_ERROR, "cudaGetLastError asks the server (after the launch is sent)", detail);
        reply(0, NULL, 0);
        op = next(p);
        int32_t err = -1;
        memcpy(&err, p, sizeof err);
        snprintf(detail, sizeof detail, "op %u, error %d", op, err);
        expect(op == LAB_FWD_CALLS_DONE && err == 0, "the calls end with CALLS_DONE", detail);
    }
    lab_fwd_send(to_runner, LAB_FWD_QUIT, NULL, 0);
    int st = -1;
    waitpid(pid, &st, 0);
    snprintf(detail, sizeof detail, "status %d", st);
    expect(WIFEXITED(st) && WEXITSTATUS(st) == 0, "QUIT ends the runner", detail);
    return 0;
}
