/*
 * build.c: what comes before running anything: is there a GPU, a copy of the
 * lab for submitted files (--src), what make must build (--plan: the grader
 * never runs make; tools/grade-build.sh does, before it), and the
 * compiler's complaint about one stage, from that build's log.
 */
#include "grader.h"
#include "grading.h"
#include "submission.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>


/* The first GPU's name when one is here (nvidia-smi -L, else the driver's
 * /proc entry); 0 when there is none. */
int grader_find_gpu(char *name, size_t len)
{
    name[0] = 0;
    if (lab_have_program("nvidia-smi")) {
        char *argv[] = {"nvidia-smi", "-L", NULL};
        run_result r;
        grader_run_program(argv, -1, 30, 64 << 10, &r);
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
        grader_run_result_free(&r);
        return found;
    }
    struct stat st;
    return stat("/proc/driver/nvidia/gpus", &st) == 0 && stat("/dev/nvidia0", &st) == 0;
}

/* ================================================================= build */

/* A link at lab/build/grade-src/name to lab/name, replacing what is there. */
static int link_into(const char *lab, const char *scratch, const char *name)
{
    char from[PATH_MAX], to[PATH_MAX];
    snprintf(from, sizeof from, "%s/%s", lab, name);
    snprintf(to, sizeof to, "%s/%s", scratch, name);
    unlink(to);
    return symlink(from, to);
}

/* --src taken in by the one intake (grader/intake/submission.c) into
 * scratch/exercises/<stage>/kernel.cu: plain files of their own, size
 * capped, an archive unpacked, OS litter passed over; why it was refused
 * kept in scratch/intake.refused for the grade that follows. 0, or -1. */
static int take_in(const char *src, const target *t, int n, const char *scratch)
{
    char *names[MAX_TARGETS];
    for (int i = 0; i < n; i++)
        names[i] = (char *)t[i].stage;
    submission_stages st = {names, n};
    char into[PATH_MAX], unpacked[PATH_MAX], refused[PATH_MAX];
    snprintf(into, sizeof into, "%s/exercises", scratch);
    snprintf(unpacked, sizeof unpacked, "%s/intake.unpacked", scratch);
    snprintf(refused, sizeof refused, "%s/intake.refused", scratch);
    char *why = NULL;
    unlink(refused);
    if (intake_take_kernels(src, &st, unpacked, into, &why) >= 0)
        return 0;
    FILE *f = fopen(refused, "w");
    int ok = f && fprintf(f, "%s\n", why) > 0;
    if (f && fclose(f))
        ok = 0;
    free(why);
    return ok ? 0 : -1;
}

/* For --src: a copy of the lab whose exercises/ holds the submitted
 * kernel.cu files (take_in) and everything else links to this lab (the
 * pristine harness). Its build/common is this lab's, so the harness is
 * built once. Stages without a submitted kernel.cu are marked missing (2
 * for all, with why in refused, when the intake refused the submission).
 * Without prepare, only what the intake left for the grade (grading what
 * --plan prepared and make built). */
int grader_make_scratch(const char *lab, const char *src, target *t, int n, int *missing, char *refused, size_t rlen,
                 char *scratch, size_t len, int prepare)
{
    snprintf(scratch, len, "%s/build/grade-src", lab);
    char path[PATH_MAX];
    if (prepare) {
        snprintf(path, sizeof path, "%s/build/common", lab);
        if (lab_mkdirs(path) || lab_mkdirs(scratch))
            return -1;
        static const char *const shared[] = {"Makefile", "docs.mk", "stages.tsv", "common", "judge", "solutions",
                                             "tools", "grader", "emu", "status", "profile"};
        for (size_t i = 0; i < sizeof shared / sizeof shared[0]; i++)
            if (link_into(lab, scratch, shared[i]))
                return -1;
        snprintf(path, sizeof path, "%s/build", scratch);
        if (lab_mkdirs(path) || link_into(lab, scratch, "build/common"))
            return -1;
        /* the CPU emulation's runtime and harness, built once too */
        snprintf(path, sizeof path, "%s/build/emu", lab);
        if (lab_mkdirs(path) || link_into(lab, scratch, "build/emu"))
            return -1;
        /* the same wall around the submission's build as around the lab's */
        snprintf(path, sizeof path, "%s/build/confine", lab);
        if (lab_mkdirs(path) || link_into(lab, scratch, "build/confine") || take_in(src, t, n, scratch))
            return -1;
    }
    snprintf(path, sizeof path, "%s/intake.refused", scratch);
    char *why = lab_read_file(path, 4096);
    refused[0] = 0;
    if (why) {
        why[strcspn(why, "\n")] = 0;
        snprintf(refused, rlen, "%s", why);
        free(why);
    }
    for (int i = 0; i < n; i++) {
        snprintf(path, sizeof path, "%s/exercises/%s/kernel.cu", scratch, t[i].stage);
        missing[i] = refused[0] ? 2 : access(path, F_OK) ? 1 : 0;
    }
    return 0;
}

/* --plan: make's arguments for the build of the targets' programs (binary,
 * runner where the judge runs it, a student's CPU emulation) on one line:
 * -C dir, -jN and the programs, relative to dir; tools/grade-build.sh
 * runs one make -k with them, so that every stage that can be built is,
 * whatever the others do.
 * The old programs go first, so that one that does not compile now cannot
 * be graded from an earlier build; so does an object without a list of its
 * headers that library.c can read (compiled by an older Makefile with
 * -MMD, say), so that it is compiled again with one. With the judge, the
 * program without it too (one link more: the grader falls back to it where
 * the judge cannot share GPU memory with a runner, which only the GPU's
 * machine can tell). */
void grader_plan_build(FILE *out, const char *dir, target *t, int n, int jobs, int judge)
{
    fprintf(out, "-C %s -j%d", dir, jobs);
    size_t skip = strlen(dir) + 1; /* the programs' paths relative to dir */
    for (int i = 0; i < n; i++) {
        char plain[sizeof t[i].binary];
        size_t len = strlen(t[i].binary);
        snprintf(plain, sizeof plain, "%s", t[i].binary);
        if (t[i].runner[0] && len > 6 && !strcmp(plain + len - 6, "-judge"))
            plain[len - 6] = 0;
        unlink(t[i].binary);
        if (!grader_library_list_usable(&t[i]))
            unlink(t[i].object);
        fprintf(out, " %s", t[i].binary + skip);
        if (t[i].runner[0]) {
            unlink(t[i].runner);
            fprintf(out, " %s", t[i].runner + skip);
        }
        if (strcmp(plain, t[i].binary)) {
            unlink(plain);
            fprintf(out, " %s", plain + skip);
        }
        if (t[i].emulated[0]) {
            unlink(t[i].emulated);
            fprintf(out, " %s", t[i].emulated + skip);
        }
    }
    if (judge)
        fprintf(out, " build/judge/echo-runner");
    fprintf(out, "\n");
}

int grader_target_built(const target *t)
{
    return access(t->binary, X_OK) == 0 && (!t->runner[0] || access(t->runner, X_OK) == 0);
}

/* The compiler's complaint about one stage, from the build log: lines that
 * name the stage's files, errors first. */
void grader_build_errors(const char *log, const char *stage, char *first, size_t firstlen,
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
        int linking = 0; /* after the linker's "in function" line of this stage's object */
        while (*p && shown < 8) {
            size_t n = strcspn(p, "\n");
            char line[1024];
            snprintf(line, sizeof line, "%.*s", (int)(n < 1023 ? n : 1023), p);
            int mine = strstr(line, ex) || strstr(line, so) || strstr(line, bd);
            if (strstr(line, "in function"))
                linking = mine;
            mine |= linking && strstr(line, "undefined reference");
            int error = strstr(line, "error") || strstr(line, "undefined reference");
            if (mine && (error || pass == 1)) {
                if (!first[0])
                    grader_text_clean(line, strlen(line), first, firstlen);
                grader_appendf(lines, lineslen, "%s\n", line);
                shown++;
            }
            p += n + (p[n] == '\n');
        }
    }
    if (first[0])
        return;
    if (!log) {
        snprintf(first, firstlen, "not built: make grade builds the stages before it runs the grader "
                 "(tools/grade-build.sh), and build/grade-build.log is missing");
        return;
    }
    /* nothing names the stage: the harness itself, or make, failed; show
     * the end of the log */
    snprintf(first, firstlen, "the build failed (build/grade-build.log has all of it)");
    const char *p = log ? log + strlen(log) : "";
    for (int k = 0; k < 7 && log && p > log; k++)
        for (p--; p > log && p[-1] != '\n'; p--)
            ;
    grader_appendf(lines, lineslen, "%s", p);
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
    grader_run_program(argv, -1, 60, 1u << 20, &r);
    char name[NAME_LEN + 2];
    snprintf(name, sizeof name, " %s(", t->family);
    int undefined = r.exited && r.status == 0 && !(r.tail && strstr(r.tail, name));
    grader_run_result_free(&r);
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

/* The symbols the linker found undefined for the stage's programs: the
 * "undefined reference to `name'" lines after a line that names the stage's
 * object (build/<stage>/...: in function ...). Returns how many (at most
 * max), each once. */
static int undefined_symbols(const char *log, const char *stage, char names[][NAME_LEN], int max)
{
    char object[NAME_LEN + 16];
    snprintf(object, sizeof object, "build/%s/", stage);
    int n = 0, in_stage = 0;
    for (const char *p = log ? log : ""; *p && n < max;) {
        size_t len = strcspn(p, "\n");
        char line[1024];
        snprintf(line, sizeof line, "%.*s", (int)(len < 1023 ? len : 1023), p);
        p += len + (p[len] == '\n');
        if (strstr(line, "in function"))
            in_stage = strstr(line, object) != NULL;
        const char *ref = strstr(line, "undefined reference to ");
        if (!ref || !(in_stage || strstr(line, object)))
            continue;
        /* the name between quotes: `name' (GNU ld) or 'name' */
        ref += strlen("undefined reference to ") + 1;
        size_t k = strcspn(ref, "'`");
        char name[NAME_LEN];
        snprintf(name, sizeof name, "%.*s", (int)(k < NAME_LEN - 1 ? k : NAME_LEN - 1), ref);
        int seen = 0;
        for (int i = 0; i < n; i++)
            seen |= !strcmp(names[i], name);
        if (!seen && name[0])
            snprintf(names[n++], NAME_LEN, "%s", name);
    }
    return n;
}

/* Why a stage has no binary after the build, as a reason for the table and
 * the lines to show beneath it: the contract's function missing, the
 * linker's undefined symbols (with the policy's sentence about them, where
 * it has one), or the compiler's first error. */
void grader_build_failure(const target *t, const char *log, const policy *pol, char *reason, size_t rlen,
                   char *lines, size_t llen)
{
    char decl[256], first[REASON_LEN], names[4][NAME_LEN];
    if (contract_undefined(t, decl, sizeof decl)) {
        snprintf(reason, rlen, "kernel.cu does not define %s", decl);
        snprintf(lines, llen, "kernel.cu compiles, but the harness calls %s, which common/%s.h declares "
                 "and kernel.cu must define\n", decl, t->family);
        return;
    }
    grader_build_errors(log, t->stage, first, sizeof first, lines, llen);
    int n = undefined_symbols(log, t->stage, names, 4);
    if (!n) {
        snprintf(reason, rlen, "did not compile: %s", first);
        return;
    }
    snprintf(reason, rlen, "did not link: undefined reference to %s", names[0]);
    for (int i = 1; i < n; i++)
        grader_appendf(reason, rlen, "%s%s", i == 1 ? " (and " : ", ", names[i]);
    if (n > 1)
        grader_appendf(reason, rlen, ")");
    /* the first symbol the policy refuses says why it is not there */
    for (int i = 0; i < n && pol; i++) {
        const policy_rule *rule = grader_policy_match(pol, names[i], 0);
        if (rule && rule->deny) {
            grader_appendf(reason, rlen, ": kernel.cu %s", rule->reason);
            break;
        }
    }
}

/* No GPU here: what the build found for each stage, then why nothing runs,
 * so that a compile or link error is known before a GPU is found. */
int grader_report_without_gpu(const target *t, int n, const int *missing, const char *refused, const char *log,
                       const policy *pol)
{
    int built = 0;
    for (int i = 0; i < n; i++) {
        printf("[%d/%d] %s: ", i + 1, n, t[i].stage);
        if (missing[i] == 2) {
            printf("not graded: %s\n", refused);
        } else if (missing[i]) {
            printf("no kernel.cu was submitted\n");
        } else if (grader_target_built(&t[i])) {
            printf("compiles and links\n");
            built++;
        } else {
            char reason[REASON_LEN + 32], lines[4096];
            grader_build_failure(&t[i], log, pol, reason, sizeof reason, lines, sizeof lines);
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
