/*
 * grade.c: make grade and make calibrate.
 *
 *   build/grader/grade [STAGE...]          every stage, or those named (03, 03_tiled)
 *   build/grader/grade --sanitize          also compute-sanitizer at small sizes
 *   build/grader/grade --src DIR           grade DIR/<stage>/kernel.cu with this lab's harness
 *   build/grader/grade --calibrate         instructors: thresholds for this GPU
 *   build/grader/grade --help
 *
 * One stage after another: build (all stages at once, make -j), check the
 * object against the symbol policy, run the program in its own process with
 * a time limit, read its record, score it. The table, the advice and the
 * reports come at the end. Exit status 0 whenever grading ran.
 */
#include "grader.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static const char *USAGE =
    "usage: grade [options] [STAGE...]\n"
    "Grades exercises/NN_*/kernel.cu: builds each with the lab's harness, runs it in its\n"
    "own process with a time limit, and scores correctness and speed (grader/rubric.tsv).\n"
    "  STAGE            03 or 03_tiled: grade only these (default: every stage in stages.tsv)\n"
    "  --seed S         seed of the inputs (default: a new one, printed)\n"
    "  --sanitize       also run compute-sanitizer memcheck and racecheck at small sizes\n"
    "  --src DIR        grade DIR/<stage>/kernel.cu instead of exercises/ (a submission)\n"
    "  --out DIR        write grade.json and results.json there (default: the lab)\n"
    "  --lab DIR        the lab (default: .)\n"
    "  --rubric FILE    default: grader/rubric.tsv\n"
    "  --policy FILE    default: grader/allowed-symbols.txt\n"
    "  --jobs N         parallel build jobs (default: one per CPU)\n"
    "  --calibrate      instructors: run the solutions and write this GPU's thresholds\n"
    "  --runs N         with --calibrate: runs of each solution (default 3)\n"
    "  --program STAGE=BINARY[:OBJECT[:HEADER]]\n"
    "                   testing the grader: grade (or calibrate with) BINARY as STAGE,\n"
    "                   without building and without a GPU check; OBJECT goes through the\n"
    "                   symbol policy, with HEADER as the contract\n"
    "exit status: 0 graded (whatever the score), 1 a solution failed (--calibrate),\n"
    "             2 usage, 3 no GPU, 4 no build tools (nvcc, make, nm)\n";

typedef struct {
    char stage[NAME_LEN];
    char family[NAME_LEN];
    char binary[1024];
    char object[1024];
    char header[1024];
    char source[1024];  /* the kernel.cu the object is compiled from */
    int compare_only;   /* calibrate: measured for the comparison, not written */
} target;

typedef struct {
    const char *lab;
    const char *src;
    const char *out;
    const char *rubric_path;
    const char *policy_path;
    unsigned long long seed;
    int have_seed;
    int sanitize;
    int calibrate;
    int runs;
    int jobs;
    int program_mode;
    char *names[MAX_STAGES];
    int nnames;
    char *programs[MAX_STAGES];
    int nprograms;
} options;

static void on_signal(int sig)
{
    run_kill_current();
    signal(sig, SIG_DFL);
    raise(sig);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* What a student types to see a stage for themselves: make run EX=03,
 * with SEED=... when the inputs matter. */
static void run_command(const char *stage, const unsigned long long *seed, char *out, size_t len)
{
    size_t digits = strspn(stage, "0123456789");
    snprintf(out, len, "make run EX=%.*s", (int)(digits ? digits : strlen(stage)), stage);
    if (seed)
        appendf(out, len, " SEED=%llu", *seed);
}

/* =================================================================== GPU */

/* The first GPU's name when one is here (nvidia-smi -L, else the driver's
 * /proc entry); 0 when there is none. */
static int find_gpu(char *name, size_t len)
{
    name[0] = 0;
    if (have_program("nvidia-smi")) {
        char *argv[] = {"nvidia-smi", "-L", NULL};
        run_result r;
        run_program(argv, -1, 30, 64 << 10, &r);
        int found = 0;
        if (r.exited && r.status == 0 && r.tail) {
            char *line = strstr(r.tail, "GPU 0: ");
            if (line) {
                line += 7;
                size_t n = strcspn(line, "(\n");
                while (n > 0 && line[n - 1] == ' ')
                    n--;
                snprintf(name, len, "%.*s", (int)n, line);
                found = 1;
            }
        }
        run_result_free(&r);
        return found;
    }
    struct stat st;
    return stat("/proc/driver/nvidia/gpus", &st) == 0 && stat("/dev/nvidia0", &st) == 0;
}

/* ================================================================= build */

static int copy_file_if_different(const char *from, const char *to)
{
    FILE *a = fopen(from, "rb");
    if (!a)
        return -1;
    char *text = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&text, &len);
    char buf[65536];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, a)) > 0)
        fwrite(buf, 1, n, m);
    fclose(a);
    fclose(m);
    int same = 0;
    FILE *b = fopen(to, "rb");
    if (b) {
        char *old = malloc(len + 1);
        same = old && fread(old, 1, len + 1, b) == len && memcmp(old, text, len) == 0;
        free(old);
        fclose(b);
    }
    int rc = 0;
    if (!same) {
        FILE *w = fopen(to, "wb");
        rc = !w || fwrite(text, 1, len, w) != len;
        if (w && fclose(w))
            rc = 1;
    }
    free(text);
    return rc ? -1 : 0;
}

static int mkdirs(const char *path)
{
    char buf[PATH_MAX];
    snprintf(buf, sizeof buf, "%s", path);
    for (char *p = buf + 1; *p; p++)
        if (*p == '/') {
            *p = 0;
            if (mkdir(buf, 0755) && errno != EEXIST)
                return -1;
            *p = '/';
        }
    return mkdir(buf, 0755) && errno != EEXIST ? -1 : 0;
}

/* A link at lab/build/grade-src/name to lab/name, replacing what is there. */
static int link_into(const char *lab, const char *scratch, const char *name)
{
    char from[PATH_MAX], to[PATH_MAX];
    snprintf(from, sizeof from, "%s/%s", lab, name);
    snprintf(to, sizeof to, "%s/%s", scratch, name);
    unlink(to);
    return symlink(from, to);
}

/* For --src: a copy of the lab whose exercises/ holds the submitted
 * kernel.cu files and everything else links to this lab (the pristine
 * harness). Its build/common is this lab's, so the harness is built once.
 * Stages without a submitted kernel.cu are marked missing. */
static int make_scratch(const char *lab, const char *src, target *t, int n, int *missing,
                        char *scratch, size_t len)
{
    snprintf(scratch, len, "%s/build/grade-src", lab);
    char path[PATH_MAX], from[PATH_MAX];
    snprintf(path, sizeof path, "%s/build/common", lab);
    if (mkdirs(path) || mkdirs(scratch))
        return -1;
    static const char *const shared[] = {"Makefile", "stages.tsv", "common", "solutions", "tools", "grader"};
    for (size_t i = 0; i < sizeof shared / sizeof shared[0]; i++)
        if (link_into(lab, scratch, shared[i]))
            return -1;
    snprintf(path, sizeof path, "%s/build", scratch);
    if (mkdirs(path))
        return -1;
    if (link_into(lab, scratch, "build/common"))
        return -1;
    for (int i = 0; i < n; i++) {
        missing[i] = 0;
        snprintf(from, sizeof from, "%s/%s/kernel.cu", src, t[i].stage);
        if (access(from, R_OK))
            snprintf(from, sizeof from, "%s/exercises/%s/kernel.cu", src, t[i].stage);
        snprintf(path, sizeof path, "%s/exercises/%s", scratch, t[i].stage);
        if (mkdirs(path))
            return -1;
        snprintf(path, sizeof path, "%s/exercises/%s/kernel.cu", scratch, t[i].stage);
        if (access(from, R_OK)) {
            unlink(path);
            missing[i] = 1;
        } else if (copy_file_if_different(from, path)) {
            return -1;
        }
    }
    return 0;
}

/* Build the targets' binaries with one make -k -j: every stage that can be
 * built is, whatever the others do. The old binaries go first, so that one
 * that does not compile now cannot be graded from an earlier build. */
static void build(const char *dir, target *t, int n, int jobs, const char *variant, char **log,
                  double *seconds)
{
    char jobs_arg[32];
    snprintf(jobs_arg, sizeof jobs_arg, "-j%d", jobs);
    char *argv[MAX_STAGES + 8];
    int a = 0;
    argv[a++] = "make";
    argv[a++] = "-C";
    argv[a++] = (char *)dir;
    argv[a++] = "-k";
    argv[a++] = "-s";
    argv[a++] = "--no-print-directory";
    argv[a++] = jobs_arg;
    char rel[MAX_STAGES][NAME_LEN + 32];
    for (int i = 0; i < n; i++) {
        snprintf(rel[i], sizeof rel[i], "build/%s/%s", t[i].stage, variant);
        unlink(t[i].binary);
        argv[a++] = rel[i];
    }
    argv[a] = NULL;
    double t0 = now_s();
    run_result r;
    run_program(argv, -1, 1800, 1u << 20, &r);
    *seconds = now_s() - t0;
    *log = r.tail;
    r.tail = NULL;
    run_result_free(&r);
}

/* The compiler's complaint about one stage, from the build log: lines that
 * name the stage's files, errors first. */
static void build_errors(const char *log, const char *stage, char *first, size_t firstlen,
                         char *lines, size_t lineslen)
{
    char ex[NAME_LEN + 16], so[NAME_LEN + 16], bd[NAME_LEN + 16];
    snprintf(ex, sizeof ex, "exercises/%s/", stage);
    snprintf(so, sizeof so, "solutions/%s/", stage);
    snprintf(bd, sizeof bd, "build/%s/", stage);
    first[0] = lines[0] = 0;
    int shown = 0;
    for (int pass = 0; pass < 2 && !shown; pass++) {
        const char *p = log ? log : "";
        while (*p && shown < 8) {
            size_t n = strcspn(p, "\n");
            char line[1024];
            snprintf(line, sizeof line, "%.*s", (int)(n < 1023 ? n : 1023), p);
            int mine = strstr(line, ex) || strstr(line, so) || strstr(line, bd);
            int error = strstr(line, "error") || strstr(line, "undefined reference");
            if (mine && (error || pass == 1)) {
                if (!first[0])
                    text_clean(line, strlen(line), first, firstlen);
                appendf(lines, lineslen, "%s\n", line);
                shown++;
            }
            p += n + (p[n] == '\n');
        }
    }
    if (first[0])
        return;
    /* nothing names the stage: the harness itself, or make, failed; show
     * the end of the log */
    snprintf(first, firstlen, "the build failed (build/grade-build.log has all of it)");
    const char *p = log ? log + strlen(log) : "";
    for (int k = 0; k < 7 && log && p > log; k++)
        for (p--; p > log && p[-1] != '\n'; p--)
            ;
    appendf(lines, lineslen, "%s", p);
}

/* The contract's entry point (the family's name: matmul, transpose, reduce)
 * as common/<family>.h declares it, e.g. "matmul(const float *A, ...)", in
 * decl, when the stage's object was compiled from its current kernel.cu but
 * does not define it: 1 then, 0 otherwise. */
static int contract_undefined(const target *t, char *decl, size_t len)
{
    struct stat so, ss;
    if (stat(t->object, &so) || stat(t->source, &ss) || so.st_mtim.tv_sec < ss.st_mtim.tv_sec ||
        (so.st_mtim.tv_sec == ss.st_mtim.tv_sec && so.st_mtim.tv_nsec < ss.st_mtim.tv_nsec))
        return 0; /* not compiled now: the compiler's errors say more */
    char *argv[] = {"nm", "-C", "--defined-only", (char *)t->object, NULL};
    run_result r;
    run_program(argv, -1, 60, 1u << 20, &r);
    char name[NAME_LEN + 2];
    snprintf(name, sizeof name, " %s(", t->family);
    int undefined = r.exited && r.status == 0 && !(r.tail && strstr(r.tail, name));
    run_result_free(&r);
    if (!undefined)
        return 0;
    snprintf(decl, len, "%s(...)", t->family);
    FILE *h = fopen(t->header, "r");
    char line[512];
    while (h && fgets(line, sizeof line, h))
        if (!strncmp(line, "void ", 5) && !strncmp(line + 5, name + 1, strlen(name + 1))) {
            line[strcspn(line, ";\n")] = 0;
            snprintf(decl, len, "%s", line + 5);
            break;
        }
    if (h)
        fclose(h);
    return 1;
}

/* Why a stage has no binary after the build, as a reason for the table and
 * the lines to show beneath it. */
static void build_failure(const target *t, const char *log, char *reason, size_t rlen, char *lines,
                          size_t llen)
{
    char decl[256], first[REASON_LEN];
    if (contract_undefined(t, decl, sizeof decl)) {
        snprintf(reason, rlen, "kernel.cu does not define %s", decl);
        snprintf(lines, llen, "kernel.cu compiles, but the harness calls %s, which common/%s.h declares "
                 "and kernel.cu must define\n", decl, t->family);
        return;
    }
    build_errors(log, t->stage, first, sizeof first, lines, llen);
    snprintf(reason, rlen, "did not compile: %s", first);
}

/* No GPU here: what the build found for each stage, then why nothing runs,
 * so that a compile or link error is known before a GPU is found. */
static int report_without_gpu(const target *t, int n, const int *missing, const char *log)
{
    int built = 0;
    for (int i = 0; i < n; i++) {
        printf("[%d/%d] %s: ", i + 1, n, t[i].stage);
        if (missing[i]) {
            printf("no kernel.cu was submitted\n");
        } else if (!access(t[i].binary, X_OK)) {
            printf("compiles and links\n");
            built++;
        } else {
            char reason[REASON_LEN + 32], lines[4096];
            build_failure(&t[i], log, reason, sizeof reason, lines, sizeof lines);
            printf("%s\n", reason);
            for (const char *p = lines; *p;) {
                size_t k = strcspn(p, "\n");
                printf("    %.*s\n", (int)k, p);
                p += k + (p[k] == '\n');
            }
        }
    }
    fprintf(stderr, "grade: cannot grade here: no NVIDIA GPU (nvidia-smi lists none); %d of %d stage%s "
                    "compiled and linked; run make grade on a machine with a GPU for the points\n",
            built, n, n == 1 ? "" : "s");
    return GRADE_NO_GPU;
}

/* ============================================================ sanitizer */

/* Run one compute-sanitizer tool on the binary: its verdict as
 * sanitizer_finding's, and 3 when it did not finish in time. */
static int sanitize_one(const char *tool, const target *t, const rubric *rb, unsigned long long seed,
                        char *finding, size_t len)
{
    char seed_text[32], args[256];
    snprintf(seed_text, sizeof seed_text, "%llu", seed);
    snprintf(args, sizeof args, "%s", rb->sanitize_args);
    char *argv[64];
    int a = 0;
    argv[a++] = "compute-sanitizer";
    argv[a++] = "--tool";
    argv[a++] = (char *)tool;
    argv[a++] = "--error-exitcode";
    argv[a++] = "99";
    argv[a++] = "--print-limit";
    argv[a++] = "20";
    argv[a++] = (char *)t->binary;
    argv[a++] = "--quiet";
    argv[a++] = "--seed";
    argv[a++] = seed_text;
    char *save = NULL;
    for (char *w = strtok_r(args, " ", &save); w && a < 62; w = strtok_r(NULL, " ", &save))
        argv[a++] = w;
    argv[a] = NULL;
    run_result r;
    run_program(argv, -1, rb->sanitize_limit_s, 256u << 10, &r);
    int verdict;
    if (r.timed_out) {
        snprintf(finding, len, "%s did not finish within %.0f s", tool, rb->sanitize_limit_s);
        verdict = 3;
    } else {
        verdict = sanitizer_finding(r.tail ? r.tail : "", finding, len);
        if (!verdict && r.exited && r.status == 99) {
            snprintf(finding, len, "%s reported errors it did not describe", tool);
            verdict = 2;
        }
    }
    run_result_free(&r);
    return verdict;
}

/* ============================================================== grading */

/* The arguments every graded run gets, then the rubric's. */
static int run_args(char **argv, int max, const target *t, const rubric *rb, const stage_rubric *sr,
                    char *seed_text, char *argbuf, size_t arglen)
{
    int a = 0;
    argv[a++] = (char *)t->binary;
    argv[a++] = "--quiet";
    argv[a++] = "--seed";
    argv[a++] = seed_text;
    argv[a++] = "--record-fd";
    argv[a++] = "3";
    snprintf(argbuf, arglen, "%s %s", rb->args, sr ? sr->args : "");
    char *save = NULL;
    for (char *w = strtok_r(argbuf, " ", &save); w && a < max - 1; w = strtok_r(NULL, " ", &save))
        argv[a++] = w;
    argv[a] = NULL;
    return a;
}

/* Grade one stage whose binary exists: policy, run, sanitizer. */
static void grade_stage(stage_result *s, const target *t, const rubric *rb, const policy *pol,
                        const options *o, int have_sanitizer)
{
    const stage_rubric *sr = rubric_stage(rb, t->stage);
    char command[256];
    run_command(t->stage, &o->seed, command, sizeof command);
    if (t->object[0]) {
        char msg[REASON_LEN];
        int rc = policy_check(pol, t->object, t->header[0] ? t->header : NULL, msg, sizeof msg);
        if (rc) {
            char reason[REASON_LEN + 32], advice[REASON_LEN + 64];
            snprintf(reason, sizeof reason, "refused: kernel.cu %s", msg);
            const char *contract = strstr(t->header, "common/");
            if (rc < 0)
                snprintf(advice, sizeof advice, "The symbol check could not run: tell your instructor.");
            else
                snprintf(advice, sizeof advice, "Launch your own kernels on the default stream and return%s%s%s.",
                         contract ? "; " : "", contract ? contract : "",
                         contract ? " says what kernel.cu may do" : "");
            score_fail(s, reason, advice);
            return;
        }
    }
    char seed_text[32], argbuf[600];
    snprintf(seed_text, sizeof seed_text, "%llu", o->seed);
    char *argv[64];
    run_args(argv, 64, t, rb, sr, seed_text, argbuf, sizeof argbuf);
    run_result r;
    run_program(argv, 3, sr && sr->limit_s > 0 ? sr->limit_s : rb->limit_s, OUTPUT_TAIL, &r);
    score_run(s, &r, sr, command);
    int ran_to_end = !r.timed_out && !r.signal && r.started;
    run_result_free(&r);
    if (o->sanitize && have_sanitizer && ran_to_end && !s->no_gpu) {
        static const char *const tools[] = {"memcheck", "racecheck"};
        for (int k = 0; k < 2; k++) {
            char finding[REASON_LEN];
            printf("%s... ", tools[k]);
            fflush(stdout);
            int verdict = sanitize_one(tools[k], t, rb, o->seed, finding, sizeof finding);
            if (verdict == 1) {
                score_sanitizer(s, finding, command);
                break;
            }
            if (verdict > 1)
                appendf(s->note, sizeof s->note, "%scompute-sanitizer (not scored): %s", s->note[0] ? "; " : "",
                        finding);
        }
    }
}

/* One progress line after a stage. */
static void progress_done(const stage_result *s)
{
    if (s->correct) {
        char speed[64] = "";
        if (s->have_speedup)
            snprintf(speed, sizeof speed, ", %.2fx the baseline", s->speedup);
        if (s->have_pct)
            appendf(speed, sizeof speed, ", %.1f%% of the reference", s->pct);
        printf("correct%s%s: %d/%d (%.1f s)\n", speed, s->flagged ? ", FLAGGED" : "", s->points, s->max,
               s->seconds);
    } else {
        printf("%.160s%s: %d/%d\n", s->reason, strlen(s->reason) > 160 ? "..." : "", s->points, s->max);
    }
}

/* The last lines of a failed stage's own output, indented. */
static void show_output_tail(const stage_result *s, int max_lines)
{
    if (s->correct || !s->output || !s->output[0])
        return;
    const char *end = s->output + strlen(s->output);
    while (end > s->output && end[-1] == '\n')
        end--;
    const char *p = end;
    int lines = 0;
    while (p > s->output && lines < max_lines) {
        p--;
        if (*p == '\n')
            lines++;
    }
    if (*p == '\n')
        p++;
    if (p > s->output)
        printf("    | ...\n");
    while (p < end) {
        size_t n = strcspn(p, "\n");
        if (p + n > end)
            n = (size_t)(end - p);
        printf("    | %.*s\n", (int)(n > 160 ? 160 : n), p);
        p += n + 1;
    }
}

/* ========================================================== calibration */

typedef struct {
    int ok;
    double worst[MAX_TIERS]; /* the least favourable of the runs, per tier */
    double best[MAX_TIERS];
    int have[MAX_TIERS];
} measured;

static int calibrate(const options *o, target *t, int n, const rubric *rb, const policy *pol,
                     const char *log)
{
    measured m[MAX_STAGES];
    memset(m, 0, sizeof m);
    char gpu[NAME_LEN] = "";
    int failures = 0;
    for (int i = 0; i < n; i++) {
        const stage_rubric *sr = rubric_stage(rb, t[i].stage);
        printf("[%d/%d] %s (solution%s):", i + 1, n, t[i].stage,
               t[i].compare_only ? ", for comparison with the next stage" : "");
        fflush(stdout);
        if (access(t[i].binary, X_OK)) {
            char first[REASON_LEN], lines[4096];
            build_errors(log, t[i].stage, first, sizeof first, lines, sizeof lines);
            printf(" did not build: %s\n", first);
            failures++;
            continue;
        }
        char msg[REASON_LEN];
        if (t[i].object[0] && policy_check(pol, t[i].object, t[i].header[0] ? t[i].header : NULL, msg, sizeof msg))
            printf("\n    warning: the policy refuses the solution itself: %s\n   ", msg);
        m[i].ok = 1;
        for (int run = 0; run < o->runs && m[i].ok; run++) {
            char seed_text[32], argbuf[600];
            snprintf(seed_text, sizeof seed_text, "%llu", o->seed + (unsigned long long)run);
            char *argv[64];
            run_args(argv, 64, &t[i], rb, sr, seed_text, argbuf, sizeof argbuf);
            run_result r;
            run_program(argv, 3, sr && sr->limit_s > 0 ? sr->limit_s : rb->limit_s, OUTPUT_TAIL, &r);
            char why[REASON_LEN];
            jvalue *rec = record_validate(&r, t[i].stage, why, sizeof why);
            if (rec && r.status != 0)
                snprintf(why, sizeof why, "%s", json_string_at(rec, "message") ? json_string_at(rec, "message") : "failed");
            if (!rec || r.status != 0 || json_bool_at(rec, "timing.plausible") == 0) {
                printf(" FAILED: %s\n", why[0] ? why : "implausibly fast");
                m[i].ok = 0;
                failures++;
            }
            for (int k = 0; m[i].ok && sr && k < sr->ntiers; k++) {
                double v;
                if (json_number_at(rec, sr->tiers[k].field, &v)) {
                    printf("\n    error: the record has no number %s (tier %s)", sr->tiers[k].field,
                           sr->tiers[k].name);
                    continue;
                }
                int lower_better = sr->tiers[k].at_most;
                if (!m[i].have[k]) {
                    m[i].worst[k] = m[i].best[k] = v;
                    m[i].have[k] = 1;
                } else {
                    double w = m[i].worst[k], b = m[i].best[k];
                    m[i].worst[k] = lower_better ? (v > w ? v : w) : (v < w ? v : w);
                    m[i].best[k] = lower_better ? (v < b ? v : b) : (v > b ? v : b);
                }
            }
            if (rec && !gpu[0] && json_string_at(rec, "gpu.name"))
                snprintf(gpu, sizeof gpu, "%s", json_string_at(rec, "gpu.name"));
            if (m[i].ok)
                printf(" run %d ok", run + 1);
            fflush(stdout);
            json_free(rec);
            run_result_free(&r);
        }
        if (m[i].ok)
            printf("\n");
    }
    if (!gpu[0]) {
        printf("no solution produced a record: nothing to calibrate\n");
        return GRADE_FAILED;
    }

    /* thresholds: the solution's least favourable value times the margin */
    static new_threshold th[MAX_STAGES * MAX_TIERS];
    int nth = 0, warnings = 0;
    printf("\nthresholds for %s (margins from %s):\n", gpu, rb->path);
    printf("  %-22s %-8s %-30s %10s %10s  %s\n", "stage", "tier", "field", "solution", "threshold",
           "previous stage's solution");
    for (int i = 0; i < n; i++) {
        const stage_rubric *sr = rubric_stage(rb, t[i].stage);
        if (!m[i].ok || !sr || t[i].compare_only)
            continue;
        /* the previous stage of the same family tells whether a threshold
         * separates this stage's technique from the one before */
        int prev = -1;
        for (int k = i - 1; k >= 0 && prev < 0; k--)
            if (!strcmp(t[k].family, t[i].family))
                prev = k;
        for (int k = 0; k < sr->ntiers; k++) {
            const tier *tr = &sr->tiers[k];
            double margin = rubric_margin(rb, tr->name);
            if (!m[i].have[k] || margin <= 0) {
                printf("  %-22s %-8s %-30s %10s %10s  (no margin for tier %s: left as it is)\n", t[i].stage,
                       tr->name, tr->field, "-", "-", tr->name);
                continue;
            }
            double value = tr->at_most ? m[i].worst[k] / margin : m[i].worst[k] * margin;
            char prev_text[160] = "-";
            if (prev >= 0 && m[prev].ok) {
                const stage_rubric *pr = rubric_stage(rb, t[prev].stage);
                /* the previous stage's best value of the same field */
                double pv = 0;
                int have = 0;
                for (int q = 0; pr && q < pr->ntiers; q++)
                    if (!strcmp(pr->tiers[q].field, tr->field) && m[prev].have[q]) {
                        pv = m[prev].best[q];
                        have = 1;
                    }
                if (have) {
                    int passes = tr->at_most ? pv <= value : pv >= value;
                    snprintf(prev_text, sizeof prev_text, "%s %.3g%s", t[prev].stage, pv,
                             passes ? "  WARNING: would pass too" : "");
                    if (passes)
                        warnings++;
                } else {
                    snprintf(prev_text, sizeof prev_text, "%s: not measured on this field", t[prev].stage);
                }
            }
            printf("  %-22s %-8s %-30s %10.3g %10.3g  %s\n", t[i].stage, tr->name, tr->field, m[i].worst[k],
                   value, prev_text);
            snprintf(th[nth].stage, sizeof th[nth].stage, "%s", t[i].stage);
            snprintf(th[nth].tier, sizeof th[nth].tier, "%s", tr->name);
            th[nth].value = value;
            nth++;
        }
    }
    if (warnings)
        printf("\nwarning: %d threshold(s) would also be met by the previous stage's solution: they do not "
               "tell the stages apart. Raise them by hand in %s, or make the solutions differ more.\n",
               warnings, rb->path);
    /* this GPU's rows for stages not measured now stay as they were, in
     * the new block, which replaces every earlier row for this GPU */
    int kept = 0;
    for (int i = 0; i < rb->nstages; i++)
        for (int k = 0; k < rb->stages[i].ntiers; k++) {
            const tier *tr = &rb->stages[i].tiers[k];
            double v;
            int is_default, done = 0;
            for (int q = 0; q < nth && !done; q++)
                done = !strcmp(th[q].stage, rb->stages[i].stage) && !strcmp(th[q].tier, tr->name);
            if (done || rubric_threshold(tr, gpu, &v, &is_default) || is_default ||
                nth == MAX_STAGES * MAX_TIERS)
                continue;
            snprintf(th[nth].stage, sizeof th[nth].stage, "%s", rb->stages[i].stage);
            snprintf(th[nth].tier, sizeof th[nth].tier, "%s", tr->name);
            th[nth++].value = v;
            kept++;
        }
    time_t now = time(NULL);
    char date[32], comment[256], err[512];
    strftime(date, sizeof date, "%Y-%m-%d", gmtime(&now));
    snprintf(comment, sizeof comment, "make calibrate on %s, least favourable of %d runs of each solution "
                                      "times the tier's margin%s", date, o->runs,
             kept ? " (rows of stages not measured this time kept as they were)" : "");
    if (nth && rubric_write_thresholds(rb->path, gpu, th, nth, comment, err, sizeof err)) {
        fprintf(stderr, "grade: %s\n", err);
        return GRADE_FAILED;
    }
    printf("\nwrote %d thresholds for %s into %s%s\n", nth - kept, gpu, rb->path,
           kept ? " (and kept this GPU's rows of stages not measured now)" : "");
    return failures ? GRADE_FAILED : GRADE_OK;
}

/* ================================================================= main */

static int parse_options(int argc, char **argv, options *o)
{
    memset(o, 0, sizeof *o);
    o->lab = ".";
    o->runs = 3;
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    o->jobs = cpus > 0 ? (int)cpus : 2;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        int value = !strcmp(a, "--seed") || !strcmp(a, "--src") || !strcmp(a, "--out") ||
                    !strcmp(a, "--lab") || !strcmp(a, "--rubric") || !strcmp(a, "--policy") ||
                    !strcmp(a, "--jobs") || !strcmp(a, "--runs") || !strcmp(a, "--program");
        if (value && (!v || !*v)) {
            fprintf(stderr, "grade: %s needs a value\n", a);
            return -1;
        }
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            fputs(USAGE, stdout);
            exit(GRADE_OK);
        } else if (!strcmp(a, "--sanitize")) {
            o->sanitize = 1;
        } else if (!strcmp(a, "--calibrate")) {
            o->calibrate = 1;
        } else if (!strcmp(a, "--seed")) {
            char *end;
            errno = 0;
            o->seed = strtoull(v, &end, 10);
            if (errno || *end || *v == '-') {
                fprintf(stderr, "grade: --seed '%s' is not a whole number >= 0\n", v);
                return -1;
            }
            o->have_seed = 1;
        } else if (!strcmp(a, "--jobs") || !strcmp(a, "--runs")) {
            int k = atoi(v);
            if (k < 1 || k > 1024) {
                fprintf(stderr, "grade: %s '%s' must be a number from 1 to 1024\n", a, v);
                return -1;
            }
            *(!strcmp(a, "--jobs") ? &o->jobs : &o->runs) = k;
        } else if (!strcmp(a, "--src")) {
            o->src = v;
        } else if (!strcmp(a, "--out")) {
            o->out = v;
        } else if (!strcmp(a, "--lab")) {
            o->lab = v;
        } else if (!strcmp(a, "--rubric")) {
            o->rubric_path = v;
        } else if (!strcmp(a, "--policy")) {
            o->policy_path = v;
        } else if (!strcmp(a, "--program")) {
            if (o->nprograms == MAX_STAGES) {
                fprintf(stderr, "grade: too many --program options\n");
                return -1;
            }
            o->programs[o->nprograms++] = (char *)v;
            o->program_mode = 1;
        } else if (a[0] == '-') {
            fprintf(stderr, "grade: unknown option '%s' (try --help)\n", a);
            return -1;
        } else {
            if (o->nnames == MAX_STAGES) {
                fprintf(stderr, "grade: too many stages named\n");
                return -1;
            }
            o->names[o->nnames++] = (char *)a;
        }
        if (value)
            i++;
    }
    return 0;
}

/* Whether a stage's folder is named by name: a prefix of it ("03",
 * "03_ti"), or its number without the zero ("3"). */
static int stage_named(const char *dir, const char *name)
{
    if (name[0] >= '1' && name[0] <= '9' && !name[1])
        return dir[0] == '0' && dir[1] == name[0] && !(dir[2] >= '0' && dir[2] <= '9');
    return !strncmp(dir, name, strlen(name));
}

/* The targets: every stage of stages.tsv, or those named (stage_named). To
 * calibrate a stage, the previous stage of its family is measured too. */
static int select_stages(const options *o, const stage_info *all, int nall, target *t)
{
    for (int k = 0; k < o->nnames; k++) {
        int found = 0;
        for (int i = 0; i < nall; i++)
            found += stage_named(all[i].dir, o->names[k]);
        if (found != 1) {
            fprintf(stderr, "grade: %s '%s'; the stages are:", found ? "more than one stage matches" : "no stage matches",
                    o->names[k]);
            for (int i = 0; i < nall; i++)
                fprintf(stderr, " %s", all[i].dir);
            fprintf(stderr, "%s\n", found ? " (name one, e.g. 03 or 3)" : "");
            return -1;
        }
    }
    int n = 0, wanted[MAX_STAGES] = {0};
    for (int i = 0; i < nall; i++) {
        wanted[i] = o->nnames == 0;
        for (int k = 0; k < o->nnames && !wanted[i]; k++)
            wanted[i] = stage_named(all[i].dir, o->names[k]);
    }
    for (int i = nall - 1; i >= 0 && o->calibrate; i--) {
        for (int k = i - 1; wanted[i] == 1 && k >= 0; k--)
            if (!strcmp(all[k].family, all[i].family)) {
                wanted[k] = wanted[k] ? wanted[k] : 2; /* 2: for comparison only */
                break;
            }
    }
    for (int i = 0; i < nall; i++) {
        if (!wanted[i])
            continue;
        memset(&t[n], 0, sizeof t[n]);
        snprintf(t[n].stage, sizeof t[n].stage, "%s", all[i].dir);
        snprintf(t[n].family, sizeof t[n].family, "%s", all[i].family);
        t[n].compare_only = wanted[i] == 2;
        n++;
    }
    return n;
}

/* --program STAGE=BINARY[:OBJECT[:HEADER]] into a target. */
static int program_target(const char *spec, target *t)
{
    memset(t, 0, sizeof *t);
    const char *eq = strchr(spec, '=');
    if (!eq || eq == spec || (size_t)(eq - spec) >= sizeof t->stage || !eq[1]) {
        fprintf(stderr, "grade: --program '%s' is not STAGE=BINARY[:OBJECT[:HEADER]]\n", spec);
        return -1;
    }
    snprintf(t->stage, sizeof t->stage, "%.*s", (int)(eq - spec), spec);
    const char *p = eq + 1;
    char *fields[] = {t->binary, t->object, t->header};
    for (int i = 0; i < 3 && *p; i++) {
        size_t n = strcspn(p, ":");
        snprintf(fields[i], sizeof t->binary, "%.*s", (int)n, p);
        p += n + (p[n] == ':');
    }
    return 0;
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    signal(SIGPIPE, SIG_IGN);
    signal(SIGINT, on_signal);
    signal(SIGTERM, on_signal);
    options o;
    if (parse_options(argc, argv, &o))
        return GRADE_USAGE;
    struct stat src_st;
    if (o.src && (stat(o.src, &src_st) || !S_ISDIR(src_st.st_mode))) {
        fprintf(stderr, "grade: --src %s: no such folder (GRADE_SRC names a submission's folder, holding "
                        "NN_name/kernel.cu or exercises/NN_name/kernel.cu)\n", o.src);
        return GRADE_USAGE;
    }
    char lab[PATH_MAX];
    if (!realpath(o.lab, lab)) {
        fprintf(stderr, "grade: cannot find the lab at %s\n", o.lab);
        return GRADE_USAGE;
    }
    char rubric_path[PATH_MAX], policy_path[PATH_MAX], stages_path[PATH_MAX], err[1024];
    if (o.rubric_path)
        snprintf(rubric_path, sizeof rubric_path, "%s", o.rubric_path);
    else
        snprintf(rubric_path, sizeof rubric_path, "%s/grader/rubric.tsv", lab);
    if (o.policy_path)
        snprintf(policy_path, sizeof policy_path, "%s", o.policy_path);
    else
        snprintf(policy_path, sizeof policy_path, "%s/grader/allowed-symbols.txt", lab);
    snprintf(stages_path, sizeof stages_path, "%s/stages.tsv", lab);

    static rubric rb;
    static policy pol;
    if (rubric_read(rubric_path, &rb, err, sizeof err) || policy_read(policy_path, &pol, err, sizeof err)) {
        fprintf(stderr, "grade: %s\n", err);
        return GRADE_USAGE;
    }
    static target t[MAX_STAGES];
    static stage_info all[MAX_STAGES];
    int n;
    if (o.program_mode) {
        if (o.src || o.nnames) {
            fprintf(stderr, "grade: --program grades (or calibrates with) the given programs only\n");
            return GRADE_USAGE;
        }
        n = o.nprograms;
        for (int i = 0; i < n; i++) {
            if (program_target(o.programs[i], &t[i]))
                return GRADE_USAGE;
            /* one family: each program is compared with the one before */
            strcpy(t[i].family, "programs");
        }
    } else {
        int nall = stages_read(stages_path, all, MAX_STAGES, err, sizeof err);
        if (nall < 0) {
            fprintf(stderr, "grade: %s\n", err);
            return GRADE_USAGE;
        }
        n = select_stages(&o, all, nall, t);
        if (n < 0)
            return GRADE_USAGE;
        if (n == 0) {
            fprintf(stderr, "grade: stages.tsv lists no stages\n");
            return GRADE_USAGE;
        }
    }

    /* could grading run here at all? One line each if not. */
    char gpu_name[NAME_LEN] = "";
    int no_gpu_here = 0;
    if (!o.program_mode) {
        /* without a GPU, grading builds and reports what does not compile */
        no_gpu_here = !find_gpu(gpu_name, sizeof gpu_name);
        if (no_gpu_here && o.calibrate) {
            fprintf(stderr, "grade: cannot calibrate here: no NVIDIA GPU (nvidia-smi lists none)\n");
            return GRADE_NO_GPU;
        }
        const char *nvcc = getenv("NVCC") && *getenv("NVCC") ? getenv("NVCC") : "nvcc";
        const char *missing = !have_program(nvcc) ? nvcc : !have_program("make") ? "make"
                              : !have_program("nm") ? "nm" : NULL;
        if (missing) {
            fprintf(stderr, "grade: cannot grade here: %s is not installed or not on PATH (%s)\n", missing,
                    !strcmp(missing, "nm") ? "it comes with binutils" : "install the CUDA Toolkit");
            return GRADE_NO_TOOLS;
        }
    } else if (!have_program("nm")) {
        fprintf(stderr, "grade: cannot grade here: nm is not installed (it comes with binutils)\n");
        return GRADE_NO_TOOLS;
    }
    if (!o.have_seed) {
        /* a fresh seed each grading run, printed, so that a grade can be repeated */
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        o.seed = ((unsigned long long)ts.tv_sec * 1000003ULL + (unsigned long long)ts.tv_nsec / 1000) %
                 1000000007ULL;
    }

    double t0 = now_s();
    const char *variant = o.calibrate ? "solution" : "exercise";
    char build_dir[PATH_MAX];
    snprintf(build_dir, sizeof build_dir, "%s", lab);
    int missing[MAX_STAGES] = {0};
    char *log = NULL;
    if (!o.program_mode) {
        if (o.src && make_scratch(lab, o.src, t, n, missing, build_dir, sizeof build_dir)) {
            fprintf(stderr, "grade: cannot prepare %s/build/grade-src for --src %s: %s\n", lab, o.src,
                    strerror(errno));
            return GRADE_USAGE;
        }
        for (int i = 0; i < n; i++) {
            snprintf(t[i].binary, sizeof t[i].binary, "%s/build/%s/%s", build_dir, t[i].stage, variant);
            snprintf(t[i].object, sizeof t[i].object, "%s/build/%s/%s.o", build_dir, t[i].stage, variant);
            snprintf(t[i].header, sizeof t[i].header, "%s/common/%s.h", lab, t[i].family);
            snprintf(t[i].source, sizeof t[i].source, "%s/%ss/%s/kernel.cu", build_dir, variant, t[i].stage);
        }
        printf("%s %d stage%s%s on %s, seed %llu\n", o.calibrate ? "calibrating with" : "grading", n,
               n == 1 ? "" : "s", o.src ? " (submitted kernel.cu files)" : "",
               no_gpu_here ? "no GPU (building only)" : gpu_name, o.seed);
        printf("building (make -j%d)...", o.jobs);
        fflush(stdout);
        double build_s;
        build(build_dir, t, n, o.jobs, variant, &log, &build_s);
        printf(" %.1f s\n", build_s);
        char log_path[PATH_MAX];
        snprintf(log_path, sizeof log_path, "%s/build/grade-build.log", lab);
        FILE *lf = fopen(log_path, "w");
        if (lf) {
            fputs(log ? log : "", lf);
            fclose(lf);
        }
        if (no_gpu_here) {
            int rc = report_without_gpu(t, n, missing, log);
            free(log);
            return rc;
        }
        if (!o.calibrate && !o.src && have_program("git")) {
            /* the official grade uses a pristine harness: say so if this one is not */
            char *gargv[] = {"git", "-C", lab, "status", "--porcelain", "--", "common", "grader",
                             "Makefile", "stages.tsv", NULL};
            run_result g;
            run_program(gargv, -1, 30, 64 << 10, &g);
            if (g.exited && g.status == 0 && g.tail && g.tail[0])
                printf("note: common/, grader/, the Makefile or stages.tsv have local changes; the "
                       "official grade uses the lab's own copies\n");
            run_result_free(&g);
        }
    } else {
        printf("%s %d program%s (testing the grader), seed %llu\n", o.calibrate ? "calibrating with" : "grading",
               n, n == 1 ? "" : "s", o.seed);
    }

    if (o.calibrate) {
        int rc = calibrate(&o, t, n, &rb, &pol, log);
        free(log);
        return rc;
    }

    int have_sanitizer = o.sanitize && have_program("compute-sanitizer");
    if (o.sanitize && !have_sanitizer)
        printf("note: compute-sanitizer is not installed (it comes with the full CUDA Toolkit): "
               "SANITIZE=1 is skipped\n");
    static stage_result res[MAX_STAGES];
    for (int i = 0; i < n; i++) {
        stage_result *s = &res[i];
        const stage_rubric *sr = rubric_stage(&rb, t[i].stage);
        score_begin(s, t[i].stage, sr, &rb);
        printf("[%d/%d] %s: ", i + 1, n, t[i].stage);
        fflush(stdout);
        char command[256];
        run_command(t[i].stage, NULL, command, sizeof command);
        if (missing[i]) {
            char advice[REASON_LEN];
            snprintf(advice, sizeof advice, "Submit %s/kernel.cu (your exercises/%s/kernel.cu) to have it graded.",
                     t[i].stage, t[i].stage);
            score_fail(s, "no kernel.cu was submitted for this stage", advice);
        } else if (access(t[i].binary, X_OK)) {
            char reason[REASON_LEN + 32], advice[REASON_LEN], lines[4096];
            build_failure(&t[i], log, reason, sizeof reason, lines, sizeof lines);
            snprintf(advice, sizeof advice, "Fix the compiler's first error (`%s` shows all of it).",
                     command);
            score_fail(s, reason, advice);
            s->output = malloc(strlen(lines) + 1);
            if (s->output)
                text_clean(lines, strlen(lines), s->output, strlen(lines) + 1);
        } else {
            grade_stage(s, &t[i], &rb, &pol, &o, have_sanitizer);
        }
        progress_done(s);
        show_output_tail(s, 8);
    }
    free(log);

    grade_info g = {0};
    g.seed = o.seed;
    g.seconds = now_s() - t0;
    g.sanitize = o.sanitize;
    g.rubric_path = rubric_path;
    g.source = o.program_mode ? "programs" : o.src ? o.src : "exercises";
    /* the name the driver reports decides the thresholds; nvidia-smi's
     * stands in when no stage got as far as a record */
    snprintf(g.gpu, sizeof g.gpu, "%s", gpu_name);
    for (int i = n - 1; i >= 0; i--)
        if (res[i].gpu[0])
            snprintf(g.gpu, sizeof g.gpu, "%s", res[i].gpu);
    report_table(stdout, res, n, &g);
    char out_dir[PATH_MAX];
    snprintf(out_dir, sizeof out_dir, "%s", o.out ? o.out : lab);
    if (o.out && mkdirs(out_dir))
        fprintf(stderr, "grade: cannot create %s\n", out_dir);
    if (report_write(out_dir, res, n, &g) == 0)
        printf("reports: %s/grade.json, %s/results.json (%.0f s in all)\n", out_dir, out_dir, g.seconds);
    int no_gpu = 0;
    for (int i = 0; i < n; i++) {
        no_gpu |= res[i].no_gpu;
        stage_result_free(&res[i]);
    }
    if (no_gpu) {
        fprintf(stderr, "grade: some stages found no usable GPU: their points say nothing about the "
                        "kernels\n");
        return GRADE_NO_GPU;
    }
    return GRADE_OK;
}
