/* Policy fixture: the launcher runs a shell command. */
#include <stdlib.h>

void matmul(const float *A, const float *B, float *C, int n)
{
    (void)A, (void)B, (void)C, (void)n;
    (void)!system("true");
}
