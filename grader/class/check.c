/*
 * check.c: a class checked before any GPU (make class CHECK=1). Each
 * submitted stage of each student is built inside the wall, as a grade
 * builds it (the runner that holds the student's code: compiled and
 * linked), for one architecture; where the lab has a CPU emulator (a rule
 * for build/<stage>/exercise-emu), the stage's checks run on it, confined.
 * The emulator's harness is built once, in the class's lab: a student's
 * copy compiles their kernel.cu twice (nvcc for the runner, whose object
 * the launcher's pre-run checks read too; the host compiler for the
 * emulator) and links.
 * The row says what each stage is: not submitted, does not compile, the
 * skeleton as handed out, compiles, correct or wrong on the emulator; its
 * notes give each problem's first message in a phrase (the compiler's
 * first error, the emulator's first finding: grader/sentence.c). The
 * student's grade.log holds the build's messages and each emulated run's
 * output, check.tsv each stage's word and first message, whole, which the
 * check's report shows (grader/class/report/checkpage.c).
 * Emulated results are marked so and are never points.
 */
#include "class.h"
#include "grader.h"
#include "stages.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Exit statuses of the launcher (judge/launch.sh) around
 * build/<stage>/exercise-emu: 0 correct, 1 wrong, 2 usage, 4 a construct
 * the emulator refuses, 5 not run (no wall here), 6 refused by the
 * grade's pre-run checks. */
enum { EMU_CORRECT = 0, EMU_WRONG = 1, EMU_REFUSED = 4, EMU_NOT_RUN = 5, EMU_CHECKS_REFUSED = 6 };
#define EMU_LIMIT_S "120"

static const char *family_of(const char *stage)
{
    static const struct {
        const char *name, *family, *knob, *sweep, *lesson;
    } table[] = {LAB_STAGE_TABLE};
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
        if (!strcmp(table[i].name, stage))
            return table[i].family;
    return NULL;
}

/* Whether the class's lab has the emulator's rule for stage (make -n
 * build/<stage>/exercise-emu succeeds there); asked once a stage. */
static int emulated(const char *stage)
{
    static char known[MAX_CLASS_STAGES], has[MAX_CLASS_STAGES];
    int s = 0;
    while (s < cls.nstages && strcmp(cls.stages[s], stage))
        s++;
    if (s == cls.nstages)
        return 0;
    if (!known[s]) {
        char *lab = lab_asprintf("%s/lab", cls.out), *target = lab_asprintf("build/%s/exercise-emu", stage);
        char *argv[] = {"make", "-n", "-s", "-C", lab, target, NULL};
        proc p = {.out = "/dev/null", .err = ERR_NULL};
        has[s] = class_run(argv, &p) == 0;
        known[s] = 1;
        free(target);
        free(lab);
    }
    return has[s];
}

char **class_check_lab_targets(void)
{
    char **t = lab_grow(NULL, (8 + 2 * cls.nstages) * sizeof *t);
    int n = 0;
    t[n++] = lab_strdup("build/confine/confine");
    t[n++] = lab_strdup("build/grader/grade"); /* the launcher's checks and verdicts */
    t[n++] = lab_strdup("build/judge/runner.o");
    t[n++] = lab_strdup("build/judge/forward.o");
    t[n++] = lab_strdup("build/judge/forward_runtime.o");
    t[n++] = lab_strdup("build/common/fdio.o");
    t[n++] = lab_strdup("build/judge/server"); /* a runner's link asks for it */
    const int fixed = n;
    for (int s = 0; s < cls.nstages; s++) {
        const char *f = family_of(cls.stages[s]);
        char *obj = lab_asprintf("build/judge/%s_call.o", f ? f : "none");
        int seen = 0;
        for (int i = fixed; i < n; i++)
            seen |= !strcmp(t[i], obj);
        if (f && !seen)
            t[n++] = obj;
        else
            free(obj);
    }
    /* the emulator's harness, through each skeleton's emulated program:
     * a student's copy then compiles their kernel.cu alone */
    for (int s = 0; s < cls.nstages; s++)
        if (emulated(cls.stages[s]))
            t[n++] = lab_asprintf("build/%s/exercise-emu", cls.stages[s]);
    t[n] = NULL;
    return t;
}

int class_check_targets(const char *stage, char **argv, int n)
{
    argv[n++] = lab_asprintf("build/%s/exercise-runner", stage);
    if (emulated(stage))
        argv[n++] = lab_asprintf("build/%s/exercise-emu", stage);
    return n;
}

/* Why stage did not build, in one line (new string): the first error
 * among the messages make -k gave before its "*** [... build/<stage>/...]"
 * line (the build ahead runs one target after another, so a stage's
 * messages come together). */
static char *build_problem(const char *log, const char *stage)
{
    char *mark = lab_asprintf("build/%s/", stage), *why = NULL;
    int n, from = 0;
    char **line = lab_lines(log ? log : "", &n);
    for (int i = 0; i < n && !why; i++) {
        if (strncmp(line[i], "make: *** [", 11))
            continue;
        for (int k = from; strstr(line[i], mark) && k < i && !why; k++) {
            const char *l = line[k], *undef = strstr(l, "undefined reference to ");
            if (undef)
                why = lab_asprintf("did not link: %s", undef);
            else if (strstr(l, "error") && strncmp(l, "collect2", 8) && strncmp(l, "make:", 5))
                why = lab_asprintf("did not compile: %s", l);
        }
        from = i + 1;
    }
    lab_list_free(line);
    free(mark);
    return why ? why : lab_strdup("did not build (see grade.log)");
}

/* A finding as a note's phrase: without the kernel.cu:LINE it starts
 * with and the thread it names ("thread (1,0) of block (0,0) reads A[1],
 * 1 element past the end of A" becomes "reads A[1], 1 element past the
 * end of A"); the whole finding is in check.tsv and grade.log. */
static void finding_phrase(const char *message, char *phrase, size_t len)
{
    const char *m = message, *colon = strstr(m, ": ");
    if (colon && colon > m && colon[-1] >= '0' && colon[-1] <= '9' && !memchr(m, ' ', (size_t)(colon - m)))
        m = colon + 2;
    const char *of = strstr(m, " of block ");
    if (!strncmp(m, "thread ", 7) && of) {
        of += strlen(" of block ");
        of += *of == '(' ? strcspn(of, ")") + 1 : strcspn(of, " ");
        m = of + strspn(of, " ");
    }
    class_phrase_of(m, 0, "", phrase, len);
}

/* What a stage's check found (check_stage fills it). */
typedef struct {
    const char *cell;            /* the stage's word in the gradebook       */
    char phrase[PHRASE_MAX * 4]; /* the note's phrase ("" for none)         */
    char *message;               /* the first message, whole, or NULL       */
    char *output;                /* the emulated run's output, or NULL      */
    int unchecked;               /* compiled, and nothing ran its checks    */
} stage_check;

/* The stage's checks on the CPU emulator, in the copy work, through the
 * one launcher (the grade's pre-run checks, the wall, the verdict from the
 * checks' record): the cell's word, and when it is not correct the first
 * message (grader/sentence.c) and its phrase. */
static void run_emulator(const char *work, const char *stage, stage_check *c)
{
    /* the pre-run checks read nvcc's object of the runner (make's
     * EMU_CHECK_OBJECT=0: the emulated program has none of its own) */
    char *emu = lab_asprintf("build/%s/exercise-emu", stage), *object = lab_asprintf("build/%s/exercise.o", stage);
    char *argv[] = {"judge/launch.sh", "--stage", (char *)stage, "--object", object, "--emulated", "--limit",
                    EMU_LIMIT_S, "--", emu, NULL};
    proc p = {.dir = work, .capture = 1, .err = ERR_TO_OUT};
    int st = class_run(argv, &p);
    c->output = p.text ? p.text : lab_strdup("");
    if (st == EMU_CORRECT) {
        c->cell = "correct (emulated)";
    } else {
        c->cell = st == EMU_WRONG ? "wrong (emulated)" : st == EMU_REFUSED ? "refused (emulated)" : "emulator failed";
        c->cell = st == EMU_CHECKS_REFUSED ? "refused" : st == EMU_NOT_RUN ? "not run" : c->cell;
        char sentence[1024];
        grader_run_sentence(c->output, sentence, sizeof sentence);
        c->message = lab_strdup(sentence);
        finding_phrase(sentence, c->phrase, sizeof c->phrase);
    }
    free(object);
    free(emu);
}

/* Whether the student's kernel.cu of stage is the skeleton as handed out. */
static int is_skeleton(const char *name, const char *stage)
{
    char *sent = lab_asprintf("%s/students/%s/kernels/%s/kernel.cu", cls.out, name, stage);
    char *skeleton = lab_asprintf("%s/lab/exercises/%s/kernel.cu", cls.out, stage);
    char *a = lab_read_file(sent, 0), *b = lab_read_file(skeleton, 0);
    int same = a && b && !strcmp(a, b);
    free(a);
    free(b);
    free(skeleton);
    free(sent);
    return same;
}

/* One stage of a checked copy: what it is, and what was found. */
static void check_stage(const char *name, const char *work, const char *log, const char *stage, stage_check *c)
{
    if (!class_submitted_stage(name, stage)) {
        c->cell = "not submitted";
        return;
    }
    char *runner = lab_asprintf("%s/build/%s/exercise-runner", work, stage), *emu = lab_asprintf("%s/build/%s/exercise-emu", work, stage);
    int built = access(runner, X_OK) == 0, has_emu = emulated(stage) && access(emu, X_OK) == 0;
    free(runner);
    free(emu);
    c->cell = "compiles";
    if (!built) {
        c->cell = "does not compile";
        c->message = build_problem(log, stage);
    } else if (is_skeleton(name, stage)) {
        c->cell = "skeleton";
        c->message = lab_strdup("still the skeleton as handed out");
    } else if (emulated(stage) && !has_emu) {
        c->message = lab_strdup("the CPU emulator could not build it (see grade.log)");
    } else if (!has_emu) {
        c->unchecked = 1;
    } else {
        run_emulator(work, stage, c);
        return;
    }
    if (c->message)
        class_phrase_of(c->message, 0, "", c->phrase, sizeof c->phrase);
}

/* grade.log: the build's messages, then each emulated run's output. */
static void write_log(const char *path, const char *build, const stage_check *c)
{
    char *text = lab_strdup(build ? build : "");
    for (int s = 0; s < cls.nstages; s++) {
        if (!c[s].output)
            continue;
        lab_appendf(&text, "%s== %s on the CPU emulator (judge/launch.sh): %s\n%s",
                      *text && text[strlen(text) - 1] != '\n' ? "\n" : "", cls.stages[s], c[s].cell, c[s].output);
    }
    if (lab_write_atomic(path, text))
        lab_warn("cannot write %s", path);
    free(text);
}

/* check.tsv: a line a stage, "stage<TAB>its word<TAB>the first message"
 * (whole, on one line), for the check's report (grader/class/report/). */
static void write_tsv(const char *path, const stage_check *c)
{
    char *text = lab_strdup("stage\tcheck\tmessage\n");
    for (int s = 0; s < cls.nstages; s++) {
        char *m = lab_strdup(c[s].message ? c[s].message : "");
        for (char *q = m; *q; q++)
            if (*q == '\t' || *q == '\n' || *q == '\r')
                *q = ' ';
        lab_appendf(&text, "%s\t%s\t%s\n", cls.stages[s], c[s].cell, m);
        free(m);
    }
    if (lab_write_atomic(path, text))
        lab_warn("cannot write %s", path);
    free(text);
}

/* The row's notes (new string): the stages not submitted, then a phrase
 * for each stage with a problem (their count in *bad). */
static char *check_notes(const stage_check *c, int *bad)
{
    char *missing = lab_strdup(""), *notes = lab_strdup("");
    int unchecked = 0;
    *bad = 0;
    for (int s = 0; s < cls.nstages; s++) {
        unchecked |= c[s].unchecked;
        char **list = !strcmp(c[s].cell, "not submitted") ? &missing : c[s].phrase[0] ? &notes : NULL;
        if (!list)
            continue;
        if (list == &missing)
            lab_appendf(list, " %s", cls.stages[s]);
        else
            lab_appendf(list, "%s%s: %s", *notes ? " | " : "", cls.stages[s], c[s].phrase);
        *bad += list == &notes;
    }
    char *all = lab_asprintf("%s%s%s%s%s", *missing ? "not submitted:" : "", missing, *missing && *notes ? " | " : "", notes,
                    unchecked ? (*missing || *notes ? " | correctness needs a GPU or the CPU emulator"
                                                    : "correctness needs a GPU or the CPU emulator")
                              : "");
    free(notes);
    free(missing);
    return all;
}

void class_check_prepared(const char *name, time_t since)
{
    char *dir = lab_asprintf("%s/students/%s", cls.out, name), *work = lab_asprintf("%s/work/%s", cls.out, name);
    char *build_log = lab_asprintf("%s/build/grade-build.log", work), *log = lab_asprintf("%s/grade.log", dir);
    char *tsv = lab_asprintf("%s/check.tsv", dir);
    char *text = lab_read_file(build_log, 0);
    stage_check *c = lab_grow(NULL, (cls.nstages + 1) * sizeof *c);
    memset(c, 0, (cls.nstages + 1) * sizeof *c);
    points pts = {.score = lab_strdup(""), .max = lab_strdup(""), .seed = lab_strdup(""), .bonus = lab_strdup(""),
                  .bonus_max = lab_strdup("")};
    pts.stages = lab_grow(NULL, (cls.nstages + 1) * sizeof *pts.stages);
    for (int s = 0; s < cls.nstages; s++) {
        check_stage(name, work, text, cls.stages[s], &c[s]);
        stage_points *sp = &pts.stages[pts.nstages++];
        sp->name = lab_strdup(cls.stages[s]);
        sp->points = lab_strdup(c[s].cell);
        snprintf(sp->phrase, sizeof sp->phrase, "%s", c[s].phrase);
    }
    int bad;
    char *notes = check_notes(c, &bad);
    /* the messages first: a row says the student is done */
    write_log(log, text, c);
    write_tsv(tsv, c);
    class_write_row(name, "checked", notes, &pts);
    class_say("[%d/%d] %s: checked, %d stage%s with a problem%s (%ld s)", class_done_count(), cls.nstudents, name, bad,
        bad == 1 ? "" : "s", strncmp(notes, "not submitted:", 14) ? "" : ", some not submitted",
        (long)(time(NULL) - since));
    const char *keep = getenv("KEEP_WORK");
    if (!keep || strcmp(keep, "1"))
        lab_remove_tree(work);
    for (int s = 0; s < cls.nstages; s++) {
        free(c[s].message);
        free(c[s].output);
    }
    free(c);
    class_points_free(&pts);
    free(notes);
    free(text);
    free(tsv);
    free(log);
    free(build_log);
    free(work);
    free(dir);
}
