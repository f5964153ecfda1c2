/* test_rng.c: the inputs are random, repeatable, and not small integers. */
#include <math.h>

#include "lab.h"
#include "unit.h"

void test_rng(void)
{
    double sum = 0;
    int in_range = 1, integers = 0, zeros = 0;
    for (uint64_t i = 0; i < 100000; i++) {
        float v = lab_uniform(7, i);
        sum += v;
        in_range &= v >= -0.5f && v < 0.5f;
        integers += v == floorf(v);
        zeros += v == 0.0f;
    }
    CHECK(in_range);
    CHECK(fabs(sum / 100000) < 0.01);  /* mean near 0 */
    CHECK(integers < 10 && zeros < 10); /* -0.5 and 0.0 happen once in 2^24 */
    CHECK(lab_uniform(7, 123) == lab_uniform(7, 123));
    CHECK(lab_uniform(7, 123) != lab_uniform(8, 123));
    CHECK(lab_uniform(7, 123) != lab_uniform(7, 124));
}
