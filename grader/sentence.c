/*
 * sentence.c: what a run through the one launcher (judge/launch.sh) found,
 * in one sentence of its own output, for every door that shows a failing
 * emulated run in a line: make grade on the CPU (emu/grade.sh), make class
 * CHECK=1 (grader/class/check.c), the Gradescope bundle without a GPU
 * (gradescope/run_autograder), the GPU's make run (grader/emulated.c, the
 * emulator's finding alone). The verdict itself comes from the record
 * (grader/launched.c); this only words it.
 */
#include "grader.h"

#include <string.h>

/* The line at p (up to its newline) into out, cleaned, blanks at its start
 * dropped and runs of blanks made one. */
static void line_into(const char *p, char *out, size_t len)
{
    size_t n = strcspn(p, "\n");
    char raw[REASON_LEN];
    grader_text_clean(p, n < sizeof raw - 1 ? n : sizeof raw - 1, raw, sizeof raw);
    size_t o = 0;
    for (const char *c = raw; *c && o + 1 < len; c++) {
        int blank = *c == ' ' || *c == '\t';
        if (blank && (o == 0 || out[o - 1] == ' '))
            continue;
        out[o++] = blank ? ' ' : *c;
    }
    while (o > 0 && out[o - 1] == ' ')
        o--;
    out[o] = 0;
}

/* The first line of out that starts with prefix: a pointer to it, or NULL. */
static const char *line_starting(const char *out, const char *prefix)
{
    size_t n = strlen(prefix);
    for (const char *p = out; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
        if (!strncmp(p, prefix, n))
            return p;
    return NULL;
}

int grader_emulator_finding(const char *out, char *finding, size_t len)
{
    static const char mark[] = "  emulator: ";
    const char *at = line_starting(out, mark);
    finding[0] = 0;
    if (!at || !strncmp(at + strlen(mark), "(further", 8))
        return 0;
    line_into(at + strlen(mark), finding, len);
    return finding[0] != 0;
}

/* A check's own line: "  n=17 ..." or "  33x65 ..." (a size, then more). */
static int size_line(const char *l)
{
    if (!strncmp(l, "  n=", 4))
        return 1;
    size_t rows = strspn(l + 2, "0123456789");
    if (!rows || l[2 + rows] != 'x')
        return 0;
    size_t cols = strspn(l + 3 + rows, "0123456789");
    return cols && l[3 + rows + cols] == ' ';
}

/* The first line that says FAILED (NULL: none), and in *explained the line
 * that explains it: the first one after it indented two blanks, a letter
 * or digit next, that is not another check's line (NULL: none). */
static const char *failed_check(const char *out, const char **explained)
{
    const char *failed = strstr(out, "FAILED");
    *explained = NULL;
    if (!failed)
        return NULL;
    while (failed > out && failed[-1] != '\n')
        failed--;
    for (const char *p = strchr(failed, '\n'); p && p[1]; p = strchr(p + 1, '\n')) {
        const char *l = p + 1;
        int word = (l[2] >= 'a' && l[2] <= 'z') || (l[2] >= '0' && l[2] <= '9');
        if (!strncmp(l, "  ", 2) && word && !size_line(l)) {
            *explained = l;
            break;
        }
    }
    return failed;
}

void grader_run_sentence(const char *out, char *sentence, size_t len)
{
    const char *at, *explained, *failed;
    if (grader_emulator_finding(out, sentence, len))
        return;
    if ((at = line_starting(out, "error: "))) {
        line_into(at + 7, sentence, len);
    } else if ((failed = failed_check(out, &explained))) {
        line_into(explained ? explained : failed, sentence, len);
    } else {
        /* the last line: the launcher's verdict without its "verdict: WORD: ",
         * or its own line ("launch: not run: ...") without its name */
        const char *end = out + strlen(out), *last;
        while (end > out && end[-1] == '\n')
            end--;
        for (last = end; last > out && last[-1] != '\n'; last--)
            ;
        const char *why = !strncmp(last, "verdict: ", 9) ? strstr(last + 9, ": ") : NULL;
        why = why ? why + 2 : !strncmp(last, "launch: ", 8) ? last + 8 : last;
        line_into(why, sentence, len);
    }
    if (!sentence[0])
        snprintf(sentence, len, "wrong");
}
