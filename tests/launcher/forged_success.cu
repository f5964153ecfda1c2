/*
 * An attack on the CPU verdict: a constructor that prints what a correct
 * run prints and exits 0 before any check runs. Its matmul does nothing.
 */
#include "matmul.h"
#include <stdio.h>
#include <unistd.h>

__attribute__((constructor)) static void forge(void)
{
    printf("  n=256      ok      rel. error 1.0e-07 (limit 5.0e-06)\nall results match.\n");
    fflush(stdout);
    _exit(0);
}

void matmul(const float *A, const float *B, float *C, int n)
{
    (void)A, (void)B, (void)C, (void)n;
}
