/*
 * cuda_probe.cu: does the GPU work inside the confinement? The grader runs
 * this once, confined, before it grades (grader/confinement.c): a context, a
 * small allocation, a kernel, its result. It is linked as a runner is (the
 * CUDA runtime, no cuBLAS), and confined as a runner is. Where it fails
 * confined but works unconfined, the confinement would break every
 * student's run, and the grader says so instead of grading (make class) or
 * grades unconfined with one line saying why (make grade).
 *
 * `cuda-probe --files`: the same work, unconfined, then the files mapped
 * into this process, one a line: the libraries a runner is linked with and
 * those the GPU driver loads at run time (libcuda.so.1 and its own), found
 * by watching a trusted program do what a runner does. The grader hands
 * them to confine (--read-list): a runner may read those and no other
 * library, so nothing it is not linked with can be loaded (judge/README.md,
 * "What confinement takes away").
 *
 * `cuda-probe --ipc`: can two processes share GPU memory (CUDA IPC), as the
 * judge and its runner do (judge/README.md, "The judge")? Some systems
 * cannot (WSL2, some virtual machines); the grader then grades in the
 * kernel's own process, with one line saying why (make grade), or stops
 * (make class). The second process is a child forked before CUDA starts.
 *
 * Prints one line; exit status 0 when everything worked, 1 when not.
 */
#include <cuda_runtime.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static __global__ void add_one(int *x) { *x += 1; }

static int failed(const char *what, cudaError_t err)
{
    printf("the GPU does not work here: %s: %s\n", what, cudaGetErrorName(err));
    return 1;
}

/* The runner's side: open the handle from the pipe, write 42 there. */
static void ipc_child(int in, int out)
{
    cudaIpcMemHandle_t h;
    int *x = NULL, v = 42, status = 1;
    if (read(in, &h, sizeof h) == (ssize_t)sizeof h &&
        cudaIpcOpenMemHandle((void **)&x, h, cudaIpcMemLazyEnablePeerAccess) == cudaSuccess &&
        cudaMemcpy(x, &v, sizeof v, cudaMemcpyHostToDevice) == cudaSuccess && cudaIpcCloseMemHandle(x) == cudaSuccess)
        status = 0;
    cudaError_t err = cudaGetLastError();
    char name[96];
    snprintf(name, sizeof name, "%s", status ? cudaGetErrorName(err) : "");
    if (write(out, name, sizeof name) != (ssize_t)sizeof name)
        status = 1;
    _exit(status);
}

static int ipc_probe(void)
{
    int to[2], from[2];
    if (pipe(to) || pipe(from)) {
        printf("CUDA IPC was not tried: no pipe\n");
        return 1;
    }
    pid_t pid = fork(); /* before any CUDA call: the child starts its own */
    if (pid < 0) {
        printf("CUDA IPC was not tried: no second process\n");
        return 1;
    }
    if (pid == 0) {
        close(to[1]);
        close(from[0]);
        ipc_child(to[0], from[1]);
    }
    close(to[0]);
    close(from[1]);
    int *x = NULL, host = 0;
    cudaIpcMemHandle_t h;
    cudaError_t err = cudaMalloc(&x, sizeof *x);
    if (err == cudaSuccess)
        err = cudaMemset(x, 0, sizeof *x);
    if (err == cudaSuccess)
        err = cudaIpcGetMemHandle(&h, x);
    if (err != cudaSuccess) {
        close(to[1]);
        waitpid(pid, NULL, 0);
        printf("CUDA IPC does not work here: cudaIpcGetMemHandle: %s\n", cudaGetErrorName(err));
        return 1;
    }
    char name[96] = "";
    int status = 1;
    if (write(to[1], &h, sizeof h) != (ssize_t)sizeof h || read(from[0], name, sizeof name) != (ssize_t)sizeof name)
        snprintf(name, sizeof name, "the second process ended");
    waitpid(pid, &status, 0);
    if (cudaMemcpy(&host, x, sizeof host, cudaMemcpyDeviceToHost) != cudaSuccess || host != 42 ||
        !WIFEXITED(status) || WEXITSTATUS(status)) {
        printf("CUDA IPC does not work here: a second process could not write this one's memory (%s)\n",
               name[0] ? name : "its write did not arrive");
        return 1;
    }
    printf("CUDA IPC works: a second process wrote this one's memory\n");
    return 0;
}

/* Every file mapped into this process (/proc/self/maps), once each: not
 * the devices (confine allows the GPU's), not anonymous or deleted ones. */
static int print_mapped_files(void)
{
    FILE *maps = fopen("/proc/self/maps", "r");
    if (!maps) {
        perror("cuda-probe: /proc/self/maps");
        return 1;
    }
    static char seen[256][512];
    int n = 1;
    /* not this program itself: a runner's own file is its own */
    ssize_t self = readlink("/proc/self/exe", seen[0], sizeof seen[0] - 1);
    seen[0][self > 0 ? self : 0] = 0;
    char line[1024];
    while (fgets(line, sizeof line, maps)) {
        char *path = strchr(line, '/');
        if (!path)
            continue;
        path[strcspn(path, "\n")] = 0;
        if (!strncmp(path, "/dev/", 5) || strstr(path, " (deleted)"))
            continue;
        int known = 0;
        for (int i = 0; i < n && !known; i++)
            known = !strcmp(seen[i], path);
        if (!known && n < 256) {
            snprintf(seen[n++], sizeof seen[0], "%s", path);
            printf("%s\n", path);
        }
    }
    fclose(maps);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "--ipc"))
        return ipc_probe();
    int files = argc > 1 && !strcmp(argv[1], "--files");
    int *x = NULL, host = 41;
    cudaError_t err = cudaFree(0);
    if (err != cudaSuccess && files)
        return print_mapped_files(); /* no GPU: the libraries still */
    if (err != cudaSuccess)
        return failed("creating a context", err);
    if ((err = cudaMalloc(&x, sizeof *x)) != cudaSuccess)
        return failed("cudaMalloc", err);
    if ((err = cudaMemcpy(x, &host, sizeof host, cudaMemcpyHostToDevice)) != cudaSuccess)
        return failed("cudaMemcpy to the GPU", err);
    add_one<<<1, 1>>>(x);
    if ((err = cudaGetLastError()) != cudaSuccess || (err = cudaDeviceSynchronize()) != cudaSuccess)
        return failed("a kernel", err);
    if ((err = cudaMemcpy(&host, x, sizeof host, cudaMemcpyDeviceToHost)) != cudaSuccess)
        return failed("cudaMemcpy from the GPU", err);
    if (host != 42) {
        printf("the GPU does not work here: a kernel's result is wrong (%d)\n", host);
        return 1;
    }
    if (files) {
        /* what a runner does besides: share a buffer with the judge; and
         * what its driver does on a GPU newer than the build's SASS: compile
         * PTX (the driver's JIT compiler is a library of its own) */
        cudaIpcMemHandle_t h;
        (void)cudaIpcGetMemHandle(&h, x);
        static const char ptx[] = ".version 7.0\n.target sm_75\n.address_size 64\n"
                                  ".visible .entry lab_probe_jit() { ret; }\n";
        cudaLibrary_t lib;
        if (cudaLibraryLoadData(&lib, ptx, NULL, NULL, 0, NULL, NULL, 0) == cudaSuccess)
            cudaLibraryUnload(lib);
        return print_mapped_files();
    }
    printf("the GPU works: a context, an allocation, a kernel\n");
    return 0;
}
