/* test_transpose.c: the transpose driver's sizes, bandwidth arithmetic and hints. */
#include <math.h>
#include <string.h>

#include "transpose_host.h"
#include "unit.h"

/* Run lab_transpose_explain_failures into a string (whole_ok: a passed check
 * of whole tiles, or NULL), for a check labelled "1x1". */
static char *explain_after(const lab_compare *c, const float *got, const float *in, long long rows,
                           long long cols, const char *whole_ok)
{
    static char buf[1024];
    FILE *f = fmemopen(buf, sizeof buf, "w");
    lab_transpose_explain_failures(f, c, got, in, rows, cols, whole_ok, "1x1");
    fclose(f);
    return buf;
}

static char *explain(const lab_compare *c, const float *got, const float *in, long long rows,
                     long long cols)
{
    return explain_after(c, got, in, rows, cols, NULL);
}

static float from_bits(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

static void test_sizes(void)
{
    char err[160];
    lab_dims d = {1, 1};
    CHECK(lab_transpose_size_ok(d, "size", err, sizeof err) == 0);
    d.rows = 8192, d.cols = 8192;
    CHECK(lab_transpose_size_ok(d, "size", err, sizeof err) == 0);
    d.rows = 1, d.cols = TRANSPOSE_MAX_SIDE; /* thin is fine */
    CHECK(lab_transpose_size_ok(d, "size", err, sizeof err) == 0);
    d.cols = TRANSPOSE_MAX_SIDE + 1;
    CHECK(lab_transpose_size_ok(d, "size", err, sizeof err) == -1 && strstr(err, "each side") != NULL);
    d.rows = 16384, d.cols = 16384; /* 2^28 elements: the largest allowed */
    CHECK(lab_transpose_size_ok(d, "size", err, sizeof err) == 0);
    d.cols = 16385;
    CHECK(lab_transpose_size_ok(d, "size", err, sizeof err) == -1 && strstr(err, "16384x16385") != NULL);
    /* the message of --n names the option */
    CHECK(lab_transpose_size_ok(d, "--n", err, sizeof err) == -1 && !strncmp(err, "--n: size 16384x16385 ", 22));
    /* the limit keeps every index product of a kernel inside an int */
    CHECK(TRANSPOSE_MAX_ELEMENTS <= 2147483647LL);
    CHECK((TRANSPOSE_MAX_SIDE + 31) / 32 <= 65535);
}

static void test_bandwidth(void)
{
    /* 8192 x 8192 floats: 256 MiB read and 256 MiB written */
    CHECK(lab_transpose_bytes(8192, 8192) == 2.0 * 8192 * 8192 * 4);
    CHECK(lab_transpose_bytes(1, 1000) == 8000.0);

    /* 8192 x 8192 at 4000 GB/s with a 50 MB L2: the read from DRAM, and all
     * of the write but what L2 holds */
    double matrix = 8192.0 * 8192 * 4, l2 = 50e6;
    double want = (matrix + matrix - l2) / 4000e9 * 1e3;
    CHECK(fabs(lab_transpose_floor_ms(8192, 8192, 4000, l2) - want) < 1e-12);
    /* a small output fits in L2: only the read counts */
    CHECK(fabs(lab_transpose_floor_ms(1024, 1024, 4000, l2) - 1024.0 * 1024 * 4 / 4000e9 * 1e3) < 1e-15);
    /* a bigger L2 never raises the floor */
    CHECK(lab_transpose_floor_ms(8192, 8192, 4000, 100e6) < lab_transpose_floor_ms(8192, 8192, 4000, l2));
    CHECK(lab_transpose_floor_ms(8192, 8192, 0, l2) == 0.0);
}

static void test_explain(void)
{
    enum { R = 3, C = 4 }; /* in is 3 x 4, out 4 x 3 */
    float in[R * C], want[R * C], got[R * C];
    for (int r = 0; r < R; r++)
        for (int c = 0; c < C; c++) {
            in[r * C + c] = 0.125f * (r * C + c + 1);
            want[c * R + r] = in[r * C + c];
        }
    lab_compare cmp;

    /* right: nothing to say */
    memcpy(got, want, sizeof got);
    lab_compare_arrays(got, want, NULL, C, R, 0, NULL, &cmp);
    CHECK(cmp.bad == 0 && explain(&cmp, got, in, R, C)[0] == '\0');

    /* a copy instead of a transpose */
    memcpy(got, in, sizeof got);
    lab_compare_arrays(got, want, NULL, C, R, 0, NULL, &cmp);
    CHECK(cmp.bad > 0 && strstr(explain(&cmp, got, in, R, C), "copy of the input") != NULL);

    /* nothing written */
    for (int i = 0; i < R * C; i++)
        got[i] = from_bits(LAB_POISON_BITS);
    lab_compare_arrays(got, want, NULL, C, R, 0, NULL, &cmp);
    CHECK(strstr(explain(&cmp, got, in, R, C), "no element was written") != NULL);

    /* every element wrong, not a copy: the index arithmetic */
    for (int i = 0; i < R * C; i++)
        got[i] = -want[i];
    lab_compare_arrays(got, want, NULL, C, R, 0, NULL, &cmp);
    char *msg = explain(&cmp, got, in, R, C);
    CHECK(strstr(msg, "every element is wrong") != NULL && strstr(msg, "out[c * rows + r]") != NULL);
    CHECK(strstr(msg, "loop over k") == NULL);
    /* ... unless a size of whole tiles passed: then the partial tile */
    msg = explain_after(&cmp, got, in, R, C, "256x256");
    CHECK(strstr(msg, "correct at 256x256, wrong at 1x1: the last, partial tile") != NULL);

    /* the last row of out (the last column of in) never written: the edge */
    memcpy(got, want, sizeof got);
    for (int r = 0; r < R; r++)
        got[(C - 1) * R + r] = from_bits(LAB_POISON_BITS);
    lab_compare_arrays(got, want, NULL, C, R, 0, NULL, &cmp);
    msg = explain(&cmp, got, in, R, C);
    CHECK(strstr(msg, "never written") != NULL && strstr(msg, "row 3") != NULL);
}

static void test_shape_hint(void)
{
    lab_dims sizes[4] = {{1, 1}, {33, 65}, {65, 65}, {2048, 4096}};
    int ok[4] = {1, 0, 1, 0};
    /* squares with partial tiles pass, only non-squares fail */
    CHECK(lab_transpose_shape_hint(sizes, ok, 4) != NULL);
    /* everything passes: nothing to say */
    int all[4] = {1, 1, 1, 1};
    CHECK(lab_transpose_shape_hint(sizes, all, 4) == NULL);
    /* a square fails too: not a rows/cols mix-up alone */
    int square_fails[4] = {1, 0, 0, 0};
    CHECK(lab_transpose_shape_hint(sizes, square_fails, 4) == NULL);
    /* no square with partial tiles among the sizes: no evidence */
    lab_dims no_edge[3] = {{1, 1}, {33, 65}, {64, 64}};
    int ok3[3] = {1, 0, 1};
    CHECK(lab_transpose_shape_hint(no_edge, ok3, 3) == NULL);
}

void test_transpose(void)
{
    test_sizes();
    test_bandwidth();
    test_explain();
    test_shape_hint();
}
