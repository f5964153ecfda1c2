/*
 * wrong.c: why a run whose record is valid is not correct, in the words a
 * student can act on, and what to do next: the first failed check (with
 * what it names: a partial tile, NaN read from the output, a write past
 * the output's end, a changed input), a CUDA error, no memory.
 */
#include "grader.h"

#include <string.h>

/* The first failed check in array `name` of the record, for the reason and
 * the advice. */
typedef struct {
    char size[48];   /* "n=17"                                            */
    char what[512];  /* "289 of 289 elements wrong (289 never written)"    */
    char whole[48];  /* an earlier check of whole tiles that passed, or "" */
    int all_nan;     /* every element NaN, yet written: read before written */
    int outside;     /* wrote outside its output array                     */
    int inputs;      /* changed its input arrays                           */
} failure;

/* Fill f from the first failed check in array `name`: 0 when none failed. */
static int failed_check(const jvalue *rec, const char *name, failure *f)
{
    memset(f, 0, sizeof *f);
    const jvalue *checks = lab_json_get(rec, name);
    if (!checks || checks->type != J_ARRAY)
        return 0;
    for (int i = 0; i < checks->count; i++) {
        const jvalue *c = checks->items[i];
        const char *size = lab_json_string_at(c, "size");
        if (lab_json_bool_at(c, "ok") != 0) {
            /* right when the size is a multiple of every tile */
            if (lab_json_bool_at(c, "ok") == 1 && lab_json_bool_at(c, "whole_tiles") == 1 && size && !f->whole[0])
                snprintf(f->whole, sizeof f->whole, "%.40s", size);
            continue;
        }
        snprintf(f->size, sizeof f->size, "%.40s", size ? size : "a check");
        double wrong = 0, elements = 0, never = 0, nan = 0;
        int have_wrong = lab_json_number_at(c, "wrong", &wrong) == 0;
        lab_json_number_at(c, "elements", &elements);
        lab_json_number_at(c, "never_written", &never);
        lab_json_number_at(c, "nan", &nan);
        int parts = 0;
        if (have_wrong && wrong > 0) {
            grader_appendf(f->what, sizeof f->what, "%.0f of %.0f elements wrong", wrong, elements);
            f->all_nan = nan == elements && never < elements;
            if (f->all_nan)
                grader_appendf(f->what, sizeof f->what, ", every one NaN though the inputs hold none");
            else if (never > 0)
                grader_appendf(f->what, sizeof f->what, " (%.0f never written)", never);
            parts++;
        }
        f->outside = lab_json_bool_at(c, "guards_ok") == 0;
        if (f->outside)
            grader_appendf(f->what, sizeof f->what, "%swrote outside its output array", parts++ ? "; " : "");
        f->inputs = lab_json_bool_at(c, "inputs_unchanged") == 0;
        if (f->inputs)
            grader_appendf(f->what, sizeof f->what, "%schanged its input arrays", parts++ ? "; " : "");
        if (!parts)
            grader_appendf(f->what, sizeof f->what, "results outside the allowed rounding error");
        return 1;
    }
    return 0;
}

void grader_emulate_size(const jvalue *rec, int status, char *at, size_t len)
{
    failure f;
    at[0] = 0;
    if (status == 1 || status == 4)
        snprintf(at, len, "%s", failed_check(rec, "checks", &f) ? f.size : "any");
}

/* Why a run that produced a valid record is not correct, and what to do. */
void grader_explain_wrong(stage_result *s, const jvalue *rec, int status, const char *command)
{
    const char *message = lab_json_string_at(rec, "message");
    failure f;
    grader_emulate_size(rec, status, s->emulate_at, sizeof s->emulate_at);
    switch (status) {
    case 1: /* wrong result */
        if (failed_check(rec, "checks", &f) && f.whole[0] && !f.inputs) {
            /* right on whole tiles, wrong on the last, partial one */
            snprintf(s->reason, sizeof s->reason, "correct at %s, wrong at %s: the last, partial tile (%s)",
                     f.whole, f.size, f.what);
            grader_score_add_advice(s, "Your kernel is right when the size is a multiple of its tile and wrong "
                                "when it is not: check the bounds tests, the zeros that fill what a tile "
                                "holds past the edge of the matrix, and that the grid rounds up (`%s` shows "
                                "the first wrong elements).", command);
        } else if (f.size[0]) {
            snprintf(s->reason, sizeof s->reason, "wrong result at %s: %s", f.size, f.what);
            if (f.outside)
                grader_score_add_advice(s, "A thread writes past the edge of the output: check the bounds test "
                                    "for the last, partial block (`%s` shows where).", command);
            else if (f.inputs)
                grader_score_add_advice(s, "Your kernel writes into an input array: only the output may be "
                                    "written (`%s` shows the check).", command);
            else if (f.all_nan)
                grader_score_add_advice(s, "Every element came out NaN, and the inputs hold none: does your "
                                    "kernel read its output before writing it? The output holds NaN when "
                                    "your kernel starts, and 0 * NaN is NaN: add into a register and store "
                                    "the result once (`%s` shows the check).", command);
            else
                grader_score_add_advice(s, "Run `%s` and fix the first failing size: it prints the first wrong "
                                    "elements with their (row, col) and a hint.", command);
        } else if (failed_check(rec, "timed_output_check", &f)) {
            snprintf(s->reason, sizeof s->reason,
                     "the output of the last timed call is wrong (%s: %s), though the first call was right",
                     f.size, f.what);
            grader_score_add_advice(s, "Every call must compute the whole result from its inputs: do not keep "
                                "state or results from an earlier call (`%s`).", command);
        } else {
            snprintf(s->reason, sizeof s->reason, "wrong result (%.200s)", message ? message : "");
            grader_score_add_advice(s, "Run `%s` and fix the first failing check.", command);
        }
        return;
    case 4:
        snprintf(s->reason, sizeof s->reason, "%.900s", message && *message ? message : "a CUDA error stopped the run");
        grader_score_add_advice(s, "Run `%s`: the error names the call that failed; for a fault inside your "
                            "kernel add SANITIZE=1 to see the line.", command);
        return;
    case 5:
        snprintf(s->reason, sizeof s->reason, "ran out of GPU memory (%.800s)", message ? message : "");
        grader_score_add_advice(s, "Your kernel must not allocate: use the arrays the harness passes in.");
        return;
    default:
        snprintf(s->reason, sizeof s->reason, "the harness stopped: %.800s", message ? message : "");
        grader_score_add_advice(s, "This is not your kernel's fault: tell your instructor (the grader could "
                            "not run the stage).");
        return;
    }
}
