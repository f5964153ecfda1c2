/*
 * An attack, not a kernel: a kernel.cu whose host code reaches for the GPU
 * itself. Its constructor opens /dev/nvidiactl with a raw system call (no
 * symbol the policy could refuse); the product is computed, by a plain
 * kernel, only when that open worked. A runner that holds the GPU (the
 * harness's own process, or a judged runner before the device server) earns
 * the plain kernel's points; the judge's runner has no GPU device to open
 * (confine --no-gpu: its CUDA calls go to the device server,
 * judge/forward.h), so nothing is computed and the stage scores 0. Its
 * launches would reach the GPU through the server: what it may not have is
 * a device of its own, on which it could load any code.
 *
 *   tests/grader/gpu-fixtures.sh (graded by the judge: 0 points; judge-only)
 */
#include <fcntl.h>
#include <sys/syscall.h>

#include "matmul.h"

static long g_device = -1; /* the descriptor the open gave, or -errno */

__attribute__((constructor)) static void reach_for_the_gpu(void)
{
    long rc;
    const char *path = "/dev/nvidiactl";
    register long flags asm("rdx") = O_RDWR;
    asm volatile("syscall"
                 : "=a"(rc)
                 : "0"((long)SYS_openat), "D"((long)AT_FDCWD), "S"(path), "r"(flags)
                 : "rcx", "r11", "memory");
    g_device = rc;
}

__global__ void plain_product(const float *A, const float *B, float *C, int n)
{
    int r = blockIdx.y * blockDim.y + threadIdx.y, c = blockIdx.x * blockDim.x + threadIdx.x;
    if (r < n && c < n) {
        float s = 0;
        for (int k = 0; k < n; k++)
            s += A[r * n + k] * B[k * n + c];
        C[r * n + c] = s;
    }
}

void matmul(const float *A, const float *B, float *C, int n)
{
    if (g_device < 0)
        return; /* no GPU of its own: nothing */
    dim3 block(16, 16), grid((n + 15) / 16, (n + 15) / 16);
    plain_product<<<grid, block>>>(A, B, C, n);
}
