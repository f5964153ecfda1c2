/* Policy fixture: the launcher opens a file (to read a stored result?). */
#include <stdio.h>

void matmul(const float *A, const float *B, float *C, int n)
{
    (void)A, (void)B, (void)C, (void)n;
    FILE *f = fopen("/tmp/answer", "r");
    (void)f;
}
