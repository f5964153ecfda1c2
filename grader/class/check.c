/*
 * check.c: a class checked before any GPU (make class CHECK=1). Each
 * submitted stage of each student is built inside the wall, as a grade
 * builds it (the runner that holds the student's code: compiled and
 * linked), for one architecture; where the lab has a CPU emulator (a rule
 * for build/<stage>/exercise-emu), the stage's checks run on it, confined.
 * The row says what each stage is: not submitted, does not compile (the
 * first error, one line), the skeleton as handed out, compiles, correct
 * or wrong on the emulator.
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
        char *lab = fmt("%s/lab", cls.out), *target = fmt("build/%s/exercise-emu", stage);
        char *argv[] = {"make", "-n", "-s", "-C", lab, target, NULL};
        proc p = {.out = "/dev/null", .err = ERR_NULL};
        has[s] = run(argv, &p) == 0;
        known[s] = 1;
        free(target);
        free(lab);
    }
    return has[s];
}

char **check_lab_targets(void)
{
    char **t = xrealloc(NULL, (8 + 2 * cls.nstages) * sizeof *t);
    int n = 0;
    t[n++] = xstrdup("build/confine/confine");
    t[n++] = xstrdup("build/grader/grade"); /* the launcher's checks and verdicts */
    t[n++] = xstrdup("build/judge/runner.o");
    t[n++] = xstrdup("build/judge/forward.o");
    t[n++] = xstrdup("build/judge/forward_runtime.o");
    t[n++] = xstrdup("build/common/fdio.o");
    t[n++] = xstrdup("build/judge/server"); /* a runner's link asks for it */
    const int fixed = n;
    for (int s = 0; s < cls.nstages; s++) {
        const char *f = family_of(cls.stages[s]);
        char *obj = fmt("build/judge/%s_call.o", f ? f : "none");
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
            t[n++] = fmt("build/%s/exercise-emu", cls.stages[s]);
    t[n] = NULL;
    return t;
}

int check_targets(const char *stage, char **argv, int n)
{
    argv[n++] = fmt("build/%s/exercise-runner", stage);
    if (emulated(stage))
        argv[n++] = fmt("build/%s/exercise-emu", stage);
    return n;
}

/* Why stage did not build, in one line (new string): the first error
 * among the messages make -k gave before its "*** [... build/<stage>/...]"
 * line (the build ahead runs one target after another, so a stage's
 * messages come together), as a note's phrase. */
static char *build_problem(const char *log, const char *stage)
{
    char *mark = fmt("build/%s/", stage), *why = NULL;
    int n, from = 0;
    char **line = lines(log ? log : "", &n);
    for (int i = 0; i < n && !why; i++) {
        if (strncmp(line[i], "make: *** [", 11))
            continue;
        for (int k = from; strstr(line[i], mark) && k < i && !why; k++) {
            const char *l = line[k], *undef = strstr(l, "undefined reference to ");
            if (undef)
                why = fmt("did not link: %s", undef);
            else if (strstr(l, "error") && strncmp(l, "collect2", 8) && strncmp(l, "make:", 5))
                why = fmt("did not compile: %s", l);
        }
        from = i + 1;
    }
    words_free(line);
    free(mark);
    if (!why)
        return xstrdup("did not build (see grade.log)");
    char phrase[PHRASE_MAX * 4];
    phrase_of(why, 0, "", phrase, sizeof phrase);
    free(why);
    return xstrdup(phrase);
}

/* The stage's checks on the CPU emulator, in the copy work, through the
 * one launcher (the grade's pre-run checks, the wall, the verdict from the
 * checks' record): the cell's word, and a phrase for the notes when it is
 * not correct. */
static const char *run_emulator(const char *work, const char *stage, char *phrase, size_t len)
{
    char *emu = fmt("build/%s/exercise-emu", stage), *object = fmt("build/%s/exercise-emu.check.o", stage);
    char *argv[] = {"judge/launch.sh", "--stage", (char *)stage, "--object", object, "--emulated", "--limit",
                    EMU_LIMIT_S, "--", emu, NULL};
    proc p = {.dir = work, .capture = 1, .err = ERR_TO_OUT};
    int st = run(argv, &p);
    const char *cell = "emulator failed";
    phrase[0] = 0;
    if (st == EMU_CORRECT) {
        cell = "correct (emulated)";
    } else {
        char *said = last_line(p.text, NULL);
        cell = st == EMU_WRONG ? "wrong (emulated)" : st == EMU_REFUSED ? "refused (emulated)" : cell;
        cell = st == EMU_CHECKS_REFUSED ? "refused" : st == EMU_NOT_RUN ? "not run" : cell;
        char *why = fmt("%s (emulated, exit %d)", said, st);
        phrase_of(why, 0, "", phrase, len);
        free(why);
        free(said);
    }
    free(p.text);
    free(object);
    free(emu);
    return cell;
}

/* One stage of a checked copy: its cell, and a phrase when something is wrong. */
static const char *check_stage(const char *name, const char *work, const char *log, const char *stage, char *phrase,
                               size_t len, int *unchecked)
{
    phrase[0] = 0;
    if (!submitted_stage(name, stage))
        return "not submitted";
    char *runner = fmt("%s/build/%s/exercise-runner", work, stage), *emu = fmt("%s/build/%s/exercise-emu", work, stage);
    int built = access(runner, X_OK) == 0, has_emu = emulated(stage) && access(emu, X_OK) == 0;
    free(runner);
    free(emu);
    if (!built) {
        char *why = build_problem(log, stage);
        snprintf(phrase, len, "%s", why);
        free(why);
        return "does not compile";
    }
    char *sent = fmt("%s/students/%s/kernels/%s/kernel.cu", cls.out, name, stage);
    char *skeleton = fmt("%s/lab/exercises/%s/kernel.cu", cls.out, stage);
    char *a = read_file_text(sent, 0), *b = read_file_text(skeleton, 0);
    int same = a && b && !strcmp(a, b);
    free(a);
    free(b);
    free(skeleton);
    free(sent);
    if (same) {
        snprintf(phrase, len, "still the skeleton");
        return "skeleton";
    }
    if (emulated(stage) && !has_emu) {
        snprintf(phrase, len, "the CPU emulator could not build it (see grade.log)");
        return "compiles";
    }
    if (!has_emu) {
        *unchecked = 1;
        return "compiles";
    }
    return run_emulator(work, stage, phrase, len);
}

void check_prepared(const char *name)
{
    char *dir = fmt("%s/students/%s", cls.out, name), *work = fmt("%s/work/%s", cls.out, name);
    char *build_log = fmt("%s/build/grade-build.log", work), *log = fmt("%s/grade.log", dir);
    time_t t0 = time(NULL);
    char *text = read_file_text(build_log, 0);
    if (write_atomic(log, text ? text : ""))
        warn("cannot write %s", log);
    points pts = {.score = xstrdup(""), .max = xstrdup(""), .seed = xstrdup(""), .bonus = xstrdup(""),
                  .bonus_max = xstrdup("")};
    pts.stages = xrealloc(NULL, (cls.nstages + 1) * sizeof *pts.stages);
    char *missing = xstrdup(""), *notes = xstrdup("");
    int unchecked = 0, bad = 0;
    for (int s = 0; s < cls.nstages; s++) {
        stage_points *sp = &pts.stages[pts.nstages++];
        sp->name = xstrdup(cls.stages[s]);
        sp->points = xstrdup(check_stage(name, work, text, cls.stages[s], sp->phrase, sizeof sp->phrase, &unchecked));
        char **list = !strcmp(sp->points, "not submitted") ? &missing : sp->phrase[0] ? &notes : NULL;
        if (!list)
            continue;
        char *more = list == &missing ? fmt("%s %s", missing, sp->name)
                                      : fmt("%s%s%s: %s", notes, *notes ? " | " : "", sp->name, sp->phrase);
        free(*list);
        *list = more;
        bad += list == &notes;
    }
    char *all = fmt("%s%s%s%s%s", *missing ? "not submitted:" : "", missing, *missing && *notes ? " | " : "", notes,
                    unchecked ? (*missing || *notes ? " | correctness needs a GPU or the CPU emulator"
                                                    : "correctness needs a GPU or the CPU emulator")
                              : "");
    write_row(name, "checked", all, &pts);
    say("[%d/%d] %s: checked, %d stage%s with a problem%s (%ld s)", done_count(), cls.nstudents, name, bad,
        bad == 1 ? "" : "s", *missing ? ", some not submitted" : "", (long)(time(NULL) - t0));
    const char *keep = getenv("KEEP_WORK");
    if (!keep || strcmp(keep, "1"))
        remove_tree(work);
    points_free(&pts);
    free(all);
    free(notes);
    free(missing);
    free(text);
    free(log);
    free(build_log);
    free(work);
    free(dir);
}
