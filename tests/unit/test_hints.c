/* test_hints.c: which hint a failed launch gets, and that it names the size. */
#include <string.h>

#include "lab.h"
#include "unit.h"

/* The hint for error at size, in a buffer that stays valid. */
static const char *hint(const char *error, const char *size)
{
    static char out[640];
    if (!lab_launch_hint(error, size, out, sizeof out))
        return NULL;
    return out;
}

void test_hints(void)
{
    lab_dims d;
    CHECK(lab_call_dims("n=17", &d) == 0 && d.rows == 17 && d.cols == 17);
    CHECK(lab_call_dims("17x33", &d) == 0 && d.rows == 17 && d.cols == 33);
    CHECK(lab_call_dims("a timed call", &d) == -1);
    CHECK(lab_call_dims("n=17 more", &d) == -1);
    CHECK(lab_call_dims("n=0", &d) == -1);
    CHECK(lab_call_dims("17x", &d) == -1);

    /* a grid of n / TILE blocks is 0 at n=1: both errors CUDA gives for it
     * lead with the zero grid and the rounded-up division, and name the size */
    const char *h = hint("cudaErrorInvalidValue", "n=1");
    CHECK(h && strstr(h, "the launch at n=1 was refused"));
    CHECK(h && strstr(h, "a grid with a 0 dimension"));
    CHECK(h && strstr(h, "(n + TILE - 1) / TILE"));
    CHECK(h && strstr(h, "48 KiB"));
    h = hint("cudaErrorInvalidConfiguration", "17x33");
    CHECK(h && strstr(h, "at 17x33") && strstr(h, "(n + TILE - 1) / TILE"));
    CHECK(h && strstr(h, "1 to 1024 threads") && !strstr(h, "48 KiB"));

    /* at a large size a zero grid is unlikely: the block comes first */
    h = hint("cudaErrorInvalidConfiguration", "n=4096");
    CHECK(h && strstr(h, "at n=4096") && strstr(h, "zero grid is unlikely"));
    CHECK(h && !strstr(h, "(n + TILE - 1) / TILE"));
    CHECK(h && strstr(h, "1 to 1024 threads"));
    h = hint("cudaErrorInvalidValue", "8192x8192");
    CHECK(h && strstr(h, "65535") && strstr(h, "48 KiB"));

    h = hint("cudaErrorLaunchOutOfResources", "n=1025");
    CHECK(h && strstr(h, "at n=1025") && strstr(h, "registers or shared memory"));
    CHECK(h && strstr(h, "make ptxas"));

    h = hint("cudaErrorIllegalAddress", "n=17");
    CHECK(h && strstr(h, "at n=17") && strstr(h, "last, partial tile") && strstr(h, "SANITIZE=1"));
    h = hint("cudaErrorLaunchFailure", "n=4096");
    CHECK(h && strstr(h, "outside its array") && !strstr(h, "partial tile"));
    h = hint("cudaErrorMisalignedAddress", "n=17");
    CHECK(h && strstr(h, "float4") && strstr(h, "n % 4 == 0"));
    /* a padded shared tile misaligns a float4 as well, whatever n is */
    CHECK(h && strstr(h, "a row is a multiple of 4 floats long"));

    /* no size known: still a hint, never an empty size */
    h = hint("cudaErrorInvalidValue", "");
    CHECK(h && strstr(h, "at this size") && !strstr(h, "at  "));
    h = hint("cudaErrorInvalidValue", NULL);
    CHECK(h && strstr(h, "at this size"));

    /* errors without a specific cause get no hint; the text always fits */
    CHECK(hint("cudaErrorUnknown", "n=1") == NULL);
    char small[40];
    CHECK(lab_launch_hint("cudaErrorInvalidValue", "n=1", small, sizeof small) == 1 &&
          strlen(small) == sizeof small - 1);
    const char *all[] = {"cudaErrorInvalidValue", "cudaErrorInvalidConfiguration",
                         "cudaErrorLaunchOutOfResources", "cudaErrorIllegalAddress",
                         "cudaErrorMisalignedAddress"};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) {
        h = hint(all[i], "1000000x1000000");
        CHECK(h && strlen(h) < 600);
    }
}
