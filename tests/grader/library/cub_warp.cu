/*
 * Stage 07 with its warp shuffles done by CUB's WarpReduce.
 *
 *   tests/grader/library.sh        (refused: cub/warp/warp_reduce.cuh)
 */
#include <cub/warp/warp_reduce.cuh>

#include "two_passes.cuh"

#define WARPS (BLOCK / 32)

__global__ void block_sums(const float *in, float *sums, int n)
{
    using WarpSum = cub::WarpReduce<float>;
    __shared__ typename WarpSum::TempStorage temp[WARPS];
    __shared__ float warp_sums[WARPS];
    int warp = threadIdx.x / 32;
    float sum = WarpSum(temp[warp]).Sum(thread_sum(in, n));
    if (threadIdx.x % 32 == 0)
        warp_sums[warp] = sum;
    __syncthreads();
    if (warp == 0) {
        sum = WarpSum(temp[0]).Sum(threadIdx.x < WARPS ? warp_sums[threadIdx.x] : 0.0f);
        if (threadIdx.x == 0)
            sums[blockIdx.x] = sum;
    }
}
