/*
 * preprocess.c: a kernel.cu as the compiler sees it, for similarity: run
 * through the C preprocessor of the host compiler (cc -E, as nvcc's host
 * pass uses it: __CUDACC__ defined), so that a copy hidden in a macro's
 * body is compared as the code it expands to, and #line markers are gone.
 *
 * It runs inside the build's wall, which lets it read the system's
 * headers and its own folder and write that folder alone, under a time and
 * a memory limit. It reads no file but the source all the same: #include
 * lines are blanked first (the lab's headers hold nothing a kernel's text
 * needs), the preprocessor runs with -nostdinc in an empty folder of its
 * own, and -H names any header it opened all the same (a directive spelled
 * so that the blanking missed it): then its output is thrown away and the
 * source is compared as written, as when it does not preprocess.
 */
#include "report.h"
#include "spawn.h"
#include "walled.h"

#include <ctype.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

/* the preprocessor's limits: seconds of wall time, bytes of memory */
#define CPP_SECONDS 10
#define CPP_MEMORY (512l << 20)

/* The length of the logical line at s (backslash-newlines spliced in),
 * without its final newline. */
static size_t logical_line(const char *s, size_t len)
{
    size_t i = 0;
    while (i < len && s[i] != '\n')
        i += s[i] == '\\' && i + 1 < len && s[i + 1] == '\n' ? 2 : 1;
    return i;
}

/* Whether the logical line at s (n bytes) is a directive that reads a
 * file: # or %:, blanks and comments, then include, include_next, import
 * or embed. */
static int reads_a_file(const char *s, size_t n)
{
    char word[16];
    size_t i = 0, w = 0;
    int hash = 0;
    while (i < n && w < sizeof word - 1) {
        if (s[i] == '\\' && i + 1 < n && s[i + 1] == '\n') {
            i += 2;
        } else if (s[i] == '/' && i + 1 < n && s[i + 1] == '*') {
            for (i += 2; i + 1 < n && !(s[i] == '*' && s[i + 1] == '/'); i++)
                ;
            i += 2;
        } else if (!hash && (s[i] == '#' || (s[i] == '%' && i + 1 < n && s[i + 1] == ':'))) {
            i += s[i] == '#' ? 1 : 2;
            hash = 1;
        } else if (isspace((unsigned char)s[i]) && !w) {
            i++;
        } else if (hash && (isalnum((unsigned char)s[i]) || s[i] == '_')) {
            word[w++] = s[i++];
        } else {
            break;
        }
    }
    word[w] = 0;
    return hash && (!strcmp(word, "include") || !strcmp(word, "include_next") || !strcmp(word, "import") ||
                    !strcmp(word, "embed"));
}

/* src with each directive that reads a file blanked, its newlines kept. */
static char *without_includes(const char *src, size_t len)
{
    char *out = lab_alloc(len + 1);
    memcpy(out, src, len);
    for (size_t i = 0; i < len;) {
        size_t n = logical_line(src + i, len - i);
        if (reads_a_file(src + i, n))
            for (size_t k = i; k < i + n; k++)
                if (out[k] != '\n')
                    out[k] = ' ';
        i += n + 1;
    }
    return out;
}

/* The preprocessor's limits, in the child before its exec (kept across
 * the wall's own exec: a preprocessor that hangs is killed). */
static int cpp_limits(void *unused)
{
    (void)unused;
    struct rlimit mem = {CPP_MEMORY, CPP_MEMORY};
    alarm(CPP_SECONDS);
    return setrlimit(RLIMIT_AS, &mem);
}

/* Run cc -E on dir/in.cu into dir/out.i, its messages in dir/err, inside
 * the build's wall (common/walled.h: it reads and writes dir, and runs the
 * host compiler's programs of build/wall/compile.paths): its exit status,
 * or -1. */
static int run_cpp(const char *dir)
{
    char *in = lab_asprintf("%s/in.cu", dir), *out = lab_asprintf("%s/out.i", dir), *err = lab_asprintf("%s/err", dir);
    char *argv[] = {"cc", "-E", "-P", "-C", "-H", "-nostdinc", "-D__CUDACC__", "-D__NVCC__", "-x", "c", in, "-o", out,
                    NULL};
    const lab_wall w = {"similarity's preprocessor", "wall/compile.paths", NULL, NULL, dir, CPP_SECONDS,
                        (int)(CPP_MEMORY >> 20), 16};
    char **walled = lab_walled_argv(&w, argv);
    lab_spawn s = {.argv = walled ? walled : argv,
                   .who = "similarity",
                   .in = {LAB_IO_NULL, NULL},
                   .out = {LAB_IO_FILE, err},
                   .err = {LAB_IO_STDOUT, NULL},
                   .before_exec = cpp_limits};
    int st = lab_spawn_run(&s, NULL, 0, NULL);
    free(walled);
    free(in);
    free(out);
    free(err);
    return st == LAB_SPAWN_NOT_STARTED ? -1 : st;
}

/* Why the preprocessor's output cannot be used: a header was opened (-H
 * prints ". path" for each) or refused it by the wall ("fatal error: PATH:
 * Permission denied"), or its first error line; NULL when it can. */
static char *cpp_complaint(const char *err, int status)
{
    for (const char *p = err; p && *p;) {
        size_t n = strcspn(p, "\n");
        const char *fatal = strstr(p, "fatal error: "), *denied = strstr(p, ": Permission denied");
        if (*p == '.' || (fatal && denied && fatal < denied && denied < p + n))
            return lab_strdup("it reads a header, which similarity does not allow");
        if (status && strstr(p, "error") && strstr(p, "error") < p + n)
            return lab_asprintf("%.*s", (int)(n > 160 ? 160 : n), p);
        p += n + (p[n] == '\n');
    }
    return status ? lab_asprintf("the preprocessor ended with status %d", status) : NULL;
}

char *report_preprocess(const char *src, size_t len, size_t *out_len, char **why)
{
    *why = NULL;
    char tmpl[] = "/tmp/similarity-cpp.XXXXXX";
    char *dir = mkdtemp(tmpl);
    if (!dir) {
        *why = lab_strdup("no temporary folder for the preprocessor");
        return NULL;
    }
    char *in = lab_asprintf("%s/in.cu", dir), *out = lab_asprintf("%s/out.i", dir), *err = lab_asprintf("%s/err", dir);
    char *text = without_includes(src, len), *result = NULL;
    FILE *f = fopen(in, "w");
    int written = f && fwrite(text, 1, len, f) == len;
    if (f && fclose(f))
        written = 0;
    int status = written ? run_cpp(dir) : -1;
    size_t elen = 0;
    char *said = report_read_plain(err, &elen, NULL);
    *why = written ? cpp_complaint(said, status) : lab_strdup("cannot write its input");
    if (!*why && !(result = report_read_plain(out, out_len, NULL)))
        *why = lab_strdup("it wrote nothing");
    unlink(in);
    unlink(out);
    unlink(err);
    rmdir(dir);
    free(said);
    free(text);
    free(in);
    free(out);
    free(err);
    return result;
}
