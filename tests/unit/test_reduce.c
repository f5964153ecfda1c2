/* test_reduce.c: the reduction check (reduce_check.h), its timed inputs
 * (reduce_inputs.h) and the scratch size (reduce.h): the exact sum is exact,
 * float sums in any order of bounded depth pass, sums with missing elements
 * fail at the sizes the driver checks, and on the timed inputs a sum that
 * skips elements and scales up the rest fails too. */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lab.h"
#include "reduce.h"
#include "reduce_check.h"
#include "reduce_inputs.h"
#include "unit.h"

static float from_bits(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

/* The driver's inputs: lab_uniform values, or their absolute values. */
static float *inputs(long long n, uint64_t seed, int nonneg)
{
    float *x = malloc((size_t)n * sizeof *x);
    for (long long i = 0; i < n; i++) {
        float v = lab_uniform(seed, (uint64_t)i);
        x[i] = nonneg ? fabsf(v) : v;
    }
    return x;
}

/* The timed inputs. */
static float *timed_inputs(long long n, uint64_t seed)
{
    float *x = malloc((size_t)n * sizeof *x);
    for (long long i = 0; i < n; i++)
        x[i] = reduce_timed_input(seed, (uint64_t)i, (uint64_t)n);
    return x;
}

/* ---------------------------------------- float sums in different orders */

static float sum_forward(const float *x, long long n)
{
    float s = 0.0f;
    for (long long i = 0; i < n; i++)
        s += x[i];
    return s;
}

static float sum_backward(const float *x, long long n)
{
    float s = 0.0f;
    for (long long i = n - 1; i >= 0; i--)
        s += x[i];
    return s;
}

/* Halves, recursively: depth ceil(log2 n). */
static float sum_pairwise(const float *x, long long n)
{
    if (n == 1)
        return x[0];
    long long h = n / 2;
    return sum_pairwise(x, h) + sum_pairwise(x + h, n - h);
}

/* Like a GPU: chunks of c elements added one by one (as by one thread),
 * then the chunk sums pairwise. */
static float sum_chunked(const float *x, long long n, long long c)
{
    long long chunks = (n + c - 1) / c;
    float *part = malloc((size_t)chunks * sizeof *part);
    for (long long k = 0; k < chunks; k++)
        part[k] = sum_forward(x + k * c, k == chunks - 1 ? n - k * c : c);
    float s = sum_pairwise(part, chunks);
    free(part);
    return s;
}

/* A scrambled order: index i * step mod n, with step coprime to n. */
static float sum_scrambled(const float *x, long long n)
{
    long long step = 7919; /* a prime: coprime to every n it does not divide */
    while (n % step == 0)
        step += 2;
    float s = 0.0f;
    for (long long i = 0; i < n; i++)
        s += x[(i * step) % n];
    return s;
}

/* A sum in which the elements [from, to) are missing, rounded to float once
 * (as precise as a float result can be). */
static float sum_missing(const float *x, long long n, long long from, long long to)
{
    double s = 0.0;
    for (long long i = 0; i < n; i++)
        if (i < from || i >= to)
            s += x[i];
    return (float)s;
}

static enum reduce_verdict verdict(float got, const float *x, long long n)
{
    double sum, sum_abs;
    reduce_exact_sum(x, n, &sum, &sum_abs);
    return reduce_judge(got, sum, reduce_bound(n, sum_abs));
}

/* ------------------------------------------------------------------ tests */

static void test_bound_arithmetic(void)
{
    CHECK(reduce_depth(1) == 0);
    CHECK(reduce_depth(2) == 1);
    CHECK(reduce_depth(2049) == 2048);
    CHECK(reduce_depth(2050) == REDUCE_MAX_DEPTH);
    CHECK(reduce_depth(1LL << 28) == REDUCE_MAX_DEPTH);
    CHECK(reduce_gamma(0) == 0.0);
    double u = ldexp(1.0, -24);
    CHECK(fabs(reduce_gamma(1) - u / (1 - u)) < 1e-22);
    CHECK(reduce_gamma(2048) > 2048 * u && reduce_gamma(2048) < 2048 * u * 1.001);
    /* one element: nothing is added, so the sum must be that element exactly */
    CHECK(reduce_bound(1, 0.3) == 0.0);
    /* 2^26 non-negative elements averaging 1/4: the bound is 2^11 */
    CHECK(fabs(reduce_bound(1LL << 26, 16777216.0) - 2048.0) < 1.0);
}

static void test_exact_sum(void)
{
    /* lab inputs are multiples of 2^-24: their sum in whole units of 2^-24,
     * in 64-bit integers, is exact, and the double sum must equal it */
    enum { N = 200000 };
    for (int nonneg = 0; nonneg < 2; nonneg++) {
        float *x = inputs(N, 11 + nonneg, nonneg);
        long long units = 0, abs_units = 0, fractions = 0;
        for (int i = 0; i < N; i++) {
            double scaled = ldexp((double)x[i], 24);
            fractions += scaled != floor(scaled);
            units += (long long)scaled;
            abs_units += llabs((long long)scaled);
        }
        CHECK(fractions == 0);
        double sum, sum_abs;
        reduce_exact_sum(x, N, &sum, &sum_abs);
        CHECK(sum == ldexp((double)units, -24));
        CHECK(sum_abs == ldexp((double)abs_units, -24));
        free(x);
    }
}

static void test_judge(void)
{
    CHECK(reduce_judge(from_bits(LAB_POISON_BITS), 1.0, 1.0) == REDUCE_NEVER_WRITTEN);
    CHECK(reduce_judge(from_bits(LAB_GUARD_BITS), 1.0, 1.0) == REDUCE_NOT_FINITE);
    CHECK(reduce_judge(NAN, 1.0, 1e9) == REDUCE_NOT_FINITE);
    CHECK(reduce_judge(INFINITY, 1.0, 1e9) == REDUCE_NOT_FINITE);
    CHECK(reduce_judge(1.5f, 1.0, 0.5) == REDUCE_OK);
    CHECK(reduce_judge(1.5f, 1.0, 0.4999) == REDUCE_TOO_FAR);
    CHECK(reduce_judge(0.25f, 0.25, 0.0) == REDUCE_OK);
    CHECK(fabs(reduce_elements_worth(-122.5, 250.0, 1000) + 490.0) < 1e-9);
    CHECK(reduce_elements_worth(1.0, 0.0, 10) == 0.0);
}

/* Every order passes while n - 1 <= 2048; orders of depth <= 2048 pass at
 * any size. */
static void test_correct_orders_pass(void)
{
    const long long any_order[] = {1, 2, 3, 31, 33, 1000, 1025, 2049};
    for (int nonneg = 0; nonneg < 2; nonneg++) {
        for (size_t k = 0; k < sizeof any_order / sizeof any_order[0]; k++) {
            long long n = any_order[k];
            float *x = inputs(n, 100 + n, nonneg);
            CHECK(verdict(sum_forward(x, n), x, n) == REDUCE_OK);
            CHECK(verdict(sum_backward(x, n), x, n) == REDUCE_OK);
            CHECK(verdict(sum_pairwise(x, n), x, n) == REDUCE_OK);
            CHECK(verdict(sum_scrambled(x, n), x, n) == REDUCE_OK);
            CHECK(verdict(sum_chunked(x, n, 32), x, n) == REDUCE_OK);
            free(x);
        }
        const long long big[] = {65537, 1000001, 1 << 22};
        for (size_t k = 0; k < sizeof big / sizeof big[0]; k++) {
            long long n = big[k];
            float *x = inputs(n, 200 + n, nonneg);
            CHECK(verdict(sum_pairwise(x, n), x, n) == REDUCE_OK);
            CHECK(verdict(sum_chunked(x, n, 64), x, n) == REDUCE_OK);
            CHECK(verdict(sum_chunked(x, n, 2000), x, n) == REDUCE_OK);
            free(x);
        }
    }
}

/* Deeper than the allowance, a sum of block partials added one by one (like
 * one atomicAdd per block) has random rounding errors that stay far inside
 * the bound: at 2^22 with blocks of 512, 8192 additions deep. */
static void test_deep_but_random_passes(void)
{
    long long n = 1 << 22, block = 512, blocks = n / block;
    float *x = inputs(n, 7, 1);
    float total = 0.0f;
    for (long long b = 0; b < blocks; b++)
        total += sum_pairwise(x + b * block, block);
    double sum, sum_abs;
    reduce_exact_sum(x, n, &sum, &sum_abs);
    CHECK(fabs(total - sum) < reduce_bound(n, sum_abs) / 8);
    free(x);
}

/* Missing elements fail at the sizes the driver checks. */
static void test_missing_elements_fail(void)
{
    for (int nonneg = 0; nonneg < 2; nonneg++) {
        /* one element left over by float4 loads: n = 33, and 3 at n = 31 */
        float *x = inputs(33, 33, nonneg);
        CHECK(verdict(sum_missing(x, 33, 32, 33), x, 33) == REDUCE_TOO_FAR);
        free(x);
        x = inputs(31, 31, nonneg);
        CHECK(verdict(sum_missing(x, 31, 28, 31), x, 31) == REDUCE_TOO_FAR);
        free(x);
        /* the tail past the last whole block of 512 at n = 1000: 488 elements */
        x = inputs(1000, 1000, nonneg);
        CHECK(verdict(sum_missing(x, 1000, 512, 1000), x, 1000) == REDUCE_TOO_FAR);
        /* one element anywhere: caught when it is larger than the bound,
         * 0.015 here, which is true of about 97% of them */
        int caught = 0;
        for (long long j = 0; j < 1000; j++)
            caught += verdict(sum_missing(x, 1000, j, j + 1), x, 1000) == REDUCE_TOO_FAR;
        CHECK(caught >= 950 && caught < 1000);
        free(x);
    }
    /* a whole block of 256 on non-negative data at n = 1000001 (about 64,
     * against a bound of about 30) */
    long long n = 1000001;
    float *x = inputs(n, 5, 1);
    CHECK(verdict(sum_missing(x, n, 256 * 1000, 256 * 1001), x, n) == REDUCE_TOO_FAR);
    CHECK(verdict(sum_missing(x, n, 0, 256), x, n) == REDUCE_TOO_FAR);
    /* ... while the exact sum rounded to float passes */
    CHECK(verdict(sum_missing(x, n, 0, 0), x, n) == REDUCE_OK);
    free(x);
}

/* The timed inputs: |lab_uniform| but for about REDUCE_SPIKES spikes of
 * 2^17 to 2^18, of both signs; multiples of 2^-24, so the exact sum is
 * exact; below 64 elements, all spikes. */
static void test_timed_inputs(void)
{
    long long n = 1 << 22, spikes = 0, negative = 0, others_uniform = 0, fractions = 0, units = 0;
    float *x = timed_inputs(n, 3);
    for (long long i = 0; i < n; i++) {
        double scaled = ldexp((double)x[i], 24);
        fractions += scaled != floor(scaled);
        units += (long long)scaled;
        if (fabsf(x[i]) >= 131072.0f && fabsf(x[i]) < 262144.0f) {
            spikes++;
            negative += x[i] < 0;
        } else {
            others_uniform += x[i] == fabsf(lab_uniform(3, (uint64_t)i));
        }
    }
    CHECK(spikes >= 32 && spikes <= 100); /* 64 on average */
    CHECK(negative > 0 && negative < spikes);
    CHECK(others_uniform == n - spikes);
    CHECK(fractions == 0);
    double sum, sum_abs;
    reduce_exact_sum(x, n, &sum, &sum_abs);
    CHECK(sum == ldexp((double)units, -24));
    /* the spikes raise the bound from about n/4 * 2^-13 to about 1,600 */
    CHECK(reduce_bound(n, sum_abs) > 1000 && reduce_bound(n, sum_abs) < 2500);
    free(x);
    x = timed_inputs(63, 4);
    int all = 1;
    for (int i = 0; i < 63; i++)
        all &= fabsf(x[i]) >= 131072.0f;
    CHECK(all);
    free(x);
}

/* Honest sums of the timed inputs pass, the deep one (blocks' sums added
 * one by one, as by atomics) too; a sum that reads 15/16 of them and scales
 * up what it read fails on nearly every input, and one that reads 255/256
 * on most (a grade checks hundreds). */
static void test_timed_skipping_fails(void)
{
    enum { SEEDS = 8 };
    long long n = 1 << 22, block = 512;
    int honest = 0, caught16 = 0, caught256 = 0;
    for (int k = 0; k < SEEDS; k++) {
        float *x = timed_inputs(n, 40 + k);
        float deep = 0.0f;
        for (long long b = 0; b < n / block; b++)
            deep += sum_pairwise(x + b * block, block);
        honest += verdict(sum_pairwise(x, n), x, n) == REDUCE_OK && verdict(sum_chunked(x, n, 256), x, n) == REDUCE_OK &&
                  verdict(deep, x, n) == REDUCE_OK;
        caught16 += verdict(sum_missing(x, n, n - n / 16, n) * (16.0f / 15.0f), x, n) == REDUCE_TOO_FAR;
        caught256 += verdict(sum_missing(x, n, n - n / 256, n) * (256.0f / 255.0f), x, n) == REDUCE_TOO_FAR;
        free(x);
    }
    CHECK(honest == SEEDS);
    CHECK(caught16 >= SEEDS - 1);
    CHECK(caught256 >= SEEDS / 2);
}

/* The scratch holds what the multi-pass designs of the stage need: two
 * alternating levels of partial sums, for blocks covering 32 to 2048
 * elements, and one partial sum per block for a fixed grid of 1024 blocks. */
static void test_scratch_size(void)
{
    const int sizes[] = {1, 2, 33, 1000, 65537, 1000001, 1 << 26, 1 << 28, INT_MAX};
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        int n = sizes[k];
        size_t have = reduce_scratch_floats(n);
        CHECK(have >= 1024);
        for (long long per_block = 32; per_block <= 2048; per_block *= 2) {
            /* level 1 at the start, level 2 after it, level 3 over level 1 */
            long long level1 = (n + per_block - 1) / per_block;
            long long level2 = (level1 + per_block - 1) / per_block;
            CHECK((size_t)(level1 + level2) <= have);
        }
    }
    CHECK(reduce_scratch_floats(INT_MAX) > (size_t)INT_MAX / 32);
}

void test_reduce(void)
{
    test_bound_arithmetic();
    test_exact_sum();
    test_judge();
    test_correct_orders_pass();
    test_deep_but_random_passes();
    test_missing_elements_fail();
    test_timed_inputs();
    test_timed_skipping_fails();
    test_scratch_size();
}
