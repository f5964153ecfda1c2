/* Policy fixture: the launcher ends the process before the harness can. */
#include <unistd.h>

void matmul(const float *A, const float *B, float *C, int n)
{
    (void)A, (void)B, (void)C, (void)n;
    _exit(0);
}
