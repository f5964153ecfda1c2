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
 * nothing it says beyond "done". It believes nothing the runner says but
 * what a CUDA call of the student's own process could have asked for.
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

__global__ void lab_noop_kernel(void) {}

static void *mapped[LAB_REMOTE_MAX_BUFFERS];
static uint64_t mapped_bytes[LAB_REMOTE_MAX_BUFFERS];

/* The walled compile's device code, and the kernels the runner named. */
#define MAX_KERNELS 256
static cudaLibrary_t g_library;
static int g_have_library;
static struct {
    cudaKernel_t k;
    int nparams;
    uint32_t size[LAB_FWD_MAX_PARAMS];
    char name[LAB_FWD_MAX_NAME];
} g_kernels[MAX_KERNELS];
static int g_nkernels;

static cudaError_t g_first;  /* the first error of this request's launches */
static float g_calls_ms;     /* the server's own event time of the last CALLS */
static cudaEvent_t g_start, g_stop;

/* The device code, read whole from its descriptor (an empty file or none:
 * the echo runner's, or a kernel.cu without device code). */
static cudaError_t load_device_code(void)
{
    size_t len = 0;
    int cut = 0;
    char *bytes = lab_read_to_end(LAB_FWD_SERVER_FATBIN, 64u << 20, &len, &cut);
    close(LAB_FWD_SERVER_FATBIN);
    if (!bytes || len == 0) {
        free(bytes);
        return cudaSuccess;
    }
    if (cut)
        return cudaErrorInvalidKernelImage;
    /* kept for the library's life (lazy loading reads it later) */
    cudaError_t err = cudaLibraryLoadData(&g_library, bytes, NULL, NULL, 0, NULL, NULL, 0);
    g_have_library = err == cudaSuccess;
    return err;
}

static void reply(cudaError_t status, int64_t value, const void *extra, uint32_t len)
{
    lab_fwd_reply r = {(int32_t)status, 0, value};
    if (lab_fwd_send2(LAB_FWD_SERVER_TO, LAB_FWD_REPLY, &r, sizeof r, extra, len))
        exit(LAB_FWD_RUNNER_GONE);
}

/* LAB_FWD_KERNEL: a kernel of the walled compile, by name, and its
 * parameters' sizes. A name the library does not have is an error: device
 * code from anywhere else has nothing to be found in. */
static void find_kernel(const char *name, uint32_t len)
{
    lab_fwd_kernel out;
    memset(&out, 0, sizeof out);
    if (len == 0 || len > LAB_FWD_MAX_NAME || name[len - 1] != 0)
        return reply(cudaErrorInvalidValue, 0, NULL, 0);
    for (int i = 0; i < g_nkernels; i++) {
        if (!strcmp(g_kernels[i].name, name)) {
            out.kernel = i;
            out.nparams = g_kernels[i].nparams;
            memcpy(out.size, g_kernels[i].size, sizeof out.size);
            return reply(cudaSuccess, 0, &out, sizeof out);
        }
    }
    cudaKernel_t k;
    if (!g_have_library || g_nkernels == MAX_KERNELS ||
        cudaLibraryGetKernel(&k, g_library, name) != cudaSuccess) {
        cudaGetLastError();
        return reply(cudaErrorInvalidDeviceFunction, 0, NULL, 0);
    }
    int n = 0;
    size_t offset, size;
    while (n <= LAB_FWD_MAX_PARAMS && cudaFuncGetParamInfo((const void *)k, (size_t)n, &offset, &size) == cudaSuccess) {
        if (n < LAB_FWD_MAX_PARAMS)
            out.size[n] = (uint32_t)size;
        n++;
    }
    cudaGetLastError(); /* the query past the last parameter */
    if (n > LAB_FWD_MAX_PARAMS)
        return reply(cudaErrorInvalidValue, 0, NULL, 0);
    out.kernel = g_nkernels;
    out.nparams = n;
    g_kernels[g_nkernels].k = k;
    g_kernels[g_nkernels].nparams = n;
    memcpy(g_kernels[g_nkernels].size, out.size, sizeof out.size);
    memcpy(g_kernels[g_nkernels].name, name, len);
    g_nkernels++;
    reply(cudaSuccess, 0, &out, sizeof out);
}

static int known_kernel(int i) { return i >= 0 && i < g_nkernels; }

/* Launch attributes a student's launch may carry: its shape and schedule.
 * Those that name host objects (events) are not the runner's to give. */
static int allowed_attribute(cudaLaunchAttributeID id)
{
    switch (id) {
    case cudaLaunchAttributeCooperative:
    case cudaLaunchAttributeClusterDimension:
    case cudaLaunchAttributeClusterSchedulingPolicyPreference:
    case cudaLaunchAttributePriority:
    case cudaLaunchAttributePreferredSharedMemoryCarveout:
        return 1;
    default:
        return 0;
    }
}

/* A lab_fwd_launch and what follows it: the configuration, its kernel's
 * arguments (args into params). cudaSuccess, or why not. */
static cudaError_t read_launch(const char *p, uint32_t len, int with_params, cudaLaunchConfig_t *cfg,
                               cudaLaunchAttribute *attrs, void **args, char *params, int *kernel)
{
    lab_fwd_launch l;
    if (len < sizeof l)
        return cudaErrorInvalidValue;
    memcpy(&l, p, sizeof l);
    if (!known_kernel(l.kernel) || l.nattrs < 0 || l.nattrs > LAB_FWD_MAX_ATTRS || l.param_bytes < 0 ||
        l.param_bytes > LAB_FWD_MAX_PARAM_BYTES ||
        len != sizeof l + (uint32_t)l.nattrs * sizeof *attrs + (uint32_t)l.param_bytes)
        return cudaErrorInvalidValue;
    memcpy(attrs, p + sizeof l, (size_t)l.nattrs * sizeof *attrs);
    for (int i = 0; i < l.nattrs; i++)
        if (!allowed_attribute(attrs[i].id))
            return cudaErrorNotSupported;
    *cfg = cudaLaunchConfig_t();
    cfg->gridDim = dim3(l.grid[0], l.grid[1], l.grid[2]);
    cfg->blockDim = dim3(l.block[0], l.block[1], l.block[2]);
    cfg->dynamicSmemBytes = l.shared;
    cfg->attrs = attrs;
    cfg->numAttrs = (unsigned)l.nattrs;
    *kernel = l.kernel;
    if (!with_params)
        return cudaSuccess;
    /* each parameter at a 16-byte boundary of params, from its packed bytes */
    const char *from = p + sizeof l + (size_t)l.nattrs * sizeof *attrs;
    size_t at = 0, used = 0;
    for (int i = 0; i < g_kernels[l.kernel].nparams; i++) {
        uint32_t size = g_kernels[l.kernel].size[i];
        if (used + size > (size_t)l.param_bytes || at + size > 2 * LAB_FWD_MAX_PARAM_BYTES)
            return cudaErrorInvalidValue;
        memcpy(params + at, from + used, size);
        args[i] = params + at;
        used += size;
        at = (at + size + 15) & ~(size_t)15;
    }
    return used == (size_t)l.param_bytes ? cudaSuccess : cudaErrorInvalidValue;
}

static void launch(const char *p, uint32_t len)
{
    static cudaLaunchAttribute attrs[LAB_FWD_MAX_ATTRS];
    static void *args[LAB_FWD_MAX_PARAMS];
    static __align__(16) char params[2 * LAB_FWD_MAX_PARAM_BYTES];
    cudaLaunchConfig_t cfg;
    int kernel = -1, kind = -1;
    cudaError_t err = read_launch(p, len, 1, &cfg, attrs, args, params, &kernel);
    if (err == cudaSuccess) {
        memcpy(&kind, p, sizeof kind);
        const void *k = (const void *)g_kernels[kernel].k;
        if (kind == LAB_FWD_LAUNCH_PLAIN)
            err = cudaLaunchKernel(k, cfg.gridDim, cfg.blockDim, args, cfg.dynamicSmemBytes, 0);
        else if (kind == LAB_FWD_LAUNCH_COOPERATIVE)
            err = cudaLaunchCooperativeKernel(k, cfg.gridDim, cfg.blockDim, args, cfg.dynamicSmemBytes, 0);
        else if (kind == LAB_FWD_LAUNCH_EX)
            err = cudaLaunchKernelExC(&cfg, k, args);
        else
            err = cudaErrorInvalidValue;
    }
    if (err != cudaSuccess && g_first == cudaSuccess)
        g_first = err;
}

/* A memset, of a judge's buffer only (the memory a kernel.cu is given). */
static void memset_buffer(const char *p, uint32_t len)
{
    lab_fwd_memset m;
    cudaError_t err = cudaErrorInvalidValue;
    if (len == sizeof m) {
        memcpy(&m, p, sizeof m);
        for (int i = 0; i < LAB_REMOTE_MAX_BUFFERS; i++) {
            uint64_t base = (uint64_t)(uintptr_t)mapped[i];
            if (mapped[i] && m.ptr >= base && m.count <= mapped_bytes[i] && m.ptr - base <= mapped_bytes[i] - m.count) {
                err = cudaMemsetAsync((void *)(uintptr_t)m.ptr, m.value, m.count, 0);
                break;
            }
        }
    }
    if (err != cudaSuccess && g_first == cudaSuccess)
        g_first = err;
}

/* A query about a kernel or the device, answered. */
static void query(uint32_t op, const char *p, uint32_t len)
{
    lab_fwd_func f;
    memset(&f, 0, sizeof f);
    if (op != LAB_FWD_OCC_CLUSTER && op != LAB_FWD_DEVICE_PROPS) {
        if (len != sizeof f)
            return reply(cudaErrorInvalidValue, 0, NULL, 0);
        memcpy(&f, p, sizeof f);
    }
    const void *k = known_kernel(f.kernel) ? (const void *)g_kernels[f.kernel].k : NULL;
    int needs_kernel = op == LAB_FWD_FUNC_SET_ATTR || op == LAB_FWD_FUNC_CACHE || op == LAB_FWD_FUNC_ATTRS ||
                       op == LAB_FWD_OCCUPANCY || op == LAB_FWD_OCC_SMEM;
    if (needs_kernel && !k)
        return reply(cudaErrorInvalidDeviceFunction, 0, NULL, 0);
    int n = 0;
    size_t bytes = 0;
    cudaError_t err;
    switch (op) {
    case LAB_FWD_FUNC_SET_ATTR:
        return reply(cudaFuncSetAttribute(k, (cudaFuncAttribute)f.attr, (int)f.value), 0, NULL, 0);
    case LAB_FWD_FUNC_CACHE:
        return reply(cudaFuncSetCacheConfig(k, (cudaFuncCache)f.value), 0, NULL, 0);
    case LAB_FWD_FUNC_ATTRS: {
        cudaFuncAttributes a;
        memset(&a, 0, sizeof a);
        err = cudaFuncGetAttributes(&a, k);
        return reply(err, 0, &a, sizeof a);
    }
    case LAB_FWD_OCCUPANCY:
        err = cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(&n, k, (int)f.value, f.bytes, (unsigned)f.value2);
        return reply(err, n, NULL, 0);
    case LAB_FWD_OCC_SMEM:
        err = cudaOccupancyAvailableDynamicSMemPerBlock(&bytes, k, (int)f.value, (int)f.value2);
        return reply(err, (int64_t)bytes, NULL, 0);
    case LAB_FWD_OCC_CLUSTER: {
        static cudaLaunchAttribute attrs[LAB_FWD_MAX_ATTRS];
        cudaLaunchConfig_t cfg;
        int kernel = -1;
        err = read_launch(p, len, 0, &cfg, attrs, NULL, NULL, &kernel);
        if (err == cudaSuccess)
            err = cudaOccupancyMaxPotentialClusterSize(&n, (const void *)g_kernels[kernel].k, &cfg);
        return reply(err, n, NULL, 0);
    }
    case LAB_FWD_DEVICE_PROPS: {
        static cudaDeviceProp prop;
        err = cudaGetDeviceProperties(&prop, 0);
        return reply(err, 0, &prop, sizeof prop);
    }
    case LAB_FWD_DEVICE_ATTR:
        err = cudaDeviceGetAttribute(&n, (cudaDeviceAttr)f.attr, 0);
        return reply(err, n, NULL, 0);
    case LAB_FWD_LAST_ERROR:
        return reply(f.value ? cudaPeekAtLastError() : cudaGetLastError(), 0, NULL, 0);
    case LAB_FWD_ERROR_TEXT: {
        const char *t = f.value2 ? cudaGetErrorName((cudaError_t)f.value) : cudaGetErrorString((cudaError_t)f.value);
        return reply(cudaSuccess, 0, t, t ? (uint32_t)strlen(t) + 1 : 0);
    }
    default:
        return reply(cudaErrorNotSupported, 0, NULL, 0);
    }
}

/* Serve the runner until it says `until` (HELLO_DONE, CALLS_DONE); its
 * payload into text. A runner that is gone ends the server: the judge
 * reads why from waitpid. */
static void serve(uint32_t until, char *text, size_t len)
{
    static char p[LAB_FWD_MAX_PAYLOAD + 1];
    lab_fwd_header h;
    for (;;) {
        if (lab_fwd_read(LAB_FWD_SERVER_FROM, &h, p))
            exit(LAB_FWD_RUNNER_GONE);
        p[h.len] = 0;
        switch (h.op) {
        case LAB_FWD_LAUNCH:
            launch(p, h.len);
            break;
        case LAB_FWD_NOOP:
            lab_noop_kernel<<<1, 1>>>();
            break;
        case LAB_FWD_MEMSET:
            memset_buffer(p, h.len);
            break;
        case LAB_FWD_KERNEL:
            find_kernel(p, h.len);
            break;
        case LAB_FWD_HELLO_DONE:
        case LAB_FWD_CALLS_DONE:
            if (h.op != until)
                exit(LAB_FWD_RUNNER_GONE);
            snprintf(text, len, "%.*s", (int)h.len, p);
            if (h.op == LAB_FWD_CALLS_DONE && h.len == sizeof(int32_t))
                memcpy(text, p, sizeof(int32_t));
            return;
        default:
            if (h.op >= LAB_FWD_KERNEL)
                query(h.op, p, h.len);
            else
                exit(LAB_FWD_RUNNER_GONE);
        }
    }
}

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
            if (id >= LAB_REMOTE_MAX_BUFFERS || !mapped[id])
                return cudaErrorInvalidValue;
            c.calls[i].ptr[k] = (uint64_t)(uintptr_t)((char *)mapped[id] + call->offset[k]);
        }
    }
    g_calls_ms = -1;
    g_first = cudaSuccess;
    cudaEventRecord(g_start);
    if (lab_fwd_send(LAB_FWD_SERVER_TO, LAB_FWD_CALLS, &c,
                     (uint32_t)(offsetof(lab_fwd_calls, calls) + (size_t)q->count * sizeof c.calls[0])))
        exit(LAB_FWD_RUNNER_GONE);
    char done[64] = {0};
    serve(LAB_FWD_CALLS_DONE, done, sizeof done);
    int32_t said; /* the runner's first error (forward.h) */
    memcpy(&said, done, sizeof said);
    cudaError_t err = cudaEventRecord(g_stop);
    if (said)
        err = said > 0 && said < 10000 ? (cudaError_t)said : cudaErrorInvalidValue;
    if (err == cudaSuccess)
        err = g_first;
    if (err == cudaSuccess)
        err = cudaGetLastError();
    if (err != cudaSuccess)
        return err;
    /* a synchronization that covers every stream: the answer comes when all
     * the work is done, or with the first error */
    err = cudaDeviceSynchronize();
    if (err == cudaSuccess)
        cudaEventElapsedTime(&g_calls_ms, g_start, g_stop);
    return err;
}

/* HELLO: the context, the device code, and the runner's start-up (its
 * constructors' queries served); the answer names the runner's family. */
static cudaError_t hello(char *family, size_t len)
{
    cudaError_t err = cudaFree(0); /* the context, before anything is timed */
    if (err == cudaSuccess)
        err = load_device_code();
    if (err != cudaSuccess)
        return err;
    if (lab_fwd_send(LAB_FWD_SERVER_TO, LAB_FWD_HELLO, NULL, 0))
        exit(LAB_FWD_RUNNER_GONE);
    serve(LAB_FWD_HELLO_DONE, family, len);
    return cudaSuccess;
}

int main(void)
{
    static lab_remote_request q;
    const int out = LAB_RUNNER_OUT_FD;
    char family[64] = "";
    while (lab_remote_read_request(LAB_RUNNER_IN_FD, &q) == 0) {
        cudaError_t err = cudaSuccess;
        switch (q.op) {
        case LAB_OP_HELLO:
            err = hello(family, sizeof family);
            lab_remote_answer_with(out, q.op, err, err == cudaSuccess ? family : cudaGetErrorName(err));
            continue;
        case LAB_OP_MAP: {
            if (q.id < 0 || q.id >= LAB_REMOTE_MAX_BUFFERS || mapped[q.id]) {
                err = cudaErrorInvalidValue;
                break;
            }
            cudaIpcMemHandle_t h;
            memcpy(&h, q.handle, sizeof h);
            err = cudaIpcOpenMemHandle(&mapped[q.id], h, cudaIpcMemLazyEnablePeerAccess);
            mapped_bytes[q.id] = err == cudaSuccess ? q.bytes : 0;
            if (err != cudaSuccess)
                mapped[q.id] = NULL;
            break;
        }
        case LAB_OP_UNMAP:
            if (q.id >= 0 && q.id < LAB_REMOTE_MAX_BUFFERS && mapped[q.id]) {
                err = cudaIpcCloseMemHandle(mapped[q.id]);
                mapped[q.id] = NULL;
                mapped_bytes[q.id] = 0;
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
            lab_fwd_send(LAB_FWD_SERVER_TO, LAB_FWD_QUIT, NULL, 0);
            return 0;
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
