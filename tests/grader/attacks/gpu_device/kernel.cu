/*
 * An attack, not a kernel: a kernel.cu whose host code reaches for the GPU
 * itself. Its constructor opens /dev/nvidiactl through libc's `open`,
 * found in memory as tests/grader/attacks/class_escape finds it (no symbol
 * the policy could refuse, no system call instruction of its own); the
 * product is computed, by a plain kernel, only when that open worked. A runner that holds the GPU (the
 * harness's own process, or a judged runner before the device server) earns
 * the plain kernel's points; the judge's runner has no GPU device to open
 * (confine --no-gpu: its CUDA calls go to the device server,
 * judge/forward.h), so nothing is computed and the stage scores 0. Its
 * launches would reach the GPU through the server: what it may not have is
 * a device of its own, on which it could load any code.
 *
 *   tests/grader/gpu-fixtures.sh (graded by the judge: 0 points; judge-only)
 */
#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <stdint.h>

#include "matmul.h"

static long g_device = -1; /* the descriptor the open gave, or -1 */

static int same(const char *a, const char *b)
{
    while (*a && *a == *b)
        a++, b++;
    return *a == *b;
}

/* A function of the library that contains `inside`, by name. */
static void *library_function(const void *inside, const char *name)
{
    uintptr_t p = (uintptr_t)inside & ~(uintptr_t)0xfff;
    for (;;) {
        const unsigned char *h = (const unsigned char *)p;
        if (h[0] == 0x7f && h[1] == 'E' && h[2] == 'L' && h[3] == 'F')
            break;
        p -= 0x1000;
    }
    const ElfW(Ehdr) *eh = (const ElfW(Ehdr) *)p;
    const ElfW(Phdr) *ph = (const ElfW(Phdr) *)(p + eh->e_phoff);
    const ElfW(Dyn) *dyn = NULL;
    for (int i = 0; i < eh->e_phnum; i++)
        if (ph[i].p_type == PT_DYNAMIC)
            dyn = (const ElfW(Dyn) *)(p + ph[i].p_vaddr);
    const ElfW(Sym) *sym = NULL;
    const char *str = NULL;
    for (; dyn && dyn->d_tag != DT_NULL; dyn++) {
        uintptr_t v = dyn->d_un.d_ptr < p ? p + dyn->d_un.d_ptr : dyn->d_un.d_ptr;
        if (dyn->d_tag == DT_SYMTAB)
            sym = (const ElfW(Sym) *)v;
        if (dyn->d_tag == DT_STRTAB)
            str = (const char *)v;
    }
    for (; sym && (const char *)sym < str; sym++)
        if (sym->st_name && sym->st_value && same(str + sym->st_name, name))
            return (void *)(p + sym->st_value);
    return NULL;
}

__attribute__((constructor)) static void reach_for_the_gpu(void)
{
    typedef int (*open_fn)(const char *, int, ...);
    open_fn o = (open_fn)library_function(__builtin_return_address(0), "open");
    if (o)
        g_device = o("/dev/nvidiactl", O_RDWR);
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
