/*
 * An attack on stage 03: the matrix product runs from memory the runner
 * made executable itself, as a library rebuilt from bytes a kernel.cu
 * carried (cuBLAS, copied in with .incbin) would. tests/grader/gpu-fixtures.sh
 * puts stage 03's solution in front of this file, its matmul renamed
 * solution_matmul; here matmul jumps to it through a few bytes of machine
 * code written at run time: first into a memfd mapped executable, else into
 * anonymous memory mapped writable and executable. The system calls go
 * through the C library's syscall(), found in memory (no symbol for the
 * policy to see). Where neither mapping is allowed, matmul does nothing and the stage
 * scores 0; where one is, the solution's full marks.
 *
 *   tests/grader/gpu-fixtures.sh attacks (graded as 03_tiled)
 */
/* libc's syscall(), found in memory from a constructor's return address
 * (the way tests/grader/attacks/class_escape finds open: no symbol for the
 * policy to see, no system-call instruction of its own for it to refuse) */
#include <link.h>
#include <stdint.h>

static int same_name(const char *a, const char *b)
{
    while (*a && *a == *b)
        a++, b++;
    return *a == *b;
}

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
        if (sym->st_name && sym->st_value && same_name(str + sym->st_name, name))
            return (void *)(p + sym->st_value);
    return NULL;
}

typedef long (*syscall_fn)(long, ...);
static syscall_fn libc_syscall;

__attribute__((constructor)) static void find_syscall(void)
{
    libc_syscall = (syscall_fn)library_function(__builtin_return_address(0), "syscall");
}

/* the C library's syscall(): -1 on failure */
static long sys6(long nr, long a, long b, long c, long d, long e, long f)
{
    if (!libc_syscall)
        return -38; /* ENOSYS */
    return libc_syscall(nr, a, b, c, d, e, f);
}

#if defined(__x86_64__)
enum { SYS_WRITE = 1, SYS_MMAP = 9, SYS_MEMFD = 319 };
#else
enum { SYS_WRITE = 64, SYS_MMAP = 222, SYS_MEMFD = 279 };
#endif

typedef void (*matmul_fn)(const float *, const float *, float *, int);

/* a jump to `to`: movabs rax, to; jmp rax (or ldr x16, 8; br x16; to) */
static int jump_code(unsigned char *p, void *to)
{
    unsigned long long a = (unsigned long long)to;
#if defined(__x86_64__)
    p[0] = 0x48, p[1] = 0xb8;
    for (int i = 0; i < 8; i++)
        p[2 + i] = (unsigned char)(a >> (8 * i));
    p[10] = 0xff, p[11] = 0xe0;
    return 12;
#else
    const unsigned int code[2] = {0x58000050u, 0xd61f0200u};
    for (int i = 0; i < 8; i++)
        p[i] = (unsigned char)(code[i / 4] >> (8 * (i % 4))), p[8 + i] = (unsigned char)(a >> (8 * i));
    return 16;
#endif
}

static matmul_fn made_code(void)
{
    unsigned char code[16];
    int len = jump_code(code, (void *)solution_matmul);
    /* a memfd: written, then mapped executable */
    long fd = sys6(SYS_MEMFD, (long)"code", 0, 0, 0, 0, 0);
    if (fd >= 0 && sys6(SYS_WRITE, fd, (long)code, len, 0, 0, 0) == len) {
        long p = sys6(SYS_MMAP, 0, 4096, 1 | 4 /* PROT_READ | PROT_EXEC */, 1 /* MAP_SHARED */, fd, 0);
        if (p > 0 || p < -4095)
            return (matmul_fn)p;
    }
    /* anonymous memory, writable and executable */
    long p = sys6(SYS_MMAP, 0, 4096, 1 | 2 | 4, 2 | 0x20 /* MAP_PRIVATE | MAP_ANONYMOUS */, -1, 0);
    if (p <= 0 && p >= -4095)
        return 0;
    for (int i = 0; i < len; i++)
        ((unsigned char *)p)[i] = code[i];
    __builtin___clear_cache((char *)p, (char *)p + len);
    return (matmul_fn)p;
}

void matmul(const float *A, const float *B, float *C, int n)
{
    static matmul_fn f = made_code();
    if (f)
        f(A, B, C, n);
}
