/*
 * reduce_report.cu: the reduction's check of one size (reduce_report.h).
 */
#include <math.h>
#include <stdlib.h>

#include "reduce_inputs.h"
#include "reduce_report.h"

/* enum reduce_data's names, in messages and as the record's keys */
static const char *const DATA_KIND[] = {"signed", "non-negative", "timed"};
static const char *const DATA_KEY[] = {"signed", "non_negative", "timed"};

/* Judge the sum in out[s] (already computed), the guard zones of in, out and
 * scratch, and whether in is unchanged. Messages about the buffers go to log. */
static reduce_outcome judge(problem *p, int s, FILE *log)
{
    reduce_outcome o;
    o.kind = DATA_KIND[p->data];
    o.data = p->data;
    o.n = p->n;
    lab_reduce_settle_sums(p);
    CUDA_CHECK(cudaMemcpy(&o.got, p->out[s].data, sizeof o.got, cudaMemcpyDeviceToHost));
    o.exact = p->exact[s];
    o.sum_abs = p->sum_abs[s];
    o.error = (double)o.got - o.exact;
    o.bound = reduce_bound(p->n, p->sum_abs[s]);
    o.verdict = reduce_judge(o.got, o.exact, o.bound);
    o.guards_ok = lab_buffer_guards_ok(&p->out[s], "out", log) &
                  lab_buffer_guards_ok(&p->in[s], "in", log) &
                  lab_buffer_guards_ok(&p->scratch, "scratch", log);
    o.changed = lab_reduce_changed(p, s);
    if (o.changed)
        fprintf(log, "    in was modified: %lld of its elements changed. in is read-only;"
                     " keep partial sums in scratch\n", o.changed);
    return o;
}

static int outcome_ok(const reduce_outcome *o)
{
    return o->verdict == REDUCE_OK && o->guards_ok && !o->changed;
}

/* Say what a wrong sum suggests. other_ok: the sum on the other kind of data
 * was right. */
static void explain(FILE *log, const reduce_outcome *o, int other_ok)
{
    switch (o->verdict) {
    case REDUCE_OK:
        return;
    case REDUCE_NEVER_WRITTEN:
        fprintf(log, "    %s data: out still holds the NaN the harness put there before the call:\n"
                     "    nothing wrote out[0]. Does the last pass write its sum to out?\n", o->kind);
        return;
    case REDUCE_NOT_FINITE:
        fprintf(log, "    %s data: the sum is %g, exact %.9g. The guard zones around in and scratch,\n"
                     "    and scratch itself on entry, hold NaN: is something read past the end of in,\n"
                     "    or read from scratch or shared memory before it was written?\n",
                o->kind, o->got, o->exact);
        return;
    case REDUCE_TOO_FAR:
        break;
    }
    fprintf(log, "    %s data: got %.9g, exact sum %.9g (error %.3g, allowed %.3g)\n", o->kind, o->got,
            o->exact, o->error, o->bound);
    double worth = reduce_elements_worth(o->error, o->sum_abs, o->n);
    int nonneg = o->data == REDUCE_NONNEG;
    if (o->data == REDUCE_TIMED && fabs(o->error) >= ldexp(1.0, REDUCE_SPIKE_EXPONENT - 1))
        fprintf(log, "    the timed data hold about %d values of 2^%d to 2^%d, of either sign, at random\n"
                     "    places: a sum that skips elements, or estimates some from the others, misses\n"
                     "    some of them. Does every element of in reach the sum?\n",
                REDUCE_SPIKES, REDUCE_SPIKE_EXPONENT, REDUCE_SPIKE_EXPONENT + 1);
    else if (o->got == 0.0f)
        fprintf(log, "    the sum is exactly 0: nothing was added. Does each thread load its elements,\n"
                     "    and does the tree add them up?\n");
    else if (nonneg && worth <= -0.5)
        fprintf(log, "    about %.0f %s worth of the sum is missing (an element is %.3g on average):\n"
                     "    are some elements never added: those past the last whole block, the n %% 4\n"
                     "    left over by float4 loads, a whole block, or part of a block's tree?\n",
                -worth, -worth < 1.5 ? "element's" : "elements'", o->sum_abs / o->n);
    else if (nonneg && worth >= 0.5)
        fprintf(log, "    the sum is too large by about %.0f elements' worth: is something counted twice?\n",
                worth);
    else if (o->data == REDUCE_SIGNED && other_ok)
        fprintf(log, "    the sum is right on non-negative data but not on signed data:"
                     " is an absolute value taken somewhere?\n");
    if (fabs(o->error) < 100.0 * o->bound)
        fprintf(log, "    the error is only %.1f times the bound: lower precision than FP32, or a race\n"
                     "    between threads? make run EX=%s SANITIZE=1 runs racecheck.\n",
                fabs(o->error) / o->bound, lab_stage);
}

/* Record one reduce_outcome as a JSON object. */
static void record_outcome(lab_json *j, const char *key, const reduce_outcome *o)
{
    lab_json_object(j, key);
    lab_json_bool(j, "ok", outcome_ok(o));
    lab_json_number(j, "got", o->got);
    lab_json_number(j, "exact", o->exact);
    lab_json_number(j, "error", o->error);
    lab_json_number(j, "bound", o->bound);
    lab_json_bool(j, "never_written", o->verdict == REDUCE_NEVER_WRITTEN);
    lab_json_bool(j, "guards_ok", o->guards_ok);
    lab_json_bool(j, "inputs_unchanged", !o->changed);
    lab_json_end(j);
}

/* Print one line for a size, with details beneath when something failed, and
 * record it. o holds one or two outcomes (signed and non-negative data);
 * notes are the messages about the buffers. */
static int report(const char *label, const reduce_outcome *o, int count, const char *notes,
                  const lab_args *a, lab_record *rec)
{
    int ok[2] = {1, 1}, wrong[2] = {0, 0};
    for (int k = 0; k < count; k++) {
        ok[k] = outcome_ok(&o[k]);
        wrong[k] = o[k].verdict != REDUCE_OK;
    }
    int all = ok[0] && ok[1];

    if (!a->quiet || !all) {
        if (all) {
            printf("  %-12s ok      error %.2g of %.2g allowed (%s)", label, fabs(o[0].error),
                   o[0].bound, o[0].kind);
            if (count == 2)
                printf(", %.2g of %.2g (%s)", fabs(o[1].error), o[1].bound, o[1].kind);
            printf("\n");
        } else if (wrong[0] || wrong[1]) {
            printf("  %-12s FAILED  wrong sum on %s data\n", label,
                   wrong[0] && wrong[1] ? "signed and on non-negative" : o[wrong[0] ? 0 : 1].kind);
        } else {
            printf("  %-12s FAILED  the sum is right, but:\n", label);
        }
        if (!all) {
            for (int k = 0; k < count; k++)
                explain(stdout, &o[k], count == 2 && ok[1 - k]);
            fputs(notes, stdout);
        }
    }

    lab_json *j = &rec->j;
    lab_json_object(j, NULL);
    lab_json_string(j, "size", label);
    lab_json_int(j, "n", o[0].n);
    lab_json_bool(j, "ok", all);
    for (int k = 0; k < count; k++)
        record_outcome(j, DATA_KEY[o[k].data], &o[k]);
    lab_json_end(j);
    return all;
}

void lab_reduce_report_begin(reduce_report *r)
{
    r->count = 0;
    r->notes = NULL;
    r->notes_len = 0;
    r->log = open_memstream(&r->notes, &r->notes_len);
}

void lab_reduce_report_add(reduce_report *r, problem *p, int s)
{
    r->o[r->count++] = judge(p, s, r->log);
}

int lab_reduce_report_end(reduce_report *r, const char *label, const lab_args *a, lab_record *rec)
{
    fclose(r->log);
    int ok = report(label, r->o, r->count, r->notes, a, rec);
    free(r->notes);
    return ok;
}

int lab_reduce_reference_ok(problem *p, int s, const char *what, int abs)
{
    float got;
    lab_reduce_settle_sums(p);
    CUDA_CHECK(cudaMemcpy(&got, p->out[s].data, sizeof got, cudaMemcpyDeviceToHost));
    double bound = reduce_bound(p->n, p->sum_abs[s]), want = abs ? p->sum_abs[s] : p->exact[s];
    int ok = reduce_judge(got, want, bound) == REDUCE_OK;
    if (!ok)
        printf("  warning: %s gave %.9g, exact %.9g, outside the bound %.3g: the check itself\n"
               "  may be wrong on this system; please report it\n", what, got, want, bound);
    return ok;
}

