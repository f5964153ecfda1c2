/*
 * explain.cc: what the memory system sees of one launch (make explain
 * EX=NN; emu/README.md, "What the memory system sees").
 *
 * With --explain, check.cc hands this file every global and shared access
 * of one launch: the first launch of kernel.cu at the explained size. Here
 * the lanes of a warp run one after another, so its instructions are
 * rebuilt: the k-th time each lane of a warp executes one access site (a
 * code address, read or write, the array it touches) is one warp
 * instruction, issued by the lanes that got there (a lane a guard kept
 * out never does). Of each instruction:
 *
 *   global memory: one request, and its sectors: the distinct 32-byte
 *     segments its lanes' bytes fall in. The fewest (ideal) is the lanes'
 *     bytes packed: 4 for 32 floats, 16 for 32 float4;
 *   shared memory: its wavefronts. Accesses of 4 bytes or less are served
 *     in one phase, 8-byte ones in two (half-warps), 16-byte ones in four
 *     (quarter-warps); a phase takes as many wavefronts as the most
 *     different 4-byte words one of the 32 banks must deliver to its lanes
 *     (the same word to many lanes is one: a broadcast). Ideal: one a phase.
 *
 * These are counts of addresses; what they cost in time needs a GPU.
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "family.h"
#include "emu.h"

enum { MAX_SITES = 512, MAX_THREADS = 1024 };

/* One place of kernel.cu that reads or writes memory, and its counts. */
struct site {
    const void *pc;
    const char *array;   /* check.cc's name of the array, for this launch */
    char name[48];       /* ... kept when the launch ends                */
    unsigned char write, shared;
    size_t size;         /* bytes a lane moves                           */
    unsigned long long requests, units, ideal; /* units: sectors or wavefronts */
};

/* One warp instruction: the address of each lane that took part. */
struct group {
    uintptr_t addr[32];
    unsigned mask;
};
struct groups {
    group *g;
    unsigned len, cap;
};

static site g_sites[MAX_SITES];
static int g_nsites, g_site_table[2 * MAX_SITES]; /* site + 1 by its pc and array; 0 empty */
static unsigned *g_count;                         /* [site][thread]: executions in this block */
static groups g_lists[LAB_EMU_MAX_WARPS * MAX_SITES]; /* [warp][site]: its instructions, k-th at [k] */

static struct {
    int armed, in_call, counting, done;
    char size[64];          /* the call's size: "n=256" */
    const char *file;       /* the launch */
    int line;
    dim3 grid, block;
    unsigned long long blocks;
    size_t dynamic;
} g_x;

/* ---------------------------------------------------------- the launch */

void lab_emu_explain_arm(void)
{
    g_count = (unsigned *)calloc((size_t)MAX_SITES * MAX_THREADS, sizeof *g_count);
    if (!g_count)
        lab_emu_fatal(LAB_EXIT_NO_MEMORY, "the emulator is out of memory (--explain)");
    g_x.armed = 1;
}

void lab_emu_explain_call(int entering, const char *size)
{
    g_x.in_call = entering;
    if (entering && !g_x.done && !g_x.counting)
        snprintf(g_x.size, sizeof g_x.size, "%s", size);
}

int lab_emu_explain_launch(dim3 grid, dim3 block, size_t dynamic, const char *file, int line)
{
    if (!g_x.armed || !g_x.in_call || g_x.done || g_x.counting)
        return 0;
    g_x.counting = 1;
    g_x.grid = grid;
    g_x.block = block;
    g_x.dynamic = dynamic;
    g_x.file = file;
    g_x.line = line;
    lab_emu.explaining = 1;
    return 1;
}

static int site_of(const void *pc, int write, int shared, size_t size, const char *array)
{
    static int last = -1;
    if (last >= 0 && g_sites[last].pc == pc && g_sites[last].array == array && g_sites[last].write == write)
        return last;
    unsigned h = (unsigned)(((uintptr_t)pc * 0x9e3779b97f4a7c15ULL + (uintptr_t)array * 31 + write) >> 40);
    for (unsigned i = 0; i < 2 * MAX_SITES; i++) {
        int *slot = &g_site_table[(h + i) % (2 * MAX_SITES)];
        if (!*slot) {
            if (g_nsites == MAX_SITES)
                return -1; /* (a kernel.cu of more than 512 places that touch memory: the rest is not counted) */
            site *s = &g_sites[g_nsites];
            s->pc = pc, s->array = array, s->write = (unsigned char)write, s->shared = (unsigned char)shared;
            s->size = size;
            *slot = ++g_nsites;
        }
        const site *s = &g_sites[*slot - 1];
        if (s->pc == pc && s->array == array && s->write == write)
            return last = *slot - 1;
    }
    return -1;
}

void lab_emu_explain_access(uintptr_t a, size_t n, int write, const void *pc, int shared, const char *array)
{
    if (!lab_emu_in_kernel())
        return;
    int s = site_of(pc, write, shared, n, array);
    if (s < 0)
        return;
    unsigned tid = lab_emu_self->tid, lane = lab_emu_self->lane;
    unsigned k = g_count[(size_t)s * MAX_THREADS + tid]++;
    groups *L = &g_lists[lab_emu_self->warp * MAX_SITES + s];
    if (k >= L->cap) {
        unsigned cap = L->cap ? L->cap : 64;
        while (cap <= k)
            cap *= 2;
        L->g = (group *)realloc(L->g, cap * sizeof *L->g);
        if (!L->g)
            lab_emu_fatal(LAB_EXIT_NO_MEMORY, "the emulator is out of memory (--explain)");
        L->cap = cap;
    }
    for (; L->len <= k; L->len++)
        L->g[L->len].mask = 0;
    L->g[k].addr[lane] = a;
    L->g[k].mask |= 1u << lane;
}

/* ------------------------------------------------- one warp instruction */

/* x into the sorted v[0..n) unless there already; the new n */
static int add_once(uintptr_t *v, int n, int cap, uintptr_t x)
{
    int i = n;
    while (i > 0 && v[i - 1] > x)
        i--;
    if ((i > 0 && v[i - 1] == x) || n == cap)
        return n;
    memmove(v + i + 1, v + i, (size_t)(n - i) * sizeof *v);
    v[i] = x;
    return n + 1;
}

/* the distinct 32-byte segments of the lanes' bytes */
static unsigned sectors(const group *G, size_t size)
{
    uintptr_t seg[256];
    int n = 0;
    for (unsigned l = 0; l < 32; l++)
        if (G->mask >> l & 1u)
            for (uintptr_t x = G->addr[l] >> 5; x <= (G->addr[l] + size - 1) >> 5; x++)
                n = add_once(seg, n, 256, x);
    return (unsigned)n;
}

/* lanes [from, from + count): the most different words one bank delivers */
static unsigned phase_wavefronts(const group *G, size_t size, unsigned from, unsigned count)
{
    uintptr_t word[256];
    int n = 0;
    for (unsigned l = from; l < from + count && l < 32; l++)
        if (G->mask >> l & 1u)
            for (uintptr_t w = G->addr[l] >> 2; w <= (G->addr[l] + size - 1) >> 2; w++)
                n = add_once(word, n, 256, w);
    unsigned in_bank[32] = {0}, most = 0;
    for (int i = 0; i < n; i++)
        if (++in_bank[word[i] % 32] > most)
            most = in_bank[word[i] % 32];
    return most;
}

static void measure(site *s, const group *G)
{
    unsigned lanes = (unsigned)__builtin_popcount(G->mask);
    s->requests++;
    if (!s->shared) {
        s->units += sectors(G, s->size);
        s->ideal += (lanes * s->size + 31) / 32;
        return;
    }
    unsigned per_phase = s->size <= 4 ? 32 : s->size >= 128 ? 1 : (unsigned)(128 / s->size);
    for (unsigned from = 0; from < 32; from += per_phase) {
        unsigned w = phase_wavefronts(G, s->size, from, per_phase);
        s->units += w;
        s->ideal += w > 0;
    }
}

void lab_emu_explain_block_end(unsigned nthreads)
{
    if (!g_x.counting)
        return;
    for (unsigned w = 0; w * 32 < nthreads; w++)
        for (int s = 0; s < g_nsites; s++) {
            groups *L = &g_lists[w * MAX_SITES + s];
            for (unsigned k = 0; k < L->len; k++)
                if (L->g[k].mask)
                    measure(&g_sites[s], &L->g[k]);
            L->len = 0;
        }
    for (int s = 0; s < g_nsites; s++)
        memset(g_count + (size_t)s * MAX_THREADS, 0, nthreads * sizeof *g_count);
    g_x.blocks++;
}

void lab_emu_explain_launch_end(void)
{
    if (!g_x.counting)
        return;
    /* the arrays' names as they are now: a later call renames its buffers */
    for (int s = 0; s < g_nsites; s++)
        snprintf(g_sites[s].name, sizeof g_sites[s].name, "%s", g_sites[s].array);
    g_x.counting = 0;
    g_x.done = 1;
    lab_emu.explaining = 0;
}

/* ----------------------------------------------------------- the table */

/* A line of the table: the sites of one source line, kind and array. */
struct row {
    char where[256]; /* "exercises/01_naive/kernel.cu:35" */
    unsigned line;
    int shared, write;
    const char *name;
    unsigned long long requests, units, ideal;
};

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

static int make_rows(row *rows)
{
    int n = 0;
    for (int s = 0; s < g_nsites; s++) {
        const site *S = &g_sites[s];
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
    }
    qsort(rows, (size_t)n, sizeof *rows, by_place);
    return n;
}

/* "kernel.cu:35" of "exercises/01_naive/kernel.cu:35" */
static const char *short_place(const char *where)
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

static void print_row(const row *r, int width, int name_width)
{
    char ideal[32];
    number(ideal, sizeof ideal, (double)r->ideal / (double)r->requests);
    printf("  %-*s  %-6s %-5s  %-*s  %-12s %8llu  %-10s %9llu  %4.1f per %s (ideal %s)\n", width,
           short_place(r->where), r->shared ? "shared" : "global", r->write ? "store" : "load", name_width, r->name,
           r->shared ? "instructions" : "requests", r->requests, r->shared ? "wavefronts" : "sectors", r->units,
           (double)r->units / (double)r->requests, r->shared ? "instruction" : "request", ideal);
}

/* Where the stage's handout says what to do about it. */
static const char *advice_global(void)
{
    const char *family = lab_family_this.name;
    if (!strcmp(family, "transpose"))
        return "one side of a transpose always runs down a column: go through a 32 x 32 tile in shared memory, "
               "read and written along rows (handouts/04_transpose.md)";
    if (!strcmp(family, "reduce"))
        return "let neighbouring threads read neighbouring elements, in a grid-stride loop "
               "(handouts/07_reduction.md)";
    return "give threadIdx.x the index that moves along a row in memory (the column of a row-major matrix), so "
           "that neighbouring threads touch neighbouring floats (handouts/01_naive.md, \"The access pattern\")";
}

static int far_from_ideal(const row *r) { return r->units * 2 > r->ideal * 3; } /* over 1.5 times */

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
            used += snprintf(at + used, sizeof at - used, "%s%.47s%s%.200s", prev ? " (" : "", prev ? prev->name : "",
                             prev ? "), " : "", short_place(r->where));
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
               "for fit in %s: neighbouring threads of a warp %s addresses far apart (uncoalesced), and most of "
               "each sector goes unused. To do: %s.", at, worst, want, verb, advice_global());
    else
        paragraph("%s: a warp instruction takes up to %.1f wavefronts where %s would do: its threads %s different "
               "words of one bank, which delivers them one after another (a bank conflict). Threads that walk "
               "down a column of a tile whose rows are a multiple of 32 floats long all meet in one bank; one "
               "float of padding a row (tile[32][33]) spreads the column over the 32 banks "
               "(handouts/05_bank_conflicts.md).", at, worst, want, verb);
}

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
    printf("  a grid of (%u,%u,%u) blocks of (%u,%u,%u) threads, %s %llu block%s counted\n", g_x.grid.x, g_x.grid.y,
           g_x.grid.z, g_x.block.x, g_x.block.y, g_x.block.z, g_x.blocks == 1 ? "its" : "all", g_x.blocks,
           g_x.blocks == 1 ? "" : "s");
    if (status != LAB_EXIT_OK)
        printf("  (the kernel did not pass its checks, above: these are the counts of what it does now)\n");
    static row rows[MAX_SITES];
    int n = make_rows(rows);
    if (!n) {
        printf("  it read and wrote no global or shared memory%s\n",
               !strcmp(lab_variant, "exercise") ? " (a skeleton's kernel does nothing yet: fill in its TODO(lab) "
                                                  "parts)" : "");
        return;
    }
    int width = 0, name_width = 0;
    for (int i = 0; i < n; i++) {
        if ((int)strlen(short_place(rows[i].where)) > width)
            width = (int)strlen(short_place(rows[i].where));
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
    paragraph("These are counts from the emulated addresses: each warp instruction's sectors (global memory) and "
           "wavefronts (shared memory), as a GPU would be asked for them. They say nothing about time, which "
           "needs a GPU: make profile%s%.2s there shows Nsight Compute's counts of the same kinds, and the time.",
           isdigit((unsigned char)lab_stage[0]) ? " EX=" : "", isdigit((unsigned char)lab_stage[0]) ? lab_stage : "");
}
