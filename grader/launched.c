/*
 * launched.c: the grader's half of the one launcher (judge/launch.sh), for
 * every door that runs student code outside a grade (make grade on the CPU,
 * make status, make explain, make run on the CPU, make class CHECK=1, the
 * Gradescope bundle without a GPU):
 *
 *   grade --prerun STAGE OBJECT
 *       the checks a grade makes before it runs a stage (prerun_refusal:
 *       the headers kernel.cu opened, grader/library.c; the object's
 *       symbols, grader/policy.c), on OBJECT, nvcc's object of the
 *       kernel.cu with its list of headers beside it (OBJECT.d); the
 *       sentence a grade gives, and exit 6, when they refuse it
 *   grade --run-checks STAGE LIMIT_S [--emulated] -- COMMAND...
 *       COMMAND (the stage's program, confined by the launcher) with the
 *       record on a descriptor of its own (3, --record-fd 3 added), killed
 *       with everything it started at LIMIT_S; its output shown, then its
 *       verdict, in one last line, from its record alone, validated as a
 *       grade validates it (score.c): a record that is missing, is not the
 *       harness's, or disagrees with the exit status is "wrong"; a correct
 *       emulated run's adds what its record says of the stage's technique
 *       ("verdict: correct; padding missing: ...", emu/technique.cc)
 *   grade --sentence OUTPUT
 *       what a failing run found, in one line of its output (OUTPUT, the
 *       file the launcher's output went to: grader/sentence.c), for the
 *       doors written in shell (emu/grade.sh, gradescope/run_autograder)
 *
 * Exit statuses (the launcher's): 0 correct, 1 wrong, 2 usage, 4 what the
 * emulator cannot run or a CUDA error, 6 refused by the pre-run checks.
 */
#include "grader.h"
#include "grading.h"
#include "lab.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { LAUNCH_CORRECT = 0, LAUNCH_WRONG = 1, LAUNCH_USAGE = 2, LAUNCH_REFUSED_CONSTRUCT = 4, LAUNCH_REFUSED = 6 };
#define LAUNCH_KEEP (4u << 20) /* output shown after the run: make explain's table fits */

int grader_prerun_refusal(const target *t, const policy *pol, char *reason, size_t rlen, char *advice, size_t alen)
{
    char lib[REASON_LEN], sym[REASON_LEN];
    int lib_rc = grader_library_check(t, lib, sizeof lib);
    int sym_rc = lib_rc == 1 ? 0 : grader_policy_check(pol, t->object, t->header[0] ? t->header : NULL, sym, sizeof sym);
    if (!lib_rc && !sym_rc)
        return 0;
    snprintf(reason, rlen, "refused: kernel.cu %s", lib_rc == 1 || !sym_rc ? lib : sym);
    const char *contract = strstr(t->header, "common/");
    if (lib_rc == 1)
        snprintf(advice, alen, "Take that #include out and write the kernels yourself: that is the "
                 "stage's lesson (grader/library.c lists the headers refused, and why).");
    else if (sym_rc > 0)
        snprintf(advice, alen, "Launch your own kernels on the default stream and return%s%s%s.",
                 contract ? "; " : "", contract ? contract : "", contract ? " says what kernel.cu may do" : "");
    else
        snprintf(advice, alen, "The %s check could not run: tell your instructor.", sym_rc ? "symbol" : "header");
    return 1;
}

/* STAGE's target for the checks: its family's contract, its lesson. */
int grader_prerun_target(const char *stage, const char *object, target *t)
{
    stage_info all[MAX_STAGES];
    int n = grader_stages_all(all, MAX_STAGES);
    memset(t, 0, sizeof *t);
    for (int i = 0; i < n; i++)
        if (!strcmp(all[i].dir, stage)) {
            snprintf(t->stage, sizeof t->stage, "%s", stage);
            snprintf(t->family, sizeof t->family, "%s", all[i].family);
            snprintf(t->lesson, sizeof t->lesson, "%s", all[i].lesson);
            snprintf(t->header, sizeof t->header, "common/%s.h", all[i].family);
            snprintf(t->object, sizeof t->object, "%s", object);
            return 0;
        }
    fprintf(stderr, "grade: --prerun: no stage '%s' in stages.tsv\n", stage);
    return -1;
}

static int prerun_cli(const char *stage, const char *object)
{
    static policy pol;
    target t;
    char err[512], reason[REASON_LEN + 32], advice[REASON_LEN + 64];
    if (grader_prerun_target(stage, object, &t))
        return LAUNCH_USAGE;
    if (grader_policy_read("grader/allowed-symbols.txt", &pol, err, sizeof err)) {
        fprintf(stderr, "grade: --prerun: %s\n", err);
        return LAUNCH_USAGE;
    }
    if (!grader_prerun_refusal(&t, &pol, reason, sizeof reason, advice, sizeof advice))
        return LAUNCH_CORRECT;
    printf("%s\n%s\n", reason, advice);
    return LAUNCH_REFUSED;
}

/* The verdict of a finished run, from its record: one line on stdout. */
static int verdict(const run_result *r, const char *stage, int emulated)
{
    char why[REASON_LEN];
    jvalue *rec = grader_record_validate(r, stage, why, sizeof why);
    int rc = LAUNCH_WRONG;
    if (rec && emulated && lab_json_bool_at(rec, "emulated") != 1)
        snprintf(why, sizeof why, "sent a record that is not the emulated harness's");
    else if (rec && r->status == 0)
        rc = LAUNCH_CORRECT;
    else if (rec && r->status == LAB_EXIT_CUDA_ERROR)
        rc = LAUNCH_REFUSED_CONSTRUCT;
    if (rec && !why[0] && rc != LAUNCH_CORRECT) {
        const char *said = lab_json_string_at(rec, "message");
        snprintf(why, sizeof why, "%s", said && said[0] ? said : "a check failed");
    }
    /* the emulation's word on the stage's technique (emu/technique.cc) */
    const char *technique = rc == LAUNCH_CORRECT && emulated ? lab_json_string_at(rec, "technique.said") : NULL;
    if (rc == LAUNCH_CORRECT)
        printf("verdict: correct%s%.*s\n", technique ? "; " : "", technique ? (int)strcspn(technique, "\r\n") : 0,
               technique ? technique : "");
    lab_json_free(rec);
    if (rc != LAUNCH_CORRECT)
        printf("verdict: %s: %s\n", rc == LAUNCH_WRONG ? "wrong" : "refused", why);
    return rc;
}

static int run_checks_cli(int argc, char **argv)
{
    /* STAGE LIMIT_S [--emulated] -- COMMAND... */
    int emulated = argc > 4 && !strcmp(argv[4], "--emulated"), first = 4 + emulated;
    double limit = argc > 3 ? atof(argv[3]) : 0;
    if (argc < first + 2 || strcmp(argv[first], "--") || limit <= 0) {
        fprintf(stderr, "usage: grade --run-checks STAGE LIMIT_S [--emulated] -- COMMAND...\n");
        return LAUNCH_USAGE;
    }
    int n = argc - first - 1;
    char **cmd = calloc((size_t)n + 3, sizeof *cmd);
    memcpy(cmd, argv + first + 1, (size_t)n * sizeof *cmd);
    cmd[n] = "--record-fd";
    cmd[n + 1] = "3";
    run_result r;
    grader_run_program(cmd, 3, limit, LAUNCH_KEEP, &r);
    free(cmd);
    fwrite(r.tail ? r.tail : "", 1, r.tail_len, stdout);
    if (r.tail_len && r.tail[r.tail_len - 1] != '\n')
        putchar('\n');
    int rc = verdict(&r, argv[2], emulated);
    grader_run_result_free(&r);
    return rc;
}

static int sentence_cli(const char *path)
{
    char *out = lab_read_file(path, LAUNCH_KEEP), sentence[REASON_LEN];
    if (!out) {
        fprintf(stderr, "grade: --sentence: cannot read %s\n", path);
        return LAUNCH_USAGE;
    }
    grader_run_sentence(out, sentence, sizeof sentence);
    free(out);
    printf("%s\n", sentence);
    return 0;
}

int grader_launched_main(int argc, char **argv)
{
    if (argc == 3 && !strcmp(argv[1], "--sentence"))
        return sentence_cli(argv[2]);
    if (argc == 4 && !strcmp(argv[1], "--prerun"))
        return prerun_cli(argv[2], argv[3]);
    if (argc > 1 && !strcmp(argv[1], "--run-checks"))
        return run_checks_cli(argc, argv);
    return -1;
}
