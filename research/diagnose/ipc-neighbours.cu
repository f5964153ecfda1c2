/*
 * ipc-neighbours.cu: what of a process's GPU memory a second process that
 * opens one of its CUDA IPC handles can reach (judge/README.md, "The
 * judge": the judge shares its buffers with a runner this way, and keeps
 * its counters of wrong outputs and the exact sums private).
 *
 * The owner allocates, for each size asked, a shared buffer of that size,
 * then a small private one filled with a marker; it hands the shared one's
 * handle to a second process (itself, run again with the handle), which
 * opens it, asks the driver what address range the mapping spans
 * (cuMemGetAddressRange) and reads that whole range looking for the
 * marker. The CUDA programming guide warns that cudaMalloc may place small
 * allocations in one larger block, all of which an IPC handle then shares;
 * the lab's buffers are rounded up to 2 MiB (common/gpu.h) for that.
 *
 * Diagnosis only, not part of any build:
 *
 *   nvcc -O2 -o build/ipc-neighbours research/diagnose/ipc-neighbours.cu -lcuda
 *   build/ipc-neighbours [BYTES...]     (default: 4096 131076 2097152)
 */
#include <cuda.h>
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const unsigned MARKER = 0x5eed1e55u;

static __global__ void fill(unsigned *p, size_t n, unsigned v)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        p[i] = v;
}

static void hex(const void *p, size_t n, char *out)
{
    for (size_t i = 0; i < n; i++)
        sprintf(out + 2 * i, "%02x", ((const unsigned char *)p)[i]);
}

/* The second process: open the handle, then read all the mapping spans. */
static int reader(const char *text, size_t bytes)
{
    cudaIpcMemHandle_t h;
    for (size_t i = 0; i < sizeof h; i++) {
        unsigned v;
        sscanf(text + 2 * i, "%2x", &v);
        ((unsigned char *)&h)[i] = (unsigned char)v;
    }
    void *p = NULL;
    if (cudaIpcOpenMemHandle(&p, h, cudaIpcMemLazyEnablePeerAccess) != cudaSuccess)
        return printf("  the second process cannot open the handle\n"), 1;
    CUdeviceptr base = 0;
    size_t size = 0;
    cuMemGetAddressRange(&base, &size, (CUdeviceptr)p);
    unsigned *host = (unsigned *)malloc(size);
    cudaError_t err = cudaMemcpy(host, (void *)base, size, cudaMemcpyDeviceToHost);
    size_t found = 0, first = 0;
    for (size_t i = 0; err == cudaSuccess && i < size / 4; i++)
        if (host[i] == MARKER && !found++)
            first = i * 4;
    printf("  shared %zu bytes: the mapping spans %zu bytes from %ld bytes before it; read: %s; the owner's "
           "private marker %s\n", bytes, size, (long)((CUdeviceptr)p - base), cudaGetErrorName(err),
           found ? "FOUND" : "not found");
    if (found)
        printf("  (%zu words of it, the first at byte %zu of the mapping)\n", found, first);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 4 && !strcmp(argv[1], "--read"))
        return reader(argv[2], strtoull(argv[3], NULL, 10));
    size_t sizes[16] = {4096, 131076, 2u << 20};
    int count = 3;
    if (argc > 1)
        for (count = 0; count + 1 < argc && count < 16; count++)
            sizes[count] = strtoull(argv[count + 1], NULL, 10);
    cudaFree(0);
    for (int k = 0; k < count; k++) {
        void *shared = NULL, *priv = NULL;
        cudaMalloc(&shared, sizes[k]);
        cudaMalloc(&priv, 4096);
        fill<<<8, 256>>>((unsigned *)priv, 1024, MARKER);
        fill<<<64, 256>>>((unsigned *)shared, sizes[k] / 4, 0);
        cudaDeviceSynchronize();
        cudaIpcMemHandle_t h;
        if (cudaIpcGetMemHandle(&h, shared) != cudaSuccess)
            return printf("cudaIpcGetMemHandle failed\n"), 1;
        char text[2 * sizeof h + 1], cmd[4096];
        hex(&h, sizeof h, text);
        snprintf(cmd, sizeof cmd, "%s --read %s %zu", argv[0], text, sizes[k]);
        fflush(stdout);
        if (system(cmd) != 0)
            printf("  the second process failed\n");
    }
    return 0;
}
