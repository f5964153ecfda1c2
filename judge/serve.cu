/*
 * serve.cu: what a runner may ask of its device server (serve.h,
 * forward.h): the kernels of the walled compile's device code, by name,
 * their launches, memsets of the judge's buffers, and queries about a
 * kernel or the device. It believes nothing the runner says but what a
 * CUDA call of the student's own process could have asked for: every
 * index, count and length is checked before it is used.
 */
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fdio.h"
#include "serve.h"
#include "spawn.h"

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

cudaError_t lab_serve_first_error; /* serve.h */
lab_serve_trace lab_serve_times;

cudaError_t lab_serve_map(int id, const unsigned char *handle, uint64_t bytes)
{
    if (id < 0 || id >= LAB_REMOTE_MAX_BUFFERS || mapped[id])
        return cudaErrorInvalidValue;
    cudaIpcMemHandle_t h;
    memcpy(&h, handle, sizeof h);
    cudaError_t err = cudaIpcOpenMemHandle(&mapped[id], h, cudaIpcMemLazyEnablePeerAccess);
    mapped_bytes[id] = err == cudaSuccess ? bytes : 0;
    if (err != cudaSuccess)
        mapped[id] = NULL;
    return err;
}

cudaError_t lab_serve_unmap(int id)
{
    if (id < 0 || id >= LAB_REMOTE_MAX_BUFFERS || !mapped[id])
        return cudaSuccess;
    cudaError_t err = cudaIpcCloseMemHandle(mapped[id]);
    mapped[id] = NULL;
    mapped_bytes[id] = 0;
    return err;
}

int lab_serve_pointer(int id, int64_t offset, uint64_t *at)
{
    if (id < 0 || id >= LAB_REMOTE_MAX_BUFFERS || !mapped[id])
        return -1;
    *at = (uint64_t)(uintptr_t)((char *)mapped[id] + offset);
    return 0;
}

/* The device code, read whole from its descriptor (an empty file or none:
 * the echo runner's, or a kernel.cu without device code). */
cudaError_t lab_serve_load_device_code(void)
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
    if (err != cudaSuccess && lab_serve_first_error == cudaSuccess)
        lab_serve_first_error = err;
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
    if (err != cudaSuccess && lab_serve_first_error == cudaSuccess)
        lab_serve_first_error = err;
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

/* serve.h */
void lab_serve(uint32_t until, char *text, size_t len)
{
    static char p[LAB_FWD_MAX_PAYLOAD + 1];
    lab_fwd_header h;
    for (int first = 1;; first = 0) {
        if (lab_fwd_read(LAB_FWD_SERVER_FROM, &h, p))
            exit(LAB_FWD_RUNNER_GONE);
        if (first && lab_serve_times.on)
            lab_serve_times.first_message = lab_spawn_now() * 1e6;
        p[h.len] = 0;
        switch (h.op) {
        case LAB_FWD_LAUNCH: {
            double t = lab_serve_times.on ? lab_spawn_now() * 1e6 : 0;
            launch(p, h.len);
            lab_serve_times.in_launches += lab_serve_times.on ? lab_spawn_now() * 1e6 - t : 0;
            break;
        }
        case LAB_FWD_NOOP: {
            double t = lab_serve_times.on ? lab_spawn_now() * 1e6 : 0;
            lab_noop_kernel<<<1, 1>>>();
            lab_serve_times.in_launches += lab_serve_times.on ? lab_spawn_now() * 1e6 - t : 0;
            break;
        }
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
