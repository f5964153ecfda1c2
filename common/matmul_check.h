/*
 * matmul_check.h: the arithmetic behind the matrix product's checks, the
 * same on the host (the full checks: matmul_reference.cu's bounds,
 * matmul_family.cu's judge) and the GPU (the samples of every timed call); plain C, unit-tested in tests/unit/test_matmul.c.
 * judge/README.md, "Every timed output as strict as a check", has the
 * numbers.
 *
 * Two tests, and every output passes both:
 *
 *  - each element within its bound: any order of summing n products in
 *    FP32 is within gamma_n * (|A||B|)_ij of the exact value, gamma_n =
 *    n u / (1 - n u), u = 2^-24 (Higham, Accuracy and Stability of
 *    Numerical Algorithms, ch. 3). The kernel and the reference are each
 *    within it, so they differ by at most twice that: it never fails a
 *    correct FP32 kernel, but it is wide (about 0.12 at n = 4096, where an
 *    element is about 5): reduced precision passes it;
 *  - the relative Frobenius-norm error, ||got - want|| / ||want||, over the
 *    whole matrix at the check sizes, and over the elements sampled from
 *    each timed call: rounding errors of FP32 sums grow like sqrt(n) u in
 *    practice, and 8 sqrt(n) eps (eps = 2u) leaves room for any summation
 *    order, yet is 4x below what TF32 or half-precision inputs give at
 *    n = 4096 (about 2.6e-4, whatever n).
 */
#ifndef LAB_MATMUL_CHECK_H
#define LAB_MATMUL_CHECK_H

#include <float.h>
#include <math.h>

#include "lab.h"

/* The largest |got - want| allowed for an element whose products' absolute
 * values add up to mag: 2 gamma_n mag, and the smallest normal float, so
 * that an exact zero passes. */
static inline LAB_HD double matmul_element_bound(int n, double mag)
{
    double nu = n * (FLT_EPSILON / 2);
    return 2.0 * (nu / (1.0 - nu)) * mag + FLT_MIN;
}

/* The relative norm error allowed over a matrix, or over a sample of it. */
static inline LAB_HD double matmul_norm_tolerance(int n)
{
    return 8.0 * sqrt((double)n) * FLT_EPSILON;
}

/* The relative norm error of elements whose errors, squared, add up to err2
 * and whose exact values, squared, add up to want2 (err2 itself when every
 * exact value is 0). NaN stays NaN, and fails every comparison. */
static inline LAB_HD double matmul_rel_norm_error(double err2, double want2)
{
    return want2 > 0 ? sqrt(err2 / want2) : sqrt(err2);
}

#endif /* LAB_MATMUL_CHECK_H */
