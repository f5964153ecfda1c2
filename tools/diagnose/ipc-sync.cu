/*
 * ipc-sync.cu: what a judge's clock could see of a runner's work, measured
 * two ways between two processes on one GPU (grader/README.md, "The judge").
 *
 *   host: the judge asks the runner over a pipe; the runner launches a
 *         kernel, synchronizes and answers; the judge's clock around it
 *         (what the judge does today).
 *   gpu:  the runner first queues "wait until go >= k, the kernel, set
 *         done = k" (stream memory operations on a flag the judge shares by
 *         CUDA IPC) and answers at once; then the judge queues "event, set
 *         go = k, wait until done >= k, event" and reads the interval
 *         between its own two events: no host on the timed path.
 *
 * For each, a no-op kernel and a copy of BYTES (default 256 MiB), the
 * median over 50 tries, beside the runner's own events around the copy.
 * Diagnosis only, not part of any build:
 *
 *   nvcc -O2 -o build/ipc-sync tools/diagnose/ipc-sync.cu -lcuda && build/ipc-sync [BYTES]
 */
#include <cuda.h>
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

enum { TRIES = 50 };

#define CHECK(call)                                                                                   \
    do {                                                                                              \
        cudaError_t e_ = (call);                                                                      \
        if (e_ != cudaSuccess) {                                                                      \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_));    \
            exit(1);                                                                                  \
        }                                                                                             \
    } while (0)
#define DCHECK(call)                                                                                  \
    do {                                                                                              \
        CUresult r_ = (call);                                                                         \
        if (r_ != CUDA_SUCCESS) {                                                                     \
            const char *s_ = "?";                                                                     \
            cuGetErrorName(r_, &s_);                                                                  \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, s_);                        \
            exit(1);                                                                                  \
        }                                                                                             \
    } while (0)

__global__ void noop(void) {}
__global__ void copy(const float4 *in, float4 *out, size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        out[i] = in[i];
}

typedef struct {
    cudaIpcMemHandle_t flags, data;
    size_t bytes;
} shared_t;

typedef struct {
    int op;   /* 0 quit, 1 host no-op, 2 host copy, 3 gpu no-op, 4 gpu copy */
    unsigned k;
} request_t;

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}
static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp);
    return v[n / 2];
}

static void runner(int in, int out)
{
    shared_t sh;
    if (read(in, &sh, sizeof sh) != sizeof sh)
        exit(1);
    unsigned *flags;
    float *data;
    CHECK(cudaIpcOpenMemHandle((void **)&flags, sh.flags, cudaIpcMemLazyEnablePeerAccess));
    CHECK(cudaIpcOpenMemHandle((void **)&data, sh.data, cudaIpcMemLazyEnablePeerAccess));
    size_t n4 = sh.bytes / 2 / sizeof(float4);
    const float4 *src = (const float4 *)data;
    float4 *dst = (float4 *)(data + sh.bytes / 2 / sizeof(float));
    cudaStream_t s;
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    cudaEvent_t e0, e1;
    CHECK(cudaEventCreate(&e0));
    CHECK(cudaEventCreate(&e1));
    request_t q;
    while (read(in, &q, sizeof q) == sizeof q && q.op) {
        float ms = -1;
        if (q.op <= 2) {
            CHECK(cudaEventRecord(e0, s));
            if (q.op == 1)
                noop<<<1, 1, 0, s>>>();
            else
                copy<<<1024, 256, 0, s>>>(src, dst, n4);
            CHECK(cudaEventRecord(e1, s));
            CHECK(cudaStreamSynchronize(s));
            CHECK(cudaEventElapsedTime(&ms, e0, e1));
        } else {
            DCHECK(cuStreamWaitValue32(s, (CUdeviceptr)&flags[0], q.k, CU_STREAM_WAIT_VALUE_GEQ));
            CHECK(cudaEventRecord(e0, s));
            if (q.op == 3)
                noop<<<1, 1, 0, s>>>();
            else
                copy<<<1024, 256, 0, s>>>(src, dst, n4);
            CHECK(cudaEventRecord(e1, s));
            DCHECK(cuStreamWriteValue32(s, (CUdeviceptr)&flags[1], q.k, CU_STREAM_WRITE_VALUE_DEFAULT));
        }
        if (write(out, &ms, sizeof ms) != sizeof ms)
            exit(1);
        if (q.op > 2) { /* the runner's own time of the copy, after the fact */
            CHECK(cudaStreamSynchronize(s));
            CHECK(cudaEventElapsedTime(&ms, e0, e1));
            if (write(out, &ms, sizeof ms) != sizeof ms)
                exit(1);
        }
    }
    exit(0);
}

int main(int argc, char **argv)
{
    size_t bytes = argc > 1 ? strtoull(argv[1], NULL, 0) : (256u << 20) * 2ull;
    int to[2], from[2];
    if (pipe(to) || pipe(from))
        return 1;
    pid_t pid = fork(); /* before any CUDA call: the child starts its own */
    if (pid == 0) {
        close(to[1]);
        close(from[0]);
        runner(to[0], from[1]);
    }
    close(to[0]);
    close(from[1]);
    int attr = 0;
    DCHECK(cuInit(0));
    CUdevice dev;
    DCHECK(cuDeviceGet(&dev, 0));
    cuDeviceGetAttribute(&attr, CU_DEVICE_ATTRIBUTE_CAN_USE_STREAM_WAIT_VALUE_NOR, dev);
    printf("stream memory operations: wait-value NOR %s\n", attr ? "supported" : "not supported");
    unsigned *flags;
    float *data;
    CHECK(cudaMalloc(&flags, 2 * sizeof(unsigned)));
    CHECK(cudaMemset(flags, 0, 2 * sizeof(unsigned)));
    CHECK(cudaMalloc(&data, bytes));
    CHECK(cudaMemset(data, 0, bytes));
    shared_t sh;
    CHECK(cudaIpcGetMemHandle(&sh.flags, flags));
    CHECK(cudaIpcGetMemHandle(&sh.data, data));
    sh.bytes = bytes;
    if (write(to[1], &sh, sizeof sh) != sizeof sh)
        return 1;
    cudaStream_t s;
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    cudaEvent_t t0, t1;
    CHECK(cudaEventCreate(&t0));
    CHECK(cudaEventCreate(&t1));
    unsigned k = 0;
    const char *names[] = {"", "host, no-op", "host, copy", "gpu, no-op", "gpu, copy"};
    for (int op = 1; op <= 4; op++) {
        double clock[TRIES], own[TRIES];
        for (int i = 0; i < TRIES; i++) {
            request_t q = {op, ++k};
            float ms = -1;
            CHECK(cudaStreamSynchronize(s));
            double h0 = now_ms();
            if (write(to[1], &q, sizeof q) != sizeof q || read(from[0], &ms, sizeof ms) != sizeof ms)
                return 1;
            if (op <= 2) {
                clock[i] = now_ms() - h0;
                own[i] = ms;
                continue;
            }
            CHECK(cudaEventRecord(t0, s));
            DCHECK(cuStreamWriteValue32(s, (CUdeviceptr)&flags[0], k, CU_STREAM_WRITE_VALUE_DEFAULT));
            DCHECK(cuStreamWaitValue32(s, (CUdeviceptr)&flags[1], k, CU_STREAM_WAIT_VALUE_GEQ));
            CHECK(cudaEventRecord(t1, s));
            CHECK(cudaStreamSynchronize(s));
            float g = 0;
            CHECK(cudaEventElapsedTime(&g, t0, t1));
            clock[i] = g;
            if (read(from[0], &ms, sizeof ms) != sizeof ms)
                return 1;
            own[i] = ms;
        }
        printf("%-12s the judge's clock %.4f ms (median of %d), the runner's own events %.4f ms\n", names[op],
               median(clock, TRIES), TRIES, median(own, TRIES));
    }
    request_t q = {0, 0};
    if (write(to[1], &q, sizeof q) != sizeof q)
        return 1;
    int status;
    waitpid(pid, &status, 0);
    return 0;
}
