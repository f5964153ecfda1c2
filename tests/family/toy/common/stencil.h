/*
 * stencil.h: the contract between the toy stencil stage (09_stencil, made
 * by tests/family/run.sh in a copy of the lab) and the harness.
 */
#ifndef LAB_STENCIL_H
#define LAB_STENCIL_H

/*
 * out[i] = (in[i - 1] + in[i]) + in[i + 1] for 0 <= i < n, any n >= 1, a
 * neighbour past either end counted as 0 and the sums in that order (the
 * check is bit for bit).
 *
 * in and out are device pointers of n floats each. The function launches
 * its kernels and returns without synchronizing. out holds garbage (NaN)
 * on entry; in must be left unchanged.
 */
void stencil(const float *in, float *out, int n);

/* The same function as the judge and the CPU emulation pass it on
 * (common/contract.h). */
#define LAB_CONTRACT_NAME stencil
#define LAB_CONTRACT(ARRAY, VALUE, COMMA) \
    ARRAY(const float *, in, (size_t)n) COMMA() ARRAY(float *, out, (size_t)n) COMMA() VALUE(int, n)

#endif /* LAB_STENCIL_H */
