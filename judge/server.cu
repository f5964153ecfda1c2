/*
 * server.cu: the device server (forward.h; judge/README.md, "The judge").
 *
 * The lab's own program, started confined beside each runner: it holds the
 * GPU context, maps the judge's buffers (CUDA IPC), and loads, of device
 * code, only the fat binary on LAB_FWD_SERVER_FATBIN, which
 * build/confine/objcheck took from the walled compile of the student's
 * kernel.cu (none for the echo runner). The student's host code runs in the
 * runner, a process without a GPU, whose every CUDA call arrives here as a
 * message (forward.h): a launch by kernel name, a memset of a judge's
 * buffer, a query. It believes the judge, whose requests come on
 * LAB_RUNNER_IN_FD, and answers on LAB_RUNNER_OUT_FD; the judge believes
 * nothing it says beyond "done". What the runner may ask of it is in
 * serve.cu; this file is its loop with the judge.
 *
 * It prints nothing on success: stdout and stderr are the student's (a
 * kernel's printf included).
 */
#include <cuda_profiler_api.h>
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fdio.h"
#include "forward.h"
#include "remote.h"
#include "serve.h"
#include "spawn.h"

/* LAB_JUDGE_TRACE=1: where a request's wall time goes in the server, as
 * medians at exit (a diagnosis of the judge's timing, on stderr): the
 * runner's answer to CALLS (its wake-up and its calls), reading and
 * launching what it sent, and the synchronization. */
#define TRACE_MAX 4096
static struct {
    int on, n;
    double hop[TRACE_MAX], launch[TRACE_MAX], sync[TRACE_MAX], in_launch[TRACE_MAX];
    char family[64];
} T;
static double now_us(void) { return lab_spawn_now() * 1e6; }
static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}
static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, by_value);
    return n ? v[n / 2] : 0;
}
static void trace_totals(void)
{
    if (T.on && T.n)
        fprintf(stderr, "server trace (%s): %d requests; median us: runner's answer %.1f, reading and launching "
                        "%.1f (in the launches %.1f), synchronizing %.1f\n",
                T.family, T.n, median(T.hop, T.n), median(T.launch, T.n), median(T.in_launch, T.n),
                median(T.sync, T.n));
}
static float g_calls_ms;     /* the server's own event time of the last CALLS */
static cudaEvent_t g_start, g_stop;

/* One request's calls, run by the runner, between the server's two events,
 * then the synchronization. */
static cudaError_t run_calls(const lab_remote_request *q)
{
    if (!g_start && (cudaEventCreate(&g_start) != cudaSuccess || cudaEventCreate(&g_stop) != cudaSuccess))
        return cudaErrorInitializationError;
    static lab_fwd_calls c;
    c.count = q->count;
    for (int i = 0; i < q->count; i++) {
        const lab_remote_call *call = &q->calls[i];
        c.calls[i].call = *call;
        for (int k = 0; k < LAB_REMOTE_MAX_ARGS; k++) {
            int id = call->buffer[k];
            c.calls[i].ptr[k] = 0;
            if (id < 0)
                continue;
            if (lab_serve_pointer(id, call->offset[k], &c.calls[i].ptr[k]))
                return cudaErrorInvalidValue;
        }
    }
    g_calls_ms = -1;
    lab_serve_first_error = cudaSuccess;
    cudaEventRecord(g_start);
    const double t0 = T.on ? now_us() : 0;
    lab_serve_times.in_launches = 0;
    if (lab_fwd_send(LAB_FWD_SERVER_TO, LAB_FWD_CALLS, &c,
                     (uint32_t)(offsetof(lab_fwd_calls, calls) + (size_t)q->count * sizeof c.calls[0])))
        exit(LAB_FWD_RUNNER_GONE);
    char done[64] = {0};
    lab_serve(LAB_FWD_CALLS_DONE, done, sizeof done);
    const double t2 = T.on ? now_us() : 0;
    int32_t said; /* the runner's first error (forward.h) */
    memcpy(&said, done, sizeof said);
    cudaError_t err = cudaEventRecord(g_stop);
    if (said)
        err = said > 0 && said < 10000 ? (cudaError_t)said : cudaErrorInvalidValue;
    if (err == cudaSuccess)
        err = lab_serve_first_error;
    if (err == cudaSuccess)
        err = cudaGetLastError();
    if (err != cudaSuccess)
        return err;
    /* a synchronization that covers every stream: the answer comes when all
     * the work is done, or with the first error */
    err = cudaDeviceSynchronize();
    if (err == cudaSuccess)
        cudaEventElapsedTime(&g_calls_ms, g_start, g_stop);
    if (T.on && T.n < TRACE_MAX) {
        T.hop[T.n] = lab_serve_times.first_message - t0;
        T.launch[T.n] = t2 - lab_serve_times.first_message;
        T.sync[T.n] = now_us() - t2;
        T.in_launch[T.n] = lab_serve_times.in_launches;
        T.n++;
    }
    return err;
}

/* HELLO: the context, the device code, and the runner's start-up (its
 * constructors' queries served); the answer names the runner's family. */
static cudaError_t hello(char *family, size_t len)
{
    cudaError_t err = cudaFree(0); /* the context, before anything is timed */
    if (err == cudaSuccess)
        err = lab_serve_load_device_code();
    if (err != cudaSuccess)
        return err;
    if (lab_fwd_send(LAB_FWD_SERVER_TO, LAB_FWD_HELLO, NULL, 0))
        exit(LAB_FWD_RUNNER_GONE);
    lab_serve(LAB_FWD_HELLO_DONE, family, len);
    snprintf(T.family, sizeof T.family, "%s", family);
    /* what the runner's start-up launched ends before the answer, as a
     * request's calls do: between two answers nothing of the student's
     * runs on the GPU (judge/README.md, "Nothing of the student's can
     * work on a batch before its request") */
    return cudaDeviceSynchronize();
}

int main(void)
{
    static lab_remote_request q;
    const int out = LAB_RUNNER_OUT_FD;
    T.on = lab_serve_times.on = getenv("LAB_JUDGE_TRACE") && atoi(getenv("LAB_JUDGE_TRACE")) > 0;
    atexit(trace_totals);
    char family[64] = "";
    while (lab_remote_read_request(LAB_RUNNER_IN_FD, &q) == 0) {
        cudaError_t err = cudaSuccess;
        switch (q.op) {
        case LAB_OP_HELLO:
            err = hello(family, sizeof family);
            lab_remote_answer_with(out, q.op, err, err == cudaSuccess ? family : cudaGetErrorName(err));
            continue;
        case LAB_OP_MAP:
            err = lab_serve_map(q.id, q.handle, q.bytes);
            break;
        case LAB_OP_UNMAP:
            err = lab_serve_unmap(q.id);
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
            lab_fwd_send(LAB_FWD_SERVER_TO, LAB_FWD_QUIT, NULL, 0);
            exit(0); /* the trace's totals, when asked for */
        default:
            err = cudaErrorNotSupported;
        }
        /* a successful CALLS answers with the server's own event time of
         * its calls: the judge prints it beside its own with
         * LAB_JUDGE_TRACE=1 (a diagnosis of the judge's timing; it is never
         * used to grade) */
        char text[64];
        snprintf(text, sizeof text, "ok %.6f", g_calls_ms);
        lab_remote_answer_with(out, q.op, err,
                               err == cudaSuccess && q.op == LAB_OP_CALLS
                                   ? text
                                   : cudaGetErrorName(err));
        /* a sticky error: this context can do nothing more */
        if (err != cudaSuccess && q.op == LAB_OP_CALLS && cudaDeviceSynchronize() != cudaSuccess)
            return 1;
    }
    return 0;
}
