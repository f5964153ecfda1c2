/*
 * check_output.cu: the check of one set's whole output, for the matrix
 * families (family.h, lab_check_output): the guard zones and the inputs
 * (sets.h), the values by the family's judge, then one line (the details
 * beneath when it failed) and the record's object for the check.
 */
#include <stdlib.h>
#include <string.h>

#include "family.h"

void lab_output_check_number(lab_output_check *k, const char *key, double value)
{
    k->key[k->nnumbers] = key;
    k->number[k->nnumbers++] = value;
}

/* The line of one check, and the details beneath it when it failed. */
static void print_check(const lab_output_check *k, int width, int ok, const char *details, const lab_args *a)
{
    if (a->quiet && ok)
        return;
    const lab_compare *c = &k->c;
    if (ok)
        printf("  %-*s ok      %s\n", width, k->label, k->ok_text);
    else if (c->bad)
        printf("  %-*s FAILED  %lld of %lld elements%s%s wrong (%lld NaN or never written)\n", width, k->label,
               c->bad, c->checked, k->output ? " of " : "", k->output ? k->output : "", c->nan);
    else
        printf("  %-*s FAILED\n", width, k->label);
    if (!ok)
        fputs(details, stdout);
}

int lab_check_output(void *ctx, int s, const char *label, const char *whole_ok, const lab_args *a,
                     lab_record *rec)
{
    const lab_family *F = &lab_family_this;
    const lab_sets *S = (const lab_sets *)ctx;
    lab_output_check k;
    memset(&k, 0, sizeof k);
    k.label = label;
    k.whole_ok = whole_ok;
    char *details = NULL;
    size_t details_len = 0;
    k.log = open_memstream(&details, &details_len);

    int guards = lab_sets_guards_ok(S, s, k.log);
    int unchanged = lab_sets_inputs_unchanged(S, s, k.log);
    F->reference_output(ctx, s, S->ref);
    size_t count = S->out[s].count;
    float *got = lab_buffer_to_host(&S->out[s]);
    float *want = (float *)malloc(count * sizeof(float));
    if (!want)
        lab_die(LAB_EXIT_NO_MEMORY, "out of host memory for the reference's %zu floats", count);
    CUDA_CHECK(cudaMemcpy(want, S->ref, count * sizeof(float), cudaMemcpyDeviceToHost));
    k.got = got;
    k.want = want;
    int ok = F->judge(ctx, s, &k) && guards && unchanged;
    fclose(k.log);
    print_check(&k, F->allow_2d ? 12 : 10, ok, details, a);

    lab_json *j = &rec->j;
    lab_record_check_begin(rec, label, ok, &k.c);
    for (int i = 0; i < k.nnumbers; i++)
        lab_json_number(j, k.key[i], k.number[i]);
    lab_json_bool(j, "guards_ok", guards);
    lab_json_bool(j, "inputs_unchanged", unchanged);
    if (lab_whole_tiles(S->size))
        lab_json_bool(j, "whole_tiles", 1);
    lab_json_end(j);

    free(details);
    free(got);
    free(want);
    return ok;
}
