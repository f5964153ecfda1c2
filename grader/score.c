/*
 * score.c: from what a stage's program did to points, reasons and advice.
 *
 * First the record is validated against the fate of the process (a record
 * is believed only if it is valid JSON, names the expected stage, and agrees
 * with the exit status); then correctness (the harness's checks) earns the
 * correctness points, and each speed tier of the rubric earns its points
 * when the record field it names meets the threshold for this GPU. Speed is
 * scored only for a correct kernel whose time is physically possible.
 *
 * A run that did not finish (a timeout, a crash, a CUDA error) is told by its
 * progress lines how far it got: when every check had passed and it stopped
 * while timing, the correctness points are awarded and the speed points are
 * 0. The lines come from the student's process and could be forged, like the
 * record; so this rule never gives more than the correctness points.
 *
 * A stage's result itself (begun, failed, its advice) is result.c's; why a
 * correct-looking record is wrong is wrong.c's. Both come below this file,
 * never the other way.
 */
#include "grader.h"
#include "lab.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ================================================== validating a record */

static const char *const STATUS_NAMES[] = {"ok", "wrong", "usage", "no_gpu", "cuda_error", "no_memory"};
enum { NSTATUS = sizeof STATUS_NAMES / sizeof STATUS_NAMES[0] };

jvalue *grader_record_validate(const run_result *run, const char *expected_stage, char *why, size_t whylen)
{
    why[0] = 0;
    if (!run->started) {
        snprintf(why, whylen, "the program could not be started");
        return NULL;
    }
    if (run->timed_out) {
        snprintf(why, whylen, "timed out after %.0f s (a hang? an infinite loop?)", run->seconds);
        return NULL;
    }
    if (run->signal) {
        snprintf(why, whylen, "crashed: %s", lab_signal_text(run->signal));
        return NULL;
    }
    if (run->record_overflow) {
        snprintf(why, whylen, "sent more than %u bytes as its result record: that is not the harness's record",
                 RECORD_LIMIT);
        return NULL;
    }
    if (run->record_len == 0 && run->exited && run->status == 3) {
        /* the harness ends this way before its record exists: no GPU */
        const char *last = run->tail ? run->tail : "";
        size_t n = run->tail_len;
        while (n > 0 && last[n - 1] == '\n')
            n--;
        size_t start = n;
        while (start > 0 && last[start - 1] != '\n')
            start--;
        snprintf(why, whylen, "the program found no usable GPU (%.*s)", (int)(n - start > 300 ? 300 : n - start),
                 last + start);
        return NULL;
    }
    if (run->record_len == 0) {
        snprintf(why, whylen, "ended (exit status %d) without the harness's result record: "
                              "the process ended early, or the record channel was disturbed",
                 run->status);
        return NULL;
    }
    char err[256];
    jvalue *rec = lab_json_parse(run->record, run->record_len, err, sizeof err);
    if (!rec) {
        snprintf(why, whylen, "sent a result record that is not valid JSON (%s)", err);
        return NULL;
    }
    const char *stage = lab_json_string_at(rec, "stage");
    const char *status = lab_json_string_at(rec, "status");
    double code = -1;
    int have_code = lab_json_number_at(rec, "exit_status", &code) == 0;
    if (rec->type != J_OBJECT || !stage || !status || !have_code) {
        snprintf(why, whylen, "sent a result record without its stage, status and exit status");
    } else if (strcmp(stage, expected_stage)) {
        snprintf(why, whylen, "sent a result record for stage '%.60s', not %s", stage, expected_stage);
    } else if (code != run->status) {
        snprintf(why, whylen, "ended with exit status %d, but its record says %.0f: the record is not "
                              "the harness's",
                 run->status, code);
    } else if (run->status >= NSTATUS || strcmp(status, STATUS_NAMES[run->status])) {
        snprintf(why, whylen, "sent a record whose status '%.40s' does not match exit status %d",
                 status, run->status);
    } else if (run->status == 0 && lab_json_bool_at(rec, "correct") != 1) {
        snprintf(why, whylen, "sent a record that says ok but not correct");
    }
    if (why[0]) {
        lab_json_free(rec);
        return NULL;
    }
    return rec;
}

/* ===================================================== unfinished runs */

/* "while timing n=4096", "while checking n=1025": the phase the progress
 * lines reached, or "" when they name none. */
static void phase_text(const run_progress *p, char *out, size_t len)
{
    out[0] = 0;
    if (p->timing)
        snprintf(out, len, " while timing %s", p->size);
    else if (p->checking)
        snprintf(out, len, " while checking %s", p->last + strlen("check "));
}

/* Every check passed, and the run stopped while timing: correctness holds. */
static int stopped_in_timing(const run_progress *p)
{
    return p->checks_passed && (p->timing || !strcmp(p->last, "checks passed"));
}

/* Correctness points for a run whose checks all passed, none for speed. */
static void award_correctness(stage_result *s)
{
    s->correct = 1;
    s->correct_points = s->correct_max;
    s->points = s->correct_points;
}

/* A run killed at the time limit or by a signal that said how far it got. */
static void score_unfinished(stage_result *s, const run_result *run, const run_progress *p,
                             const char *command)
{
    char phase[PROGRESS_LINE + 32], ended[REASON_LEN];
    phase_text(p, phase, sizeof phase);
    if (run->timed_out)
        snprintf(ended, sizeof ended, "timed out%s after %.0f s", phase, run->seconds);
    else
        snprintf(ended, sizeof ended, "crashed%s: %s", phase, lab_signal_text(run->signal));
    if (!phase[0])
        grader_appendf(ended, sizeof ended, " (its last progress line: '%s')", p->last);

    if (!stopped_in_timing(p)) {
        if (run->timed_out && p->checking)
            grader_appendf(ended, sizeof ended, " (a hang, or a kernel far too slow at that size)");
        grader_score_fail(s, ended, NULL);
        if (run->timed_out)
            grader_score_add_advice(s, "Run `%s` and see where it stops: a kernel or a loop that never ends, "
                                "or one far too slow for the time limit.", command);
        else
            grader_score_add_advice(s, "Run `%s`: the crash is in host code (your launcher), e.g. a host "
                                "pointer dereferenced or an array overrun.", command);
        return;
    }
    int yours = strstr(p->last, "your kernel") != NULL;
    snprintf(s->reason, sizeof s->reason, "every check passed; %s%s (the last phase reached: '%s'); "
             "correctness points awarded, speed points 0", ended,
             run->timed_out && yours ? ": your kernel is correct but too slow to time" : "", p->last);
    award_correctness(s);
    if (run->timed_out && yours && p->first_call_ms > 0)
        grader_score_add_advice(s, "Your kernel needs %.0f ms per call at %s, and timing makes several calls: "
                            "make it faster (`%s` shows the timing table).", p->first_call_ms, p->size,
                         command);
    else if (run->timed_out)
        grader_score_add_advice(s, "Your kernel is correct, but the run did not finish timing within %.0f s: "
                            "make it faster (`%s` shows how long a call takes).", run->seconds, command);
    else
        grader_score_add_advice(s, "Your kernel is correct, but the run crashed during timing, where calls "
                            "rotate over three input sets: run `%s`.", command);
}

/* ================================================================ speed */

static void format_value(char *out, size_t outlen, double v, const char *unit)
{
    snprintf(out, outlen, "%.3g%s", v, unit);
}

/* The student's median time and the floor under it, from the record:
 * the record's own verdict, and the same test done here again. */
static int implausible(const jvalue *rec)
{
    if (lab_json_bool_at(rec, "timing.plausible") == 0)
        return 1;
    double floor_ms, ms;
    const jvalue *kernels = lab_json_path(rec, "timing.kernels");
    if (lab_json_number_at(rec, "timing.floor_ms", &floor_ms) || !kernels || kernels->type != J_ARRAY)
        return 0;
    for (int i = 0; i < kernels->count; i++) {
        const char *name = lab_json_string_at(kernels->items[i], "name");
        if (name && !strcmp(name, "student") &&
            lab_json_number_at(kernels->items[i], "median_ms", &ms) == 0 && ms < floor_ms)
            return 1;
    }
    return 0;
}

static void score_speed(stage_result *s, const jvalue *rec, const stage_rubric *sr)
{
    const char *gpu = lab_json_string_at(rec, "gpu.name");
    const jvalue *timing = lab_json_get(rec, "timing");
    if (!timing || timing->type != J_OBJECT) {
        if (s->ntiers)
            grader_appendf(s->note, sizeof s->note, "%snot timed: no speed points", s->note[0] ? "; " : "");
        return;
    }
    s->flagged = implausible(rec);
    /* the judge saw the student's process run GPU work between its calls */
    const char *disturbed = lab_json_string_at(rec, "timing.disturbed");
    if (disturbed)
        s->flagged = 1;
    for (int i = 0; i < s->ntiers && sr; i++) {
        tier_result *t = &s->tiers[i];
        const tier *def = &sr->tiers[i];
        int is_default = 0;
        if (grader_rubric_threshold(def, gpu, &t->threshold, &is_default)) {
            grader_appendf(s->note, sizeof s->note, "%sno threshold for tier %s on this GPU: not scored",
                    s->note[0] ? "; " : "", t->name);
            continue;
        }
        t->graded = 1;
        s->thresholds_default |= is_default;
        if (lab_json_number_at(rec, def->field, &t->value)) {
            grader_appendf(s->note, sizeof s->note,
                    "%sthe record has no number %s that tier %s needs (the rubric and the driver "
                    "disagree: tell your instructor)",
                    s->note[0] ? "; " : "", def->field, t->name);
            continue;
        }
        t->have_value = 1;
        int met = t->at_most ? t->value <= t->threshold : t->value >= t->threshold;
        if (met && !s->flagged) {
            t->points = t->max;
        } else if (!s->flagged) {
            char have[32], need[32];
            format_value(have, sizeof have, t->value, t->unit);
            format_value(need, sizeof need, t->threshold, t->unit);
            grader_score_add_advice(s, "%s (%s: you have %s, %s needs %s %s)", def->advice, def->field, have,
                             t->name, t->at_most ? "<=" : ">=", need);
        }
    }
    if (s->flagged && disturbed) {
        grader_appendf(s->note, sizeof s->note, "%sflagged: %s; its times are not scored", s->note[0] ? "; " : "",
                disturbed);
        if (s->ntiers)
            grader_score_add_advice(s, "Your code's process kept the GPU busy between the calls it was asked to "
                                "make, which slows what the judge measures against: do all GPU work inside "
                                "the contract function, and finish it before returning.");
    } else if (s->flagged) {
        grader_appendf(s->note, sizeof s->note,
                "%sflagged: the timed kernel was faster than the memory system and the arithmetic "
                "units of this GPU allow, so its time cannot be real and is not scored",
                s->note[0] ? "; " : "");
        if (s->ntiers)
            grader_score_add_advice(s, "Your time is physically impossible on this GPU: the kernel skips work "
                                "or the timing was disturbed; make sure every call computes everything.");
    }
}

void grader_score_run(stage_result *s, const run_result *run, const stage_rubric *sr, const char *command)
{
    s->seconds = run->seconds;
    s->output_bytes = run->output_bytes;
    free(s->output);
    s->output = NULL;
    if (run->tail) {
        s->output = malloc(run->tail_len + 1);
        if (s->output)
            grader_text_clean(run->tail, run->tail_len, s->output, run->tail_len + 1);
    }
    char why[REASON_LEN];
    jvalue *rec = grader_record_validate(run, s->stage, why, sizeof why);
    run_progress progress;
    grader_progress_read(run->progress, run->progress_len, run->progress_cut, &progress);
    if (!rec && (run->timed_out || run->signal) && progress.lines) {
        score_unfinished(s, run, &progress, command);
        return;
    }
    if (!rec) {
        char advice[REASON_LEN];
        s->no_gpu = strstr(why, "no usable GPU") != NULL;
        if (s->no_gpu)
            snprintf(advice, sizeof advice, "Not your kernel's fault: run make grade where the GPU is usable.");
        else if (run->timed_out)
            snprintf(advice, sizeof advice, "Run `%s` and see where it stops: a kernel or a loop that "
                                            "never ends, or one far too slow for the time limit.", command);
        else if (run->signal)
            snprintf(advice, sizeof advice, "Run `%s`: the crash is in host code (your launcher), e.g. "
                                            "a host pointer dereferenced or an array overrun.", command);
        else
            snprintf(advice, sizeof advice, "Leave the process and its descriptors to the harness: do "
                                            "not exit, close or write files from kernel.cu (`%s`).", command);
        grader_score_fail(s, why, advice);
        return;
    }
    s->ran = 1;
    const char *gpu = lab_json_string_at(rec, "gpu.name");
    snprintf(s->gpu, sizeof s->gpu, "%s", gpu ? gpu : "");
    const char *metric = lab_json_string_at(rec, "timing.metric");
    snprintf(s->metric, sizeof s->metric, "%s", metric ? metric : "");
    s->have_speedup = lab_json_number_at(rec, "timing.speedup_vs_baseline", &s->speedup) == 0;
    s->have_pct = lab_json_number_at(rec, "timing.pct_of_reference", &s->pct) == 0;
    grader_offer_baseline(s, rec, run->status);

    if (run->status == LAB_EXIT_CUDA_ERROR && lab_json_bool_at(rec, "correct") == 1 && progress.timing) {
        /* the checks passed, and the kernel failed only while being timed */
        const char *message = lab_json_string_at(rec, "message");
        int n = message ? (int)strlen(message) : 0;
        while (n > 0 && message[n - 1] == '.')
            n--; /* the sentence goes on */
        snprintf(s->reason, sizeof s->reason, "every check passed; the run stopped while timing %s: "
                 "%.*s; correctness points awarded, speed points 0", progress.size,
                 n > 0 ? (n > 700 ? 700 : n) : 11, n > 0 ? message : "a CUDA error");
        grader_score_add_advice(s, "Run `%s`: your kernel passed every check, then failed on a timed call "
                            "(calls rotate over three input sets); add SANITIZE=1 to see the line.",
                         command);
        award_correctness(s);
        lab_json_free(rec);
        return;
    }
    if (run->status != 0) {
        grader_explain_wrong(s, rec, run->status, command);
        s->correct = 0;
    } else {
        s->correct = 1;
        s->correct_points = s->correct_max;
        s->speed_scored = 1;
        score_speed(s, rec, sr);
    }
    s->points = s->correct_points;
    for (int i = 0; i < s->ntiers; i++)
        s->points += s->tiers[i].points;
    lab_json_free(rec);
}

void grader_score_sanitizer(stage_result *s, const char *finding, const char *command)
{
    snprintf(s->sanitizer, sizeof s->sanitizer, "%s", finding);
    if (!s->correct)
        return; /* already lost; the finding is shown as a clue */
    s->correct = 0;
    s->points -= s->correct_points;
    s->correct_points = 0;
    snprintf(s->reason, sizeof s->reason, "compute-sanitizer: %s", finding);
    grader_score_add_advice(s, "Run `%s SANITIZE=1` and fix the access it names: results that are right "
                        "by luck today can be wrong on the next GPU.", command);
}
