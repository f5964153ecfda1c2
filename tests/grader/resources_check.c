/*
 * resources_check.c: the sentence a correct stage that missed a tier gets
 * about its registers, local memory and loads (grader/resources.c), fed
 * with what cuobjdump and ptxas print: real output of nvcc 13.0 for
 * sm_80 and sm_90 in tests/grader/resources/ (the bonus stage's solution;
 * the same with __launch_bounds__(256, 2), which spills; the kernel of
 * research/experiments/warptile_independent.cu), and a stand-in cuobjdump
 * for the grader's own call. No GPU.
 *
 *   build/tests/grader/resources-check DIR   prints "ok NAME" or "FAIL NAME";
 *                                            DIR: a folder for its files
 * Run from the root of the lab.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "resources.h"

static int failures;

static void expect(int cond, const char *name)
{
    printf("%s %s\n", cond ? "ok" : "FAIL", name);
    failures += !cond;
}

static resource_use parsed(const char *file, const char *arch, int *rc)
{
    char path[256];
    snprintf(path, sizeof path, "tests/grader/resources/%s", file);
    char *text = lab_read_file(path, 1u << 20);
    resource_use u;
    *rc = text ? grader_resources_parse(text, arch, &u) : -2;
    free(text);
    return u;
}

static void test_parse(void)
{
    int rc;
    resource_use u = parsed("solution-sm90.usage", NULL, &rc);
    expect(rc == 0 && u.registers == 219 && u.local_bytes == 0 && u.shared_bytes == 25600 && u.kernels == 2 &&
               !strcmp(u.kernel, "matmul_warptile") && !strcmp(u.arch, "sm_90") && u.spill_bytes == -1,
           "resources: cuobjdump's usage of the solution: 219 registers (the most of its two kernels), no local memory");
    u = parsed("min-blocks-2-sm90.usage", NULL, &rc);
    expect(rc == 0 && u.registers == 128 && u.local_bytes == 664,
           "resources: cuobjdump's usage at __launch_bounds__(256, 2): 128 registers, 664 bytes of stack (spills)");
    u = parsed("min-blocks-2-sm90.ptxas", NULL, &rc);
    expect(rc == 0 && u.registers == 128 && u.local_bytes == 664 && u.spill_bytes == 2012 + 1804 &&
               u.shared_bytes == 24576 && u.kernels == 2,
           "resources: ptxas -v lines: registers, stack frame, spill stores and loads, smem");
    u = parsed("independent-sm80-sm90.usage", NULL, &rc);
    expect(rc == 0 && u.registers == 255 && !strcmp(u.arch, "sm_90") && !strcmp(u.kernel, "sgemm_warptile"),
           "resources: an object of two architectures: the highest unless one is asked for");
    u = parsed("independent-sm80-sm90.usage", "sm_80", &rc);
    expect(rc == 0 && u.registers == 223 && u.shared_bytes == 24576, "resources: ... and the one asked for");
    parsed("independent-sm80-sm90.usage", "sm_75", &rc);
    expect(rc == -1, "resources: an architecture the object lacks: none");
    resource_use none;
    expect(grader_resources_parse("nvcc fatal: no input files\n", NULL, &none) == -1, "resources: text without a kernel: none");
    resource_use st;
    rc = grader_resources_parse("arch = sm_90\nResource usage:\n Function _ZL12tiled_staticPKfS0_Pfi:\n"
                                "  REG:40 STACK:0 SHARED:8192 LOCAL:0\n", NULL, &st);
    expect(rc == 0 && !strcmp(st.kernel, "tiled_static") && st.registers == 40,
           "resources: a static __global__ kernel (_ZL...) is named as written");
}

static void test_warps(void)
{
    expect(grader_resources_warps(217) == 9 && grader_resources_warps(219) == 9 && grader_resources_warps(255) == 8 &&
               grader_resources_warps(128) == 16 && grader_resources_warps(168) == 12 && grader_resources_warps(100) == 19 && grader_resources_warps(16) == 64,
           "resources: warps an SM's registers hold (allocated 8 a thread at a time, 64 at most)");
}

/* cuobjdump -sass lines, as nvdisasm writes them */
#define I(addr, text) "        /*" addr "*/                   " text " ;      /* 0x000fe20000000800 */\n" \
                      "                                                       /* 0x000fe20000000800 */\n"

static void test_overlap(void)
{
    const char *arch90 = "\nFatbin elf code:\n================\narch = sm_90\n";
    const char *arch80 = "\nFatbin elf code:\n================\narch = sm_80\n";
    char sass[4096];
    snprintf(sass, sizeof sass, "%s\t\tFunction : _Z1kPKfS0_Pfi\n" I("0000", "LDC R1, c[0x0][0x28]")
             I("0010", "@!P1 LDG.E R7, desc[UR10][R10.64]") I("0020", "LDG.E.128 R8, desc[UR10][R2.64]")
             I("00a0", "FFMA R99, R160, R88, R99") I("1100", "FFMA R98, R160.reuse, R89, R98")
             I("1a20", "FFMA R97, R160.reuse, R90, R97") I("1a30", "STS [R20], R5")
             I("1a40", "LDG.E R7, desc[UR10][R10.64]") I("1a50", "STS.128 [R20+0x200], R8")
             "%s" I("0010", "LDG.E R7, desc[UR10][R10.64]") I("0020", "FFMA R1, R2, R3, R1")
             I("0030", "STS [R20], R5"), arch90, arch80);
    expect(grader_resources_overlap(sass, NULL) == 3, "resources: the most FFMA between a global load and the shared store after it");
    expect(grader_resources_overlap(sass, "sm_90") == 3 && grader_resources_overlap(sass, "sm_80") == 1,
           "resources: ... in one architecture's code");
    char async[1024];
    snprintf(async, sizeof async, "%s" I("0010", "LDGSTS.E.BYPASS.128 [R5], desc[UR8][R2.64]")
             I("0020", "LDG.E R7, desc[UR10][R10.64]") I("0030", "STS [R20], R5"), arch90);
    expect(grader_resources_overlap(async, NULL) == -1, "resources: copies by cp.async (LDGSTS): not counted");
    expect(grader_resources_overlap("arch = sm_90\n" I("0000", "FFMA R1, R2, R3, R1"), NULL) == -1,
           "resources: no global load stored to shared memory: not counted");
}

static resource_use use(int registers, int local, int overlap)
{
    return (resource_use){.arch = "sm_90", .kernel = "sgemm", .kernels = 1, .registers = registers,
                          .local_bytes = local, .spill_bytes = -1, .shared_bytes = 25600, .overlap = overlap};
}

static void test_sentence(void)
{
    char out[REASON_LEN];
    resource_use ref = use(219, 0, 1024), spills = use(128, 664, 1024), waits = use(217, 0, 0), fits = use(255, 0, 1024);
    grader_resources_sentence(out, sizeof out, "08_warptiling", &spills, &ref);
    expect(strstr(out, "128 registers a thread, 664 bytes of local memory a thread") &&
               strstr(out, "hold 16 warps") && strstr(out, "219 registers, no local memory") &&
               strstr(out, "9 warps") && strstr(out, "`make ptxas EX=08`") && !strstr(out, "waited for"),
           "resources: a kernel that spills is told so, beside the reference's registers");
    grader_resources_sentence(out, sizeof out, "08_warptiling", &waits, &ref);
    expect(strstr(out, "does 0 multiply-adds") && strstr(out, "the reference does 1024 there") &&
               !strstr(out, "local memory a thread") && !strstr(out, "make profile"),
           "resources: a kernel that stores each tile as soon as it loads it is told that it waits for every load");
    grader_resources_sentence(out, sizeof out, "08_warptiling", &fits, &ref);
    expect(strstr(out, "255 registers a thread, no local memory") && strstr(out, "hold 8 warps at most (1 block of") &&
               !strstr(out, "With fewer warps") && strstr(out, "fits as well"),
           "resources: 8 warps against the reference's 9 is one block of 256 threads either way: not called fewer");
    resource_use two = use(128, 0, 1024);
    grader_resources_sentence(out, sizeof out, "08_warptiling", &fits, &two);
    expect(strstr(out, "With fewer warps") && strstr(out, "16 warps"),
           "resources: fewer blocks' worth of warps than the reference's: said, with what would give more");
    fits.registers = 219;
    grader_resources_sentence(out, sizeof out, "08_warptiling", &fits, &ref);
    expect(strstr(out, "fits as well as the reference") && strstr(out, "`make profile EX=08`"),
           "resources: resources like the reference's: where to look instead");
    resource_use worst = use(255, 99999, 0);
    snprintf(worst.kernel, sizeof worst.kernel, "%0120d", 7);
    grader_resources_sentence(out, sizeof out, "08_warptiling", &worst, &ref);
    expect(strlen(out) < REASON_LEN - 1, "resources: the longest sentence fits in one advice line");
}

/* the grader's own call: a stand-in cuobjdump on PATH, a table of rows */
static void test_explain(const char *dir)
{
    char path[512], table[512];
    snprintf(path, sizeof path, "%s/bin", dir);
    mkdir(dir, 0755);
    mkdir(path, 0755);
    snprintf(path, sizeof path, "%s/bin/cuobjdump", dir);
    FILE *f = fopen(path, "w");
    fprintf(f, "#!/bin/sh\ncase $1 in --dump-resource-usage) cat tests/grader/resources/min-blocks-2-sm90.usage ;;\n"
               "*) printf 'arch = sm_90\\n" I("0010", "LDG.E R7, [R10.64]") I("0030", "STS [R20], R5") "' ;; esac\n");
    fclose(f);
    chmod(path, 0755);
    snprintf(table, sizeof table, "%s/grader", dir);
    mkdir(table, 0755);
    snprintf(table, sizeof table, "%s/grader/resources.tsv", dir);
    f = fopen(table, "w");
    fprintf(f, "# a comment\n08_warptiling\tpass\tsm_80\tk\t249\t0\t24576\t2\n"
               "08_warptiling\tpass\tsm_90\tmatmul_warptile\t219\t0\t25600\t1024\n");
    fclose(f);
    char saved[8192];
    snprintf(saved, sizeof saved, "%s", getenv("PATH") ? getenv("PATH") : "");
    snprintf(path, sizeof path, "%s/bin:%s", dir, saved);
    setenv("PATH", path, 1);
    target t = {.stage = "08_warptiling", .object = "kernel.o"};
    stage_result s = {.correct = 1, .ntiers = 1};
    snprintf(s.stage, sizeof s.stage, "08_warptiling");
    s.tiers[0] = (tier_result){.name = "pass", .graded = 1, .have_value = 1, .points = 0, .max = 4};
    grader_explain_resources(&s, &t, dir);
    expect(s.nadvice == 1 && strstr(s.advice[0], "matmul_warptile (sm_90) 128 registers a thread, 664 bytes") &&
               strstr(s.advice[0], "219 registers") && strstr(s.advice[0], "does 0 multiply-adds"),
           "resources: a missed tier: the object's registers, spills and loads beside the table's row for its architecture");
    s.nadvice = 0;
    s.tiers[0].points = 4;
    grader_explain_resources(&s, &t, dir);
    expect(s.nadvice == 0, "resources: every tier met: nothing said");
    s.tiers[0].points = 0;
    snprintf(s.stage, sizeof s.stage, "06_coarsening");
    grader_explain_resources(&s, &t, dir);
    expect(s.nadvice == 0 && !s.note[0], "resources: a stage the table has no row of: nothing said, cuobjdump not run");
    snprintf(s.stage, sizeof s.stage, "08_warptiling");
    setenv("PATH", "/nonexistent", 1);
    unsetenv("NVCC");
    grader_explain_resources(&s, &t, dir);
    expect(s.nadvice == 0 && strstr(s.note, "cuobjdump is not here"),
           "resources: no cuobjdump: a note says so, and the grade goes on");
    setenv("PATH", saved, 1);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: resources-check DIR\n");
        return 2;
    }
    test_parse();
    test_warps();
    test_overlap();
    test_sentence();
    test_explain(argv[1]);
    return failures != 0;
}
