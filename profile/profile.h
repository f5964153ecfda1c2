/*
 * profile.h: the program behind tools/profile.sh (make profile, make
 * profile-expected, make grade's hints): one call of a stage's kernel under
 * Nsight Compute (ncu), its counters in plain words beside a reference's.
 *
 *   main.c     the command line, the reference (measured or stored in
 *              profile/expected.tsv) and --expected, which stores it there
 *   measure.c  running ncu on a program, and why a run gave no counters
 *   summary.c  ncu's raw CSV page made a summary: one value a key
 *   verdicts.c what the counters say: coalescing, bank conflicts, occupancy
 *   report.c   the table and the verdicts in words (full or brief)
 *   text.c     key/value tables, numbers as awk read them, lines of files
 *              (memory, strings and the JSON reader: common/util.h)
 *
 * Plain C11 and POSIX; no CUDA, no ncu needed to build or test it.
 */
#ifndef PROFILE_H
#define PROFILE_H

#include "util.h"

#include <stdio.h>

/* ------------------------------------------------------------- text.c */

/* A table of keys and values, in the order the keys were first set. */
struct kv {
    int n, cap;
    char **key, **val;
};

void profile_kv_set(struct kv *t, const char *key, const char *val);
/* The value of key, or "" where there is none. */
const char *profile_kv_get(const struct kv *t, const char *key);
int profile_kv_has(const struct kv *t, const char *key);
void profile_kv_free(struct kv *t);
/* Write "key<TAB>value" lines; 0 on success. */
int profile_kv_write(const struct kv *t, FILE *f);

/* A decimal number as the report reads one: digits, an optional point and
 * decimals, an optional exponent ("1.5", "-2", "3e4"; not ".5", "none"). */
int profile_is_number(const char *s);
/* is_number, and its value in *v. */
int profile_number_of(const struct kv *t, const char *key, double *v);
/* 65011712 -> "65,011,712" (the whole part of v) */
void profile_grouped(char *buf, size_t size, double v);
/* the whole part of v as "%d" prints it */
void profile_whole(char *buf, size_t size, double v);


/* 1 when some line of the file holds text (case-sensitive). */
int profile_file_has(const char *path, const char *text);
/* 1 when the file exists and is not empty. */
int profile_nonempty(const char *path);

/* ---------------------------------------------------------- summary.c */

/* The metrics to ask ncu for, comma-separated; base: without the optional
 * ones (an ncu that lacks one refuses the whole list). A new string. */
char *profile_metric_list(int base);
/* The summary of ncu's raw CSV page read from f, into t ("launches" first;
 * only "launches" where there were none). */
void profile_summarize(FILE *f, struct kv *t);

/* --------------------------------------------------------- verdicts.c */

enum { MAX_SAYINGS = 16, SAYING = 512 };

/* What the counters say of yours (y) beside the reference (r, maybe empty). */
struct verdicts {
    const struct kv *y, *r;
    const char *ex;   /* the stage's number, "03" */
    int have_ref;
    /* per global kind (0 loads, 1 stores): the ideal sectors per request, the
     * access width in words, and where the width comes from */
    double ideal[2];
    char width_text[2][96], width_from[2][128];
    int coalesced[2], conflict_free[2], occupancy_flagged;
    /* what is wrong (blamed on the kernel), what the reference shares or
     * explains (notes; brief: make grade's hints show it), what is right */
    int nwrong, nnotes;
    char wrong_short[MAX_SAYINGS][SAYING], wrong_advice[MAX_SAYINGS][SAYING];
    char note_short[MAX_SAYINGS][SAYING], note_advice[MAX_SAYINGS][SAYING];
    int note_brief[MAX_SAYINGS];
    char rights[SAYING];
};

void profile_judge(struct verdicts *v, const struct kv *y, const struct kv *r, const char *ex);
/* "4 for 4-byte loads": the ideal of kind 0 (loads) or 1 (stores) */
void profile_ideal_shown(const struct verdicts *v, int kind, char *buf, size_t size);

/* ----------------------------------------------------------- report.c */

/* The report of yours (y) beside r (empty: none); brief: make grade's few
 * lines. Labels name yours and the reference; report_file the .ncu-rep. */
void profile_report(struct kv *y, struct kv *r, int brief, const char *ex, const char *yours_label,
            const char *ref_label, const char *report_file);

/* ---------------------------------------------------------- measure.c */

/* How a measurement ended. */
enum {
    MEASURED = 0,
    RESTRICTED = 10, /* counters only for administrators (ERR_NVGPUCTRPERM) */
    PROGRAM_FAILED = 11,
    NO_GPU = 12,
    NOTHING_MEASURED = 13
};

struct profiler {
    const char *ncu;     /* the ncu to run */
    const char *out;     /* where reports go (build/profile) */
    char *metrics, *base_metrics;
    char *ncu_version;   /* "" where ncu did not say */
    char **driver_args;  /* after --, NULL-terminated */
    int brief;
};

/* The version ncu gives, or "". A new string. */
char *profile_ncu_version(const char *ncu);
/* Run bin under ncu, leaving out/name.{log,json,ncu-rep,csv,tsv}; the
 * summary (with gpu, size, knob and ncu) into t. One of the enum above. */
int profile_measure(const struct profiler *p, const char *bin, const char *name, struct kv *t);
/* Say why bin (measured as name) gave no counters. */
void profile_explain(const struct profiler *p, int code, const char *bin, const char *name, const char *ex);

#endif
