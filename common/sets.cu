/*
 * sets.cu: the input sets of a matrix family's problem (sets.h).
 */
#include <stdlib.h>
#include <string.h>

#include "sets.h"

void lab_sets_new(lab_sets *S, const lab_set_layout *layout, lab_dims size, int nsets, size_t count, uint64_t key)
{
    const int ninputs = layout->ninputs;
    S->layout = layout;
    S->size = size;
    S->nsets = nsets;
    CUDA_CHECK(cudaMalloc(&S->ref, count * sizeof(float)));
    for (int s = 0; s < nsets; s++) {
        lab_buffer_new(&S->out[s], count);
        for (int i = 0; i < ninputs; i++) {
            S->seed[s][i] = lab_mix64(key ^ (uint64_t)(ninputs * s + i + 1));
            lab_buffer_new(&S->in[s][i], count);
            lab_buffer_fill(&S->in[s][i], S->seed[s][i]);
        }
    }
}

void lab_sets_free(lab_sets *S)
{
    for (int s = 0; s < S->nsets; s++) {
        lab_buffer_free(&S->out[s]);
        for (int i = 0; i < S->layout->ninputs; i++)
            lab_buffer_free(&S->in[s][i]);
    }
    CUDA_CHECK(cudaFree(S->ref));
}

/* A batch's inputs are made from a seed nobody knew before it (timing.cu). */
void lab_sets_refresh(void *sets, int s, uint64_t seed)
{
    lab_sets *S = (lab_sets *)sets;
    for (int i = 0; i < S->layout->ninputs; i++) {
        S->seed[s][i] = lab_mix64(seed ^ (uint64_t)(i + 1));
        lab_buffer_fill(&S->in[s][i], S->seed[s][i]);
    }
    lab_buffer_poison(&S->out[s]);
}

size_t lab_sets_output_bytes(void *sets)
{
    return ((lab_sets *)sets)->out[0].count * sizeof(float);
}

void lab_sets_problem_free(void *problem)
{
    lab_sets_free((lab_sets *)problem);
    free(problem);
}

lab_set_pointers lab_sets_pointers(const lab_sets *S, int first, int count)
{
    lab_set_pointers sp;
    memset(&sp, 0, sizeof sp);
    for (int k = 0; k < count; k++) {
        sp.out[k] = S->out[first + k].data;
        for (int i = 0; i < S->layout->ninputs; i++)
            sp.seed[k][i] = S->seed[first + k][i];
    }
    return sp;
}

int lab_sets_guards_ok(const lab_sets *S, int s, FILE *log)
{
    int ok = lab_buffer_guards_ok(&S->out[s], S->layout->out_name, log);
    for (int i = 0; i < S->layout->ninputs; i++)
        ok &= lab_buffer_guards_ok(&S->in[s][i], S->layout->in_name[i], log);
    return ok;
}

int lab_sets_inputs_unchanged(const lab_sets *S, int s, FILE *log)
{
    const lab_set_layout *L = S->layout;
    long long changed[LAB_MAX_INPUTS], any = 0;
    for (int i = 0; i < L->ninputs; i++)
        any += changed[i] = lab_buffer_changed(&S->in[s][i], S->seed[s][i], 0);
    if (!any)
        return 1;
    if (L->ninputs == 1)
        fprintf(log, "    the input was modified: %lld of its elements changed\n", changed[0]);
    else
        fprintf(log, "    the inputs were modified: %lld elements of %s and %lld of %s changed\n", changed[0],
                L->in_name[0], changed[1], L->in_name[1]);
    return 0;
}
