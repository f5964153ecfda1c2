/*
 * contexts.cu: what a GPU context costs to make and to let go of, alone and
 * with others made at the same moment (a judged stage makes three: the
 * judge's, with a cuBLAS handle, and its two runners' device servers';
 * MEASUREMENTS.md, "a stage's end beside the next stage's start").
 *
 * The parent starts N copies of this program at once; each makes its
 * context (cudaFree(0)), allocates BYTES and touches them, makes a cuBLAS
 * handle when asked, says its times on a pipe and ends. The parent prints
 * each one's times from its own start, and how long its exit took after it
 * said it was done (the context let go of, the memory freed), all on
 * CLOCK_MONOTONIC, which the processes share.
 *
 * Diagnosis only, not part of any build:
 *
 *   nvcc -O2 -o build/contexts research/diagnose/contexts.cu -lcublas
 *   build/contexts N [BYTES [cublas]]   e.g. build/contexts 3 1073741824 cublas
 */
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

/* One copy: its times (context, memory, cuBLAS, done) on fd, as ms. */
static int child(int fd, size_t bytes, int cublas)
{
    double t[4];
    t[0] = now_ms();
    if (cudaFree(0) != cudaSuccess)
        return 1;
    t[1] = now_ms();
    void *p = NULL;
    if (bytes && (cudaMalloc(&p, bytes) != cudaSuccess || cudaMemset(p, 1, bytes) != cudaSuccess ||
                  cudaDeviceSynchronize() != cudaSuccess))
        return 1;
    t[2] = now_ms();
    cublasHandle_t h;
    if (cublas && cublasCreate(&h) != CUBLAS_STATUS_SUCCESS)
        return 1;
    t[3] = now_ms();
    return write(fd, t, sizeof t) == (ssize_t)sizeof t ? 0 : 1; /* then exit: the context let go of */
}

int main(int argc, char **argv)
{
    if (argc >= 3 && !strcmp(argv[1], "--child"))
        return child(atoi(argv[2]), strtoull(argv[3], NULL, 10), argc > 4);
    int n = argc > 1 ? atoi(argv[1]) : 1;
    const char *bytes = argc > 2 ? argv[2] : "0";
    int cublas = argc > 3 && !strcmp(argv[3], "cublas");
    if (n < 1 || n > 16) {
        fprintf(stderr, "usage: contexts N [BYTES [cublas]] (N from 1 to 16)\n");
        return 2;
    }
    int fds[16][2];
    pid_t pid[16];
    const double t0 = now_ms();
    for (int i = 0; i < n; i++) {
        if (pipe(fds[i]))
            return 1;
        pid[i] = fork();
        if (pid[i] == 0) {
            char fd[16];
            snprintf(fd, sizeof fd, "%d", fds[i][1]);
            close(fds[i][0]);
            execl("/proc/self/exe", argv[0], "--child", fd, bytes, cublas ? "cublas" : (char *)NULL, (char *)NULL);
            _exit(127);
        }
        close(fds[i][1]);
    }
    printf("%d at once, %s bytes each%s (ms from the start: context made, memory touched, cuBLAS, "
           "exit after done)\n", n, bytes, cublas ? ", a cuBLAS handle" : "");
    /* reaped as they end, each its time; their times read after */
    double gone[16];
    int status[16];
    for (int k = 0; k < n; k++) {
        int st;
        pid_t p = wait(&st);
        for (int i = 0; i < n; i++)
            if (pid[i] == p) {
                gone[i] = now_ms();
                status[i] = st;
            }
    }
    for (int i = 0; i < n; i++) {
        double t[4];
        int got = read(fds[i][0], t, sizeof t) == (ssize_t)sizeof t;
        if (!got || !WIFEXITED(status[i]) || WEXITSTATUS(status[i])) {
            printf("  copy %d failed\n", i);
            continue;
        }
        printf("  copy %d: %7.1f %7.1f %7.1f   exit %6.1f\n", i, t[1] - t0, t[2] - t0, t[3] - t0, gone[i] - t[3]);
    }
    printf("  all gone after %.1f ms\n", now_ms() - t0);
    return 0;
}
