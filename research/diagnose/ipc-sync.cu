/*
 * ipc-sync.cu: which path of a judge's clock around a call agrees with the
 * call's own CUDA events (judge/README.md, "The judge"). Two processes on
 * one GPU, as the judge and a runner: the judge (here, context A) owns the
 * buffers and shares them by CUDA IPC with the runner (a forked child,
 * context B), which launches what it is asked, synchronizes its device and
 * answers on a pipe.
 *
 * A copy kernel (BYTES in all, read half, write half; default 512 MiB, the
 * 8192x8192 transpose's traffic) is timed on each path, with the L2 flushed
 * in A before each try, and so is a no-op kernel on the same path; the
 * difference of their medians is the path's estimate of the copy, printed
 * beside the copy's own events:
 *
 *   runner, answer         the clock stops when the runner answers
 *   runner, check          ... and a check kernel in A has read the output
 *                          (the judge's path for the student's code)
 *   here, check            the copy and the check in A
 *                          (the judge's path for a baseline)
 *   here, switch, check    the copy in A, synchronized; a no-op through the
 *                          runner; the check in A (a baseline on the
 *                          student's path: two switches of context after
 *                          its work, as the student's call has)
 *
 * Diagnosis only, not part of any build:
 *
 *   nvcc -O2 -o build/ipc-sync research/diagnose/ipc-sync.cu && build/ipc-sync [BYTES...]
 */
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

enum { TRIES = 41 };

#define CHECK(call)                                                                                   \
    do {                                                                                              \
        cudaError_t e_ = (call);                                                                      \
        if (e_ != cudaSuccess) {                                                                      \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_));    \
            exit(1);                                                                                  \
        }                                                                                             \
    } while (0)

static __global__ void noop(void) {}
static __global__ void copy(const float4 *in, float4 *out, size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        out[i] = in[i];
}
/* 4096 samples of the output against the input (the judge's check samples) */
static __global__ void check(const float *in, const float *out, size_t n, unsigned long long *bad)
{
    size_t i = (blockIdx.x * (size_t)blockDim.x + threadIdx.x) * (n / 4096);
    if (i < n && out[i] != in[i])
        atomicAdd(bad, 1ull);
}
static __global__ void flush_l2(const uint4 *buf, size_t count, unsigned *sink)
{
    unsigned x = 0;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < count; i += (size_t)gridDim.x * blockDim.x) {
        uint4 v = __ldcg(&buf[i]);
        x ^= v.x ^ v.y ^ v.z ^ v.w;
    }
    if (x == 0x9e3779b9u)
        *sink = x;
}

typedef struct {
    cudaIpcMemHandle_t data;
    size_t bytes;
} shared_t;

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

/* The runner: op 1 no-op, 2 copy, 3 remap (a new size follows), 0 quit. */
static void runner(int in, int out)
{
    shared_t sh;
    float *data = NULL;
    int op;
    while (read(in, &op, sizeof op) == sizeof op && op) {
        if (op == 3) {
            if (read(in, &sh, sizeof sh) != sizeof sh)
                exit(1);
            if (data)
                CHECK(cudaIpcCloseMemHandle(data));
            CHECK(cudaIpcOpenMemHandle((void **)&data, sh.data, cudaIpcMemLazyEnablePeerAccess));
        } else if (op == 1) {
            noop<<<1, 1>>>();
        } else {
            size_t n4 = sh.bytes / 2 / sizeof(float4);
            copy<<<1056, 256>>>((const float4 *)data, (float4 *)(data + sh.bytes / 2 / sizeof(float)), n4);
        }
        CHECK(cudaDeviceSynchronize());
        if (write(out, &op, sizeof op) != sizeof op)
            exit(1);
    }
    exit(0);
}

static int to_runner, from_runner;
static void ask(int op)
{
    int a;
    if (write(to_runner, &op, sizeof op) != sizeof op || read(from_runner, &a, sizeof a) != sizeof a || a != op) {
        fprintf(stderr, "the runner did not answer\n");
        exit(1);
    }
}

int main(int argc, char **argv)
{
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
    to_runner = to[1];
    from_runner = from[0];

    int l2 = 0;
    CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0));
    size_t flush_bytes = 2 * (size_t)l2;
    void *flush;
    CHECK(cudaMalloc(&flush, flush_bytes + 16));
    CHECK(cudaMemset(flush, 0, flush_bytes + 16));
    unsigned long long *bad;
    CHECK(cudaMalloc(&bad, sizeof *bad));
    CHECK(cudaMemset(bad, 0, sizeof *bad));
    cudaEvent_t e0, e1;
    CHECK(cudaEventCreate(&e0));
    CHECK(cudaEventCreate(&e1));
    const char *names[] = {"events here (reference)", "runner, answer", "runner, check", "here, check",
                           "here, switch, check"};

    for (int arg = 1; arg < (argc > 1 ? argc : 2); arg++) {
        size_t bytes = argc > 1 ? strtoull(argv[arg], NULL, 0) : (size_t)512 << 20;
        float *data;
        CHECK(cudaMalloc(&data, bytes));
        CHECK(cudaMemset(data, 0, bytes));
        const float *src = data;
        float *dst = data + bytes / 2 / sizeof(float);
        size_t n = bytes / 2 / sizeof(float);
        shared_t sh;
        CHECK(cudaIpcGetMemHandle(&sh.data, data));
        sh.bytes = bytes;
        int op = 3;
        int a = 0;
        if (write(to_runner, &op, sizeof op) != sizeof op || write(to_runner, &sh, sizeof sh) != sizeof sh ||
            read(from_runner, &a, sizeof a) != sizeof a || a != op)
            return 1;
        ask(2); /* a first copy: the mapping's first touch */
        printf("== %zu bytes (copy of %zu MiB)\n", bytes, bytes >> 21);
        double reference = 0;
        for (int path = 0; path < 5; path++) {
            double med[2];
            for (int work = 0; work < 2; work++) { /* 0 the no-op, 1 the copy */
                double t[TRIES];
                for (int i = 0; i < TRIES; i++) {
                    flush_l2<<<1024, 256>>>((const uint4 *)flush, flush_bytes / 16,
                                            (unsigned *)((char *)flush + flush_bytes));
                    CHECK(cudaDeviceSynchronize());
                    double h0 = now_ms();
                    if (path == 0) {
                        CHECK(cudaEventRecord(e0));
                        if (work)
                            copy<<<1056, 256>>>((const float4 *)src, (float4 *)dst, n / 4);
                        else
                            noop<<<1, 1>>>();
                        CHECK(cudaEventRecord(e1));
                        CHECK(cudaEventSynchronize(e1));
                        float ms;
                        CHECK(cudaEventElapsedTime(&ms, e0, e1));
                        t[i] = ms;
                        continue;
                    }
                    if (path <= 2) {
                        ask(work ? 2 : 1);
                    } else {
                        if (work)
                            copy<<<1056, 256>>>((const float4 *)src, (float4 *)dst, n / 4);
                        else
                            noop<<<1, 1>>>();
                        if (path == 4) {
                            CHECK(cudaDeviceSynchronize());
                            ask(1);
                        }
                    }
                    if (path >= 2)
                        check<<<16, 256>>>(src, dst, n, bad);
                    CHECK(cudaDeviceSynchronize());
                    t[i] = now_ms() - h0;
                }
                med[work] = median(t, TRIES);
            }
            double est = path == 0 ? med[1] : med[1] - med[0];
            if (path == 0)
                reference = est;
            printf("  %-24s copy %.4f ms  no-op %.4f ms  estimate %.4f ms  %+.1f%% of the events\n", names[path],
                   med[1], med[0], est, 100.0 * (est / reference - 1));
        }
        CHECK(cudaFree(data));
    }
    int op = 0;
    if (write(to_runner, &op, sizeof op) != sizeof op)
        return 1;
    int status;
    waitpid(pid, &status, 0);
    return 0;
}
