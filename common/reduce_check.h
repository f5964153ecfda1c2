/*
 * reduce_check.h: the arithmetic behind the reduction check, host only, plain
 * C, unit-tested in tests/unit/test_reduce.c.
 *
 * The exact sum. The inputs are lab_uniform values (or their absolute
 * values): multiples of 2^-24 smaller than 1/2 in magnitude; the timed ones
 * also hold about 64 spikes below 2^18 (reduce_inputs.h), multiples of 2^-6.
 * Every partial sum of up to 2^28 of them is a multiple of 2^-24 below 2^27
 * (2^28 with a few hundred spikes), which needs at most 52 significant
 * bits, so a plain sum in double (53 bits) is exact.
 *
 * The bound. Floating-point addition rounds: fl(a + b) = (a + b)(1 + d) with
 * |d| <= u = 2^-24 in FP32. Whatever the order of the additions, if element i
 * goes through k_i of them, the computed sum is the sum of
 * x_i (1 + d_1)...(1 + d_k_i), so its error is at most
 * sum of gamma(k_i) |x_i| <= gamma(D) * sum |x_i|, with gamma(k) = ku/(1-ku)
 * and D the most additions any element goes through (Higham, Accuracy and
 * Stability of Numerical Algorithms, ch. 4). Adding a zero is exact and does
 * not count. A correct kernel is within this bound with D = its depth; the
 * check allows D = min(n - 1, REDUCE_MAX_DEPTH):
 *
 *  - n - 1 is the most additions an element can go through, so up to
 *    n = 2049 every order of summation passes;
 *  - 2048 is far more than the kernels of this stage need: a tree over a
 *    block is at most 10 deep, a grid-stride loop that spreads 2^26 floats
 *    over 2^16 or more threads gives each thread at most 1024 additions,
 *    and each pass of a multi-pass tree adds about 10. Kernels deeper than that
 *    still pass in practice: one atomicAdd per block of 512 into out is
 *    131072 additions deep at n = 2^26, but its rounding errors have random
 *    signs and add up to some 100 against a bound of about 2048.
 *
 * What fails, rightly: a sum that adds the elements one by one into a single
 * running total at large n (once the total passes 2^23, adding a value below
 * 0.5 no longer changes it, and the result can be off by half), reduced
 * precision, and missing or doubled elements wherever they are larger than
 * the bound. On non-negative data, sum |x| = sum x is about n/4 and a missing
 * element takes away about 0.25: the bound is 1.6e-5 at n = 33, 0.015 at
 * n = 1000 and 30 at n = 1000001, so a missing tail is caught at the small
 * sizes and a missing block of 256 elements (about 64) up to a million.
 * At n = 2^26 the bound is about 2048 and only larger losses show, which is
 * why the check runs at many sizes. There the timed inputs' spikes
 * (reduce_inputs.h) catch a sum that skips elements and scales up the rest:
 * far outside the bound (about 3,600 with the spikes in sum |x|) on about
 * 99% of the inputs when it skips one element in 16, two thirds at one in
 * 256, and a grade checks hundreds of them.
 */
#ifndef LAB_REDUCE_CHECK_H
#define LAB_REDUCE_CHECK_H

#include <math.h>
#include <string.h>

#include "lab.h"

/* The unit roundoff of FP32 with rounding to nearest. */
#define REDUCE_UNIT_ROUNDOFF (1.0 / 16777216.0)
/* The most additions any one element is allowed to go through (see above). */
#define REDUCE_MAX_DEPTH 2048

/* D for n elements: min(n - 1, REDUCE_MAX_DEPTH). */
static inline long long reduce_depth(long long n)
{
    long long d = n - 1;
    return d < REDUCE_MAX_DEPTH ? d : REDUCE_MAX_DEPTH;
}

/* gamma(k) = k u / (1 - k u); k u < 1 for every k the check uses. */
static inline double reduce_gamma(long long k)
{
    double ku = (double)k * REDUCE_UNIT_ROUNDOFF;
    return ku / (1.0 - ku);
}

/* The largest error allowed in the sum of n elements whose absolute values
 * add up to sum_abs. */
static inline double reduce_bound(long long n, double sum_abs)
{
    return reduce_gamma(reduce_depth(n)) * sum_abs;
}

/* The sum of x[0..n) and of |x[0..n)| in double; exact for the lab's inputs. */
static inline void reduce_exact_sum(const float *x, long long n, double *sum,
                                    double *sum_abs)
{
    double s = 0.0, a = 0.0;
    for (long long i = 0; i < n; i++) {
        s += x[i];
        a += fabs((double)x[i]);
    }
    *sum = s;
    *sum_abs = a;
}

enum reduce_verdict {
    REDUCE_OK,            /* within the bound                                 */
    REDUCE_TOO_FAR,       /* finite, but farther from the exact sum than that */
    REDUCE_NOT_FINITE,    /* NaN or infinite                                  */
    REDUCE_NEVER_WRITTEN  /* still the poison the harness wrote before        */
};

/* Judge one computed sum against the exact one. */
static inline enum reduce_verdict reduce_judge(float got, double exact, double bound)
{
    uint32_t bits;
    memcpy(&bits, &got, sizeof bits);
    if (bits == LAB_POISON_BITS)
        return REDUCE_NEVER_WRITTEN;
    if (!isfinite(got))
        return REDUCE_NOT_FINITE;
    return fabs((double)got - exact) <= bound ? REDUCE_OK : REDUCE_TOO_FAR;
}

/* An error expressed in average elements (error / (sum_abs / n)): on
 * non-negative data, -300 means about 300 elements' worth is missing. */
static inline double reduce_elements_worth(double error, double sum_abs, long long n)
{
    return sum_abs > 0 ? error / (sum_abs / (double)n) : 0.0;
}

#endif /* LAB_REDUCE_CHECK_H */
