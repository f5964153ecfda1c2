/*
 * transpose_unpadded.h: stage 05's in-run baseline, the unpadded tiled
 * transpose (a [32][32] tile whose column reads hit one bank 32 times).
 *
 * Its source, transpose_unpadded.cu, is stage 04's answer line for line, so
 * a student release leaves the source out and ships the compiled object,
 * common/transpose_unpadded.o (see grader/README.md, "Stage 05's baseline").
 */
#ifndef LAB_TRANSPOSE_UNPADDED_H
#define LAB_TRANSPOSE_UNPADDED_H

/* Launch the unpadded tiled transpose of in (rows x cols) into out, with
 * blocks of 32 x 8 threads, one 32 x 32 tile each; no synchronization. */
void lab_transpose_unpadded_launch(const float *in, float *out, int rows, int cols);

#endif /* LAB_TRANSPOSE_UNPADDED_H */
