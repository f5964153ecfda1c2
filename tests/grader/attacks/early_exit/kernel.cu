/*
 * An attack, not a kernel: a kernel.cu whose first call ends the program
 * with status 0, before any check can fail, in the hope that a clean exit
 * reads as success. In the harness's own process no record is written; in
 * the judge's runner, the judge sees its runner gone in the middle of a
 * call. Either way it must score 0, with a reason that says the run ended
 * early.
 *
 *   tests/grader/gpu-fixtures.sh (graded as 03_tiled, with and without --judge)
 */
#include <stdlib.h>

#include "matmul.h"

void matmul(const float *A, const float *B, float *C, int n)
{
    (void)A, (void)B, (void)C, (void)n;
    exit(0);
}
