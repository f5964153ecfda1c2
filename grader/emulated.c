/*
 * emulated.c: what the CPU emulation names in a kernel.cu that was wrong on
 * the GPU. The stage's emulated program (emu/README.md), built from the
 * same kernel.cu, runs through the one launcher (judge/launch.sh: the
 * pre-run checks, the wall) at the size the GPU failed at, or at small
 * sizes of the family's where that one would take more than seconds on the
 * CPU; its first finding (an "  emulator: " line: a race on shared memory,
 * threads at different barriers, a read past an array...) is said in its
 * own words under the GPU's verdict. Where it names nothing, nothing more
 * is said. No points depend on it: the GPU's run is the grade.
 *
 *   grade --emulated-cause STAGE PROGRAM RECORD [--own]
 *       make run on a GPU, after a wrong run: RECORD is the GPU run's
 *       record (--json), for the failing size and the seed; prints the
 *       sentence, or nothing
 */
#include "grader.h"
#include "grading.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* What the CPU emulates in seconds: a matrix product of n = 128 (n^3), a
 * transpose of 1025x777, a reduction of 100003 (elements). */
#define EMULATED_WORK 2200000LL
#define EMULATED_LIMIT "60"
static const char *const SMALL_SIZES[][2] = {{"matmul", "17,100"}, {"transpose", "33x65,65x65"},
                                              {"reduce", "1000,65537"}};

/* The sizes to emulate at: `at` ("n=17", "33x65") where it is cheap enough,
 * then the family's small sizes (a bug between tiles needs more than one). */
static void emulated_sizes(const char *family, const char *at, char *out, size_t len)
{
    const char *size = !strncmp(at, "n=", 2) ? at + 2 : at;
    long long rows = 0, cols = 1;
    char rest = 0;
    int fields = sscanf(size, "%lld%c%lld", &rows, &rest, &cols);
    int parsed = rows > 0 && cols > 0 && (fields == 1 || (fields == 3 && rest == 'x'));
    long long work = !strcmp(family, "matmul") ? rows * rows * rows : rows * cols;
    const char *small = SMALL_SIZES[0][1];
    for (size_t i = 0; i < sizeof SMALL_SIZES / sizeof SMALL_SIZES[0]; i++)
        if (!strcmp(family, SMALL_SIZES[i][0]))
            small = SMALL_SIZES[i][1];
    if (parsed && rows < 1000000 && work <= EMULATED_WORK)
        snprintf(out, len, "%.20s,%s", size, small);
    else
        snprintf(out, len, "%s", small);
}

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
    return !strncmp(last, "verdict: wrong", 14) && emulator_finding(out, cause, len);
}

int emulated_cause(const char *lab, const char *stage, const char *program, const char *at, int own,
                   unsigned long long seed, char *cause, size_t len)
{
    target t;
    char path[PATH_MAX], object[PATH_MAX + 16], sizes[64], seed_text[32];
    cause[0] = 0;
    if (prerun_target(stage, "", &t) || !realpath(program, path) || access(path, X_OK))
        return 0;
    snprintf(object, sizeof object, "%s.check.o", path);
    emulated_sizes(t.family, at, sizes, sizeof sizes);
    snprintf(seed_text, sizeof seed_text, "%llu", seed);
    /* the launcher runs from the lab's folder */
    char *argv[24] = {"sh", "-c", "cd \"$0\" && exec judge/launch.sh \"$@\"", (char *)lab, "--stage", (char *)stage,
                      "--object", object, "--emulated", "--limit", EMULATED_LIMIT};
    int a = 11;
    if (own)
        argv[a++] = "--own"; /* the caller's own working copy (judge/launch.sh) */
    char *run[] = {"--", path, "--sizes", sizes, "--n", "1", "--seed", seed_text, NULL};
    memcpy(argv + a, run, sizeof run);
    run_result r;
    run_program(argv, -1, atof(EMULATED_LIMIT) + 30, 64u << 10, &r);
    int found = r.exited && r.tail && first_finding(r.tail, cause, len);
    run_result_free(&r);
    return found;
}

void emulated_advice(stage_result *s, const target *t, const options *o)
{
    char cause[REASON_LEN - 64];
    if (s->correct || !s->emulate_at[0] || !t->emulated[0] || access(t->emulated, X_OK))
        return;
    printf("on the CPU emulation... ");
    fflush(stdout);
    if (!emulated_cause(o->lab, t->stage, t->emulated, s->emulate_at, !o->src, o->seed, cause, sizeof cause))
        return;
    /* the cause comes first: the advice after it says what to do in general */
    int last = s->nadvice < MAX_ADVICE ? s->nadvice++ : MAX_ADVICE - 1;
    memmove(s->advice[1], s->advice[0], (size_t)last * sizeof s->advice[0]);
    snprintf(s->advice[0], sizeof s->advice[0], "The CPU emulation of your kernel names the cause: %s.", cause);
}

int emulated_main(int argc, char **argv)
{
    if (argc < 2 || strcmp(argv[1], "--emulated-cause"))
        return -1;
    int own = argc == 6 && !strcmp(argv[5], "--own");
    if (argc != 5 && !own) {
        fprintf(stderr, "usage: grade --emulated-cause STAGE PROGRAM RECORD [--own]\n");
        return 2;
    }
    char *text = read_file_text(argv[4], 1u << 20), err[256], at[48] = "any", cause[REASON_LEN];
    jvalue *rec = text ? json_parse(text, strlen(text), err, sizeof err) : NULL;
    double status = 1, seed = 0;
    if (rec) {
        json_number_at(rec, "exit_status", &status);
        emulate_size(rec, (int)status, at, sizeof at);
        json_number_at(rec, "seed", &seed);
    }
    if (at[0] && emulated_cause(".", argv[2], argv[3], at, own, (unsigned long long)seed, cause, sizeof cause))
        printf("the CPU emulation of your kernel names the cause: %s\n", cause);
    json_free(rec);
    free(text);
    return 0;
}
