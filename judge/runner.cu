/*
 * runner.cu: the runner's loop (remote.h; judge/README.md, "The judge").
 *
 * Linked with one kernel.cu and the family's call file (judge/calls.cu
 * built with -DLAB_RUNNER_FAMILY_<family> into build/judge/<family>_call.o,
 * which calls the contract function on the pointers of one request), this
 * is the only process in which the student's code runs. It believes the
 * judge, whose requests come on LAB_RUNNER_IN_FD, and answers on
 * LAB_RUNNER_OUT_FD; the judge believes nothing it says beyond "done".
 * Linked without a kernel.cu (calls.cu with -DLAB_RUNNER_ECHO) it is
 * the echo runner,
 * which the judge uses to measure what a round trip costs.
 *
 * It prints nothing on success: stdout and stderr are the student's.
 */
#include <cuda_profiler_api.h>
#include <cuda_runtime.h>
#include <stdio.h>
#include <string.h>

#include "remote.h"

/* The family's call: the contract function on ptr and value (remote.h). */
extern "C" int lab_family_call(const lab_remote_call *c, void *const *ptr);
/* The family this runner serves ("matmul", or "echo"). */
extern "C" const char lab_family_name[];

__global__ void lab_noop_kernel(void) {}

static void *mapped[LAB_REMOTE_MAX_BUFFERS];

static float g_calls_ms; /* the runner's own event time of the last CALLS */
static cudaEvent_t g_start, g_stop;

/* One request's calls, launched, between the runner's two events. */
static cudaError_t launch_calls(const lab_remote_request *q)
{
    if (!g_start && (cudaEventCreate(&g_start) != cudaSuccess || cudaEventCreate(&g_stop) != cudaSuccess))
        return cudaErrorInitializationError;
    g_calls_ms = -1;
    cudaEventRecord(g_start);
    for (int i = 0; i < q->count; i++) {
        const lab_remote_call *c = &q->calls[i];
        void *ptr[LAB_REMOTE_MAX_ARGS] = {0};
        for (int k = 0; k < LAB_REMOTE_MAX_ARGS; k++) {
            int id = c->buffer[k];
            if (id < 0)
                continue;
            if (id >= LAB_REMOTE_MAX_BUFFERS || !mapped[id])
                return cudaErrorInvalidValue;
            ptr[k] = (char *)mapped[id] + c->offset[k];
        }
        if (c->fn == LAB_FN_NOOP)
            lab_noop_kernel<<<1, 1>>>();
        else if (lab_family_call(c, ptr))
            return cudaErrorInvalidValue;
        cudaError_t err = cudaGetLastError();
        if (err != cudaSuccess)
            return err;
    }
    return cudaEventRecord(g_stop);
}

/* A synchronization that covers every stream: the answer comes when all
 * the work is done, or with the first error. */
static cudaError_t finish_calls(void)
{
    cudaError_t err = cudaDeviceSynchronize();
    if (err == cudaSuccess && g_start)
        cudaEventElapsedTime(&g_calls_ms, g_start, g_stop);
    return err;
}

/* One request's calls, then the synchronization. */
static cudaError_t run_calls(const lab_remote_request *q)
{
    cudaError_t err = launch_calls(q);
    return err == cudaSuccess ? finish_calls() : err;
}

int main(void)
{
    static lab_remote_request q;
    const int out = LAB_RUNNER_OUT_FD;
    while (lab_remote_read_request(LAB_RUNNER_IN_FD, &q) == 0) {
        cudaError_t err = cudaSuccess;
        switch (q.op) {
        case LAB_OP_HELLO:
            err = cudaFree(0); /* the context, before anything is timed */
            lab_remote_answer_with(out, q.op, err, err == cudaSuccess ? lab_family_name : cudaGetErrorName(err));
            continue;
        case LAB_OP_MAP: {
            if (q.id < 0 || q.id >= LAB_REMOTE_MAX_BUFFERS || mapped[q.id]) {
                err = cudaErrorInvalidValue;
                break;
            }
            cudaIpcMemHandle_t h;
            memcpy(&h, q.handle, sizeof h);
            err = cudaIpcOpenMemHandle(&mapped[q.id], h, cudaIpcMemLazyEnablePeerAccess);
            if (err != cudaSuccess)
                mapped[q.id] = NULL;
            break;
        }
        case LAB_OP_UNMAP:
            if (q.id >= 0 && q.id < LAB_REMOTE_MAX_BUFFERS && mapped[q.id]) {
                err = cudaIpcCloseMemHandle(mapped[q.id]);
                mapped[q.id] = NULL;
            }
            break;
        case LAB_OP_CALLS:
            err = run_calls(&q);
            break;
        case LAB_OP_PROFILE:
            /* make profile: this call and nothing else inside the range */
            err = cudaDeviceSynchronize();
            if (err == cudaSuccess)
                err = cudaProfilerStart();
            if (err == cudaSuccess)
                err = run_calls(&q);
            cudaProfilerStop();
            break;
        case LAB_OP_QUIT:
            return 0;
        default:
            err = cudaErrorNotSupported;
        }
        /* a successful CALLS answers with the runner's own event time of its
         * calls: the judge prints it beside its own with LAB_JUDGE_TRACE=1
         * (a diagnosis of the judge's timing; it is never used to grade) */
        char text[64];
        snprintf(text, sizeof text, "ok %.6f", g_calls_ms);
        lab_remote_answer_with(out, q.op, err,
                               err == cudaSuccess && q.op == LAB_OP_CALLS
                                   ? text
                                   : cudaGetErrorName(err));
        /* a sticky error: this context can do nothing more */
        if (err != cudaSuccess && q.op == LAB_OP_CALLS &&
            cudaDeviceSynchronize() != cudaSuccess)
            return 1;
    }
    return 0;
}
