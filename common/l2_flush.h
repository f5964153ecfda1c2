/*
 * l2_flush.h: the L2 flush (flush.cu), run by the judge (or the harness
 * in the student's own process) in its own process, after a timed batch's
 * fresh inputs and before its first call, never by a runner. It reads a
 * buffer twice the size of L2, so that no timed call finds its inputs in
 * cache, and it sums a hash of every word it read (with a salt drawn per
 * flush) so that no read can be optimized away.
 */
#ifndef LAB_L2_FLUSH_H
#define LAB_L2_FLUSH_H

#include <stddef.h>
#include <stdint.h>

#include "lab.h"

/* Launch shape of a flush: enough blocks to keep every SM's loads busy. */
enum { LAB_FLUSH_BLOCKS = 1024, LAB_FLUSH_THREADS = 256 };

/* sum += the hash of each 8-byte word of buf[0, count) with salt. */
static __global__ void lab_flush_l2(const uint4 *buf, size_t count, uint64_t salt, unsigned long long *sum)
{
    unsigned long long x = 0;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < count;
         i += (size_t)gridDim.x * blockDim.x) {
        uint4 v = __ldcg(&buf[i]);
        x += lab_mix64((((uint64_t)v.y << 32) | v.x) ^ salt);
        x += lab_mix64((((uint64_t)v.w << 32) | v.z) ^ ~salt);
    }
    for (int o = 16; o > 0; o >>= 1)
        x += __shfl_down_sync(0xffffffffu, x, o);
    if ((threadIdx.x & 31) == 0)
        atomicAdd(sum, x);
}

#endif /* LAB_L2_FLUSH_H */
