/*
 * runner.c: the runner's loop (forward.h; judge/README.md, "The judge").
 *
 * Linked with one kernel.cu, the family's call file (judge/calls.cu built
 * with -DLAB_RUNNER_FAMILY=<family> into build/judge/<family>_call.o, which
 * calls the contract function on the pointers of one call) and
 * judge/forward_runtime.c in the CUDA runtime's place, this is the process
 * in which the student's host code runs: without a GPU, talking only to
 * its device server (judge/server.cu), which started it a request's calls
 * at a time. Linked without a kernel.cu (calls.cu with -DLAB_RUNNER_ECHO)
 * it is the echo runner, whose calls are the server's empty kernel.
 *
 * It prints nothing: stdout and stderr are the student's.
 */
#include <stdint.h>
#include <string.h>

#include "forward.h"
#include "remote.h"

/* The family's call: the contract function on ptr and value (calls.cu). */
int lab_family_call(const lab_remote_call *c, void *const *ptr);
/* The family this runner serves ("matmul", or "echo"). */
extern const char lab_family_name[];

/* One request's calls: 0, or the first error (cudaErrorInvalidValue, 1,
 * for a call that is not the contract's), as a cudaError_t's value. */
static int32_t run_calls(const lab_fwd_calls *c, uint32_t len)
{
    if (len < offsetof(lab_fwd_calls, calls) || c->count < 0 || c->count > LAB_REMOTE_MAX_CALLS ||
        len != offsetof(lab_fwd_calls, calls) + (size_t)c->count * sizeof c->calls[0])
        return 1;
    for (int i = 0; i < c->count; i++) {
        void *ptr[LAB_REMOTE_MAX_ARGS];
        for (int k = 0; k < LAB_REMOTE_MAX_ARGS; k++)
            ptr[k] = (void *)(uintptr_t)c->calls[i].ptr[k];
        if (c->calls[i].call.fn == LAB_FN_NOOP)
            lab_fwd_queue(LAB_FWD_NOOP, NULL, 0, NULL, 0);
        else if (lab_family_call(&c->calls[i].call, ptr)) {
            return 1;
        }
        int err = lab_fwd_take_error();
        if (err)
            return err;
    }
    return 0;
}

int main(void)
{
    static union {
        lab_fwd_calls calls;
        char bytes[LAB_FWD_MAX_PAYLOAD];
    } p;
    lab_fwd_header h;
    while (lab_fwd_read(LAB_FWD_RUNNER_IN, &h, &p) == 0) {
        if (h.op == LAB_FWD_HELLO) {
            lab_fwd_queue(LAB_FWD_HELLO_DONE, lab_family_name, (uint32_t)strlen(lab_family_name) + 1, NULL, 0);
        } else if (h.op == LAB_FWD_CALLS) {
            int32_t err = run_calls(&p.calls, h.len);
            /* the calls' end (each launch went out as it was made) */
            lab_fwd_queue(LAB_FWD_CALLS_DONE, &err, sizeof err, NULL, 0);
        } else {
            return 0; /* QUIT, or anything else */
        }
        lab_fwd_flush();
    }
    return 0;
}
