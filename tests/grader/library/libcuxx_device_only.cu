/*
 * Stage 07 where each thread adds four elements at a time with libcu++'s
 * cuda::std::reduce, from a header included only in nvcc's device passes
 * (#ifdef __CUDA_ARCH__): nvcc's list of headers covers those passes too.
 *
 *   tests/grader/library.sh        (refused: cuda/std/numeric)
 */
// the host pass needs libcu++'s objects that the device pass defines
#include <cuda/std/ranges>
#ifdef __CUDA_ARCH__
#include <cuda/std/numeric>
#endif

#include "two_passes.cuh"

__global__ void block_sums(const float *in, float *sums, int n)
{
    __shared__ float partial[BLOCK];
    float v = 0.0f;
    for (int i = 4 * (blockIdx.x * BLOCK + threadIdx.x); i < n; i += 4 * gridDim.x * BLOCK) {
        float four[4];
        for (int k = 0; k < 4; k++)
            four[k] = i + k < n ? in[i + k] : 0.0f;
#ifdef __CUDA_ARCH__
        v += cuda::std::reduce(four, four + 4, 0.0f);
#endif
    }
    // the tree in shared memory, written by hand
    partial[threadIdx.x] = v;
    __syncthreads();
    for (int s = BLOCK / 2; s > 0; s /= 2) {
        if (threadIdx.x < s)
            partial[threadIdx.x] += partial[threadIdx.x + s];
        __syncthreads();
    }
    if (threadIdx.x == 0)
        sums[blockIdx.x] = partial[0];
}
