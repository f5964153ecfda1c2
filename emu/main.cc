/*
 * main.cc: the emulated stage program, build/<stage>/<variant>-emu
 * (emu/README.md). It is the stage's own harness (common/harness.cu and
 * the family's files, compiled for the CPU), run with --check-only at the
 * sizes that run in seconds here; the linker's --wrap puts this file
 * between the harness and three of its calls:
 *
 *   the contract function (matmul, transpose, reduce): its arrays are named
 *       as the contract names them (A, B, C), for the messages;
 *   lab_backend_register: each buffer's place within its guard zones;
 *   lab_record_begin, lab_record_end: the record says "emulated": true,
 *       and a problem the emulator found turns "ok" into "wrong".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "family.h"
#include "emu.h"

/* What runs in seconds here: each family's checked sizes but the largest
 * (--sizes), and a size of its own in place of the timed one, which
 * --check-only checks last (--n). */
static const char *emu_sizes(const char *family, const char **n)
{
    if (!strcmp(family, "matmul")) {
        *n = "100";
        return "256,1,17,255,33";
    }
    if (!strcmp(family, "transpose")) {
        *n = "513x257";
        return "256x256,1x1,1x1000,1000x1,33x65,65x65,1025x777";
    }
    *n = "100003";
    return "1,2,3,31,33,1000,1025,65537";
}

/* make explain (--explain): the size whose first launch is counted, and
 * the smallest for the check that --check-only ends with (--n) */
static const char *explain_sizes(const char *family, const char **n)
{
    if (!strcmp(family, "matmul")) {
        *n = "1";
        return "256";
    }
    if (!strcmp(family, "transpose")) {
        *n = "1x1";
        return "256x256";
    }
    *n = "1";
    return "65537"; /* (the first of reduce's sizes is 1: a launch of one thread) */
}

int lab_emu_harness_main(int argc, char **argv);

int main(int argc, char **argv)
{
    static char *args[64];
    int n = 0, sizes = 0, check_only = 0, timed = 0, explain = 0;
    for (int i = 0; i < argc && n < 60; i++) {
        if (!strcmp(argv[i], "--explain")) { /* ours, not the harness's */
            explain = 1;
            continue;
        }
        sizes |= !strcmp(argv[i], "--sizes");
        timed |= !strcmp(argv[i], "--n");
        check_only |= !strcmp(argv[i], "--check-only") || !strcmp(argv[i], "--help");
        if (!strcmp(argv[i], "--seed") && i + 1 < argc)
            lab_emu.seed = strtoull(argv[i + 1], NULL, 0);
        args[n++] = argv[i];
    }
    const char *last;
    const char *list = (explain ? explain_sizes : emu_sizes)(lab_family_this.name, &last);
    if (explain)
        lab_emu_explain_arm();
    if (!sizes) {
        args[n++] = (char *)"--sizes";
        args[n++] = (char *)list;
    }
    if (!timed) {
        args[n++] = (char *)"--n";
        args[n++] = (char *)last;
    }
    if (!check_only)
        args[n++] = (char *)"--check-only";
    args[n] = NULL;
    setvbuf(stdout, NULL, _IOLBF, 0);
    printf("on the CPU (the CPU emulation of the GPU: correctness only, no speed; emu/README.md)\n");
    int status = lab_emu_harness_main(n, args);
    if (status == LAB_EXIT_OK && lab_emu.findings) {
        printf("wrong: the emulator found %d problem%s above that a GPU may hide\n", lab_emu.findings,
               lab_emu.findings == 1 ? "" : "s");
        status = LAB_EXIT_WRONG;
    }
    lab_emu_explain_report(status);
    return status;
}

/* (the symbols are the C++ names of the harness's functions: --wrap=NAME
 * sends the harness's calls of NAME to __wrap_NAME, and __real_NAME is
 * the harness's own) */
#define REGISTER "_Z20lab_backend_registerP10lab_buffer"
#define BEGIN "_Z16lab_record_beginP10lab_recordPKcPK8lab_argsPK7lab_gpu"
#define END "_Z14lab_record_endP10lab_recordiPKc"
void real_register(lab_buffer *b) __asm__("__real_" REGISTER);
void wrap_register(lab_buffer *b) __asm__("__wrap_" REGISTER);
void wrap_register(lab_buffer *b)
{
    lab_emu_name_buffer(b->data, b->count * sizeof(float), NULL);
    real_register(b);
}

void real_begin(lab_record *r, const char *family, const lab_args *a, const lab_gpu *g) __asm__("__real_" BEGIN);
void wrap_begin(lab_record *r, const char *family, const lab_args *a, const lab_gpu *g) __asm__("__wrap_" BEGIN);
void wrap_begin(lab_record *r, const char *family, const lab_args *a, const lab_gpu *g)
{
    real_begin(r, family, a, g);
    lab_json_bool(&r->j, "emulated", 1);
}

void real_end(lab_record *r, int status, const char *message) __asm__("__real_" END);
void wrap_end(lab_record *r, int status, const char *message) __asm__("__wrap_" END);
void wrap_end(lab_record *r, int status, const char *message)
{
    static char why[160];
    if (status == LAB_EXIT_OK && lab_emu.findings) {
        snprintf(why, sizeof why, "the emulator found %d problem%s a GPU may hide", lab_emu.findings,
                 lab_emu.findings == 1 ? "" : "s");
        status = LAB_EXIT_WRONG;
        message = why;
    }
    real_end(r, status, message);
}

extern "C" {

/* The contract function of the family, between the harness and kernel.cu
 * (matmul.h, transpose.h, reduce.h). */
#if defined(LAB_EMU_FAMILY_matmul)
void __real__Z6matmulPKfS0_Pfi(const float *A, const float *B, float *C, int n);
void __wrap__Z6matmulPKfS0_Pfi(const float *A, const float *B, float *C, int n)
{
    size_t bytes = (size_t)n * n * sizeof(float);
    lab_emu_name_buffer(A, bytes, "A");
    lab_emu_name_buffer(B, bytes, "B");
    lab_emu_name_buffer(C, bytes, "C");
    char size[32];
    snprintf(size, sizeof size, "n=%d", n);
    lab_emu_explain_call(1, size);
    __real__Z6matmulPKfS0_Pfi(A, B, C, n);
    lab_emu_explain_call(0, size);
}
#elif defined(LAB_EMU_FAMILY_transpose)
void __real__Z9transposePKfPfii(const float *in, float *out, int rows, int cols);
void __wrap__Z9transposePKfPfii(const float *in, float *out, int rows, int cols)
{
    size_t bytes = (size_t)rows * cols * sizeof(float);
    lab_emu_name_buffer(in, bytes, "in");
    lab_emu_name_buffer(out, bytes, "out");
    char size[32];
    snprintf(size, sizeof size, "%dx%d", rows, cols);
    lab_emu_explain_call(1, size);
    __real__Z9transposePKfPfii(in, out, rows, cols);
    lab_emu_explain_call(0, size);
}
#elif defined(LAB_EMU_FAMILY_reduce)
void __real__Z6reducePKfPfiS1_(const float *in, float *out, int n, float *scratch);
void __wrap__Z6reducePKfPfiS1_(const float *in, float *out, int n, float *scratch)
{
    lab_emu_name_buffer(in, 0, "in");
    lab_emu_name_buffer(out, 0, "out");
    lab_emu_name_buffer(scratch, 0, "scratch");
    char size[32];
    snprintf(size, sizeof size, "n=%d", n);
    lab_emu_explain_call(1, size);
    __real__Z6reducePKfPfiS1_(in, out, n, scratch);
    lab_emu_explain_call(0, size);
}
#endif
}
