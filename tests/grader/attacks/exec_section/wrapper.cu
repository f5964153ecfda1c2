/*
 * An attack on stage 03: the matrix product runs from memory the linker
 * was asked to make writable and executable, so that no system call is
 * made that the runner's filter could refuse: a section flagged "awx"
 * under a name a CUDA compile uses too (.data.*: the data segment becomes
 * RWX) and an executable stack (.note.GNU-stack "x").
 * tests/grader/gpu-fixtures.sh puts stage 03's solution in front of this
 * file, its matmul renamed solution_matmul; here matmul jumps to it through
 * a few bytes of machine code written into that section, else onto the
 * stack. Where the lab refuses the object or links it without such memory,
 * the stage scores 0; today, the solution's full marks.
 *
 *   tests/grader/gpu-fixtures.sh attacks (graded as 03_tiled)
 */
__asm__(".section .note.GNU-stack,\"x\",@progbits\n.previous");
__asm__(".section .data.lab_code,\"awx\",@progbits\n.globl lab_code_page\nlab_code_page:\n.fill 64,1,0\n.previous");
extern "C" unsigned char lab_code_page[];

typedef void (*matmul_fn)(const float *, const float *, float *, int);

/* a jump to solution_matmul at p: movabs rax, to; jmp rax (or ldr x16, 8; br x16; to) */
static matmul_fn write_jump(unsigned char *p)
{
    unsigned long long a = (unsigned long long)(void *)solution_matmul;
#if defined(__x86_64__)
    const int len = 12;
    p[0] = 0x48, p[1] = 0xb8, p[10] = 0xff, p[11] = 0xe0;
    for (int i = 0; i < 8; i++)
        p[2 + i] = (unsigned char)(a >> (8 * i));
#else
    const int len = 16;
    const unsigned int code[2] = {0x58000050u, 0xd61f0200u};
    for (int i = 0; i < 8; i++)
        p[i] = (unsigned char)(code[i / 4] >> (8 * (i % 4))), p[8 + i] = (unsigned char)(a >> (8 * i));
#endif
    __builtin___clear_cache((char *)p, (char *)p + len);
    return (matmul_fn)(void *)p;
}

void matmul(const float *A, const float *B, float *C, int n)
{
    static int call;
    unsigned char on_stack[32];
    /* odd calls through the section, even ones through the stack: both must work */
    write_jump(call++ % 2 ? lab_code_page : on_stack)(A, B, C, n);
}
