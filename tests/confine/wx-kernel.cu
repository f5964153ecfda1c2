/*
 * An attack on the link, not a kernel: a kernel.cu whose object asks the
 * linker for memory that is both writable and executable from the start,
 * where no system call (mmap, mprotect) is made that a filter could refuse:
 * a section flagged "awx" under a name a CUDA compile uses too (.data.*:
 * the linker makes the data segment RWX; an allowlist of names alone lets
 * it through) and an executable .note.GNU-stack (the program's stack is
 * mapped executable). matmul writes a few bytes of machine code
 * ("return 42") into each and runs them.
 *
 *   tests/confine/link.sh (linked plainly, the program runs each; built by
 *   make, the program must have no such memory, or not be built)
 */
#include <stdio.h>

__asm__(".section .note.GNU-stack,\"x\",@progbits\n.previous");
__asm__(".section .data.lab_wx,\"awx\",@progbits\n.globl lab_wx_page\nlab_wx_page:\n.fill 64,1,0xc3\n.previous");
extern "C" unsigned char lab_wx_page[];

/* machine code of "return 42" (x86-64: mov eax, 42; ret; AArch64: mov w0, 42; ret) */
static const unsigned char ret42[] =
#if defined(__aarch64__)
    "\x40\x05\x80\x52\xc0\x03\x5f\xd6";
#else
    "\xb8\x2a\x00\x00\x00\xc3";
#endif

static int run(unsigned char *p)
{
    for (unsigned i = 0; i < sizeof ret42 - 1; i++)
        p[i] = ret42[i];
    __builtin___clear_cache((char *)p, (char *)p + sizeof ret42);
    return ((int (*)(void))(void *)p)() == 42;
}

void matmul(const float *, const float *, float *, int)
{
    unsigned char on_stack[64];
    if (run(lab_wx_page))
        printf("ESCAPED ran code in a writable section\n");
    if (run(on_stack))
        printf("ESCAPED ran code on the stack\n");
}
