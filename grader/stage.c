/*
 * stage.c: grading one stage whose program was built: the symbol policy, the
 * run with its time limit, the score, compute-sanitizer; and the progress
 * lines a student sees while it happens.
 */
#include "grader.h"
#include "grading.h"
#include "resources.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ================================================================= main */


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
    if (t->runner[0]) {
        /* the judge runs the kernels in its runner, a child process, which
         * the sanitizer must follow (and which it cannot reach confined) */
        argv[a++] = "--target-processes";
        argv[a++] = "all";
    }
    argv[a++] = (char *)t->binary;
    if (t->runner[0]) {
        argv[a++] = "--runner";
        argv[a++] = (char *)t->runner;
    }
    argv[a++] = "--quiet";
    argv[a++] = "--seed";
    argv[a++] = seed_text;
    char *save = NULL;
    for (char *w = strtok_r(args, " ", &save); w && a < 62; w = strtok_r(NULL, " ", &save))
        argv[a++] = w;
    argv[a] = NULL;
    run_result r;
    /* each array allocated with exactly its size, so that memcheck sees a
     * read past its end (common/gpu.h, lab_buffers_exact) */
    setenv("LAB_EXACT_BUFFERS", "1", 1);
    grader_run_program(argv, -1, rb->sanitize_limit_s, 256u << 10, &r);
    unsetenv("LAB_EXACT_BUFFERS");
    int verdict;
    if (r.timed_out) {
        snprintf(finding, len, "%s did not finish within %.0f s", tool, rb->sanitize_limit_s);
        verdict = 3;
    } else {
        verdict = grader_sanitizer_finding(r.tail ? r.tail : "", finding, len);
        if (!verdict && r.exited && r.status == 99) {
            snprintf(finding, len, "%s reported errors it did not describe", tool);
            verdict = 2;
        }
    }
    grader_run_result_free(&r);
    return verdict;
}

/* ============================================================== grading */

/* The arguments every graded run gets, then the rubric's; inside confine
 * when the runs are confined. */
int grader_run_args(command_line *c, const target *t, const rubric *rb, const stage_rubric *sr,
             const confinement *conf, unsigned long long seed)
{
    enum { MAX = sizeof c->argv / sizeof c->argv[0] };
    /* the judge runs no student code: it is not confined, its runner is */
    int a = t->runner[0] ? 0 : grader_confinement_wrap(conf, c->argv, MAX);
    snprintf(c->seed, sizeof c->seed, "%llu", seed);
    c->argv[a++] = (char *)t->binary;
    if (t->runner[0]) {
        c->argv[a++] = "--runner";
        c->argv[a++] = (char *)t->runner;
        if (conf && conf->on) {
            c->argv[a++] = "--confine";
            c->argv[a++] = (char *)conf->program;
            if (conf->files[0]) {
                c->argv[a++] = "--confine-files";
                c->argv[a++] = (char *)conf->files;
            }
        }
    }
    c->argv[a++] = "--quiet";
    c->argv[a++] = "--seed";
    c->argv[a++] = c->seed;
    c->argv[a++] = "--record-fd";
    c->argv[a++] = RUN_RECORD_FD_TEXT;
    c->argv[a++] = "--progress-fd";
    c->argv[a++] = RUN_PROGRESS_FD_TEXT;
    snprintf(c->words, sizeof c->words, "%s %s", rb->args, sr ? sr->args : "");
    char *save = NULL;
    for (char *w = strtok_r(c->words, " ", &save); w && a < MAX - 1; w = strtok_r(NULL, " ", &save))
        c->argv[a++] = w;
    c->argv[a] = NULL;
    return a;
}

/* One run of the stage's program, scored into s: whether it ran to its end. */
static int run_scored(stage_result *s, const target *t, const rubric *rb, const stage_rubric *sr,
                      const options *o, const extra_args *extra, const char *command)
{
    static command_line line;
    int a = grader_run_args(&line, t, rb, sr, o->conf, o->seed);
    enum { MAX = sizeof line.argv / sizeof line.argv[0] };
    for (int k = 0; extra && extra->argv[k] && a < MAX - 1; k++)
        line.argv[a++] = extra->argv[k];
    line.argv[a] = NULL;
    run_result r;
    const double limit_s = sr && sr->limit_s > 0 ? sr->limit_s : rb->limit_s;
    if (t->runner[0]) {
        /* the judge's worker is told which stage this is */
        const char *identity[] = {"--stage", t->stage, "--variant", t->variant, "--knob", t->knob, NULL};
        grader_run_judged(line.argv, identity, limit_s, OUTPUT_TAIL, &r);
    } else {
        grader_run_program_progress(line.argv, RUN_RECORD_FD, RUN_PROGRESS_FD, limit_s, OUTPUT_TAIL, &r);
    }
    grader_score_run(s, &r, sr, command);
    int ran_to_end = !r.timed_out && !r.signal && r.started;
    grader_run_result_free(&r);
    return ran_to_end;
}

/* Why a correct, timed stage runs a second time: its time was flagged, or
 * it is short of a speed tier it was scored on. Each reason in two forms:
 * the cause, and what the first run did. */
enum { AGAIN_NO, AGAIN_MISSED, AGAIN_FLAGGED };
static const char *const AGAIN_CAUSE[] = {"", "a speed tier was missed", "its time was flagged"};
static const char *const AGAIN_FIRST[] = {"", "missed a speed tier", "was flagged"};

static int why_again(const stage_result *s)
{
    if (!s->correct || !s->speed_scored || s->reason[0] || s->no_gpu)
        return AGAIN_NO;
    if (s->flagged)
        return AGAIN_FLAGGED;
    for (int i = 0; i < s->ntiers; i++)
        if (s->tiers[i].graded && s->tiers[i].points < s->tiers[i].max)
            return AGAIN_MISSED;
    return AGAIN_NO;
}

/* The checks of the student's object before it runs (launched.c's, which
 * every door that runs student code asks): 1 when one refused it (scored
 * 0, with the reason and advice). */
static int refused(stage_result *s, const target *t, const policy *pol)
{
    char reason[REASON_LEN + 32], advice[REASON_LEN + 64];
    if (!t->object[0] || !grader_prerun_refusal(t, pol, reason, sizeof reason, advice, sizeof advice))
        return 0;
    grader_score_fail(s, reason, advice);
    return 1;
}

/* Grade one stage whose binary exists: policy, run, sanitizer. */
void grader_grade_stage(stage_result *s, const target *t, const rubric *rb, const policy *pol,
                 const options *o, int have_sanitizer, const extra_args *extra)
{
    const stage_rubric *sr = grader_rubric_stage(rb, t->stage);
    char command[256];
    grader_run_command(t->stage, &o->seed, command, sizeof command);
    if (refused(s, t, pol))
        return;
    grader_emulated_begin(t, o);
    int ran_to_end = run_scored(s, t, rb, sr, o, extra, command);
    int why = ran_to_end && !o->once ? why_again(s) : AGAIN_NO;
    if (why != AGAIN_NO) {
        /* Noise only ever slows a run (another process on the machine, a
         * clock that dipped), and it can disturb what the judge measures
         * against: a correct stage that missed a speed tier, or whose time
         * was flagged, is run once more, checks included, and the better
         * run counts; only a flag that repeats costs points. A second run
         * that is wrong, or does not finish, is the verdict. */
        static stage_result again;
        printf("once more... ");
        fflush(stdout);
        grader_score_begin(&again, t->stage, sr, rb);
        int again_to_end = run_scored(&again, t, rb, sr, o, extra, command);
        int first_points = s->points;
        double both_s = s->seconds + again.seconds;
        int again_points = again.points;
        int fails = !again.correct || !again_to_end;
        if (fails || again.points > s->points) {
            grader_stage_result_free(s);
            *s = again;
            again.output = NULL;
        }
        grader_stage_result_free(&again);
        s->seconds = both_s;
        if (fails)
            grader_appendf(s->note, sizeof s->note, "%sthe first run was correct (%d/%d) but %s; this is the "
                    "second run, which did not pass", s->note[0] ? "; " : "", first_points, s->max,
                    AGAIN_FIRST[why]);
        else
            grader_appendf(s->note, sizeof s->note, "%s%s, so the stage ran a second time: %d/%d, then %d/%d; "
                    "the better run counts", s->note[0] ? "; " : "", AGAIN_CAUSE[why], first_points, s->max,
                    again_points, s->max);
        ran_to_end = again_to_end;
    }
    /* correct and a tier missed: what the compiler gave the kernel, beside the reference */
    grader_explain_resources(s, t, o->lab);
    /* what the CPU emulation of the same kernel.cu names: why it is wrong, or what the GPU hid */
    grader_emulated_findings(s, t, o);
    if (o->sanitize && have_sanitizer && ran_to_end && !s->no_gpu) {
        static const char *const tools[] = {"memcheck", "racecheck"};
        for (int k = 0; k < 2; k++) {
            char finding[REASON_LEN];
            printf("%s... ", tools[k]);
            fflush(stdout);
            int verdict = sanitize_one(tools[k], t, rb, o->seed, finding, sizeof finding);
            if (verdict == 1) {
                grader_score_sanitizer(s, finding, command);
                break;
            }
            if (verdict > 1)
                grader_appendf(s->note, sizeof s->note, "%scompute-sanitizer (not scored): %s", s->note[0] ? "; " : "",
                        finding);
        }
    }
}

/* One progress line after a stage. */
void grader_progress_done(const stage_result *s)
{
    if (s->correct && s->reason[0]) {
        /* correct, but the run did not finish: say why there is no speed */
        printf("%.200s%s: %d/%d\n", s->reason, strlen(s->reason) > 200 ? "..." : "", s->points, s->max);
    } else if (s->correct) {
        char speed[64] = "";
        if (s->have_speedup)
            snprintf(speed, sizeof speed, ", %.2fx the baseline", s->speedup);
        if (s->have_pct)
            grader_appendf(speed, sizeof speed, ", %.1f%% of the reference", s->pct);
        printf("correct%s%s: %d/%d (%.1f s)%s\n", speed, s->flagged ? ", FLAGGED" : "", s->points, s->max,
               s->seconds, s->warning[0] ? "; a warning (below)" : "");
    } else {
        printf("%.160s%s: %d/%d\n", s->reason, strlen(s->reason) > 160 ? "..." : "", s->points, s->max);
    }
}

/* The last lines of a failed stage's own output, indented. */
void grader_show_output_tail(const stage_result *s, int max_lines)
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

