/*
 * emulated.c: what the CPU emulation names in a kernel.cu graded on the
 * GPU. The stage's emulated program (emu/README.md), built from the same
 * kernel.cu, runs through the one launcher (judge/launch.sh: the pre-run
 * checks, the wall); its first finding (an "  emulator: " line: a race on
 * shared memory, threads at different barriers, a read past an array...)
 * is said in its own words. Where it names nothing, nothing more is said.
 *
 *  - wrong on the GPU: at the size the GPU failed at, or at small sizes of
 *    the family's where that one would take more than seconds on the CPU;
 *    the finding comes first in the advice. No points depend on it.
 *  - correct on the GPU: once, at the family's small sizes, with a short
 *    time limit (a race the hardware happened to order is still a bug):
 *    the finding is a warning, no points lost; but where the stage's
 *    lesson is its barriers (a barriers line of stages.tsv), a race or a
 *    barrier that not every thread reaches costs the correctness points,
 *    as a racecheck error does under SANITIZE=1. This run needs nothing
 *    of the GPU's: it starts with the stage (emulated_begin), beside the
 *    judge's start-up, in a child of the grader that writes its finding
 *    to a pipe; a stage wrong on the GPU stops it.
 *
 *   grade --emulated-cause STAGE PROGRAM RECORD [--own]
 *       make run on a GPU, after a wrong run: RECORD is the GPU run's
 *       record (--json), for the failing size and the seed; prints the
 *       sentence, or nothing
 *   grade --emulated-check STAGE PROGRAM SEED [--own]
 *       the run a grade makes of a kernel correct on the GPU, alone: prints
 *       its finding, or nothing (research/emulated-warnings.sh counts them)
 */
#include "grader.h"
#include "grading.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* The time limits of a wrong kernel's run and of a correct kernel's: the
 * solutions take a tenth of a second at the small sizes (MEASUREMENTS.md,
 * 2026-11-29, CPU), and a correct grade must not wait long for a warning. */
#define EMULATED_LIMIT_S 60
#define WARNING_LIMIT_S 10

/* The first finding in the launcher's output (grader/sentence.c), when
 * its verdict (its last line) is "wrong": 1 with it in cause. */
static int first_finding(const char *out, char *cause, size_t len)
{
    const char *last = out + strlen(out);
    while (last > out && last[-1] == '\n')
        last--;
    while (last > out && last[-1] != '\n')
        last--;
    cause[0] = 0;
    return !strncmp(last, "verdict: wrong", 14) && grader_emulator_finding(out, cause, len);
}

int grader_emulated_cause(const char *lab, const char *stage, const char *program, const char *at, int own,
                   unsigned long long seed, double limit_s, char *cause, size_t len)
{
    target t;
    char path[PATH_MAX], object[PATH_MAX + 16], seed_text[32], limit[32];
    cause[0] = 0;
    if (grader_prerun_target(stage, "", &t) || !realpath(program, path) || access(path, X_OK))
        return 0;
    snprintf(object, sizeof object, "%s.check.o", path);
    snprintf(seed_text, sizeof seed_text, "%llu", seed);
    snprintf(limit, sizeof limit, "%g", limit_s);
    /* the launcher runs from the lab's folder */
    char *argv[24] = {"sh", "-c", "cd \"$0\" && exec judge/launch.sh \"$@\"", (char *)lab, "--stage", (char *)stage,
                      "--object", object, "--emulated", "--limit", limit};
    int a = 11;
    if (own)
        argv[a++] = "--own"; /* the caller's own working copy (judge/launch.sh) */
    /* the size the GPU failed at where the emulation runs it in seconds, then
     * the family's small sizes (lab_family.emu: emu/main.cc) */
    char *run[] = {"--", path, "--sizes-near", (char *)at, "--n", "1", "--seed", seed_text, NULL};
    memcpy(argv + a, run, sizeof run);
    run_result r;
    grader_run_program(argv, -1, limit_s + 30, 64u << 10, &r);
    int found = r.exited && r.tail && first_finding(r.tail, cause, len);
    grader_run_result_free(&r);
    return found;
}

/* The emulator's findings about barriers (emu/races.cc, emu/runtime.cc):
 * what a stage whose lesson is its barriers takes the points for. */
static int names_barrier(const char *cause)
{
    static const char *const kinds[] = {"a race on ", "a thread returned before a barrier",
                                        "threads of a block wait at different barriers"};
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        if (!strncmp(cause, kinds[i], strlen(kinds[i])))
            return 1;
    return 0;
}

/* A stage correct on the GPU whose emulation names a bug: a warning, or,
 * where the lesson is the barriers and the bug one of them, the
 * correctness points lost (speed points kept, as for racecheck's errors). */
static void hidden_bug(stage_result *s, const char *cause, unsigned long long seed)
{
    char command[256];
    grader_run_command(s->stage, &seed, command, sizeof command);
    if (!s->barriers || !names_barrier(cause)) {
        snprintf(s->warning, sizeof s->warning, "correct on the GPU, but the CPU emulation of your kernel names "
                 "a bug the GPU's timing hid (no points lost; `%s EMU=1` shows it): %s", command, cause);
        return;
    }
    s->correct = 0;
    s->points -= s->correct_points;
    s->correct_points = 0;
    snprintf(s->reason, sizeof s->reason, "correct on the GPU, but the CPU emulation of your kernel names %s",
             cause);
    grader_score_add_advice(s, "This stage's lesson is its barriers: fix what the CPU emulation names (`%s EMU=1` "
                        "shows it). Results that are right by luck on this run can be wrong on the next one, "
                        "or on the next GPU.", command);
}

/* The run at the family's small sizes, begun with the stage. */
static struct {
    pid_t pid;
    int fd;
} early = {-1, -1};

void grader_emulated_begin(const target *t, const options *o)
{
    int p[2];
    early.pid = -1;
    if (!t->emulated[0] || access(t->emulated, X_OK) || pipe2(p, O_CLOEXEC))
        return;
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        char cause[REASON_LEN - 256];
        close(p[0]);
        if (!grader_emulated_cause(o->lab, t->stage, t->emulated, "any", !o->src, o->seed, WARNING_LIMIT_S, cause,
                            sizeof cause))
            cause[0] = 0;
        ssize_t w = write(p[1], cause, strlen(cause));
        _exit(w < 0);
    }
    close(p[1]);
    if (pid < 0) {
        close(p[0]);
        return;
    }
    early.pid = pid;
    early.fd = p[0];
}

/* The early run's finding (1 with it in cause); stop: end it unheard. */
static int early_end(int stop, char *cause, size_t len)
{
    size_t n = 0;
    if (early.pid < 0)
        return 0;
    if (stop)
        kill(early.pid, SIGTERM); /* its handler ends the launcher it runs (grade.c) */
    for (ssize_t k; !stop && n + 1 < len && (k = read(early.fd, cause + n, len - 1 - n)) != 0;)
        if (k > 0)
            n += (size_t)k;
        else if (errno != EINTR)
            break;
    cause[n] = 0;
    close(early.fd);
    while (waitpid(early.pid, NULL, 0) < 0 && errno == EINTR)
        ;
    early.pid = -1;
    return n > 0;
}

void grader_emulated_findings(stage_result *s, const target *t, const options *o)
{
    char cause[REASON_LEN - 256];
    int usable = t->emulated[0] && !access(t->emulated, X_OK) && !s->no_gpu;
    if (!usable || !s->correct)
        early_end(1, cause, sizeof cause);
    if (!usable || (!s->correct && !s->emulate_at[0]))
        return;
    printf("on the CPU emulation... ");
    fflush(stdout);
    if (s->correct) {
        /* correct: once more at the family's small sizes, briefly (begun with the stage) */
        if (early.pid >= 0 ? early_end(0, cause, sizeof cause)
                           : grader_emulated_cause(o->lab, t->stage, t->emulated, "any", !o->src, o->seed, WARNING_LIMIT_S,
                                            cause, sizeof cause))
            hidden_bug(s, cause, o->seed);
        return;
    }
    if (!grader_emulated_cause(o->lab, t->stage, t->emulated, s->emulate_at, !o->src, o->seed, EMULATED_LIMIT_S, cause,
                        sizeof cause))
        return;
    /* the cause comes first: the advice after it says what to do in general */
    int last = s->nadvice < MAX_ADVICE ? s->nadvice++ : MAX_ADVICE - 1;
    memmove(s->advice[1], s->advice[0], (size_t)last * sizeof s->advice[0]);
    snprintf(s->advice[0], sizeof s->advice[0], "The CPU emulation of your kernel names the cause: %s.", cause);
}

int grader_emulated_main(int argc, char **argv)
{
    int check = argc > 1 && !strcmp(argv[1], "--emulated-check");
    if (argc < 2 || (strcmp(argv[1], "--emulated-cause") && !check))
        return -1;
    int own = argc == 6 && !strcmp(argv[5], "--own");
    if (argc != 5 && !own) {
        fprintf(stderr, "usage: grade --emulated-cause STAGE PROGRAM RECORD [--own]\n"
                        "       grade --emulated-check STAGE PROGRAM SEED [--own]\n");
        return 2;
    }
    char cause[REASON_LEN];
    if (check) {
        if (grader_emulated_cause(".", argv[2], argv[3], "any", own, strtoull(argv[4], NULL, 10), WARNING_LIMIT_S, cause,
                           sizeof cause))
            printf("the CPU emulation of your kernel names: %s\n", cause);
        return 0;
    }
    char err[256], at[48] = "any";
    jvalue *rec = lab_json_read(argv[4], 1u << 20, err, sizeof err);
    double status = 1, seed = 0;
    if (rec) {
        lab_json_number_at(rec, "exit_status", &status);
        grader_emulate_size(rec, (int)status, at, sizeof at);
        lab_json_number_at(rec, "seed", &seed);
    }
    if (at[0] && grader_emulated_cause(".", argv[2], argv[3], at, own, (unsigned long long)seed, EMULATED_LIMIT_S, cause,
                                sizeof cause))
        printf("the CPU emulation of your kernel names the cause: %s\n", cause);
    lab_json_free(rec);
    return 0;
}
