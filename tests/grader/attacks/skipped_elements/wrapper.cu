/*
 * An attack on stage 07: a sum that reads 15/16 of its input and scales up
 * what it read. tests/grader/gpu-fixtures.sh puts stage 07's solution in
 * front of this file, its reduce renamed solution_reduce, so that the
 * attack is the solution reading a sixteenth less.
 *
 * At the timing size (2^26; the checks stop at 1000001) it sums the first
 * 15/16 of in and multiplies by 16/15. On non-negative random data the
 * sixteenth it skips is predictable from the rest to within some 300,
 * inside the bound of 2048: every check passed, and it read 6% fewer
 * bytes. The judge's timed inputs now hold about 64 values of 2^17 to 2^18,
 * of either sign, at random places: it misses some and scales up the rest,
 * and must score 0, for large values at random places (reason beside this
 * file).
 *
 *   tests/grader/gpu-fixtures.sh attacks (graded as 07_reduction with --judge)
 */
__global__ void scale(float *out, float factor) { *out *= factor; }

void reduce(const float *in, float *out, int n, float *scratch)
{
    if (n < (1 << 24)) {
        solution_reduce(in, out, n, scratch);
        return;
    }
    int read = n / 64 * 60; /* 15/16 of n, a multiple of 4: whole float4 loads */
    solution_reduce(in, out, read, scratch);
    scale<<<1, 1>>>(out, (float)n / read);
}
