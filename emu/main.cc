/*
 * main.cc: the emulated stage program, build/<stage>/<variant>-emu
 * (emu/README.md). It is the stage's own harness (common/harness.cu and
 * the family's files, compiled for the CPU), run with --check-only at the
 * sizes that run in seconds here; the linker's --wrap puts this file
 * between the harness and three of its calls:
 *
 *   the contract function (the family's, common/<family>.h): its arrays are
 *       named as the contract names them (A, B, C), for the messages;
 *   lab_backend_register: each buffer's place within its guard zones;
 *   lab_record_begin, lab_record_end: the record says "emulated": true,
 *       a problem the emulator found turns "ok" into "wrong", and a
 *       correct kernel's record says whether the stage's technique is
 *       there ("technique": technique.cc).
 *
 * Its own options: --explain (make explain), and --sizes-near SIZE (a
 * grade's emulated run: grader/emulated.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "contract.h"
#include "family.h"
#include "gpu.h"
#include "emu.h"

#define NAME_OF(type, name) #name,
static const char *const g_value_names[] = {LAB_CONTRACT(LAB_ARRAY_SKIP, NAME_OF, LAB_NONE) NULL};
static const int g_values = (int)(sizeof g_value_names / sizeof g_value_names[0]) - 1;

/* A call's size as make explain and the technique name it, from its
 * values (or text, "256" or "256x256", where given): "n=256" for a
 * contract of one value, "256x256" for more. */
static void contract_size(char *out, size_t len, const char *text, const long long *value = NULL)
{
    char joined[64] = "";
    for (int i = 0; !text && i < g_values; i++)
        snprintf(joined + strlen(joined), sizeof joined - strlen(joined), "%s%lld", i ? "x" : "", value[i]);
    if (g_values == 1)
        snprintf(out, len, "%s=%s", g_value_names[0], text ? text : joined);
    else
        snprintf(out, len, "%s", text ? text : joined);
}

/* The family's sizes here (lab_family.emu, family.h): what runs in
 * seconds; an unfilled one is the family file's fault, said at once. */
static const char *emu_size(const char *size, const char *what)
{
    if (!size || !*size)
        lab_die(LAB_EXIT_USAGE, "the family '%s' gives the CPU emulation no %s sizes (lab_family.emu in "
                      "common/%s_family.cu)", lab_family_this.name, what, lab_family_this.name);
    return size;
}

/* --sizes-near AT (grader/emulated.c): AT where the work of a call there
 * is at most the family's max_work, then the family's small sizes (a bug
 * between tiles needs more than one); AT "any": the small sizes alone. */
static const char *sizes_near(const char *at, char *out, size_t len)
{
    const lab_family *F = &lab_family_this;
    const char *small = emu_size(F->emu.small, "small");
    const char *size = strchr(at, '=') ? strchr(at, '=') + 1 : at;
    lab_dims d;
    char err[128];
    if (!lab_parse_dims(size, F->allow_2d, &d, err, sizeof err) && d.rows < 1000000 &&
        F->work(d) <= F->emu.max_work)
        snprintf(out, len, "%.20s,%s", size, small);
    else
        snprintf(out, len, "%s", small);
    return out;
}

int lab_emu_harness_main(int argc, char **argv);

int main(int argc, char **argv)
{
    static char *args[64];
    int n = 0, sizes = 0, check_only = 0, timed = 0, explain = 0;
    static char near[128];
    for (int i = 0; i < argc && n < 60; i++) {
        if (!strcmp(argv[i], "--explain")) { /* ours, not the harness's */
            explain = 1;
            continue;
        }
        if (!strcmp(argv[i], "--sizes-near") && i + 1 < argc) { /* ours too */
            argv[i] = (char *)"--sizes";
            argv[i + 1] = (char *)sizes_near(argv[i + 1], near, sizeof near);
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
    const lab_family *F = &lab_family_this;
    const char *counted = emu_size(F->emu.counted, "counted");
    char counted_name[64];
    contract_size(counted_name, sizeof counted_name, counted);
    lab_emu_explain_arm(explain ? NULL : counted_name);
    if (!sizes) {
        args[n++] = (char *)"--sizes";
        args[n++] = (char *)(explain ? counted : emu_size(F->emu.checked, "checked"));
    }
    if (!timed) {
        args[n++] = (char *)"--n";
        args[n++] = (char *)emu_size(explain ? F->emu.smallest : F->emu.last, explain ? "smallest" : "last");
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
void lab_emu_real_register(lab_buffer *b) __asm__("__real_" REGISTER);
void lab_emu_wrap_register(lab_buffer *b) __asm__("__wrap_" REGISTER);
void lab_emu_wrap_register(lab_buffer *b)
{
    lab_emu_name_buffer(b->data, b->count * sizeof(float), NULL);
    lab_emu_real_register(b);
}

void lab_emu_real_begin(lab_record *r, const char *family, const lab_args *a, const lab_gpu *g)
    __asm__("__real_" BEGIN);
void lab_emu_wrap_begin(lab_record *r, const char *family, const lab_args *a, const lab_gpu *g)
    __asm__("__wrap_" BEGIN);
void lab_emu_wrap_begin(lab_record *r, const char *family, const lab_args *a, const lab_gpu *g)
{
    lab_emu_real_begin(r, family, a, g);
    lab_json_bool(&r->j, "emulated", 1);
}

void lab_emu_real_end(lab_record *r, int status, const char *message) __asm__("__real_" END);
void lab_emu_wrap_end(lab_record *r, int status, const char *message) __asm__("__wrap_" END);
void lab_emu_wrap_end(lab_record *r, int status, const char *message)
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
    lab_emu_real_end(r, status, message);
}

/* The contract function of the family, between the harness and kernel.cu
 * (common/<family>.h, given with -include; its C++ symbol as
 * LAB_CONTRACT_SYMBOL): its arrays named as the contract names them, and
 * the call's size as make explain and the technique name it. */
#define NAME_ARRAY(type, name, floats) lab_emu_name_buffer(name, (floats) * sizeof(float), #name);
#define VALUE_OF(type, name) (long long)name,
extern "C" {
void lab_emu_real_contract(LAB_CONTRACT_PARAMS) __asm__("__real_" LAB_CONTRACT_SYMBOL);
void lab_emu_wrap_contract(LAB_CONTRACT_PARAMS) __asm__("__wrap_" LAB_CONTRACT_SYMBOL);
void lab_emu_wrap_contract(LAB_CONTRACT_PARAMS)
{
    LAB_CONTRACT(NAME_ARRAY, LAB_VALUE_SKIP, LAB_NONE)
    const long long value[] = {LAB_CONTRACT(LAB_ARRAY_SKIP, VALUE_OF, LAB_NONE) 0};
    char size[64];
    contract_size(size, sizeof size, NULL, value);
    lab_emu_explain_call(1, size);
    lab_emu_real_contract(LAB_CONTRACT_ARGS);
    lab_emu_explain_call(0, size);
}
}
