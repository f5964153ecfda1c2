/*
 * reduce_inputs.h: the reduction's timed inputs, the same on the host and
 * the GPU (plain C; unit-tested in tests/unit/test_reduce.c). judge/README.md,
 * "Every timed output as strict as a check", has the numbers.
 *
 * Non-negative lab_uniform data alone let a sum that reads part of its
 * input and scales it up pass at the timed size: with 2^26 elements of mean
 * 1/4 and spread 0.14, the 1/16 it skips is within some 300 of 1/16 of the
 * rest, inside a bound of 2048. So each element of a timed input is, with
 * probability REDUCE_SPIKES / n, a spike: a value of 2^17 to 2^18 (its 23
 * fraction bits random), of either sign; otherwise |lab_uniform|. About 64
 * spikes an input, wherever the hash puts them, drawn afresh with each
 * input: a kernel cannot tell where they are without reading them. A spike
 * it misses is 2^17 or more, 36 times the bound (about 3,600 with the
 * spikes in sum |x|), and scaling up what it read cannot stand in for it:
 * the spikes it read, of random signs, are scaled too. Those signs keep
 * the sum near n/4, so the rounding of honest kernels (any order; atomics
 * too) stays where it was.
 *
 * Every value is still a multiple of 2^-24 (a float of 2^17 or more is a
 * multiple of 2^-6), and every partial sum of up to 2^28 of them stays below
 * 2^27 + 2^18 times the number of spikes: well under 2^28, so a double sums
 * them exactly (reduce_check.h).
 */
#ifndef LAB_REDUCE_INPUTS_H
#define LAB_REDUCE_INPUTS_H

#include <math.h>
#include <string.h>

#include "lab.h"

/* Spikes in a timed input of n elements, on average. */
#define REDUCE_SPIKES 64
/* Their magnitudes: 2^17 up to (not including) 2^18. */
#define REDUCE_SPIKE_EXPONENT 17

/* Element i of the timed input of n elements made from seed. One hash per
 * element, as lab_uniform: its low 32 bits say whether the element is a
 * spike; its top 24 bits give the element (|lab_uniform(seed, i)|), or the
 * spike's sign and fraction. */
static inline LAB_HD float reduce_timed_input(uint64_t seed, uint64_t i, uint64_t n)
{
    uint64_t h = lab_hash(seed, i);
    if ((h & 0xffffffffu) >= ((uint64_t)REDUCE_SPIKES << 32) / n)
        return fabsf(lab_uniform_of(h));
    uint32_t bits = (uint32_t)(h >> 32 & 0x80000000u) | (uint32_t)(127 + REDUCE_SPIKE_EXPONENT) << 23 |
                    (uint32_t)(h >> 40 & 0x7fffffu);
    float spike;
    memcpy(&spike, &bits, sizeof spike);
    return spike;
}

#endif /* LAB_REDUCE_INPUTS_H */
