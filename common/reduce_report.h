/*
 * reduce_report.h: the reduction's check of one size, as the student reads
 * it and the grader records it (reduce_report.cu): each sum judged against
 * the exact sum (reduce_check.h), the buffers' guard zones and the input
 * checked, one line, what a wrong sum suggests, and the record.
 */
#ifndef LAB_REDUCE_REPORT_H
#define LAB_REDUCE_REPORT_H

#include "reduce_check.h"
#include "reduce_problem.h"

/* What one computed sum came to, with what it is judged by. */
typedef struct {
    const char *kind; /* "signed", "non-negative" or "timed" */
    enum reduce_data data;
    long long n;
    float got;
    double exact, sum_abs, error, bound;
    enum reduce_verdict verdict;
    int guards_ok;
    long long changed; /* elements of in that the call modified */
} reduce_outcome;

/* One check: the sums of one or two problems (signed and non-negative
 * data), and the messages about their buffers. */
typedef struct {
    reduce_outcome o[2];
    int count;
    char *notes;
    size_t notes_len;
    FILE *log;
} reduce_report;

void lab_reduce_report_begin(reduce_report *r);
/* Judge the sum in p->out[s] (already computed) and p's buffers. */
void lab_reduce_report_add(reduce_report *r, problem *p, int s);
/* Print one line for the size labelled label, with details beneath when
 * something failed, and record it; 1 when everything held. */
int lab_reduce_report_end(reduce_report *r, const char *label, const lab_args *a, lab_record *rec);

/* A reference kernel's last output in p->out[s] (a sum, or with abs a sum
 * of |x|) within the bound; otherwise a warning, naming what (a failure
 * here is the harness's), and 0. */
int lab_reduce_reference_ok(problem *p, int s, const char *what, int abs);

#endif /* LAB_REDUCE_REPORT_H */
