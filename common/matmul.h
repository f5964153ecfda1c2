/*
 * matmul.h: the contract between the matrix-multiplication stages
 * (01_naive, 02_temp_accumulator, 03_tiled, 06_coarsening, 08_warptiling)
 * and the harness.
 */
#ifndef LAB_MATMUL_H
#define LAB_MATMUL_H

/*
 * C = A * B for n x n row-major matrices of floats, any n >= 1.
 *
 * A, B and C are device pointers: the host cannot dereference them. The
 * function launches its kernels and returns without synchronizing; the
 * harness times batches of calls on the default stream, by its own clock
 * minus an empty batch (timing.cu). It must not allocate memory, create
 * streams or call libraries: everything it needs is in the three arrays.
 * C holds garbage (NaN) on entry; every element must be written. A and B
 * must be left unchanged.
 */
void matmul(const float *A, const float *B, float *C, int n);

/* The same function as the judge and the CPU emulation pass it on
 * (common/contract.h): each argument in order, an array (with the floats
 * a call may touch) or a value. */
#define LAB_CONTRACT_NAME matmul
#define LAB_CONTRACT(ARRAY, VALUE, COMMA)                                                              \
    ARRAY(const float *, A, (size_t)n * n) COMMA() ARRAY(const float *, B, (size_t)n * n) COMMA()         \
        ARRAY(float *, C, (size_t)n * n) COMMA() VALUE(int, n)

#endif /* LAB_MATMUL_H */
