/*
 * sanitize.c: what compute-sanitizer found, read from its output.
 *
 * Only an error located in a kernel.cu costs points: cuBLAS and the
 * harness's own kernels are not the student's, and an error that cannot be
 * placed is noted rather than scored (a wrong deduction is worse than a
 * missed one; the student still sees it).
 */
#include "grader.h"

#include <stdlib.h>
#include <string.h>

/* compute-sanitizer prints each error as a block: a line starting
 * "========= Invalid ..." or "========= Error: ...", then indented lines
 * "=========     at kernel+0x40 in /path/kernel.cu:31". */
static int error_line(const char *line)
{
    while (*line == '=' || *line == ' ')
        line++;
    return !strncmp(line, "Invalid ", 8) || !strncmp(line, "Error", 5) ||
           !strncmp(line, "Program hit", 11) || !strncmp(line, "Barrier error", 13) ||
           !strncmp(line, "Malloc/Free error", 17);
}

/* The error of the block at `block` and the .cu:LINE places it names
 * ("Invalid __global__ write of size 4 bytes (exercises/03_tiled/kernel.cu:31)")
 * into out; returns 1 when one of them is in a kernel.cu. */
static int describe_block(const char *block, char *out, size_t len)
{
    const char *body = block;
    while (*body == '=' || *body == ' ')
        body++;
    size_t n = strcspn(body, "\n");
    const char *at = strstr(body, " at ");
    if (at && (size_t)(at - body) < n)
        n = (size_t)(at - body);
    char what[256], where[512] = "";
    snprintf(what, sizeof what, "%.*s", (int)(n < 255 ? n : 255), body);
    int found = 0, in_kernel = 0;
    const char *line = block;
    for (int k = 0; line && *line && k < 8; k++) {
        size_t ln = strcspn(line, "\n");
        char copy[1024];
        snprintf(copy, sizeof copy, "%.*s", (int)(ln < 1023 ? ln : 1023), line);
        if (k > 0 && (error_line(copy) || strncmp(copy, "=========     ", 14) ||
                      strstr(copy, "host backtrace")))
            break; /* the next error, the end of this one, or host frames */
        char *save = NULL;
        for (char *tok = strtok_r(copy, " \t", &save); tok && found < 3; tok = strtok_r(NULL, " \t", &save)) {
            char *cu = strstr(tok, ".cu:");
            if (!cu)
                continue;
            /* keep FILE.cu:LINE, drop what some versions append (":kernel(...)") */
            cu += 4;
            while (*cu >= '0' && *cu <= '9')
                cu++;
            *cu = 0;
            const char *shown = strstr(tok, "exercises/");
            if (!shown)
                shown = strrchr(tok, '/') ? strrchr(tok, '/') + 1 : tok;
            in_kernel |= strstr(tok, "kernel.cu:") != NULL;
            grader_appendf(where, sizeof where, "%s%s", found++ ? ", " : "", shown);
        }
        line = strchr(line, '\n');
        if (line)
            line++;
    }
    char text[800];
    snprintf(text, sizeof text, "%s%s%s%s", what, where[0] ? " (" : "", where, where[0] ? ")" : "");
    grader_text_clean(text, strlen(text), out, len);
    return in_kernel;
}

/* From compute-sanitizer's output: 1 with the first error in a kernel.cu
 * in finding; 2 when it reported errors, none of them in a kernel.cu (a
 * library's or the harness's: noted, not scored); 0 when it found none. */
int grader_sanitizer_finding(const char *out, char *finding, size_t len)
{
    finding[0] = 0;
    int errors = 0;
    for (const char *p = out; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
        if (!error_line(p))
            continue;
        char text[REASON_LEN];
        if (describe_block(p, text, sizeof text)) {
            snprintf(finding, len, "%s", text);
            return 1;
        }
        if (!errors++)
            snprintf(finding, len, "%s", text);
    }
    const char *summary = strstr(out, "ERROR SUMMARY: ");
    if (!errors && summary && atoi(summary + 15) > 0) {
        snprintf(finding, len, "%d errors reported", atoi(summary + 15));
        errors = 1;
    }
    return errors ? 2 : 0;
}
