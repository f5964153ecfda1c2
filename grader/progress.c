/*
 * progress.c: how far a run got, from the driver's progress lines.
 *
 * A driver given --progress-fd writes one line as each phase begins:
 *
 *   check n=17                         a correctness check at that size
 *   checks passed                      every check passed; timing follows
 *   timing n=4096 your kernel          one kernel timed at the timing size
 *   timing n=4096 your kernel, first call 5234 ms
 *   check n=4096 (the last timed call) the output of the last timed call
 *   profile n=2048                     --profile's one call
 *   done                               the record is being written (the
 *                                      phase before it is the one it ended in)
 *
 * The lines come from the program under test and are believed only as far
 * as a forged record would be: they can turn a timeout into correctness
 * points, never into speed points (score.c).
 */
#include "grader.h"

#include <stdlib.h>
#include <string.h>

/* One complete line into p: the last phase wins; "done" ends none. */
static void progress_line(run_progress *p, const char *line, size_t n)
{
    char text[PROGRESS_LINE];
    grader_text_clean(line, n < sizeof text ? n : sizeof text - 1, text, sizeof text);
    if (!text[0])
        return;
    p->lines++;
    if (!strcmp(text, "done")) {
        /* the record follows: the phase that was under way is the one that ended */
        p->done = 1;
        return;
    }
    snprintf(p->last, sizeof p->last, "%s", text);
    p->size[0] = 0;
    p->first_call_ms = -1;
    p->checking = p->timing = 0;
    if (!strcmp(text, "checks passed")) {
        p->checks_passed = 1;
        return;
    }
    const char *rest = NULL;
    if (!strncmp(text, "check ", 6)) {
        p->checking = 1;
        rest = text + 6;
    } else if (!strncmp(text, "timing ", 7)) {
        /* timing only begins once every check has passed */
        p->timing = 1;
        p->checks_passed = 1;
        rest = text + 7;
        const char *first = strstr(rest, ", first call ");
        if (first)
            p->first_call_ms = strtod(first + 13, NULL);
    } else if (!strncmp(text, "profile ", 8)) {
        rest = text + 8;
    }
    if (rest)
        snprintf(p->size, sizeof p->size, "%.*s", (int)strcspn(rest, " ,"), rest);
}

void grader_progress_read(const char *text, size_t len, int cut, run_progress *p)
{
    memset(p, 0, sizeof *p);
    p->first_call_ms = -1;
    if (!text)
        return;
    const char *end = text + len;
    const char *at = text;
    if (cut) {
        /* the kept bytes begin inside a line: skip to the next one */
        const char *nl = memchr(at, '\n', len);
        at = nl ? nl + 1 : end;
    }
    while (at < end) {
        const char *nl = memchr(at, '\n', (size_t)(end - at));
        if (!nl)
            break; /* a line cut short by the end of the run is not a phase */
        progress_line(p, at, (size_t)(nl - at));
        at = nl + 1;
    }
}
