/*
 * An attack, not a kernel: a kernel.cu whose matrix product is cuBLAS's,
 * loaded at run time. It names no forbidden symbol and links no library:
 * from its constructor it finds libc's dlopen and dlsym in memory, loads
 * the CUDA Toolkit's cuBLAS by name and calls cublasSgemm from matmul.
 * The runner may read only what it is linked with and the GPU driver's
 * files (judge/libraries.c, build/confine/driver-files), so cuBLAS cannot
 * be read, let alone loaded: matmul does nothing and the stage scores 0.
 * (In the harness's own process, JUDGE=0, cuBLAS is linked: judge-only.)
 *
 *   tests/grader/gpu-fixtures.sh attacks (graded by the judge: 0 points)
 */
#include <elf.h>
#include <link.h>
#include <stdint.h>

#include "matmul.h"

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

typedef int (*create_fn)(void **);
typedef int (*sgemm_fn)(void *, int, int, int, int, int, const float *, const float *, int, const float *, int,
                        const float *, float *, int);
static create_fn create;
static sgemm_fn sgemm;

__attribute__((constructor)) static void borrow_cublas(void)
{
    typedef void *(*dlopen_fn)(const char *, int);
    typedef void *(*dlsym_fn)(void *, const char *);
    const void *libc = __builtin_return_address(0);
    dlopen_fn o = (dlopen_fn)library_function(libc, "dlopen");
    dlsym_fn s = (dlsym_fn)library_function(libc, "dlsym");
    if (!o || !s)
        return;
    static const char *const names[] = {"libcublas.so.13", "libcublas.so.12", "libcublas.so",
                                        "/usr/local/cuda/lib64/libcublas.so", NULL};
    void *h = NULL;
    for (int i = 0; names[i] && !h; i++)
        h = o(names[i], 2 /* RTLD_NOW */);
    if (h) {
        create = (create_fn)s(h, "cublasCreate_v2");
        sgemm = (sgemm_fn)s(h, "cublasSgemm_v2");
    }
}

/* row-major C = A B is column-major C^T = B^T A^T: cuBLAS with A and B swapped */
void matmul(const float *A, const float *B, float *C, int n)
{
    static void *handle;
    if (!create || !sgemm || (!handle && create(&handle)))
        return;
    const float one = 1.0f, zero = 0.0f;
    sgemm(handle, 0, 0, n, n, n, &one, B, n, A, n, &zero, C, n);
}
