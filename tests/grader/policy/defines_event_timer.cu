/* Policy fixture: kernel.cu defines cudaEventElapsedTime, replacing the
 * runtime's for the whole program, so the harness's timer would report
 * whatever it likes. */
#include "matmul.h"

cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t end)
{
    (void)start, (void)end;
    *ms = 0.001f;
    return cudaSuccess;
}

void matmul(const float *A, const float *B, float *C, int n)
{
    (void)A, (void)B, (void)C, (void)n;
}
