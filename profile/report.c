/*
 * report.c: the counters of one call in plain words, beside the reference's
 * and the ideal values, and what they say (verdicts.c). Full: the table, the
 * verdicts with their advice, what is right; brief (make grade's hints): at
 * most four lines.
 */
#include "profile.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

/* "void transpose_tile<32>(const float *, float *, int, int)" -> "transpose_tile<32>":
 * drop the return type and the argument list (found from its closing
 * bracket, since template arguments may hold brackets too). A new string. */
static char *short_name(const char *name)
{
    if (!strncmp(name, "void ", 5))
        name += 5;
    char *s = lab_strdup(name);
    size_t len = strlen(s);
    if (len == 0 || s[len - 1] != ')')
        return s;
    int depth = 0;
    for (size_t i = len; i > 0; i--) {
        if (s[i - 1] == ')') {
            depth++;
        } else if (s[i - 1] == '(' && --depth == 0) {
            s[i - 1] = '\0';
            break;
        }
    }
    return s;
}

/* How the table shows a value. */
enum { RATIO, PCT, BYTES, COUNT_OF, TIME, TEXT };

static void shown(const char *v, int kind, char *buf, size_t size)
{
    if (!v[0]) {
        snprintf(buf, size, "n/a");
        return;
    }
    if (!profile_is_number(v)) {
        snprintf(buf, size, "%s", v);
        return;
    }
    double x = strtod(v, NULL);
    char w[64];
    switch (kind) {
    case RATIO:
        snprintf(buf, size, "%.1f", x);
        break;
    case PCT:
        snprintf(buf, size, x < 10 ? "%.1f%%" : "%.0f%%", x);
        break;
    case BYTES:
        profile_whole(w, sizeof w, x);
        snprintf(buf, size, "%s B", w);
        break;
    case COUNT_OF:
        profile_grouped(buf, size, x);
        break;
    case TIME:
        if (x >= 1000)
            snprintf(buf, size, "%.2f ms", x / 1000);
        else
            snprintf(buf, size, "%.1f us", x);
        break;
    default:
        profile_whole(buf, size, x);
    }
}

/* Print text in lines of at most width characters: the first after first,
 * the others after rest. Words are split at spaces, tabs and newlines. */
static void wrap(const char *text, const char *first, const char *rest, size_t width)
{
    char *copy = lab_strdup(text), *save = NULL;
    const char *indent = first;
    size_t cap = strlen(text) + 1, used = 0;
    char *line = lab_alloc(cap);
    line[0] = '\0';
    for (char *word = strtok_r(copy, " \t\n", &save); word; word = strtok_r(NULL, " \t\n", &save)) {
        if (used && strlen(indent) + used + 1 + strlen(word) > width) {
            printf("%s%s\n", indent, line);
            indent = rest;
            used = 0;
            line[0] = '\0';
        }
        used += (size_t)snprintf(line + used, cap - used, used ? " %s" : "%s", word);
    }
    if (used)
        printf("%s%s\n", indent, line);
    free(line);
    free(copy);
}

/* wrap, with "." after the text */
static void wrap_sentence(const char *text, const char *first, const char *rest)
{
    char *s = lab_asprintf("%s.", text);
    wrap(s, first, rest, 100);
    free(s);
}

struct table {
    const struct kv *y, *r;
    int have_ref;
};

static void row(const struct table *t, const char *label, const char *key, int kind, const char *ideal)
{
    char yours[128], ref[128] = "-";
    shown(profile_kv_get(t->y, key), kind, yours, sizeof yours);
    if (t->have_ref)
        shown(profile_kv_get(t->r, key), kind, ref, sizeof ref);
    printf("  %-42s %15s %15s  %s\n", label, yours, ref, ideal);
}

static long launches_of(const struct kv *t)
{
    return strtol(profile_kv_get(t, "launches"), NULL, 10);
}

static void brief_report(const struct verdicts *v, const char *ex)
{
    /* at most three lines: what is wrong, then what the reference shares,
     * then what is right */
    int shown_lines = 0;
    for (int i = 0; i < v->nwrong && shown_lines < 3; i++, shown_lines++)
        printf("%s\n", v->wrong_short[i]);
    for (int i = 0; i < v->nnotes && shown_lines < 3; i++)
        if (v->note_brief[i]) {
            printf("%s\n", v->note_short[i]);
            shown_lines++;
        }
    if (v->rights[0] && shown_lines < 3)
        printf("%s\n", v->rights);
    printf("(hardware counters from Nsight Compute, a hint, not scored; details: make profile EX=%s)\n", ex);
}

static void header(const struct kv *y, const struct kv *r, int have_ref, const char *yours_label,
                   const char *ref_label)
{
    const char *ncu = profile_kv_get(y, "ncu");
    printf("Hardware counters of one call at %s on %s (Nsight Compute %s)\n", profile_kv_get(y, "size"),
           profile_kv_get(y, "gpu"), ncu[0] ? ncu : "version unknown");
    char *name = short_name(profile_kv_get(y, "kernel"));
    long n = launches_of(y);
    printf("  yours:     %s: %s, %ld launch%s\n", yours_label, name, n, n == 1 ? "" : "es");
    free(name);
    if (have_ref) {
        name = short_name(profile_kv_get(r, "kernel"));
        n = launches_of(r);
        printf("  reference: %s: %s, %ld launch%s\n", ref_label, name, n, n == 1 ? "" : "es");
        free(name);
    } else {
        printf("  reference: %s\n", ref_label);
    }
    printf("\n");
}

static void rows(const struct verdicts *v, const struct kv *y, const struct kv *r)
{
    const struct table t = {y, r, v->have_ref};
    char ideal[2][160], occupancy[64] = "as high as the launch allows";
    for (int kind = 0; kind < 2; kind++)
        profile_ideal_shown(v, kind, ideal[kind], sizeof ideal[kind]);
    strncat(ideal[0], " or fewer", sizeof ideal[0] - strlen(ideal[0]) - 1);
    double theo;
    if (profile_number_of(y, "theoretical", &theo))
        snprintf(occupancy, sizeof occupancy, "close to the theoretical %.0f%%", theo);
    printf("  %-42s %15s %15s  %s\n", "", "yours", "reference", "ideal");
    row(&t, "global loads: sectors per request", "gld_spr", RATIO, ideal[0]);
    row(&t, "global stores: sectors per request", "gst_spr", RATIO, ideal[1]);
    row(&t, "shared loads: wavefronts per instruction", "shld_wpi", RATIO, "1 a 4-byte access (float4: 4)");
    row(&t, "shared loads: bank conflicts", "shld_conflicts", COUNT_OF, "0 (judge by the row above)");
    row(&t, "shared stores: wavefronts per instruction", "shst_wpi", RATIO, "1 a 4-byte access (float4: 4)");
    row(&t, "shared stores: bank conflicts", "shst_conflicts", COUNT_OF, "0 (judge by the row above)");
    row(&t, "achieved occupancy (% of the SM's warps)", "occupancy", PCT, occupancy);
    row(&t, "theoretical occupancy", "theoretical", PCT, "set by block size, registers, shared memory");
    row(&t, "DRAM throughput (% of peak)", "dram", PCT, "near 100% if the kernel is memory-bound");
    row(&t, "registers per thread", "registers", COUNT_OF, "");
    row(&t, "shared memory per block", "smem", BYTES, "");
    row(&t, "threads per block", "block", TEXT, "");
    row(&t, "blocks in the grid", "grid", TEXT, "");
    row(&t, "time of the call under ncu", "time_us", TIME, "(base clocks: not the graded time)");
    if (!strcmp(profile_kv_get(y, "shld_wpi"), "none") || !strcmp(profile_kv_get(y, "shst_wpi"), "none") ||
        !strcmp(profile_kv_get(r, "shld_wpi"), "none"))
        printf("  (none: the kernel makes no accesses of that kind)\n");
    if (launches_of(y) > 1 || launches_of(r) > 1)
        printf("  (several launches in one call: counts summed, occupancy and DRAM averaged by time,\n"
               "   block, grid, registers and shared memory those of the longest launch)\n");
}

static void sayings(const struct verdicts *v, const struct kv *y)
{
    printf("\nWhat the counters say:\n");
    for (int i = 0; i < v->nwrong; i++) {
        wrap_sentence(v->wrong_short[i], "  - ", "    ");
        wrap_sentence(v->wrong_advice[i], "    ", "    ");
    }
    for (int i = 0; i < v->nnotes; i++) {
        wrap_sentence(v->note_short[i], "  - ", "    ");
        wrap_sentence(v->note_advice[i], "    ", "    ");
    }
    if (v->rights[0]) {
        char *s = lab_strdup(v->rights);
        s[0] = (char)toupper((unsigned char)s[0]);
        wrap_sentence(s, "  ", "  ");
        free(s);
    }
    if (profile_is_number(profile_kv_get(y, "gld_spr")) || profile_is_number(profile_kv_get(y, "gst_spr"))) {
        char *s;
        if (!strcmp(v->width_from[0], v->width_from[1]))
            s = lab_asprintf("(the ideal sectors per request follow the access width: %s and %s, from %s)",
                          v->width_text[0], v->width_text[1], v->width_from[0]);
        else
            s = lab_asprintf("(the ideal sectors per request follow the access width: %s from %s, %s from %s)",
                          v->width_text[0], v->width_from[0], v->width_text[1], v->width_from[1]);
        wrap(s, "  ", "   ", 100);
        free(s);
    }
}

void profile_report(struct kv *y, struct kv *r, int brief, const char *ex, const char *yours_label,
            const char *ref_label, const char *report_file)
{
    static struct verdicts v;
    profile_judge(&v, y, r, ex);
    /* no shared accesses of a kind: no conflicts to speak of either */
    struct kv *sides[2] = {y, r};
    for (int i = 0; i < 2; i++) {
        if (!strcmp(profile_kv_get(sides[i], "shld_wpi"), "none"))
            profile_kv_set(sides[i], "shld_conflicts", "none");
        if (!strcmp(profile_kv_get(sides[i], "shst_wpi"), "none"))
            profile_kv_set(sides[i], "shst_conflicts", "none");
    }
    if (brief) {
        brief_report(&v, ex);
        return;
    }
    header(y, r, v.have_ref, yours_label, ref_label);
    rows(&v, y, r);
    sayings(&v, y);
    printf("\nCounters measured by Nsight Compute with clocks locked to base and caches flushed;\n"
           "the times from make run are at boost clocks and are the ones graded.\n");
    printf("Full report: %s (open it in Nsight Compute).\n", report_file);
}
