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
 *       a problem the emulator found turns "ok" into "wrong", and a
 *       correct kernel's record says whether the stage's technique is
 *       there ("technique": technique.cc).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "family.h"
#include "emu.h"

/* Each family's sizes here: what runs in seconds (its checked sizes but
 * the largest, --sizes, and a size of its own in place of the timed one,
 * which --check-only checks last, --n), and among them the size whose
 * first launch is counted (make explain, the technique: explain.cc) as
 * the contract function's wrapper below names it, with the smallest size
 * for the check that make explain ends with. The reduction's counted size
 * is past one grid of a few blocks an SM, so that a grid-stride loop
 * shows: larger than any it checks here, and it runs in a second. */
struct family_sizes {
    const char *family, *checked, *last, *counted, *counted_name, *smallest;
};
static const family_sizes g_family_sizes[] = {
    {"matmul", "256,1,17,255,33", "100", "256", "n=256", "1"},
    {"transpose", "256x256,1x1,1x1000,1000x1,33x65,65x65,1025x777", "513x257", "256x256", "256x256", "1x1"},
    {"reduce", "1,2,3,31,33,1000,1025,65537,2097153", "100003", "2097153", "n=2097153", "1"},
};

/* The sizes of the family named. */
static const family_sizes *sizes_of(const char *family)
{
    for (const family_sizes &f : g_family_sizes)
        if (!strcmp(f.family, family))
            return &f;
    lab_emu_fatal(LAB_EXIT_USAGE, "the emulator knows no sizes of the family '%s' (emu/main.cc)", family);
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
    /* make explain counts the first call, at whatever size; every other
     * run the first call at the counted size, for the technique */
    const family_sizes *f = sizes_of(lab_family_this.name);
    lab_emu_explain_arm(explain ? NULL : f->counted_name);
    if (!sizes) {
        args[n++] = (char *)"--sizes";
        args[n++] = (char *)(explain ? f->counted : f->checked);
    }
    if (!timed) {
        args[n++] = (char *)"--n";
        args[n++] = (char *)(explain ? f->smallest : f->last);
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
    if (explain)
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
    /* a correct kernel's technique, from the counted launch (technique.cc) */
    char said[1024];
    int present;
    if (status == LAB_EXIT_OK && lab_emu_technique(said, sizeof said, &present)) {
        while (r->j.depth > 0)
            lab_json_end(&r->j);
        lab_json_object(&r->j, "technique");
        lab_json_bool(&r->j, "present", present);
        lab_json_string(&r->j, "said", said);
        lab_json_end(&r->j);
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
