/*
 * sets.h: the input sets of a matrix family's problem (matmul, transpose):
 * for each set, one or two inputs made from seeds and one output, poisoned
 * before the call; whether a call left its inputs and every guard zone as
 * they were. sets.cu has them.
 *
 * A family whose problem begins with a lab_sets names the hooks below in its
 * lab_family and lab_kernel tables: they take that problem as its sets.
 */
#ifndef LAB_SETS_H
#define LAB_SETS_H

#include "gpu.h"

enum { LAB_MAX_SETS = 12, LAB_MAX_INPUTS = 2 };

/* What each set holds: an output and ninputs inputs, by their names in
 * messages ("C"; "A", "B"). */
typedef struct {
    const char *out_name;
    const char *in_name[LAB_MAX_INPUTS];
    int ninputs;
} lab_set_layout;

typedef struct {
    const lab_set_layout *layout;
    lab_dims size;
    int nsets;
    lab_buffer out[LAB_MAX_SETS], in[LAB_MAX_SETS][LAB_MAX_INPUTS];
    uint64_t seed[LAB_MAX_SETS][LAB_MAX_INPUTS];
    float *ref; /* the reference's output of one set (device, this process's
                   own: no runner can reach it) */
} lab_sets;

/* nsets sets of the problem of that size, each buffer count floats; input
 * i of set s is made from lab_mix64(key ^ (ninputs s + i + 1)): key is the
 * run's seed mixed with the size. */
void lab_sets_new(lab_sets *S, const lab_set_layout *layout, lab_dims size, int nsets, size_t count, uint64_t key);
void lab_sets_free(lab_sets *S);

/* The hooks (family.h), for a family whose problem begins with its
 * lab_sets: each batch, its clock running, set s gets inputs from seed and
 * its output poisoned (a call that skips work leaves NaN: no prepare
 * needed); the bytes of one output; the problem freed, its sets and itself
 * (it came from malloc). */
void lab_sets_refresh(void *sets, int s, uint64_t seed);
size_t lab_sets_output_bytes(void *sets);
void lab_sets_problem_free(void *problem);

/* What a batch's sampled check (measure.h, lab_check_fn) reads of sets first ..
 * first + count - 1, as the k-th: the output and the inputs' seeds (the
 * check makes the inputs again rather than read what a runner could have
 * rewritten). Passed to the check's kernel by value. */
typedef struct {
    const float *out[LAB_MAX_SETS];
    uint64_t seed[LAB_MAX_SETS][LAB_MAX_INPUTS];
} lab_set_pointers;
lab_set_pointers lab_sets_pointers(const lab_sets *S, int first, int count);

/* 1 when every guard zone of set s is intact; otherwise say where to log. */
int lab_sets_guards_ok(const lab_sets *S, int s, FILE *log);
/* 1 when the inputs of set s are as they were made; otherwise say how many
 * elements changed to log. */
int lab_sets_inputs_unchanged(const lab_sets *S, int s, FILE *log);

#endif /* LAB_SETS_H */
