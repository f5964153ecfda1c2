/*
 * family.h: what a family of stages (matmul, transpose, reduce) tells the
 * harness. The harness (harness.cu) runs one sequence for every stage:
 *
 *   1. the checks: the student's function at each size, against a
 *      reference, before anything is timed;
 *   2. the timed problem: the student first, then the check of its last
 *      timed call, then the reference kernels;
 *   3. the rates, the table, the family's conclusion, and the record.
 *
 * A family file (<family>_family.cu) holds only what is about its lesson:
 * its sizes, its problem, the call, the references, the sampled check of a
 * timed batch and the work done; it defines `lab_family_this`. What every
 * family needs around those is shared: the matrix families' input sets
 * (sets.h) and the check of a whole output, its line and its record
 * (check_output.cu); the rest of a family's checking goes in its own
 * files (common/<family>_*: matmul_reference.cu, transpose_host.c,
 * reduce_report.cu, ...).
 */
#ifndef LAB_FAMILY_H
#define LAB_FAMILY_H

#include "sets.h"

/* One check of a set's whole output by a matrix family (check_output.cu):
 * what the family's judge hook is given, and what it fills in. */
typedef struct {
    const char *label, *whole_ok; /* as for lab_family.check              */
    const float *out, *ref;       /* the set's output and the reference's,
                                     on the GPU                           */
    float *got, *want;            /* the same on the host, where
                                     lab_output_compare found one wrong   */
    FILE *log;                    /* what is wrong: printed beneath a
                                     failed line                          */
    lab_compare c;                /* got against want                     */
    const char *output;           /* named in a failed line ("out"), or NULL */
    char ok_text[96];             /* the rest of an ok line               */
    int nnumbers;                 /* the record's numbers of the family,  */
    const char *key[4];           /* before the shared ones               */
    double number[4];
} lab_output_check;

/* one of the record's numbers of this check */
void lab_output_check_number(lab_output_check *k, const char *key, double value);

/* k->out against k->ref (rows x cols), each element within bound (on the
 * GPU; NULL: bit for bit), into k->c: one pass on the GPU, and where it
 * finds an element wrong, the host's (lab_compare_arrays), which names
 * the first five in k->log, with k->got and k->want on the host for the
 * family's explanations. */
void lab_output_compare(lab_output_check *k, const float *bound, long long rows, long long cols);

/* One kernel the harness times: the student's (the first), or a reference. */
typedef struct {
    const char *name;        /* the record's name: "student", "cublas", ...   */
    const char *label;       /* the table's                                   */
    lab_call_fn call;
    /* for each set of a batch, after its refresh (timing.cu): the
     * student's poisons what the refresh does not (the reduction's
     * scratch), so that a kernel that counts on what an earlier batch left
     * is caught; NULL where the refresh poisons all a call writes */
    lab_prepare_fn prepare;
    lab_check_fn check;      /* samples a timed batch's outputs (gpu.h)       */
    const char *wrong_hint;  /* what a wrong timed output suggests, or NULL   */
    double work_scale;       /* its work is the problem's times this (0: 1)   */
    int writes_one;          /* it writes one float, not the whole output     */
    int reusable;            /* a baseline whose time an earlier stage of the
                                same grade may hand over (--baseline-ms)      */
    /* after its timing: its last output against what it should be (a
     * failure is the harness's: a warning); recorded as <name>_result_ok */
    int (*verify)(void *ctx, int set, const char *what);
} lab_kernel;

typedef struct lab_family_s {
    const char *name;        /* "matmul": the record's family            */
    const char *help;        /* its options for --help                   */
    int allow_2d;            /* sizes RxC, labelled "33x65" (1: transpose);
                                otherwise N, labelled "n=17"             */
    const char *sizes;       /* the sizes checked by default             */
    /* a multiple of every tile of the family's stages: a failure after a
     * check of whole tiles passed is the last, partial tile's (0: none) */
    int whole_tiles;
    const char *intro;       /* the line before the checks               */

    /* the timed size unless --n says, and make profile's ({0, 0}: the
     * same) */
    lab_dims timed_size, profiled_size;
    /* 0, or -1 with why size (named `what`) is not one this family takes;
     * NULL: any size up to max_n, said as "(at most <max_note><max_n>)" */
    int (*size_ok)(lab_dims size, const char *what, char *err, size_t len);
    long long max_n;
    const char *max_note;

    /* One check at size: build the problem, call the student's function,
     * sync (lab_student_sync(label)), judge, print, record, free. whole_ok:
     * the label of a check of whole tiles that passed, or NULL. NULL: the
     * harness's, a problem of one set, the student's call on it, check_set. */
    int (*check)(lab_dims size, const char *label, const char *whole_ok, cublasHandle_t h,
                 const lab_args *a, lab_record *rec);
    /* after a failed check: a sentence about the sizes that failed, or NULL */
    const char *(*failed_hint)(const lab_dims *sizes, const int *ok, int n);

    /* The timed problem: nsets input sets at size (at most `sets`, fewer
     * where the GPU's memory is short: set_bytes each), made from seed; the
     * context every call gets. */
    int sets;
    size_t (*set_bytes)(lab_dims size);
    void *(*problem_new)(lab_dims size, int nsets, uint64_t seed, cublasHandle_t h);
    void (*problem_free)(void *ctx);
    /* the work of one call at size, in the unit's numerator (flops, bytes) */
    double (*work)(lab_dims size);
    /* the line before the timing; NULL: "timing at <size> (<nsets> input
     * sets, fresh inputs, L2 flushed before the first call)..." */
    void (*timing_intro)(void *ctx, int nsets);
    /* each batch, its clock running: set s gets fresh inputs from seed,
     * outputs poisoned (timing.cu) */
    lab_refresh_fn refresh;
    /* the bytes of the whole output of one call */
    size_t (*output_bytes)(void *ctx);
    /* the output of set (computed) as a check: judge, print, record; 1 when
     * right. whole_ok as for check. */
    int (*check_set)(void *ctx, int set, const char *label, const char *whole_ok, const lab_args *a,
                     lab_record *rec);
    /* A matrix family's check_set is lab_check_output, whose problem begins
     * with its lab_sets (sets.h); it asks for the reference's output of set,
     * on the GPU, into out, then for the judge of the set's output (k: a
     * check of the values, what is wrong in k->log; 1 when right). Others:
     * NULL. */
    void (*reference_output)(void *ctx, int set, float *out);
    int (*judge)(void *ctx, int set, lab_output_check *k);

    const lab_kernel *kernels;
    int nkernels;
    int reference, baseline; /* the rows the table's ratios are to        */
    const char *unit;        /* "GFLOP/s", "GB/s"                         */
    /* the least time the hardware allows for one call */
    double (*floor_ms)(void *ctx, const lab_gpu *g);
    /* after the table: what the rates say (printed), with the ratios the
     * grader scores (into the open "timing" object of the record), and the
     * warning when the student's time is below floor_ms */
    void (*conclude)(void *ctx, const lab_timing *rows, const lab_gpu *g, double floor_ms, int plausible,
                     lab_json *j);

    /* The CPU emulation (emu/): sizes that run in seconds there. checked:
     * the checks' (--sizes), last: in place of the timed size, checked
     * last (--n); counted: the size whose first launch is counted (make
     * explain, the technique) and smallest, make explain's last check;
     * small: the sizes a grade's emulated run adds to the size the GPU
     * failed at (grader/emulated.c), which it keeps only where its work is
     * at most max_work. madds and outputs: the multiply-adds (NULL: none)
     * and output elements of one call, for the technique's ratios. */
    struct {
        const char *checked, *last, *counted, *smallest, *small;
        double max_work;
        double (*madds)(lab_dims size), (*outputs)(lab_dims size);
    } emu;
    /* make explain's advice where global accesses are not coalesced (emu/
     * explain_report.cc), with the handout that shows how; NULL: general */
    const char *coalescing_advice;
} lab_family;

extern const lab_family lab_family_this;

/* A set's whole output as a check (check_output.cu): guard zones, inputs,
 * the family's judge of the values; one line, the details beneath when it
 * failed, and the record. A check_set (above). */
int lab_check_output(void *ctx, int set, const char *label, const char *whole_ok, const lab_args *a,
                     lab_record *rec);

/* 1 when size is made of whole tiles (lab_family.whole_tiles; harness.cu) */
int lab_whole_tiles(lab_dims size);

#endif /* LAB_FAMILY_H */
