/*
 * reduce.h: the contract between the reduction stage (07_reduction) and the
 * harness.
 */
#ifndef LAB_REDUCE_H
#define LAB_REDUCE_H

#include <stddef.h>

/*
 * The scratch space the harness hands to reduce() for n inputs, in floats:
 * room for one partial sum per 32 inputs, a second level of one per 1024
 * inputs, and 1024 more. That holds two levels of a multi-pass reduction with
 * blocks of 32 or more threads (each level alternating with the next, so no
 * pass overwrites its own input), or one partial sum per block of a grid of
 * up to 1024 blocks for any n, and of more blocks when each takes 32 inputs or
 * more: stage 07's grid, up to MAX_THREADS / BLOCK blocks (2048 at BLOCK =
 * 128), has at most one block per 4 x BLOCK inputs, rounded up.
 */
static inline size_t reduce_scratch_floats(int n)
{
    return ((size_t)n + 31) / 32 + ((size_t)n + 1023) / 1024 + 1024;
}

/*
 * *out = in[0] + in[1] + ... + in[n-1], for any n >= 1.
 *
 * in, out and scratch are device pointers: the host cannot dereference them.
 * Each is 256-byte aligned, so in and scratch can be read as float4.
 * in holds n floats and must be left unchanged. out is one float, the sum,
 * and stays on the device. scratch holds reduce_scratch_floats(n) floats for
 * partial sums; it holds garbage (NaN) on entry, and so does out.
 *
 * The function launches its kernels and returns without synchronizing; the
 * harness times batches of calls on the default stream, by its own clock
 * minus an empty batch (timing.cu). It must not allocate memory, copy
 * anything to or from the host, create streams or call libraries.
 *
 * The result is compared with the exact sum (reduce_check.h): any order of
 * float additions in which no element goes through more than 2048 of them is
 * accurate enough.
 */
void reduce(const float *in, float *out, int n, float *scratch);

/* The same function as the judge and the CPU emulation pass it on
 * (common/contract.h): each argument in order, an array (with the floats
 * a call may touch) or a value. */
#define LAB_CONTRACT_NAME reduce
#define LAB_CONTRACT(ARRAY, VALUE, COMMA)                                                              \
    ARRAY(const float *, in, 0) COMMA() ARRAY(float *, out, 0) COMMA() VALUE(int, n) COMMA()             \
        ARRAY(float *, scratch, 0)

#endif /* LAB_REDUCE_H */
