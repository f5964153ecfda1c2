/*
 * Stage 07 with its tree and shuffles done by CUB's BlockReduce, included
 * through a name that macros build (no "cub/" in the #include's text).
 * Right and fast: it scored 10/10 before the grader read the compiler's
 * list of the headers kernel.cu opened, which names
 * cub/block/block_reduce.cuh however the #include is spelled.
 *
 *   tests/grader/library.sh        (grades it as 07_reduction: refused)
 */
#define LAB_TEXT(x) #x
#define LAB_STRING(x) LAB_TEXT(x)
#define LAB_LIBRARY c##u##b
#define LAB_HEADER(library, folder, file) library/folder/file
#include LAB_STRING(LAB_HEADER(LAB_LIBRARY, block, block_reduce.cuh))

#include "two_passes.cuh"

__global__ void block_sums(const float *in, float *sums, int n)
{
    using BlockSum = cub::BlockReduce<float, BLOCK>;
    __shared__ typename BlockSum::TempStorage temp;
    float sum = BlockSum(temp).Sum(thread_sum(in, n));
    if (threadIdx.x == 0)
        sums[blockIdx.x] = sum;
}
