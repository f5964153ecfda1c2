/*
 * transpose_host.c: sizes, bandwidth arithmetic and failure hints of the
 * transpose driver (see transpose_host.h).
 */
#include "transpose_host.h"

#include <string.h>

int lab_transpose_size_ok(lab_dims d, const char *what, char *err, size_t errlen)
{
    const char *prefix = strcmp(what, "--n") ? "" : "--n: ";
    if (d.rows > TRANSPOSE_MAX_SIDE || d.cols > TRANSPOSE_MAX_SIDE) {
        snprintf(err, errlen, "%ssize %lldx%lld is too large for this lab (each side at most %lld)",
                 prefix, d.rows, d.cols, TRANSPOSE_MAX_SIDE);
        return -1;
    }
    if (d.rows * d.cols > TRANSPOSE_MAX_ELEMENTS) {
        snprintf(err, errlen, "%ssize %lldx%lld is too large for this lab (at most %lld elements)",
                 prefix, d.rows, d.cols, TRANSPOSE_MAX_ELEMENTS);
        return -1;
    }
    return 0;
}

double lab_transpose_bytes(long long rows, long long cols)
{
    return 2.0 * (double)rows * (double)cols * sizeof(float);
}

double lab_transpose_floor_ms(long long rows, long long cols, double peak_dram_gbs,
                              double l2_bytes)
{
    if (peak_dram_gbs <= 0)
        return 0.0;
    double matrix = lab_transpose_bytes(rows, cols) / 2; /* bytes of in, and of out */
    /* what L2 can hold of the output may be written back after the timer stops */
    double dram = matrix + (matrix > l2_bytes ? matrix - l2_bytes : 0.0);
    return dram / (peak_dram_gbs * 1e9) * 1e3;
}

/* 1 when the two floats have the same bit pattern. */
static int same_bits(float a, float b)
{
    return memcmp(&a, &b, sizeof a) == 0;
}

void lab_transpose_explain_failures(FILE *out, const lab_compare *c, const float *got,
                                    const float *in, long long rows, long long cols,
                                    const char *whole_ok, const char *label)
{
    if (c->bad == 0)
        return;
    /* out is cols x rows: the comparison's rows are the input's columns */
    if (c->never_written == c->checked || whole_ok) {
        lab_explain_failures(out, c, cols, rows, whole_ok, label);
        return;
    }
    long long count = rows * cols, copied = 0;
    for (long long i = 0; i < count; i++)
        copied += same_bits(got[i], in[i]);
    if (copied == count) {
        fprintf(out, "  the output is a copy of the input, not its transpose: element (r, c) of in\n"
                     "  belongs at (c, r) of out, which is out[c * rows + r]\n");
        return;
    }
    if (c->bad == c->checked) {
        if (c->never_written > 0)
            fprintf(out, "  %lld elements were never written: does the grid cover the whole output?\n",
                    c->never_written);
        fprintf(out, "  every element is wrong: element (r, c) of in, in[r * cols + c], belongs at\n"
                     "  out[c * rows + r]; check which index each of rows and cols multiplies\n");
        return;
    }
    lab_explain_failures(out, c, cols, rows, NULL, label);
}

const char *lab_transpose_shape_hint(const lab_dims *sizes, const int *ok, int n)
{
    int square_edges_pass = 0, failures = 0;
    for (int i = 0; i < n; i++) {
        int square = sizes[i].rows == sizes[i].cols;
        if (!ok[i] && square)
            return NULL;
        failures += !ok[i];
        if (ok[i] && square && sizes[i].rows > 32 && sizes[i].rows % 32 != 0)
            square_edges_pass = 1;
    }
    if (failures == 0 || !square_edges_pass)
        return NULL;
    return "square sizes pass and only non-square ones fail: somewhere rows and cols are\n"
           "swapped (an index, a bounds check, or the grid's x and y)";
}
