/*
 * transpose.h: the contract between the transpose stages (04_transpose,
 * 05_bank_conflicts) and the harness.
 */
#ifndef LAB_TRANSPOSE_H
#define LAB_TRANSPOSE_H

/*
 * out = the transpose of in. in has rows x cols floats, row-major: element
 * (r, c) is in[r * cols + c]. out has cols x rows floats, row-major: element
 * (c, r) of out is out[c * rows + r], and must equal element (r, c) of in.
 * Any rows, cols >= 1; the harness keeps rows * cols below 2^31, so int
 * products of indices do not overflow.
 *
 * in and out are device pointers: the host cannot dereference them. The
 * function launches its kernels and returns without synchronizing; the
 * harness times batches of calls on the default stream, by its own clock
 * minus an empty batch (timing.cu). It must not allocate memory, create
 * streams or call libraries. out holds garbage (NaN) on entry; every
 * element must be written. in must be left unchanged.
 */
void transpose(const float *in, float *out, int rows, int cols);

/* The same function as the judge and the CPU emulation pass it on
 * (common/contract.h): each argument in order, an array (with the floats
 * a call may touch) or a value. */
#define LAB_CONTRACT_NAME transpose
#define LAB_CONTRACT(ARRAY, VALUE, COMMA)                                                              \
    ARRAY(const float *, in, (size_t)rows * cols) COMMA() ARRAY(float *, out, (size_t)rows * cols) COMMA() \
        VALUE(int, rows) COMMA() VALUE(int, cols)

#endif /* LAB_TRANSPOSE_H */
