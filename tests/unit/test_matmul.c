/* test_matmul.c: the matrix product's checks (matmul_check.h). At the timed
 * size, n = 4096, the relative norm error over 64 sampled elements (as the
 * judge samples each timed call) stays far inside the tolerance for FP32
 * sums in any order, and far outside it when the inputs are rounded to
 * half precision or TF32 (the error of tensor cores), on either input. */
#include <float.h>
#include <math.h>

#include "lab.h"
#include "matmul_check.h"
#include "unit.h"

/* x rounded to nearest (ties to even) with `bits` significant bits: 11 for
 * half precision and TF32 (10 stored, one implied). Below 2^-14, half
 * precision is subnormal with a spacing of 2^-24, which every lab input is
 * a multiple of: those stay as they are. */
static float round_bits(float x, int bits)
{
    if (fabsf(x) < ldexpf(1.0f, -14))
        return x;
    int e;
    frexpf(x, &e);
    return ldexpf(rintf(ldexpf(x, bits - e)), e - bits);
}

/* How element (i, j) is computed from the inputs. */
enum order { SEQUENTIAL, EIGHT_WAYS, HALF_INPUTS, HALF_A_ONLY, KINDS };

/* The element (i, j) of A * B from the lab's inputs (seeds sa, sb), the
 * kernel's way, with its exact value (every product of two floats is exact
 * in double, and their double sum is within 1e-12 relative of the exact). */
static float element(enum order o, uint64_t sa, uint64_t sb, int n, int i, int j, double *exact)
{
    float acc = 0.0f, part[8] = {0};
    double dot = 0;
    for (int k = 0; k < n; k++) {
        float a = lab_uniform(sa, (uint64_t)i * n + k), b = lab_uniform(sb, (uint64_t)k * n + j);
        dot += (double)a * b;
        switch (o) {
        case SEQUENTIAL: /* a thread's running sum over k, as every kernel of the lab */
            acc = fmaf(a, b, acc);
            break;
        case EIGHT_WAYS: /* eight partial sums, added as a tree at the end */
            part[k % 8] = fmaf(a, b, part[k % 8]);
            break;
        case HALF_INPUTS: /* tensor cores in FP16 or TF32: inputs rounded, FP32 sums */
            acc = fmaf(round_bits(a, 11), round_bits(b, 11), acc);
            break;
        default:
            acc = fmaf(round_bits(a, 11), b, acc);
        }
    }
    if (o == EIGHT_WAYS)
        acc = ((part[0] + part[1]) + (part[2] + part[3])) + ((part[4] + part[5]) + (part[6] + part[7]));
    *exact = dot;
    return acc;
}

static void test_arithmetic(void)
{
    CHECK(matmul_element_bound(4096, 0.0) == FLT_MIN);
    /* 4096 products of |uniform| in [0, 0.5) add up to about 256: the bound
     * is about 0.125, against about 0.0015 for half-precision inputs */
    CHECK(fabs(matmul_element_bound(4096, 256.0) - 0.125) < 0.001);
    CHECK(fabs(matmul_norm_tolerance(4096) - 8.0 * 64.0 * FLT_EPSILON) < 1e-15);
    CHECK(matmul_rel_norm_error(0.0, 0.0) == 0.0);
    CHECK(matmul_rel_norm_error(4.0, 1.0) == 2.0);
    CHECK(matmul_rel_norm_error(4.0, 0.0) == 2.0);
    CHECK(!(matmul_rel_norm_error(NAN, 1.0) <= 1.0));
}

/* 64 sampled elements, 12 times over: every FP32 order within a tenth of
 * the tolerance, every rounding of the inputs more than twice over it. */
static void test_samples(void)
{
    enum { N = 4096, SAMPLES = 64, TRIALS = 12 };
    const double tol = matmul_norm_tolerance(N);
    double least[KINDS], most[KINDS];
    for (int o = 0; o < KINDS; o++) {
        least[o] = INFINITY;
        most[o] = 0;
    }
    for (int t = 0; t < TRIALS; t++) {
        uint64_t sa = lab_mix64(2 * t + 1), sb = lab_mix64(2 * t + 2);
        double err2[KINDS] = {0}, want2[KINDS] = {0};
        for (int s = 0; s < SAMPLES; s++) {
            uint64_t h = lab_mix64((uint64_t)(1000 * t + s));
            int i = (int)(h % N), j = (int)((h >> 32) % N);
            for (int o = 0; o < KINDS; o++) {
                double exact;
                double err = element((enum order)o, sa, sb, N, i, j, &exact) - exact;
                err2[o] += err * err;
                want2[o] += exact * exact;
            }
        }
        for (int o = 0; o < KINDS; o++) {
            double r = matmul_rel_norm_error(err2[o], want2[o]) / tol;
            least[o] = r < least[o] ? r : least[o];
            most[o] = r > most[o] ? r : most[o];
        }
    }
    CHECK(most[SEQUENTIAL] < 0.1);
    CHECK(most[EIGHT_WAYS] < 0.1);
    CHECK(least[HALF_INPUTS] > 2.0);
    CHECK(least[HALF_A_ONLY] > 1.5);
}

void test_matmul(void)
{
    test_arithmetic();
    test_samples();
}
