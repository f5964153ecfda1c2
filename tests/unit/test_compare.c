/* test_compare.c: output checks, guard zones and the failure explanations. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lab.h"
#include "unit.h"

static float from_bits(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

/* Run lab_explain_failures into a string (whole_ok: a passed check of
 * whole tiles, or NULL), for a check labelled "n=17". */
static char *explain_after(const lab_compare *c, long long rows, long long cols, const char *whole_ok)
{
    static char buf[1024];
    FILE *f = fmemopen(buf, sizeof buf, "w");
    lab_explain_failures(f, c, rows, cols, whole_ok, "n=17");
    fclose(f);
    return buf;
}

static char *explain(const lab_compare *c, long long rows, long long cols)
{
    return explain_after(c, rows, cols, NULL);
}

void test_compare(void)
{
    enum { R = 4, C = 5 };
    float want[R * C], got[R * C], bound[R * C];
    for (int i = 0; i < R * C; i++) {
        want[i] = 0.25f * (i + 1);
        got[i] = want[i];
        bound[i] = 1e-3f;
    }
    lab_compare c;
    lab_compare_arrays(got, want, bound, R, C, 5, NULL, &c);
    CHECK(c.bad == 0 && c.checked == R * C && c.rel_norm_err == 0);

    got[7] += 5e-4f; /* inside its bound */
    lab_compare_arrays(got, want, bound, R, C, 5, NULL, &c);
    CHECK(c.bad == 0 && c.worst_ratio > 0.4 && c.worst_ratio < 0.6);

    got[2 * C + 3] += 1.0f; /* (2, 3) outside */
    got[3 * C + 4] = NAN;   /* (3, 4) NaN */
    got[3 * C + 1] = from_bits(LAB_POISON_BITS);
    lab_compare_arrays(got, want, bound, R, C, 5, NULL, &c);
    CHECK(c.bad == 3 && c.nan == 2 && c.never_written == 1);
    CHECK(c.bad_row_min == 2 && c.bad_row_max == 3 && c.bad_col_min == 1 && c.bad_col_max == 4);
    CHECK(strstr(explain(&c, R, C), "never written") != NULL);

    /* the messages print (row, col) of the first failures */
    char log[2048];
    FILE *f = fmemopen(log, sizeof log, "w");
    lab_compare_arrays(got, want, bound, R, C, 2, f, &c);
    fclose(f);
    CHECK(strstr(log, "(row 2, col 3): got") != NULL);
    CHECK(strstr(log, "(row 3, col 1): never written") != NULL);
    CHECK(strstr(log, "(row 3, col 4)") == NULL); /* only max_show lines */

    /* failures only in the last rows: the edge hint */
    memcpy(got, want, sizeof got);
    for (int col = 0; col < C; col++)
        got[3 * C + col] += 1.0f;
    lab_compare_arrays(got, want, bound, R, C, 0, NULL, &c);
    CHECK(strstr(explain(&c, R, C), "row 3: look at the bounds check") != NULL);

    /* ... and after a size of whole tiles passed: the last, partial tile */
    CHECK(strstr(explain_after(&c, R, C, "n=256"), "correct at n=256, wrong at n=17: the last, partial tile") != NULL);

    /* every element NaN but written (0 * NaN, after reading the poisoned
     * output): the question is whether the kernel reads its output */
    for (int i = 0; i < R * C; i++)
        got[i] = NAN;
    lab_compare_arrays(got, want, bound, R, C, 0, NULL, &c);
    CHECK(strstr(explain(&c, R, C), "read its\n  output before writing it") != NULL);
    CHECK(strstr(explain(&c, R, C), "index arithmetic") == NULL);

    /* nothing written at all */
    for (int i = 0; i < R * C; i++)
        got[i] = from_bits(LAB_POISON_BITS);
    lab_compare_arrays(got, want, bound, R, C, 0, NULL, &c);
    CHECK(strstr(explain(&c, R, C), "no element was written") != NULL);

    /* exact mode: -0.0 is not 0.0 bit for bit, and a transpose moves bits */
    float z[2] = {0.0f, 1.0f}, nz[2] = {-0.0f, 1.0f};
    lab_compare_arrays(nz, z, NULL, 1, 2, 0, NULL, &c);
    CHECK(c.bad == 1);
    lab_compare_arrays(z, z, NULL, 1, 2, 0, NULL, &c);
    CHECK(c.bad == 0);

    /* relative norm error: one element off by 0.1 of a vector of norm 1 */
    float w1[4] = {0.5f, 0.5f, 0.5f, 0.5f}, g1[4] = {0.6f, 0.5f, 0.5f, 0.5f};
    lab_compare_arrays(g1, w1, NULL, 1, 4, 0, NULL, &c);
    CHECK(fabs(c.rel_norm_err - 0.1) < 1e-6);

    /* guard zones */
    float zone[64];
    for (int i = 0; i < 64; i++)
        zone[i] = from_bits(LAB_GUARD_BITS);
    CHECK(lab_guard_first_bad(zone, 64) == -1);
    zone[40] = 0.0f;
    CHECK(lab_guard_first_bad(zone, 64) == 40);
}
