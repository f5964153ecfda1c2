/*
 * check.c: host tests of the grader's parts (the tests query records with
 * tools/json.c, built beside it by tests/grader/programs.sh).
 *
 *   build/tests/grader/check unit        the tests; prints "ok NAME" or "FAIL NAME"
 *
 * Run from the root of the lab (it reads grader/rubric.tsv and stages.tsv).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "grader.h"
#include "grading.h"

static int failures;

/* One named check: "ok NAME" or "FAIL NAME". */
static void expect(int cond, const char *name)
{
    printf("%s %s\n", cond ? "ok" : "FAIL", name);
    failures += !cond;
}

static int parses(const char *text)
{
    char err[256];
    jvalue *v = lab_json_parse(text, strlen(text), err, sizeof err);
    lab_json_free(v);
    return v != NULL;
}

static void test_json(void)
{
    expect(parses("{\"a\": [1, -2.5e3, true, false, null, \"x\\u00e9\\ud83d\\ude00\"]}"), "json: valid record parses");
    expect(!parses("{\"a\": 1,}"), "json: trailing comma refused");
    expect(!parses("{\"a\": 1} x"), "json: text after the value refused");
    expect(!parses("{\"a\": 1, \"a\": 2}"), "json: duplicate key refused");
    expect(!parses("{\"a\": 01}"), "json: leading zero refused");
    expect(!parses("{\"a\": \"\\ud800\"}"), "json: lone surrogate refused");
    expect(!parses("{\"a\": \"\\u0000\"}"), "json: NUL in a string refused");
    expect(!parses("{\"a\": \"tab\there\"}"), "json: raw control character refused");
    expect(!parses("{\"a\": \"unterminated"), "json: unterminated string refused");
    expect(!parses("{\"a\": NaN}"), "json: NaN refused");
    expect(!parses(""), "json: empty input refused");

    char *deep = malloc(200001);
    memset(deep, '[', 100000);
    memset(deep + 100000, ']', 100000);
    deep[200000] = 0;
    char err[256];
    jvalue *v = lab_json_parse(deep, 200000, err, sizeof err);
    expect(!v && strstr(err, "nested deeper"), "json: 100000 levels of nesting refused, no crash");
    lab_json_free(v);
    free(deep);

    const char *text = "{\"timing\": {\"pct_of_reference\": 16.5, \"kernels\": [{\"name\": \"student\"}]},"
                       " \"correct\": true, \"big\": 1e999}";
    v = lab_json_parse(text, strlen(text), err, sizeof err);
    double x = 0;
    expect(v && lab_json_number_at(v, "timing.pct_of_reference", &x) == 0 && x == 16.5, "json: dotted path to a number");
    expect(v && lab_json_string_at(v, "timing.kernels.0.name") && !strcmp(lab_json_string_at(v, "timing.kernels.0.name"), "student"),
           "json: path through an array");
    expect(v && lab_json_bool_at(v, "correct") == 1 && lab_json_bool_at(v, "missing") == -1, "json: booleans");
    expect(v && lab_json_number_at(v, "big", &x) == -1, "json: an infinite number is not a number");
    expect(v && !lab_json_path(v, "timing.kernels.7.name"), "json: index past the end is absent");
    lab_json_free(v);
}

static void test_rubric(void)
{
    rubric r;
    char err[512];
    int rc = grader_rubric_read("grader/rubric.tsv", &r, err, sizeof err);
    expect(rc == 0, "rubric: grader/rubric.tsv reads");
    if (rc)
        printf("      %s\n", err);
    static const char *const stages[] = {"01_naive", "02_temp_accumulator", "03_tiled", "04_transpose",
                                         "05_bank_conflicts", "06_coarsening", "07_reduction"};
    int all = 1;
    for (size_t i = 0; i < sizeof stages / sizeof stages[0]; i++) {
        const stage_rubric *s = grader_rubric_stage(&r, stages[i]);
        double th;
        int is_default;
        all &= s && s->ntiers >= 1 && grader_rubric_threshold(&s->tiers[0], "Any GPU", &th, &is_default) == 0 &&
               is_default;
    }
    expect(all, "rubric: all seven stages have tiers with default thresholds");
    stage_info st[MAX_STAGES];
    int n = grader_stages_all(st, MAX_STAGES);
    int known = n > 0;
    for (int i = 0; i < n; i++)
        known &= grader_rubric_stage(&r, st[i].dir) != NULL;
    expect(known, "rubric: every stage of stages.tsv has a rubric entry");
    expect(grader_rubric_margin(&r, "06_coarsening", "pass") > 0 &&
               grader_rubric_margin(&r, "06_coarsening", "stretch") > grader_rubric_margin(&r, "06_coarsening", "pass"),
           "rubric: margins for pass and stretch");
    expect(grader_rubric_margin(&r, "08_warptiling", "pass") > grader_rubric_margin(&r, "06_coarsening", "pass") &&
               grader_rubric_margin(&r, "no_such_stage", "pass") == grader_rubric_margin(&r, "06_coarsening", "pass") &&
               grader_rubric_margin(&r, "08_warptiling", "no_such_tier") == 0,
           "rubric: a stage's own margin wins over its tier's; other stages keep the tier's");

    /* make calibrate's writer: replaces this GPU's rows, keeps the rest */
    char path[] = "/tmp/rubric-test-XXXXXX";
    int fd = mkstemp(path);
    FILE *f = fdopen(fd, "w");
    fputs("# a comment kept\nstage\ts1\t6\n"
          "tier\ts1\tpass\t3\ttiming.pct_of_reference\t>=\t%\tGo faster.\n"
          "threshold\ts1\tpass\tdefault\t10\nthreshold\ts1\tpass\tGPU A\t12\n", f);
    fclose(f);
    new_threshold t = {"s1", "pass", 20};
    rc = grader_rubric_write_thresholds(path, "GPU A", &t, 1, "test", err, sizeof err);
    rc |= grader_rubric_write_thresholds(path, "GPU A", &t, 1, "test again", err, sizeof err);
    rubric r2;
    rc |= grader_rubric_read(path, &r2, err, sizeof err);
    double th = 0;
    int is_default = 1;
    const stage_rubric *s1 = grader_rubric_stage(&r2, "s1");
    expect(rc == 0 && s1 && grader_rubric_threshold(&s1->tiers[0], "GPU A", &th, &is_default) == 0 && th == 20 &&
               !is_default && s1->tiers[0].nth == 2,
           "rubric: calibration replaces a GPU's threshold and keeps the default");
    f = fopen(path, "r");
    char buf[2048] = "";
    size_t len = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
    buf[len] = 0;
    if (f)
        fclose(f);
    expect(strstr(buf, "# a comment kept") && strstr(buf, "test again") && !strstr(buf, ": test\n"),
           "rubric: calibration keeps comments and replaces its own note");
    unlink(path);

    f = fopen(path, "w");
    fputs("threshold\ts1\tpass\tdefault\t10\n", f);
    fclose(f);
    expect(grader_rubric_read(path, &r2, err, sizeof err) == -1 && strstr(err, ":1:"),
           "rubric: an error names the file and line");
    unlink(path);

    /* what is about one stage comes from stages.tsv: a rubric of one
     * setting and one GPU's row still knows the tiers, defaults and bonus */
    f = fopen(path, "w");
    fputs("setting\tlimit_s\t5\nthreshold\t01_naive\tpass\tGPU A\t9\n", f);
    fclose(f);
    rc = grader_rubric_read(path, &r2, err, sizeof err);
    const stage_rubric *s01 = grader_rubric_stage(&r2, "01_naive"), *s08 = grader_rubric_stage(&r2, "08_warptiling");
    int pass_ok = rc == 0 && s01 && s01->ntiers == 2 &&
                  grader_rubric_threshold(&s01->tiers[0], "GPU A", &th, &is_default) == 0 && th == 9 && !is_default;
    expect(pass_ok && grader_rubric_threshold(&s01->tiers[1], "GPU A", &th, &is_default) == 0 && is_default && s08 &&
               s08->bonus && r2.limit_s == 5,
           "rubric: tiers, default thresholds and bonus come from stages.tsv; the file adds a GPU's rows");
    unlink(path);
}

/* the reference lines of stages.tsv against the rubric, and the programs make
 * calibrate measures with it. */
static void test_references(void)
{
    static rubric r;
    char err[512];
    if (grader_rubric_read("grader/rubric.tsv", &r, err, sizeof err))
        return; /* test_rubric says why */
    /* every tier has a reference kernel (stages.tsv) whose source
     * is here, and every reference belongs to a tier of the rubric */
    static tier_reference refs[MAX_REFERENCES];
    int nrefs = grader_references_read(".", refs, MAX_REFERENCES, err, sizeof err);
    int covered = nrefs > 0;
    for (int i = 0; i < r.nstages && covered; i++)
        for (int k = 0; k < r.stages[i].ntiers; k++)
            covered &= grader_reference_find(refs, nrefs, r.stages[i].stage, r.stages[i].tiers[k].name) != NULL;
    expect(covered, "references: every tier of the rubric has a reference kernel");
    int sound = nrefs > 0;
    for (int i = 0; i < nrefs; i++) {
        const stage_rubric *sr = grader_rubric_stage(&r, refs[i].stage);
        int tier_known = 0;
        for (int k = 0; sr && k < sr->ntiers; k++)
            tier_known |= !strcmp(sr->tiers[k].name, refs[i].tier);
        char source[2 * NAME_LEN];
        snprintf(source, sizeof source, "%ss/%s/kernel.cu", refs[i].source, refs[i].stage);
        sound &= tier_known && access(source, R_OK) == 0;
    }
    expect(sound, "references: each names a tier of the rubric and a kernel.cu that is here");
    expect(grader_references_read("no/such/lab", refs, MAX_REFERENCES, err, sizeof err) == 0,
           "references: none where their kernel.cu files are absent (a student release)");

    /* calibrating 02 measures its tiers' references and 01's last: the
     * solution with -DBLOCK=8 in a folder of its tier, a solution without
     * flags as the stage's own build */
    static target t[MAX_TARGETS];
    memset(t, 0, 2 * sizeof t[0]);
    strcpy(t[0].stage, "01_naive");
    strcpy(t[1].stage, "02_temp_accumulator");
    strcpy(t[0].family, "matmul");
    strcpy(t[1].family, "matmul");
    t[0].compare_only = 1;
    int n = grader_calibration_targets(t, 2, MAX_TARGETS, refs, nrefs, &r, "/lab", 1);
    expect(n == 5 && !strcmp(t[2].stage, "01_naive") && !strcmp(t[2].tier, "stretch") &&
               !strcmp(t[2].binary, "/lab/build/01_naive/solution-judge") &&
               !strcmp(t[3].tier, "pass") && !strcmp(t[3].binary, "/lab/build/02_temp_accumulator/pass/solution-judge") &&
               !strcmp(t[3].runner, "/lab/build/02_temp_accumulator/pass/solution-runner") &&
               !strcmp(t[4].object, "/lab/build/02_temp_accumulator/stretch/solution.o") &&
               !strcmp(t[4].source, "/lab/solutions/02_temp_accumulator/kernel.cu"),
           "calibrate: the programs it measures are each tier's reference, built in its tier's folder");
    expect(!strcmp(t[2].variant, "solution") && !t[2].knob[0] && !strcmp(t[3].variant, "solution") &&
               !strcmp(t[3].knob, "pass reference"),
           "a reference's identity for the judge's worker: its variant, and its build's knob text (build/references.mk)");
    expect(grader_calibration_targets(t, 2, 3, refs, nrefs, &r, "/lab", 1) == -1, "calibrate: no room is said, not overrun");
}

static void test_policy(void)
{
    policy p;
    char err[512];
    expect(grader_policy_read("grader/allowed-symbols.txt", &p, err, sizeof err) == 0, "policy: allowed-symbols.txt reads");
    struct {
        const char *name;
        int defined, denied;
    } cases[] = {
        {"__cudaLaunchKernel", 0, 0},      {"cudaLaunchKernel", 0, 0},
        {"cudaFuncSetAttribute", 0, 0},    {"cudaDeviceGetAttribute", 0, 0},
        {"cudaMemsetAsync", 0, 0},         {"printf", 0, 0},
        {"cublasSgemm_v2", 0, 1},          {"cudaStreamCreate", 0, 1},
        {"cudaStreamCreateWithFlags", 0, 1}, {"cudaGraphLaunch", 0, 1},
        {"cudaMalloc", 0, 1},              {"cudaFree", 0, 1},
        {"cudaMemcpy", 0, 1},              {"cudaDeviceSynchronize", 0, 1},
        {"cudaDeviceReset", 0, 1},         {"cuLaunchKernel", 0, 1},
        {"pthread_create", 0, 1},          {"_ZNSt6threadC1IRFvvEJEvEEOT_DpOT0_", 0, 1},
        {"write", 0, 1},                   {"fopen", 0, 1},
        {"dup2", 0, 1},                    {"system", 0, 1},
        {"dlopen", 0, 1},                  {"_exit", 0, 1},
        {"syscall", 0, 1},                 {"cudaEventRecord", 1, 1},
        {"cudaMemcpy", 1, 1},              {"lab_record_end", 1, 1},
        {"_Znwm", 1, 1},
    };
    int all = 1;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const policy_rule *r = grader_policy_match(&p, cases[i].name, cases[i].defined);
        int denied = !r || r->deny;
        if (cases[i].defined && !r)
            denied = 0;
        if (denied != cases[i].denied) {
            printf("      %s %s: expected %s\n", cases[i].defined ? "defining" : "using", cases[i].name,
                   cases[i].denied ? "refused" : "allowed");
            all = 0;
        }
    }
    expect(all, "policy: the rules allow a launcher's calls and refuse the rest");
    expect(!grader_policy_match(&p, "someUnknownFunction", 0), "policy: an unknown symbol matches no rule (refused)");
}

/* library_check on a list of headers as nvcc -MD writes it: the rule's
 * files are the lines of headers, after those every nvcc list has. */
static int library_of(const char *headers, char *msg, size_t len)
{
    target t = {.stage = "07_reduction", .lesson = "the lesson", .object = "build/tests/grader/lib-unit.o",
                .source = "tests/grader/library/cg_tiles.cu"};
    FILE *f = fopen("build/tests/grader/lib-unit.d", "w");
    if (!f)
        return -2;
    fprintf(f, "build/tests/grader/lib-unit.o : tests/grader/library/cg_tiles.cu \\\n    /usr/include/stdlib.h");
    for (const char *h = headers; *h; h += strcspn(h, "\n") + (h[strcspn(h, "\n")] != 0))
        fprintf(f, " \\\n    %.*s", (int)strcspn(h, "\n"), h);
    fprintf(f, "\n\n/usr/include/stdlib.h:\n\n/opt/thrust/thrust/reduce.h:\n");
    fclose(f);
    return grader_library_check(&t, msg, len);
}

static void test_library(void)
{
    char msg[1024];
    struct {
        const char *headers, *said; /* said: NULL when allowed */
    } cases[] = {
        {"/x/cccl/cub/cub.cuh\n/x/cccl/thrust/reduce.h",
         "includes CUB (cub/cub.cuh): stage 07 asks you to write its kernels yourself (the lesson); "
         "cooperative groups' tiles, syncs and shuffles are allowed"},
        {"/x/include/cooperative_groups/details/../reduce.h", "cg::reduce (cooperative_groups/reduce.h)"},
        {"exercises/07_reduction/../../../../x/cccl/cub/block/block_scan.cuh", "CUB's block scan (cub/block/"},
        {"/x/my\\ cccl/cub/device/device_scan.cuh", "CUB's device scan (cub/device/device_scan.cuh)"},
        {"/x/cccl/cuda/std/__numeric/inclusive_scan.h", "libcu++'s cuda::std::reduce"},
        {"/opt/cutlass/include/cute/tensor.hpp", "includes CuTe (cute/tensor.hpp)"},
        {"/opt/cutlass/include/cutlass/gemm/device/gemm.h", "includes CUTLASS (cutlass/gemm/device/gemm.h)"},
        {"/x/include/cooperative_groups.h\n/x/include/cooperative_groups/memcpy_async.h\n"
         "/x/include/cooperative_groups/details/functional.h\n/x/cccl/cuda/std/__algorithm/min.h\n"
         "/x/cccl/cuda/std/__numeric/midpoint.h\n/x/cccl/cuda/__warp/warp_shuffle.h\n/x/cuda/cub.h\n/x/mycub/a.h",
         NULL},
    };
    int all = 1;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int rc = library_of(cases[i].headers, msg, sizeof msg);
        if (cases[i].said ? rc != 1 || !strstr(msg, cases[i].said) : rc != 0) {
            printf("      case %zu: %d %s\n", i, rc, msg);
            all = 0;
        }
    }
    expect(all, "library: refused headers named by the library, allowed ones pass (first rule only)");
    expect(library_of("", msg, sizeof msg) == 0, "library: a list with nothing refused passes");
    FILE *f = fopen("build/tests/grader/lib-unit.d", "w");
    if (f) {
        fputs("build/tests/grader/lib-unit.o: tests/grader/library/cg_tiles.cu /x/cccl/cub/cub.cuh\n", f);
        fclose(f);
    }
    target t = {.stage = "07_reduction", .object = "build/tests/grader/lib-unit.o",
                .source = "tests/grader/library/cg_tiles.cu"};
    expect(grader_library_check(&t, msg, sizeof msg) == -1 && strstr(msg, "names no system header"),
           "library: a list without system headers (-MMD) cannot be trusted");
}

static void test_text(void)
{
    const char in[] = "ok \x1b[31mred\r\n\xff\xc3\xa9\xed\xa0\x80 end\x01";
    char out[64];
    grader_text_clean(in, sizeof in - 1, out, sizeof out);
    expect(!strcmp(out, "ok ?[31mred\n?\xc3\xa9??? end?"), "report: output is cleaned for JSON and terminals");
    grader_text_clean("abcdef", 6, out, 4);
    expect(!strcmp(out, "abc"), "report: cleaning stops at the buffer's end");
}

/* Output shaped like compute-sanitizer's (memcheck and racecheck). */
static void test_sanitizer(void)
{
    char f[REASON_LEN];
    const char *memcheck =
        "fake driver output\n"
        "========= COMPUTE-SANITIZER\n"
        "========= Invalid __global__ write of size 4 bytes\n"
        "=========     at matmul_past_end(const float *, const float *, float *, int)+0x2f0 in "
        "/lab/build/grade-src/exercises/03_tiled/kernel.cu:22\n"
        "=========     by thread (0,1,0) in block (0,1,0)\n"
        "=========     Address 0x7f0000001000 is out of bounds\n"
        "=========     Saved host backtrace up to driver entry point at kernel launch time\n"
        "=========         Host Frame: main in /lab/common/matmul_family.cu:300\n"
        "=========\n"
        "========= ERROR SUMMARY: 17 errors\n";
    expect(grader_sanitizer_finding(memcheck, f, sizeof f) == 1 &&
               !strcmp(f, "Invalid __global__ write of size 4 bytes (exercises/03_tiled/kernel.cu:22)"),
           "sanitizer: memcheck's error and its line in kernel.cu");
    const char *racecheck =
        "========= COMPUTE-SANITIZER\n"
        "========= Error: Race reported between Write access at matmul_tiled(const float *, const float *, "
        "float *, int)+0x1c0 in /x/exercises/03_tiled/kernel.cu:25\n"
        "=========     and Read access at matmul_tiled(const float *, const float *, float *, int)+0x2e0 in "
        "/x/exercises/03_tiled/kernel.cu:30:matmul_tiled(const float *) [6144 hazards]\n"
        "=========\n"
        "========= RACECHECK SUMMARY: 1 hazard displayed (1 error, 0 warnings)\n";
    expect(grader_sanitizer_finding(racecheck, f, sizeof f) == 1 &&
               !strcmp(f, "Error: Race reported between Write access (exercises/03_tiled/kernel.cu:25, "
                          "exercises/03_tiled/kernel.cu:30)"),
           "sanitizer: racecheck's hazard and both lines");
    const char *library =
        "========= Error: Race reported between Write access at sgemm_kernel+0x1c0\n"
        "=========     and Read access at sgemm_kernel+0x2e0 [12 hazards]\n"
        "========= RACECHECK SUMMARY: 1 hazard displayed (1 error, 0 warnings)\n";
    expect(grader_sanitizer_finding(library, f, sizeof f) == 2 && strstr(f, "Race reported"),
           "sanitizer: an error outside kernel.cu is noted, not scored");
    const char *clean = "========= COMPUTE-SANITIZER\nall results match.\n========= ERROR SUMMARY: 0 errors\n";
    const char *warning = "========= Warning: Race reported between ... in /x/exercises/03_tiled/kernel.cu:25\n"
                          "========= RACECHECK SUMMARY: 1 hazard displayed (0 errors, 1 warning)\n";
    expect(grader_sanitizer_finding(clean, f, sizeof f) == 0 && grader_sanitizer_finding(warning, f, sizeof f) == 0,
           "sanitizer: a clean run and a warning cost nothing");
}

static void test_record(void)
{
    run_result r;
    memset(&r, 0, sizeof r);
    r.started = r.exited = 1;
    char why[512];
    static char text[] = "{\"stage\": \"s1\", \"status\": \"ok\", \"exit_status\": 0, \"correct\": true}";
    r.record = text;
    r.record_len = strlen(text);
    jvalue *v = grader_record_validate(&r, "s1", why, sizeof why);
    expect(v != NULL, "record: an honest record is believed");
    lab_json_free(v);
    r.status = 1;
    v = grader_record_validate(&r, "s1", why, sizeof why);
    expect(!v && strstr(why, "exit status 1"), "record: exit status must agree with the record");
    lab_json_free(v);
    r.status = 0;
    v = grader_record_validate(&r, "s2", why, sizeof why);
    expect(!v && strstr(why, "for stage 's1'"), "record: the record must name the stage");
    lab_json_free(v);
    r.exited = 0;
    r.signal = 11;
    v = grader_record_validate(&r, "s1", why, sizeof why);
    expect(!v && strstr(why, "SIGSEGV"), "record: a crash beats a record");
    lab_json_free(v);
}

/* progress_read on text, not cut. */
static run_progress progress_of(const char *text, int cut)
{
    run_progress p;
    grader_progress_read(text, strlen(text), cut, &p);
    return p;
}

static void test_progress(void)
{
    run_progress p = progress_of("", 0);
    expect(p.lines == 0 && !p.checks_passed && !p.checking && !p.timing, "progress: nothing sent");
    p = progress_of("check n=1\ncheck n=1025\n", 0);
    expect(p.lines == 2 && p.checking && !p.checks_passed && !strcmp(p.size, "n=1025"),
           "progress: the last check names its size");
    p = progress_of("check n=17\nchecks passed\ntiming 8192x4096 your kernel, first call 5234.5 ms\n", 0);
    expect(p.timing && p.checks_passed && !strcmp(p.size, "8192x4096") && p.first_call_ms == 5234.5,
           "progress: timing, its size and the first call's time");
    p = progress_of("checks passed\ntiming n=4096 your kernel\ndone\n", 0);
    expect(p.done && p.timing && !strcmp(p.last, "timing n=4096 your kernel"),
           "progress: done keeps the phase it ended in");
    p = progress_of("check n=17\nchecks passed\ntiming n=4096 your kernel\ncheck n=4096 (the last timed call)\n", 0);
    expect(p.checking && p.checks_passed && !p.timing, "progress: the last timed call's check is a check");
    p = progress_of("check n=17\ntiming n=40", 0);
    expect(p.lines == 1 && p.checking && !p.checks_passed, "progress: a line cut short by a kill is no phase");
    p = progress_of("ing n=4096 your kernel\ncheck n=17\n", 1);
    expect(p.lines == 1 && !p.checks_passed, "progress: kept bytes that begin inside a line skip it");
    p = progress_of("check n=17\ntiming n=1 \033[2J\377\n", 0);
    expect(p.timing && !strchr(p.last, '\033') && !strchr(p.last, '\377'),
           "progress: control characters and bad UTF-8 cleaned");
}

/* The judge's worker, grader/run.c's side, with the stand-in driver's
 * (fake_driver.c, LAB_TEST_FAKE): stages in one process until one ends it
 * (an answer that ends it, a death, the time limit), each stage's output,
 * record and progress lines its own. */
static int worker_stage(const char *mode, double limit_s, run_result *r, int *pid)
{
    char *argv[] = {getenv("LAB_TEST_FAKE"), "--mode", (char *)mode, NULL};
    const char *identity[] = {"--stage", "s1", "--variant", "v", NULL};
    grader_run_judged(argv, identity, limit_s, OUTPUT_TAIL, r);
    int n = 0;
    *pid = 0;
    if (r->record)
        sscanf(r->record, "{\"worker\": %d, \"stage\": %d}", pid, &n);
    return n;
}

static void test_worker(void)
{
    if (!getenv("LAB_TEST_FAKE")) {
        expect(0, "worker: LAB_TEST_FAKE names the stand-in driver");
        return;
    }
    run_result r[6];
    int pid[6], n[6];
    const char *mode[6] = {"good", "good", "end", "good", "die", "hang"};
    for (int i = 0; i < 6; i++)
        n[i] = worker_stage(mode[i], i == 5 ? 1.0 : 10.0, &r[i], &pid[i]);
    expect(r[0].exited && r[0].status == 0 && n[0] == 1 && r[1].exited && r[1].status == 0 && n[1] == 2 &&
               pid[0] > 0 && pid[1] == pid[0],
           "worker: two stages in one worker, each with its status and record");
    expect(r[1].tail && strstr(r[1].tail, "--mode good --stage s1 --variant v") && r[1].progress &&
               !strcmp(r[1].progress, "checks passed\n") && !strstr(r[1].tail, "stage 1 "),
           "worker: a stage's output and progress lines are its own, its identity after its command line");
    expect(r[2].exited && r[2].status == 3 && n[2] == 3 && n[3] == 1 && pid[3] != pid[0],
           "worker: a stage that ends the worker gives its status; the next starts a new one");
    expect(r[4].exited && r[4].status == 5 && n[4] == 2 && pid[4] == pid[3],
           "worker: a worker that dies in a stage gives its exit status as the stage's");
    expect(r[5].timed_out && n[5] == 1 && pid[5] != pid[3] && r[5].seconds < 5,
           "worker: a stage past its limit is stopped with its worker");
    for (int i = 0; i < 6; i++)
        grader_run_result_free(&r[i]);
    grader_worker_end();
}

int main(int argc, char **argv)
{
    if (argc != 2 || strcmp(argv[1], "unit")) {
        fprintf(stderr, "usage: check unit\n");
        return 2;
    }
    test_json();
    test_rubric();
    test_references();
    test_policy();
    test_library();
    test_text();
    test_sanitizer();
    test_record();
    test_progress();
    test_worker();
    return failures != 0;
}
