/* Policy fixture: the launcher writes to a descriptor (a forged record?). */
#include <unistd.h>

void matmul(const float *A, const float *B, float *C, int n)
{
    (void)A, (void)B, (void)C, (void)n;
    static const char fake[] = "{\"status\": \"ok\"}";
    (void)!write(3, fake, sizeof fake - 1);
}
