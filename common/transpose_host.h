/*
 * transpose_host.h: the host-side arithmetic and diagnosis of the transpose
 * driver, in plain C so that tests/unit/ can check it without a GPU.
 */
#ifndef LAB_TRANSPOSE_HOST_H
#define LAB_TRANSPOSE_HOST_H

#include "lab.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The largest problem the lab runs: a side up to 2^20 keeps every grid
 * dimension of a 32-wide tiling far below CUDA's limit of 65535 blocks in y,
 * and 2^28 elements (1 GiB a matrix) keep every int index product in range. */
#define TRANSPOSE_MAX_SIDE (1LL << 20)
#define TRANSPOSE_MAX_ELEMENTS (1LL << 28)

/* 0 when rows x cols is a size the lab runs; otherwise -1 and a message,
 * which begins "--n: " when what (the size's name) is "--n". */
int lab_transpose_size_ok(lab_dims d, const char *what, char *err, size_t errlen);

/* Bytes a transpose of rows x cols floats moves: every element read once and
 * written once. A copy of the same matrix moves the same bytes. */
double lab_transpose_bytes(long long rows, long long cols);

/* The shortest time, in ms, in which any kernel can transpose rows x cols
 * floats on a GPU with this DRAM bandwidth and L2 size: the input must come
 * from DRAM (the harness flushes L2 before each timed call), and the output
 * too large for L2 must go to DRAM. A faster time cannot be real. 0 when the
 * bandwidth is unknown (peak_dram_gbs <= 0). */
double lab_transpose_floor_ms(long long rows, long long cols, double peak_dram_gbs,
                              double l2_bytes);

/* Print one sentence about what the failures of a transpose suggest. got is
 * the kernel's output (cols x rows), in its input (rows x cols), c the result
 * of comparing got with the reference; whole_ok and label as for
 * lab_explain_failures. Prints nothing when c has no failures. */
void lab_transpose_explain_failures(FILE *out, const lab_compare *c, const float *got,
                                    const float *in, long long rows, long long cols,
                                    const char *whole_ok, const char *label);

/* A hint drawn from the results at several sizes: when a square size with
 * several tiles and a partial one (65x65, not a multiple of 32) passes, and
 * only non-square sizes fail, the edges are right and rows and cols are mixed
 * up somewhere. ok[i] is the result at sizes[i]. NULL when there is nothing
 * to say. */
const char *lab_transpose_shape_hint(const lab_dims *sizes, const int *ok, int n);

#ifdef __cplusplus
}
#endif

#endif /* LAB_TRANSPOSE_HOST_H */
