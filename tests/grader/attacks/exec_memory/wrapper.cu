/*
 * An attack on stage 03: the matrix product runs from memory the runner
 * made executable itself, as a library rebuilt from bytes a kernel.cu
 * carried (cuBLAS, copied in with .incbin) would. tests/grader/gpu-fixtures.sh
 * puts stage 03's solution in front of this file, its matmul renamed
 * solution_matmul; here matmul jumps to it through a few bytes of machine
 * code written at run time: first into a memfd mapped executable, else into
 * anonymous memory mapped writable and executable. The system calls are
 * made with the syscall instruction itself (no symbol for the policy to
 * see). Where neither mapping is allowed, matmul does nothing and the stage
 * scores 0; where one is, the solution's full marks.
 *
 *   tests/grader/gpu-fixtures.sh attacks (graded as 03_tiled)
 */
static long sys6(long nr, long a, long b, long c, long d, long e, long f)
{
#if defined(__x86_64__)
    register long r10 __asm__("r10") = d, r8 __asm__("r8") = e, r9 __asm__("r9") = f;
    __asm__ volatile("syscall" : "+a"(nr) : "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8), "r"(r9) : "rcx", "r11", "memory");
    return nr;
#elif defined(__aarch64__)
    register long x8 __asm__("x8") = nr, x0 __asm__("x0") = a, x1 __asm__("x1") = b, x2 __asm__("x2") = c,
                  x3 __asm__("x3") = d, x4 __asm__("x4") = e, x5 __asm__("x5") = f;
    __asm__ volatile("svc 0" : "+r"(x0) : "r"(x8), "r"(x1), "r"(x2), "r"(x3), "r"(x4), "r"(x5) : "memory");
    return x0;
#else
    return -38; /* ENOSYS */
#endif
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
