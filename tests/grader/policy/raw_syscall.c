/* Policy fixture: a raw system call in inline assembly, which no symbol
 * shows: write(3, ...) without calling write. */
void matmul(const float *A, const float *B, float *C, int n)
{
    (void)A, (void)B, (void)C, (void)n;
    static const char fake[] = "{}";
#if defined(__x86_64__)
    long ret;
    __asm__ volatile("syscall" : "=a"(ret) : "a"(1L), "D"(3L), "S"(fake), "d"(2L) : "rcx", "r11", "memory");
    (void)ret;
#elif defined(__aarch64__)
    register long x0 __asm__("x0") = 3;
    register const char *x1 __asm__("x1") = fake;
    register long x2 __asm__("x2") = 2;
    register long x8 __asm__("x8") = 64;
    __asm__ volatile("svc #0" : "+r"(x0) : "r"(x1), "r"(x2), "r"(x8) : "memory");
#endif
}
