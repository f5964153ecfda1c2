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
 * timed batch and the work done; it defines `lab_family_this`.
 */
#ifndef LAB_FAMILY_H
#define LAB_FAMILY_H

#include "gpu.h"

/* One kernel the harness times: the student's (the first), or a reference. */
typedef struct {
    const char *name;        /* the record's name: "student", "cublas", ...   */
    const char *label;       /* the table's                                   */
    lab_call_fn call;
    /* before each call: the student's poisons its output, so that a kernel
     * that skips work on a later call (caching its result) leaves NaN */
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

typedef struct {
    const char *name;        /* "matmul": the record's family            */
    const char *help;        /* its options for --help                   */
    int allow_2d;            /* sizes RxC, labelled "33x65" (1: transpose);
                                otherwise N, labelled "n=17"             */
    const char *sizes;       /* the sizes checked by default             */
    /* a multiple of every tile of the family's stages: a failure after a
     * check of whole tiles passed is the last, partial tile's (0: none) */
    int whole_tiles;
    const char *intro;       /* the line before the checks               */

    /* the timed size unless --n says (profile: make profile's) */
    lab_dims (*default_size)(int profile);
    /* 0, or -1 with why size (named `what`) is not one this family takes */
    int (*size_ok)(lab_dims size, const char *what, char *err, size_t len);

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
    void (*timing_intro)(void *ctx, int nsets);
    /* before each batch: set s gets fresh inputs from seed, outputs poisoned */
    lab_refresh_fn refresh;
    /* the bytes of the whole output of one call */
    size_t (*output_bytes)(void *ctx);
    /* the output of set (computed) as a check: judge, print, record; 1 when
     * right. whole_ok as for check. */
    int (*check_set)(void *ctx, int set, const char *label, const char *whole_ok, const lab_args *a,
                     lab_record *rec);

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
} lab_family;

extern const lab_family lab_family_this;

/* What the matrix families print for one check (harness.cu): a line, and
 * the details beneath when it failed. ok_text: the rest of an ok line;
 * output: the output's name ("out", or NULL). */
void lab_print_check(const char *label, int width, int ok, const char *ok_text, const lab_compare *c,
                     const char *output, const char *details, const lab_args *a);

#endif /* LAB_FAMILY_H */
