/*
 * library.c: header-only library code that would do a stage's work.
 *
 * CUB's block reduction is templates in a header: they are inlined into
 * kernel.cu's own kernels, so the object's symbols (policy.c) never show
 * them. What does show them is the list of every header the compiler opened
 * for kernel.cu, which nvcc -MD writes beside the object
 * (build/07_reduction/exercise.o: exercise.d), system headers included:
 * -MMD would leave out those found in a system folder, and nvcc makes the
 * toolkit's cccl/ (CUB, Thrust, libcu++) one. The preprocessor has resolved
 * each #include however it was spelled: a name built by macros, an absolute
 * path, ../ in it, #include_next, a header that includes another; and nvcc's
 * list covers its device passes too (an #include under #ifdef __CUDA_ARCH__
 * is in it). So the check reads that list and refuses the headers below.
 *
 * It cannot see a library's source pasted into kernel.cu, nor hand-written
 * code that looks like a library's (judge/README.md, "The threat model").
 */
#include "grader.h"
#include "grading.h"

#include <fnmatch.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* ===================================================== the refused headers */

typedef struct {
    const char *pattern; /* a glob over a path's last components */
    const char *what;    /* the library, as a student reads it   */
} library_header;

#define CG_REDUCE "cooperative groups' cg::reduce"
#define CG_SCAN "cooperative groups' cg::inclusive_scan and cg::exclusive_scan"
#define LIBCUXX_NUMERIC "libcu++'s cuda::std::reduce, accumulate and scans"

/* For each file the grader tries its name, then its last two components,
 * and so on (cutlass/include/cute/tensor.hpp is CuTe's); for each, the
 * first entry that matches wins: a library's particular headers come
 * before the library.
 *
 * Not refused, on purpose: cooperative_groups.h (tiles, sync, shfl_down)
 * and cooperative_groups/memcpy_async.h, which open none of these; and
 * libcu++'s cuda/std/__algorithm/ (copy, fill, min, max over one thread's
 * data, none of them a stage's lesson), which harmless headers open:
 * cooperative_groups.h opens iter_swap.h (through <cuda/atomic>), and
 * <cuda/std/type_traits>, <cuda/std/span> or <cuda/cmath> open up to twenty
 * of them (nvcc 13.0; tests/grader/library.sh holds a kernel with the
 * allowed headers, and grades every solution and skeleton). */
static const library_header refused[] = {
    /* CUB: a block or warp reduction or scan is stage 07's tree and shuffles */
    {"cub/block/block_reduce*", "CUB's block reduction"},
    {"cub/block/block_scan*", "CUB's block scan"},
    {"cub/warp/warp_reduce*", "CUB's warp reduction"},
    {"cub/warp/warp_scan*", "CUB's warp scan"},
    /* a whole reduction or scan over device memory, launched for you */
    {"cub/device/device_reduce*", "CUB's device reduction"},
    {"cub/device/device_*scan*", "CUB's device scan"},
    /* the rest of CUB too: its block load, store and exchange are stage
     * 04's transpose through shared memory */
    {"cub/*", "CUB"},
    /* whole algorithms over device arrays: thrust::reduce, transform, ... */
    {"thrust/*", "Thrust"},
    /* a tile's reduction or scan tree, shuffles and all, in one call; the
     * files they are made of too, so that naming one of those is the same */
    {"cooperative_groups/reduce.h", CG_REDUCE},
    {"cooperative_groups/details/reduce.h", CG_REDUCE},
    {"cooperative_groups/details/coalesced_reduce.h", CG_REDUCE},
    {"cooperative_groups/scan.h", CG_SCAN},
    {"cooperative_groups/details/scan.h", CG_SCAN},
    {"cooperative_groups/details/coalesced_scan.h", CG_SCAN},
    /* libcu++'s numeric algorithms that reduce or scan; <cuda/std/numeric>
     * and <cuda/numeric> open them all, and no harmless header opens any
     * (gcd, midpoint and iota, in headers of their own, stay allowed) */
    {"cuda/std/numeric", LIBCUXX_NUMERIC},
    {"cuda/numeric", LIBCUXX_NUMERIC},
    {"cuda/std/__numeric/*reduce.h", LIBCUXX_NUMERIC},
    {"cuda/std/__numeric/accumulate.h", LIBCUXX_NUMERIC},
    {"cuda/std/__numeric/inner_product.h", LIBCUXX_NUMERIC},
    {"cuda/std/__numeric/*scan.h", LIBCUXX_NUMERIC},
    {"cuda/std/__numeric/partial_sum.h", LIBCUXX_NUMERIC},
    /* tiled matrix products and their layouts (not in the CUDA Toolkit:
     * refused where someone installed them) */
    {"cutlass/*", "CUTLASS"},
    {"cute/*", "CuTe"},
};

/* The entry whose pattern matches the path from one of its '/' on, the
 * nearest the file's name first; the matched part in shown. NULL when none
 * does. */
static const library_header *match_path(const char *path, char *shown, size_t len)
{
    for (size_t i = strlen(path); i-- > 0;) {
        const char *p = path + i;
        if (i > 0 && p[-1] != '/')
            continue;
        for (size_t k = 0; k < sizeof refused / sizeof refused[0]; k++)
            if (fnmatch(refused[k].pattern, p, 0) == 0) {
                snprintf(shown, len, "%s", p);
                return &refused[k];
            }
    }
    return NULL;
}

/* The path without "." and "name/.." steps, as written otherwise: a/b/../c
 * is a/c. Enough for names; realpath resolves the links of absolute paths. */
static void tidy_path(const char *path, char *out, size_t len)
{
    char copy[PATH_MAX], *save = NULL;
    const char *step[PATH_MAX / 2];
    int n = 0;
    snprintf(copy, sizeof copy, "%s", path);
    for (char *s = strtok_r(copy, "/", &save); s; s = strtok_r(NULL, "/", &save)) {
        if (!strcmp(s, "."))
            continue;
        if (!strcmp(s, "..") && n > 0 && strcmp(step[n - 1], ".."))
            n--;
        else
            step[n++] = s;
    }
    snprintf(out, len, "%s", path[0] == '/' ? "/" : "");
    for (int i = 0; i < n; i++)
        grader_appendf(out, len, "%s%s", i ? "/" : "", step[i]);
}

/* A refused header at this path, as written tidied or as the file system
 * resolves it; the matched part in shown. */
static const library_header *match_header(const char *path, char *shown, size_t len)
{
    char tidy[PATH_MAX], real[PATH_MAX];
    tidy_path(path, tidy, sizeof tidy);
    const library_header *h = match_path(tidy, shown, len);
    if (!h && path[0] == '/' && realpath(path, real))
        h = match_path(real, shown, len);
    return h;
}

/* ================================================== the compiler's list */

/* The files the first rule of a make dependency file depends on, each
 * ending in a NUL, then an empty one. "\ " is a space in a name; a
 * backslash before the end of a line goes on to the next. NULL when there
 * is no rule. */
static char *rule_prerequisites(const char *text)
{
    char *out = malloc(strlen(text) + 2), *o = out, *word = out;
    int after_colon = 0;
    for (const char *p = text; out; p++) {
        int line_end = *p == '\n' || *p == 0;
        if (p[0] == '\\' && p[1] == ' ') {
            *o++ = *++p;
            continue;
        }
        if (p[0] == '\\' && (p[1] == '\n' || (p[1] == '\r' && p[2] == '\n'))) {
            p += p[1] == '\r' ? 2 : 1;
        } else if (!line_end && *p != ' ' && *p != '\t' && *p != '\r') {
            *o++ = *p;
            continue;
        }
        /* a word ends here: the targets' words (to "x.o:" or ":") go */
        if (o > word && after_colon) {
            *o++ = 0;
            word = o;
        } else if (o > word) {
            after_colon = o[-1] == ':';
            o = word;
        }
        if ((line_end && after_colon) || *p == 0)
            break;
    }
    if (out && !after_colon) {
        free(out);
        return NULL;
    }
    if (out)
        *o = 0;
    return out;
}

/* The list beside the object: build/07_reduction/exercise.d. */
static void list_path(const target *t, char *out, size_t len)
{
    size_t n = strlen(t->object);
    snprintf(out, len, "%.*s.d", (int)(n > 2 && !strcmp(t->object + n - 2, ".o") ? n - 2 : n), t->object);
}

static int newer(const struct stat *a, const struct stat *b)
{
    return a->st_mtim.tv_sec != b->st_mtim.tv_sec ? a->st_mtim.tv_sec > b->st_mtim.tv_sec
                                                  : a->st_mtim.tv_nsec > b->st_mtim.tv_nsec;
}

/* The files of the object's list (rule_prerequisites), or NULL with why
 * the list cannot be trusted, to follow "kernel.cu ". */
static char *read_list(const target *t, char *why, size_t len)
{
    char path[1100];
    list_path(t, path, sizeof path);
    const char *lead = "was compiled without a complete list of the headers it opened";
    struct stat ds;
    char *text = stat(path, &ds) || ds.st_size > (16 << 20) ? NULL : lab_read_file(path, 0);
    if (!text) {
        snprintf(why, len, "%s (%s is missing or unreadable)", lead, path);
        return NULL;
    }
    char *files = rule_prerequisites(text);
    free(text);
    /* nvcc includes cuda_runtime.h in every .cu it compiles, which opens
     * the C library's stdlib.h: a list without it has no system header */
    int complete = 0;
    for (const char *p = files; p && *p && !complete; p += strlen(p) + 1) {
        const char *base = strrchr(p, '/');
        complete = !strcmp(base ? base + 1 : p, "stdlib.h");
    }
    /* the kernel.cu of now must be what the list was made from */
    struct stat ss;
    const char *source = t->source[0] ? t->source : files ? files : "";
    int stale = complete && (stat(source, &ss) || newer(&ss, &ds));
    if (!complete || stale) {
        snprintf(why, len, "%s (%s %s)", lead, path,
                 !complete ? "names no system header: it was written without nvcc -MD"
                           : "is older than kernel.cu");
        free(files);
        return NULL;
    }
    return files;
}

int grader_library_list_usable(const target *t)
{
    char why[512];
    char *files = read_list(t, why, sizeof why);
    int usable = files != NULL;
    free(files);
    return usable;
}

/* ================================================================ the check */

int grader_library_check(const target *t, char *msg, size_t len)
{
    msg[0] = 0;
    char *files = read_list(t, msg, len);
    if (!files) {
        grader_appendf(msg, len, ": the grader cannot tell which libraries it uses; run make grade again");
        return -1;
    }
    const library_header *h = NULL;
    char shown[PATH_MAX];
    for (const char *p = files; *p && !h; p += strlen(p) + 1)
        h = match_header(p, shown, sizeof shown);
    free(files);
    if (!h)
        return 0;
    /* "stage 07 asks ...", "stage policy_x asks ..." for a stage without a number */
    size_t digits = strspn(t->stage, "0123456789");
    snprintf(msg, len, "includes %s (%s): stage %.*s asks you to write its kernels yourself", h->what, shown,
             (int)(digits ? digits : strlen(t->stage)), t->stage);
    if (t->lesson[0])
        grader_appendf(msg, len, " (%s)", t->lesson);
    grader_appendf(msg, len, "; cooperative groups' tiles, syncs and shuffles are allowed");
    return 1;
}
