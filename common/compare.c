/*
 * compare.c: checking a kernel's output against the reference.
 */
#include "lab.h"

#include <math.h>
#include <string.h>

void lab_compare_merge(lab_compare_sums *a, const lab_compare_sums *b)
{
    a->checked += b->checked;
    a->bad += b->bad;
    a->nan += b->nan;
    a->never_written += b->never_written;
    a->diff2 += b->diff2;
    a->want2 += b->want2;
    if (b->max_abs_err > a->max_abs_err)
        a->max_abs_err = b->max_abs_err;
    if (b->worst_ratio > a->worst_ratio)
        a->worst_ratio = b->worst_ratio;
}

void lab_compare_finish(const lab_compare_sums *s, lab_compare *out)
{
    memset(out, 0, sizeof *out);
    out->checked = s->checked;
    out->bad = s->bad;
    out->nan = s->nan;
    out->never_written = s->never_written;
    out->max_abs_err = s->max_abs_err;
    out->worst_ratio = s->worst_ratio;
    out->rel_norm_err = s->want2 > 0 ? sqrt(s->diff2 / s->want2) : sqrt(s->diff2);
    out->bad_row_min = out->bad_col_min = -1;
}

void lab_compare_arrays(const float *got, const float *want, const float *bound,
                        long long rows, long long cols, int max_show, FILE *log,
                        lab_compare *out)
{
    lab_compare_sums s;
    memset(&s, 0, sizeof s);
    long long row_min = -1, row_max = 0, col_min = -1, col_max = 0;
    int shown = 0;
    for (long long r = 0; r < rows; r++) {
        for (long long c = 0; c < cols; c++) {
            long long i = r * cols + c;
            float g = got[i], w = want[i];
            double lim = bound ? bound[i] : 0.0;
            if (lab_compare_add(&s, g, w, bound != NULL, lim))
                continue;
            if (row_min < 0 || r < row_min) row_min = r;
            if (r > row_max) row_max = r;
            if (col_min < 0 || c < col_min) col_min = c;
            if (c > col_max) col_max = c;
            if (log && shown < max_show) {
                if (lab_bits_of(g) == LAB_POISON_BITS)
                    fprintf(log, "    (row %lld, col %lld): never written, expected %.7g\n",
                            r, c, w);
                else if (bound)
                    fprintf(log, "    (row %lld, col %lld): got %.7g, expected %.7g (allowed error %.2g)\n",
                            r, c, g, w, lim);
                else
                    fprintf(log, "    (row %lld, col %lld): got %.7g, expected %.7g\n", r, c, g, w);
                shown++;
            }
        }
    }
    lab_compare_finish(&s, out);
    out->bad_row_min = row_min;
    out->bad_row_max = row_max;
    out->bad_col_min = col_min;
    out->bad_col_max = col_max;
}

long long lab_guard_first_bad(const float *zone, size_t count)
{
    for (size_t i = 0; i < count; i++)
        if (lab_bits_of(zone[i]) != LAB_GUARD_BITS)
            return (long long)i;
    return -1;
}

void lab_explain_failures(FILE *out, const lab_compare *c, long long rows,
                          long long cols, const char *whole_ok, const char *label)
{
    if (c->bad == 0)
        return;
    if (c->never_written == c->checked) {
        fprintf(out, "  no element was written: does the kernel launch, and does it store its result?\n");
        return;
    }
    if (c->never_written > 0)
        fprintf(out, "  %lld elements were never written: does the grid cover the whole output?\n",
                c->never_written);
    if (whole_ok) {
        /* right when the size is a multiple of the tile, wrong when it is not */
        fprintf(out, "  correct at %s, wrong at %s: the last, partial tile. Check the bounds tests,\n"
                     "  the zeros that fill what a tile holds past the edge of the matrix, and that\n"
                     "  the grid rounds up\n", whole_ok, label);
        return;
    }
    if (c->nan == c->checked) {
        /* the inputs are finite: a NaN comes from memory the kernel should not read */
        fprintf(out, "  every element is NaN, though the inputs hold none: does the kernel read its\n"
                     "  output before writing it (it holds NaN when the kernel starts, and 0 * NaN is\n"
                     "  NaN), or read past the end of an input (NaN lies there)?\n");
        return;
    }
    int edge_rows = c->bad_row_min > 0 && c->bad_row_max == rows - 1;
    int edge_cols = c->bad_col_min > 0 && c->bad_col_max == cols - 1;
    if (edge_rows || edge_cols)
        fprintf(out, "  failures start at %s %lld: look at the bounds check for the last, partial block\n",
                edge_rows ? "row" : "column", edge_rows ? c->bad_row_min : c->bad_col_min);
    else if (c->bad == c->checked)
        fprintf(out, "  every element is wrong: check the index arithmetic and the loop over k\n");
    else
        fprintf(out, "  %lld of %lld elements are wrong, in rows %lld-%lld and columns %lld-%lld\n",
                c->bad, c->checked, c->bad_row_min, c->bad_row_max, c->bad_col_min, c->bad_col_max);
}
