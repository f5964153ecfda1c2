/*
 * hints.c: what to tell a student whose kernel failed with a CUDA error.
 *
 * The driver cannot see the student's grid or block: it knows only the error
 * and the size of the call that failed. So the hint names the likely causes
 * of that error at that size and what to check, in plain C, so that
 * tests/unit/ can check every sentence without a GPU.
 */
#include "lab.h"

#include <stdio.h>
#include <string.h>

int lab_call_dims(const char *label, lab_dims *out)
{
    long long r = 0, c = 0;
    char rest;
    if (sscanf(label, "n=%lld%c", &r, &rest) == 1 && r >= 1) {
        /* matmul's n x n, or reduce's n elements: one size either way */
        out->rows = out->cols = r;
        return 0;
    }
    if (sscanf(label, "%lldx%lld%c", &r, &c, &rest) == 2 && r >= 1 && c >= 1) {
        out->rows = r;
        out->cols = c;
        return 0;
    }
    return -1;
}

/* Below this size a grid computed as size / TILE, for any tile a lab stage
 * uses (up to 32, or a block of up to 1024 elements for a reduction), can be
 * 0: then a zero grid is the first thing to suspect. */
enum { SMALL_SIZE = 1024 };

int lab_launch_hint(const char *error_name, const char *size, char *out, size_t len)
{
    lab_dims d;
    long long smallest = size && lab_call_dims(size, &d) == 0 ? (d.rows < d.cols ? d.rows : d.cols) : -1;
    if (smallest < 0)
        size = "this size";
    out[0] = 0;
    if (!strcmp(error_name, "cudaErrorInvalidConfiguration") ||
        !strcmp(error_name, "cudaErrorInvalidValue")) {
        int config = !strcmp(error_name, "cudaErrorInvalidConfiguration");
        const char *cause = smallest < SMALL_SIZE
                                ? "the likely cause is a grid with a 0 dimension: a grid computed as n / TILE "
                                  "is 0 when n < TILE, so round up with (n + TILE - 1) / TILE. Also check"
                                : "a zero grid is unlikely: check";
        snprintf(out, len,
                 "Hint: the launch at %s was refused before your kernel ran. At this size %s that a block "
                 "has 1 to 1024 threads (blockDim.x * blockDim.y * blockDim.z)%s.",
                 size, cause,
                 config ? "" : ", that gridDim.y and gridDim.z stay at most 65535, and that "
                               "dynamic shared memory stays within 48 KiB a block");
        return 1;
    }
    if (!strcmp(error_name, "cudaErrorLaunchOutOfResources")) {
        snprintf(out, len,
                 "Hint: the launch at %s asks for more registers or shared memory per block than "
                 "an SM has: use fewer threads per block (256 instead of 1024) or a smaller tile; "
                 "`make ptxas EX=<stage>` shows each kernel's registers and shared memory.",
                 size);
        return 1;
    }
    if (!strcmp(error_name, "cudaErrorIllegalAddress") || !strcmp(error_name, "cudaErrorLaunchFailure")) {
        snprintf(out, len,
                 "Hint: a thread read or wrote outside its array at %s; check the bounds checks and "
                 "the index arithmetic%s. compute-sanitizer names the line: make run EX=<stage> "
                 "SANITIZE=1.",
                 size, smallest >= 0 && smallest < SMALL_SIZE ? " of the last, partial tile" : "");
        return 1;
    }
    if (!strcmp(error_name, "cudaErrorMisalignedAddress")) {
        snprintf(out, len,
                 "Hint: a float4 (16-byte) access at %s needs an address that is a multiple of 16 "
                 "bytes; the rows of an n x n float matrix all start on one only when n %% 4 == 0, "
                 "and the rows of a shared tile only when a row is a multiple of 4 floats long "
                 "(not a padded [32][33]).",
                 size);
        return 1;
    }
    return 0;
}
