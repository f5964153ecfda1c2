/*
 * explain_report.cc: make explain's table (emu/README.md, "What the memory
 * system sees"): the counts of explain.cc, one row for each line of
 * kernel.cu, memory (global, shared), direction and array, in the order of
 * the source, each line's text beneath its rows; a sentence or two where a
 * line is far from its ideal, naming the handout that says what to do; and
 * that these are counts, not times.
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "family.h"
#include "emu.h"

static const lab_emu_explained_launch &g_x = lab_emu_explained;

/* A line of the table: the sites of one source line, kind and array. */
typedef lab_emu_row row;

static int by_place(const void *x, const void *y)
{
    const row *a = (const row *)x, *b = (const row *)y;
    int file = strncmp(a->where, b->where, strcspn(a->where, ":") + 1);
    if (file)
        return file;
    if (a->line != b->line)
        return a->line < b->line ? -1 : 1;
    if (a->shared != b->shared)
        return a->shared - b->shared;
    if (a->write != b->write)
        return a->write - b->write;
    return strcmp(a->name, b->name);
}

/* The sites merged into rows by line, memory, direction and array, in
 * the order of the source; their number. */
int lab_emu_explain_rows(row *rows)
{
    int n = 0;
    for (int s = 0; s < g_x.nsites; s++) {
        const lab_emu_site *S = &g_x.sites[s];
        if (!S->requests)
            continue;
        char where[256];
        lab_emu_line_of(S->pc, where, sizeof where);
        if (!*where)
            snprintf(where, sizeof where, "a line of kernel.cu");
        int r = 0;
        while (r < n && (strcmp(rows[r].where, where) || rows[r].shared != S->shared || rows[r].write != S->write ||
                         strcmp(rows[r].name, S->name)))
            r++;
        if (r == n) {
            memset(&rows[n], 0, sizeof rows[n]);
            snprintf(rows[n].where, sizeof rows[n].where, "%s", where);
            const char *colon = strrchr(where, ':');
            rows[n].line = colon ? (unsigned)strtoul(colon + 1, NULL, 10) : 0;
            rows[n].shared = S->shared;
            rows[n].write = S->write;
            rows[n].name = S->name;
            n++;
        }
        rows[r].requests += S->requests;
        rows[r].units += S->units;
        rows[r].ideal += S->ideal;
        rows[r].lanes += S->lanes;
        if (S->size > rows[r].size)
            rows[r].size = S->size;
    }
    qsort(rows, (size_t)n, sizeof *rows, by_place);
    return n;
}

/* "kernel.cu:35" of "exercises/01_naive/kernel.cu:35" */
const char *lab_emu_short_place(const char *where)
{
    const char *slash = strrchr(where, '/');
    return slash ? slash + 1 : where;
}

/* The text of a line of the source, trimmed, where the file can be read. */
static int source_text(const char *where, unsigned line, char *out, size_t len)
{
    char path[256];
    snprintf(path, sizeof path, "%.*s", (int)strcspn(where, ":"), where);
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    char buf[512];
    unsigned at = 0;
    int found = 0;
    while (!found && fgets(buf, sizeof buf, f))
        if (++at == line) {
            char *p = buf + strspn(buf, " \t");
            p[strcspn(p, "\r\n")] = 0;
            snprintf(out, len, "%s", p);
            found = *p != 0;
        }
    fclose(f);
    return found;
}

static void number(char *out, size_t len, double v)
{
    snprintf(out, len, v == (double)(long long)v ? "%.0f" : "%.1f", v);
}

/* A paragraph of words, wrapped at 100 columns, after a blank line. */
static void paragraph(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void paragraph(const char *fmt, ...)
{
    char text[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    printf("\n");
    for (char *p = text; *p;) {
        size_t len = strlen(p), cut = len;
        if (len > 100)
            for (cut = 100; cut > 0 && p[cut] != ' '; cut--)
                ;
        if (cut == 0)
            cut = len;
        printf("%.*s\n", (int)cut, p);
        p += cut;
        p += *p == ' ';
    }
}

/* One line of the table. */
static void print_row(const row *r, int width, int name_width)
{
    char ideal[32];
    number(ideal, sizeof ideal, (double)r->ideal / (double)r->requests);
    printf("  %-*s  %-6s %-5s  %-*s  %-12s %8llu  %-10s %9llu  %4.1f per %s (ideal %s)\n", width,
           lab_emu_short_place(r->where), r->shared ? "shared" : "global", r->write ? "store" : "load", name_width,
           r->name,
           r->shared ? "instructions" : "requests", r->requests, r->shared ? "wavefronts" : "sectors", r->units,
           (double)r->units / (double)r->requests, r->shared ? "instruction" : "request", ideal);
}

/* Where the stage's handout says what to do about it (the family's words). */
static const char *advice_global(void)
{
    const char *advice = lab_family_this.coalescing_advice;
    return advice ? advice : "let neighbouring threads (threadIdx.x) touch neighbouring floats";
}

static int far_from_ideal(const row *r) { return r->units * 2 > r->ideal * 3; } /* over 1.5 times */

/* What to pad the conflicted shared arrays by. One float a row (tile[32][33])
 * breaks a kernel that also moves 8 or 16 bytes at a time through the same
 * array (a float4 whose row no longer starts on 16 bytes is misaligned):
 * then the padding must keep each row a multiple of that width. */
static void padding_advice(const row *rows, int n, char *out, size_t len)
{
    const lab_emu_site *wide = NULL;
    for (int i = 0; i < n; i++) {
        if (!rows[i].shared || !far_from_ideal(&rows[i]))
            continue;
        for (int s = 0; s < g_x.nsites; s++) {
            const lab_emu_site *S = &g_x.sites[s];
            if (S->shared && S->requests && S->size > 4 && !strcmp(S->name, rows[i].name) &&
                (!wide || S->size > wide->size))
                wide = S;
        }
    }
    if (!wide) {
        snprintf(out, len, "one float of padding a row (tile[32][33]) spreads the column over the 32 banks");
        return;
    }
    char where[256];
    lab_emu_line_of(wide->pc, where, sizeof where);
    snprintf(out, len, "but %.47s is also %s %zu bytes at a time (%s%.80s): one float of padding a row would misalign "
             "those accesses, which a GPU stops with an error. Padding of %zu floats a row keeps every row a "
             "multiple of %zu bytes, so they stay aligned, and shifts each row %zu banks from the one above: count again to see "
             "whether that spreads this warp's accesses, or change which thread moves which element so that "
             "they fall in different banks",
             wide->name, wide->write ? "written" : "read", wide->size, wide->size == 16 ? "float4, " : "",
             *where ? lab_emu_short_place(where) : "a line of kernel.cu", wide->size / 4, wide->size, wide->size / 4);
}

/* One or two sentences for the lines of one memory far from their ideal:
 * where ("kernel.cu:20 (A), kernel.cu:173, 174 (As)"), the worst of them,
 * what it means and what the handout says to do. */
static void teach(const row *rows, int n, int shared)
{
    char at[1024] = "", want[32] = "";
    size_t used = 0;
    double worst = 0;
    int loads = 0, stores = 0;
    const row *prev = NULL;
    for (int i = 0; i < n; i++) {
        const row *r = &rows[i];
        if (r->shared != shared || !far_from_ideal(r) || used >= sizeof at - 300)
            continue;
        if (prev && !strcmp(prev->name, r->name) &&
            !strncmp(prev->where, r->where, strcspn(r->where, ":") + 1)) /* the same array, the same file */
            used += snprintf(at + used, sizeof at - used, ", %u", r->line);
        else
            used += snprintf(at + used, sizeof at - used, "%s%.47s%s%.200s", prev ? " (" : "",
                             prev ? prev->name : "", prev ? "), " : "", lab_emu_short_place(r->where));
        prev = r;
        (r->write ? stores : loads)++;
        double per = (double)r->units / (double)r->requests;
        if (per > worst) {
            worst = per;
            number(want, sizeof want, (double)r->ideal / (double)r->requests);
        }
    }
    if (!prev)
        return;
    snprintf(at + used, sizeof at - used, " (%.47s)", prev->name);
    const char *verb = !stores ? "read" : !loads ? "write" : "read or write";
    if (!shared)
        paragraph("%s: a warp's request touches up to %.1f sectors of 32 bytes, where the bytes its threads ask "
                  "for fit in %s: neighbouring threads of a warp %s addresses far apart (uncoalesced), and most "
                  "of each sector goes unused. To do: %s.", at, worst, want, verb, advice_global());
    else {
        char padding[1024];
        padding_advice(rows, n, padding, sizeof padding);
        paragraph("%s: a warp instruction takes up to %.1f wavefronts where %s would do: its threads %s "
                  "different words of one bank, which delivers them one after another (a bank conflict). Threads "
                  "that walk down a column of a tile whose rows are a multiple of 32 floats long all meet in one "
                  "bank; %s (handouts/05_bank_conflicts.md).", at, worst, want, verb, padding);
    }
}

/* The table, after the checks (status: theirs). */
void lab_emu_explain_report(int status)
{
    if (!g_x.armed)
        return;
    printf("\nwhat the memory system sees (make explain): ");
    if (!g_x.done) {
        printf("kernel.cu launched no kernel%s%s, so there is nothing to count\n", *g_x.size ? " at " : "",
               g_x.size);
        return;
    }
    printf("the first launch at %s, %s:%d:\n", g_x.size, g_x.file, g_x.line);
    char dynamic[64] = "";
    if (g_x.dynamic)
        snprintf(dynamic, sizeof dynamic, " and %zu bytes of dynamic shared memory", g_x.dynamic);
    printf("  a grid of (%u,%u,%u) blocks of (%u,%u,%u) threads%s, %s %llu block%s counted\n", g_x.grid.x,
           g_x.grid.y, g_x.grid.z, g_x.block.x, g_x.block.y, g_x.block.z, dynamic, g_x.blocks == 1 ? "its" : "all",
           g_x.blocks, g_x.blocks == 1 ? "" : "s");
    if (status != LAB_EXIT_OK)
        printf("  (the kernel did not pass its checks, above: these are the counts of what it does now)\n");
    static row rows[LAB_EMU_MAX_SITES];
    int n = lab_emu_explain_rows(rows);
    if (!n) {
        printf("  it read and wrote no global or shared memory%s\n",
               !strcmp(lab_variant, "exercise") ? " (a skeleton's kernel does nothing yet: fill in its TODO(lab) "
                                                  "parts)" : "");
        return;
    }
    int width = 0, name_width = 0;
    for (int i = 0; i < n; i++) {
        if ((int)strlen(lab_emu_short_place(rows[i].where)) > width)
            width = (int)strlen(lab_emu_short_place(rows[i].where));
        if ((int)strlen(rows[i].name) > name_width)
            name_width = (int)strlen(rows[i].name);
    }
    printf("\n");
    for (int i = 0; i < n; i++) {
        print_row(&rows[i], width, name_width);
        char text[512];
        if ((i + 1 == n || rows[i + 1].line != rows[i].line || strcmp(rows[i + 1].where, rows[i].where)) &&
            source_text(rows[i].where, rows[i].line, text, sizeof text))
            printf("  %-*s  | %s\n", width, "", text);
    }
    teach(rows, n, 0);
    teach(rows, n, 1);
    int numbered = isdigit((unsigned char)lab_stage[0]); /* a stage's program, not a fixture's */
    paragraph("These are counts from the emulated addresses: each warp instruction's sectors (global memory) and "
              "wavefronts (shared memory), as a GPU would be asked for them. They say nothing about time, which "
              "needs a GPU: make profile%s%.2s there shows Nsight Compute's counts of the same kinds, and the "
              "time.", numbered ? " EX=" : "", numbered ? lab_stage : "");
}
