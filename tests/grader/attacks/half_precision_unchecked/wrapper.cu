/*
 * An attack on stage 08: the matrix product in half precision on the timed
 * calls whose output is not checked in full. tests/grader/gpu-fixtures.sh
 * puts stage 08's solution in front of this file, its matmul renamed
 * solution_matmul, so that the attack is as fast as the solution.
 *
 * At the timing size (n over 1025, the largest check size), every call but
 * those on the input set the judge verifies in full after timing rounds A
 * and B to half precision in place (__float2half_rn) before the solution's
 * FP32 product: the error of FP16 tensor cores with FP32 sums, about 2.6e-4
 * relative, 4 times the norm test's limit at n = 4096 but some 90 times inside
 * the bound of each element. Which set is verified in full: the judge's
 * batches run over its input sets in order, and the last timed call's set
 * is the last of a batch, the newest of the outputs this code has seen.
 * Rewriting the inputs of a set the judge makes again from its seeds costs
 * nothing there. Only the elements sampled from each timed call, held to
 * the norm test too, catch it: it must score 0, for timed calls "less
 * precise than FP32" (reason beside this file).
 *
 *   tests/grader/gpu-fixtures.sh attacks (graded as 08_warptiling with --judge)
 */
#include <cuda_fp16.h>

/* x rounded to the nearest half-precision value, as a float */
__global__ void round_to_half(float *x, size_t count)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < count; i += (size_t)gridDim.x * blockDim.x)
        x[i] = __half2float(__float2half_rn(x[i]));
}

void matmul(const float *A, const float *B, float *C, int n)
{
    enum { LARGEST_CHECK = 1025, SEEN = 64 };
    static const float *seen[SEEN];
    static int nseen;
    int known = 0;
    for (int i = 0; i < nseen; i++)
        known |= seen[i] == C;
    if (n > LARGEST_CHECK && !known && nseen < SEEN)
        seen[nseen++] = C;
    if (n > LARGEST_CHECK && C != seen[nseen - 1]) {
        size_t count = (size_t)n * n;
        round_to_half<<<1024, 256>>>((float *)A, count);
        round_to_half<<<1024, 256>>>((float *)B, count);
    }
    solution_matmul(A, B, C, n);
}
