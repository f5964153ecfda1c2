/*
 * options.c: the grader's command line, and which stages it grades.
 */
#include "grader.h"
#include "grading.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *USAGE =
    "usage: grade [options] [STAGE...]\n"
    "Grades exercises/NN_*/kernel.cu as make built it with the lab's harness (make grade:\n"
    "tools/grade-build.sh first), runs each in its own process with a time limit, and\n"
    "scores correctness and speed (grader/rubric.tsv).\n"
    "  STAGE            03 or 03_tiled: grade only these (default: every stage in stages.tsv)\n"
    "  --seed S         seed of the inputs (default: a new one, printed)\n"
    "  --sanitize       also run compute-sanitizer memcheck and racecheck at small sizes\n"
    "  --src DIR        grade DIR/<stage>/kernel.cu instead of exercises/ (a submission)\n"
    "  --out DIR        write grade.json and results.json there (default: the lab)\n"
    "  --lab DIR        the lab (default: .)\n"
    "  --rubric FILE    default: grader/rubric.tsv\n"
    "  --policy FILE    default: grader/allowed-symbols.txt\n"
    "  --plan           print what make must build for this grade (make's arguments:\n"
    "                   -C DIR -jN and the programs), old programs removed, the copy of\n"
    "                   the lab made for --src; grade nothing (tools/grade-build.sh)\n"
    "  --jobs N         with --plan: parallel build jobs (default: one per CPU)\n"
    "  --calibrate      instructors: run each tier's reference kernel (stages.tsv)\n"
    "                   and the solutions, and write this GPU's thresholds\n"
    "  --reference TIER instructors: grade each stage's reference kernel of TIER\n"
    "                   (stages.tsv) instead of exercises/\n"
    "  --unconfined     run the programs without build/confine/confine around them\n"
    "  --judge          run each stage as the judge and a runner with kernel.cu, so that\n"
    "                   no result comes from the student's process (make grade, make class\n"
    "                   and make calibrate pass it unless JUDGE=0; judge/README.md)\n"
    "  --require-confinement\n"
    "                   stop (exit 5) where the runs cannot be confined (a class run)\n"
    "  --probed         the GPU was found to work inside the confinement, and the judge's\n"
    "                   sharing of GPU memory, by an earlier grade on this GPU (make class:\n"
    "                   every student after a worker's first): not checked again\n"

    "  --once           run each stage once: by default a correct stage that misses a\n"
    "                   speed tier, or whose time was flagged, runs a second time, and\n"
    "                   the better run counts\n"
    "  --baselines FILE the naive baselines timed by an earlier grade on this GPU (make\n"
    "                   class: one file a worker): used where no stage of this grade\n"
    "                   has timed its family's; those this grade times are written there\n"
    "  --runs N         with --calibrate: runs of each program (default 3)\n"
    "  --record-tsv RECORD.json\n"
    "                   alone: a driver's run record as tab-separated lines, one a kernel\n"
    "                   (tools/records2dat.sh, research/reduction-ladder.sh read them)\n"
    "  --program STAGE[:TIER]=BINARY[:OBJECT[:HEADER[:EMULATED]]]\n"
    "                   testing the grader: grade (or calibrate with) BINARY as STAGE, or\n"
    "                   as the reference kernel of its TIER, without building and without\n"
    "                   a GPU check; OBJECT goes through the symbol policy, with HEADER as\n"
    "                   the contract; EMULATED runs on the CPU after BINARY (its cause\n"
    "                   when wrong, a warning when correct: grader/emulated.c)\n"
    "exit status: 0 graded (whatever the score), 1 a solution failed (--calibrate),\n"
    "             2 usage, 3 no GPU, 4 no build tools (nvcc, nm),\n"
    "             5 confinement (or the judge's sharing of GPU memory) required and impossible here\n";

/* An option without a value: 1 when a is one (set in o). */
static int flag_option(const char *a, options *o)
{
    struct {
        const char *name;
        int *flag;
    } flags[] = {
        {"--sanitize", &o->sanitize}, {"--calibrate", &o->calibrate}, {"--unconfined", &o->unconfined},
        {"--judge", &o->judge}, {"--require-confinement", &o->require_confinement}, {"--probed", &o->probed},
        {"--once", &o->once}, {"--plan", &o->plan},
    };
    for (size_t i = 0; i < sizeof flags / sizeof flags[0]; i++)
        if (!strcmp(a, flags[i].name)) {
            *flags[i].flag = 1;
            return 1;
        }
    return 0;
}

/* 1 when a is an option that takes a value. */
static int takes_value(const char *a)
{
    static const char *const with_value[] = {"--seed", "--src", "--out", "--lab", "--rubric", "--policy",
                                             "--jobs", "--runs", "--program", "--baselines", "--reference"};
    for (size_t i = 0; i < sizeof with_value / sizeof with_value[0]; i++)
        if (!strcmp(a, with_value[i]))
            return 1;
    return 0;
}

/* Option a (takes_value) with its value v: 0, or -1 (said) when v is
 * wrong. */
static int value_option(const char *a, const char *v, options *o)
{
    struct {
        const char *name;
        const char **value;
    } texts[] = {
        {"--baselines", &o->baselines}, {"--reference", &o->reference}, {"--src", &o->src},
        {"--out", &o->out}, {"--lab", &o->lab}, {"--rubric", &o->rubric_path}, {"--policy", &o->policy_path},
    };
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++)
        if (!strcmp(a, texts[i].name)) {
            *texts[i].value = v;
            return 0;
        }
    if (!strcmp(a, "--seed")) {
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
    } else { /* --program */
        if (o->nprograms == MAX_STAGES) {
            fprintf(stderr, "grade: too many --program options\n");
            return -1;
        }
        o->programs[o->nprograms++] = (char *)v;
        o->program_mode = 1;
    }
    return 0;
}

int grader_parse_options(int argc, char **argv, options *o)
{
    memset(o, 0, sizeof *o);
    o->lab = ".";
    o->runs = 3;
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    o->jobs = cpus > 0 ? (int)cpus : 2;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : "";
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            fputs(USAGE, stdout);
            exit(GRADE_OK);
        }
        if (flag_option(a, o))
            continue;
        if (takes_value(a)) {
            if (!*v) {
                fprintf(stderr, "grade: %s needs a value\n", a);
                return -1;
            }
            if (value_option(a, v, o))
                return -1;
            i++;
        } else if (a[0] == '-') {
            fprintf(stderr, "grade: unknown option '%s' (try --help)\n", a);
            return -1;
        } else if (o->nnames == MAX_STAGES) {
            fprintf(stderr, "grade: too many stages named\n");
            return -1;
        } else {
            o->names[o->nnames++] = (char *)a;
        }
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
int grader_select_stages(const options *o, const stage_info *all, int nall, target *t)
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
        snprintf(t[n].lesson, sizeof t[n].lesson, "%s", all[i].lesson);
        t[n].compare_only = wanted[i] == 2;
        n++;
    }
    return n;
}

/* --program STAGE[:TIER]=BINARY[:OBJECT[:HEADER[:EMULATED]]] into a target. */
int grader_program_target(const char *spec, target *t)
{
    memset(t, 0, sizeof *t);
    const char *eq = strchr(spec, '=');
    if (!eq || eq == spec || (size_t)(eq - spec) >= sizeof t->stage || !eq[1]) {
        fprintf(stderr, "grade: --program '%s' is not STAGE[:TIER]=BINARY[:OBJECT[:HEADER[:EMULATED]]]\n", spec);
        return -1;
    }
    size_t name = strcspn(spec, ":=");
    snprintf(t->stage, sizeof t->stage, "%.*s", (int)name, spec);
    if (spec[name] == ':')
        snprintf(t->tier, sizeof t->tier, "%.*s", (int)(eq - spec - name - 1), spec + name + 1);
    const char *p = eq + 1;
    char *fields[] = {t->binary, t->object, t->header, t->emulated};
    for (int i = 0; i < 4 && *p; i++) {
        size_t n = strcspn(p, ":");
        snprintf(fields[i], sizeof t->binary, "%.*s", (int)n, p);
        p += n + (p[n] == ':');
    }
    return 0;
}


void grader_target_paths(target *t, const char *dir, const char *lab, const char *sub, const char *variant, int judge)
{
    snprintf(t->binary, sizeof t->binary, "%s/build/%s/%s%s%s", dir, t->stage, sub, variant, judge ? "-judge" : "");
    t->runner[0] = 0;
    /* who the build says it is (common/build_info.c), as the judge's worker
     * is told: a tier's reference build's knob as build/references.mk
     * names it (tools/stages-gen.awk) */
    snprintf(t->variant, sizeof t->variant, "%s", variant);
    snprintf(t->knob, sizeof t->knob, sub[0] ? "%.*s reference" : "", (int)strcspn(sub, "/"), sub);
    if (judge)
        snprintf(t->runner, sizeof t->runner, "%s/build/%s/%s%s-runner", dir, t->stage, sub, variant);
    snprintf(t->object, sizeof t->object, "%s/build/%s/%s%s.o", dir, t->stage, sub, variant);
    snprintf(t->header, sizeof t->header, "%s/common/%s.h", lab, t->family);
    /* exercises/, solutions/ or references/ */
    snprintf(t->source, sizeof t->source, "%s/%ss/%s/kernel.cu", dir, variant, t->stage);
    t->emulated[0] = 0;
#if defined(__x86_64__)
    /* a student's kernel.cu, wrong on the GPU, is run on the CPU emulation
     * too (emulated.c), which runs on x86-64 only */
    if (!strcmp(variant, "exercise") && !sub[0])
        snprintf(t->emulated, sizeof t->emulated, "%s/build/%s/exercise-emu", dir, t->stage);
#endif
}

void grader_reference_target(target *t, const char *lab, const tier_reference *ref, int judge)
{
    /* the solution as it is is the stage's own solution build */
    int own = !strcmp(ref->source, "solution") && !ref->flags[0];
    char sub[NAME_LEN + 2];
    snprintf(sub, sizeof sub, "%s/", ref->tier);
    snprintf(t->tier, sizeof t->tier, "%s", ref->tier);
    grader_target_paths(t, lab, lab, own ? "" : sub, ref->source, judge);
}
