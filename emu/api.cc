/*
 * api.cc: the CUDA runtime and cuBLAS calls (cuda_api_emu.h) on the CPU.
 * Memory is memory.cc's; errors are kept as a GPU keeps them (state.cc:
 * the last one for cudaGetLastError, a fault sticky for every call after
 * it). cuBLAS is the checks' reference: each sum in double, rounded once
 * to float (exact dot products for the lab's inputs, an exact transpose,
 * an exact sum).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gpu.h"
#include "emu.h"

static cudaError_t status(void) { return lab_emu.error; }

cudaError_t cudaGetLastError(void)
{
    cudaError_t e = lab_emu.last != cudaSuccess ? lab_emu.last : lab_emu.error;
    lab_emu.last = cudaSuccess;
    return e;
}
cudaError_t cudaPeekAtLastError(void) { return lab_emu.last != cudaSuccess ? lab_emu.last : lab_emu.error; }

const char *cudaGetErrorName(cudaError_t e)
{
    switch (e) {
    case cudaSuccess: return "cudaSuccess";
    case cudaErrorInvalidValue: return "cudaErrorInvalidValue";
    case cudaErrorMemoryAllocation: return "cudaErrorMemoryAllocation";
    case cudaErrorInvalidConfiguration: return "cudaErrorInvalidConfiguration";
    case cudaErrorInvalidDevicePointer: return "cudaErrorInvalidDevicePointer";
    case cudaErrorIllegalAddress: return "cudaErrorIllegalAddress";
    case cudaErrorMisalignedAddress: return "cudaErrorMisalignedAddress";
    case cudaErrorLaunchFailure: return "cudaErrorLaunchFailure";
    default: return "cudaErrorUnknown";
    }
}

const char *cudaGetErrorString(cudaError_t e)
{
    switch (e) {
    case cudaSuccess: return "no error";
    case cudaErrorInvalidValue: return "invalid argument";
    case cudaErrorMemoryAllocation: return "out of memory";
    case cudaErrorInvalidConfiguration: return "invalid configuration argument";
    case cudaErrorInvalidDevicePointer: return "invalid device pointer";
    case cudaErrorIllegalAddress: return "an illegal memory access was encountered";
    case cudaErrorMisalignedAddress: return "misaligned address";
    case cudaErrorLaunchFailure: return "unspecified launch failure";
    default: return "unknown error";
    }
}

/* -------------------------------------------------------------- device */

cudaError_t cudaGetDevice(int *d) { *d = 0; return status(); }
cudaError_t cudaSetDevice(int d) { return d == 0 ? status() : cudaErrorInvalidValue; }
cudaError_t cudaGetDeviceCount(int *n) { *n = 1; return cudaSuccess; }
cudaError_t cudaDeviceSynchronize(void) { return status(); }

/* An H100's numbers where a kernel might size itself by them; the rates
 * the harness derives from them are never used (nothing is timed). */
cudaError_t cudaGetDeviceProperties(cudaDeviceProp *p, int d)
{
    (void)d;
    memset(p, 0, sizeof *p);
    snprintf(p->name, sizeof p->name, "the CPU (an emulated GPU: no speed)");
    p->totalGlobalMem = 16ULL << 30;
    p->sharedMemPerBlock = 48 * 1024;
    p->sharedMemPerBlockOptin = LAB_EMU_MAX_DYNAMIC;
    p->sharedMemPerMultiprocessor = 228 * 1024;
    p->regsPerBlock = 65536;
    p->warpSize = 32;
    p->maxThreadsPerBlock = 1024;
    p->maxThreadsDim[0] = p->maxThreadsDim[1] = 1024;
    p->maxThreadsDim[2] = 64;
    p->maxGridSize[0] = 0x7fffffff;
    p->maxGridSize[1] = p->maxGridSize[2] = 65535;
    p->clockRate = 1755000;
    p->major = 9;
    p->minor = 0;
    p->multiProcessorCount = 132;
    p->maxThreadsPerMultiProcessor = 2048;
    p->memoryClockRate = 2619000;
    p->memoryBusWidth = 5120;
    p->l2CacheSize = 50 * 1024 * 1024;
    p->maxBlocksPerMultiProcessor = 32;
    return cudaSuccess;
}

cudaError_t cudaDeviceGetAttribute(int *v, cudaDeviceAttr a, int d)
{
    cudaDeviceProp p;
    cudaGetDeviceProperties(&p, d);
    switch (a) {
    case cudaDevAttrMaxThreadsPerBlock: *v = p.maxThreadsPerBlock; break;
    case cudaDevAttrMaxSharedMemoryPerBlock: *v = (int)p.sharedMemPerBlock; break;
    case cudaDevAttrMaxSharedMemoryPerBlockOptin: *v = (int)p.sharedMemPerBlockOptin; break;
    case cudaDevAttrWarpSize: *v = 32; break;
    case cudaDevAttrClockRate: *v = p.clockRate; break;
    case cudaDevAttrMultiProcessorCount: *v = p.multiProcessorCount; break;
    case cudaDevAttrMemoryClockRate: *v = p.memoryClockRate; break;
    case cudaDevAttrGlobalMemoryBusWidth: *v = p.memoryBusWidth; break;
    case cudaDevAttrL2CacheSize: *v = p.l2CacheSize; break;
    case cudaDevAttrMaxThreadsPerMultiProcessor: *v = p.maxThreadsPerMultiProcessor; break;
    case cudaDevAttrComputeCapabilityMajor: *v = p.major; break;
    case cudaDevAttrComputeCapabilityMinor: *v = p.minor; break;
    default: return cudaErrorInvalidValue;
    }
    return cudaSuccess;
}

cudaError_t lab_emu_func_attributes(cudaFuncAttributes *a)
{
    memset(a, 0, sizeof *a);
    a->maxThreadsPerBlock = 1024;
    a->maxDynamicSharedSizeBytes = 48 * 1024;
    return cudaSuccess;
}

cudaError_t lab_emu_occupancy(int *blocks, int threads, size_t shared)
{
    (void)shared;
    *blocks = threads > 0 ? 2048 / threads : 0;
    return cudaSuccess;
}

/* -------------------------------------------------------------- memory */

cudaError_t cudaMalloc(void **p, size_t bytes)
{
    *p = lab_emu_device_alloc(bytes);
    return *p || !bytes ? cudaSuccess : cudaErrorMemoryAllocation;
}

cudaError_t cudaFree(void *p)
{
    if (!p)
        return cudaSuccess;
    return lab_emu_device_free(p) ? cudaErrorInvalidDevicePointer : status();
}

cudaError_t cudaMemGetInfo(size_t *free_bytes, size_t *total)
{
    *free_bytes = 8ULL << 30;
    *total = 16ULL << 30;
    return cudaSuccess;
}

/* A copy from or to the device checks that the device side is a buffer. */
cudaError_t cudaMemcpy(void *dst, const void *src, size_t bytes, cudaMemcpyKind k)
{
    if (lab_emu.error)
        return lab_emu.error;
    int dev_src = k == cudaMemcpyDeviceToHost || k == cudaMemcpyDeviceToDevice;
    int dev_dst = k == cudaMemcpyHostToDevice || k == cudaMemcpyDeviceToDevice;
    if ((dev_src && !lab_emu_is_device(src, bytes)) || (dev_dst && !lab_emu_is_device(dst, bytes)))
        return cudaErrorInvalidValue;
    memmove(dst, src, bytes);
    return cudaSuccess;
}
cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t bytes, cudaMemcpyKind k, cudaStream_t s)
{
    (void)s;
    return cudaMemcpy(dst, src, bytes, k);
}

cudaError_t cudaMemset(void *p, int v, size_t bytes)
{
    if (lab_emu.error)
        return lab_emu.error;
    if (!lab_emu_is_device(p, bytes))
        return cudaErrorInvalidValue;
    memset(p, v, bytes);
    return cudaSuccess;
}
cudaError_t cudaMemsetAsync(void *p, int v, size_t bytes, cudaStream_t s)
{
    (void)s;
    return cudaMemset(p, v, bytes);
}

/* -------------------------------------------------- events, the profiler */

struct CUevent_st { double ms; };

cudaError_t cudaEventCreate(cudaEvent_t *e)
{
    *e = (cudaEvent_t)calloc(1, sizeof **e);
    return *e ? cudaSuccess : cudaErrorMemoryAllocation;
}
cudaError_t cudaEventDestroy(cudaEvent_t e) { free(e); return cudaSuccess; }
cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t s)
{
    (void)s;
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    e->ms = t.tv_sec * 1e3 + t.tv_nsec / 1e6;
    return status();
}
cudaError_t cudaEventSynchronize(cudaEvent_t e) { (void)e; return status(); }
cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t a, cudaEvent_t b)
{
    *ms = (float)(b->ms - a->ms);
    return status();
}
cudaError_t cudaProfilerStart(void) { return cudaSuccess; }
cudaError_t cudaProfilerStop(void) { return cudaSuccess; }

/* --------------------------------------------------------------- cuBLAS */

struct lab_emu_cublas { cublasPointerMode_t mode; };

cublasStatus_t cublasCreate(cublasHandle_t *h)
{
    *h = (cublasHandle_t)calloc(1, sizeof **h);
    return *h ? CUBLAS_STATUS_SUCCESS : CUBLAS_STATUS_ALLOC_FAILED;
}
cublasStatus_t cublasDestroy(cublasHandle_t h) { free(h); return CUBLAS_STATUS_SUCCESS; }
cublasStatus_t cublasSetMathMode(cublasHandle_t h, cublasMath_t m) { (void)h; (void)m; return CUBLAS_STATUS_SUCCESS; }
cublasStatus_t cublasSetPointerMode(cublasHandle_t h, cublasPointerMode_t m) { h->mode = m; return CUBLAS_STATUS_SUCCESS; }
const char *cublasGetStatusString(cublasStatus_t s) { return s ? "CUBLAS_STATUS_INVALID_VALUE" : "CUBLAS_STATUS_SUCCESS"; }

/* element (i, j) of column-major X, or of its transpose */
static inline float at(const float *X, int ld, cublasOperation_t op, int i, int j)
{
    return op == CUBLAS_OP_N ? X[(size_t)j * ld + i] : X[(size_t)i * ld + j];
}

cublasStatus_t cublasSgemm(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k,
                           const float *alpha, const float *A, int lda, const float *B, int ldb, const float *beta,
                           float *C, int ldc)
{
    (void)h;
    if (m < 0 || n < 0 || k < 0)
        return CUBLAS_STATUS_INVALID_VALUE;
    for (int j = 0; j < n; j++)
        for (int i = 0; i < m; i++) {
            double dot = 0; /* each product of two floats is exact in double */
            for (int p = 0; p < k; p++)
                dot += (double)at(A, lda, ta, i, p) * at(B, ldb, tb, p, j);
            float *c = &C[(size_t)j * ldc + i];
            *c = (float)(*alpha * dot + (*beta != 0 ? (double)*beta * *c : 0.0));
        }
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasSgeam(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m, int n,
                           const float *alpha, const float *A, int lda, const float *beta, const float *B, int ldb,
                           float *C, int ldc)
{
    (void)h;
    for (int j = 0; j < n; j++)
        for (int i = 0; i < m; i++) {
            double v = (double)*alpha * at(A, lda, ta, i, j);
            if (*beta != 0)
                v += (double)*beta * at(B, ldb, tb, i, j);
            C[(size_t)j * ldc + i] = (float)v;
        }
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasSasum(cublasHandle_t h, int n, const float *x, int incx, float *result)
{
    double s = 0;
    for (int i = 0; i < n; i++)
        s += fabs((double)x[(size_t)i * incx]);
    *result = (float)s; /* device or host pointer mode: one memory here */
    (void)h;
    return CUBLAS_STATUS_SUCCESS;
}
