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

/* The GPU's pass over a whole output: each thread's sums over its share
 * of the elements (lab_compare_add, the rule of the host's pass). */
static __global__ void compare_pass(const float *got, const float *want, const float *bound, long long count,
                                    lab_compare_sums *sums)
{
    const long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    lab_compare_sums s = {};
    for (long long i = t; i < count; i += (long long)gridDim.x * blockDim.x)
        lab_compare_add(&s, got[i], want[i], bound != NULL, bound ? bound[i] : 0.0);
    sums[t] = s;
}

/* family.h. The GPU's pass copies back one sum a thread, where the host's
 * would copy and read every element (MEASUREMENTS.md, "the whole output
 * checked on the GPU"). */
void lab_output_compare(lab_output_check *k, const float *bound, long long rows, long long cols)
{
    const long long count = rows * cols;
    const int threads = 256, blocks = LAB_GRID_STRIDE_BLOCKS < 128 ? LAB_GRID_STRIDE_BLOCKS : 128;
    const size_t n = (size_t)threads * blocks;
    lab_compare_sums *sums_dev, *sums = (lab_compare_sums *)malloc(n * sizeof *sums), all;
    if (!sums)
        lab_die(LAB_EXIT_NO_MEMORY, "out of host memory for a comparison's %zu sums", n);
    CUDA_CHECK(cudaMalloc(&sums_dev, n * sizeof *sums_dev));
    compare_pass<<<blocks, threads>>>(k->out, k->ref, bound, count, sums_dev);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaMemcpy(sums, sums_dev, n * sizeof *sums, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaFree(sums_dev));
    memset(&all, 0, sizeof all);
    for (size_t i = 0; i < n; i++)
        lab_compare_merge(&all, &sums[i]);
    free(sums);
    lab_compare_finish(&all, &k->c);
    if (all.bad == 0)
        return;
    k->got = lab_to_host(k->out, (size_t)count);
    k->want = lab_to_host(k->ref, (size_t)count);
    float *b = bound ? lab_to_host(bound, (size_t)count) : NULL;
    lab_compare_arrays(k->got, k->want, b, rows, cols, 5, k->log, &k->c);
    free(b);
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
    const lab_family *F = lab_family_run;
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
    k.out = S->out[s].data;
    k.ref = S->ref;
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
    free(k.got);
    free(k.want);
    return ok;
}
