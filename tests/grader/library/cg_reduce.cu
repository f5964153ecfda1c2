/*
 * Stage 07 with each warp's tree and shuffles done by cooperative groups'
 * cg::reduce: a block is one warp here.
 *
 *   tests/grader/library.sh        (refused: cooperative_groups/reduce.h)
 */
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>

#define BLOCK 32
#include "two_passes.cuh"

namespace cg = cooperative_groups;

__global__ void block_sums(const float *in, float *sums, int n)
{
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(cg::this_thread_block());
    float sum = cg::reduce(warp, thread_sum(in, n), cg::plus<float>());
    if (warp.thread_rank() == 0)
        sums[blockIdx.x] = sum;
}
