/*
 * matmul.h: the contract between the matrix-multiplication stages
 * (01_naive, 02_temp_accumulator, 03_tiled, 06_coarsening, 08_warptiling) and
 * the harness.
 */
#ifndef LAB_MATMUL_H
#define LAB_MATMUL_H

/*
 * C = A * B for n x n row-major matrices of floats, any n >= 1.
 *
 * A, B and C are device pointers: the host cannot dereference them. The
 * function launches its kernels and returns without synchronizing; the
 * harness times batches of calls on its host clock, each batch up to a
 * synchronization of the device, less an empty batch timed beside it
 * (timing.cu). It must not allocate memory, create streams or call
 * libraries: everything it needs is in the three arrays. C holds garbage
 * (NaN) on entry; every element must be written. A and B must be left
 * unchanged.
 */
void matmul(const float *A, const float *B, float *C, int n);

#endif /* LAB_MATMUL_H */
