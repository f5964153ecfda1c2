/*
 * explain.cc: what the memory system sees of one launch (make explain
 * EX=NN; emu/README.md, "What the memory system sees").
 *
 * Every emulated run (main.cc) has check.cc hand this file every global
 * and shared access of one launch: the first launch of kernel.cu that
 * reads global memory, in the call counted (with --explain the first
 * call, else the first at the family's counted size, whose counts
 * technique.cc reads). The lanes of a warp run one after another here, so
 * its instructions are rebuilt, and each instruction's global sectors and
 * shared wavefronts are counted as emu/README.md says ("What the memory
 * system sees": "Here is how they are made").
 *
 * These are counts of addresses; what they cost in time needs a GPU. The
 * table and its words: explain_report.cc; the technique: technique.cc.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu.h"
#include "emu.h"

enum { MAX_SITES = LAB_EMU_MAX_SITES, MAX_THREADS = 1024 };

/* One warp instruction: the address of each lane that took part. */
struct group {
    uintptr_t addr[32];
    unsigned mask;
};
struct groups {
    group *g;
    unsigned len, cap;
};

lab_emu_explained_launch lab_emu_explained;
static lab_emu_explained_launch &g_x = lab_emu_explained;
static lab_emu_site *const g_sites = lab_emu_explained.sites;
static int &g_nsites = lab_emu_explained.nsites;
static int g_site_table[2 * MAX_SITES]; /* site + 1 by its pc and array; 0 empty */
static unsigned *g_count;               /* [site][thread]: executions in this block */
static groups g_lists[LAB_EMU_MAX_WARPS * MAX_SITES]; /* [warp][site]: its instructions, k-th at [k] */
static int g_last_site = -1;            /* the site found last */

/* ---------------------------------------------------------- the launch */

/* Count the launch that comes: of the first call at this size (as the
 * contract function's wrapper writes it, "n=256"), or of the first call. */
void lab_emu_explain_arm(const char *size)
{
    g_count = (unsigned *)calloc((size_t)MAX_SITES * MAX_THREADS, sizeof *g_count);
    if (!g_count)
        lab_die(LAB_EXIT_NO_MEMORY, "the emulator is out of memory (--explain)");
    snprintf(g_x.want, sizeof g_x.want, "%s", size ? size : "");
    g_x.armed = 1;
}

/* The contract function begins (entering) or ends: only the call picked
 * (the first, or the first at the size wanted) has its first launch counted. */
void lab_emu_explain_call(int entering, const char *size)
{
    g_x.in_call = entering && !g_x.picked && (!g_x.want[0] || !strcmp(size, g_x.want));
    if (g_x.in_call) {
        g_x.picked = 1;
        snprintf(g_x.size, sizeof g_x.size, "%s", size);
    }
}

/* A launch begins: 1 when it is the one to count (the first of the first
 * call), and check.cc then hands over every access. */
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

/* The number of the site at pc (reading or writing array), found or
 * added; -1 when the table is full. */
static int site_of(const void *pc, int write, int shared, size_t size, const char *array)
{
    int &last = g_last_site;
    if (last >= 0 && g_sites[last].pc == pc && g_sites[last].array == array && g_sites[last].write == write)
        return last;
    unsigned h = (unsigned)(((uintptr_t)pc * 0x9e3779b97f4a7c15ULL + (uintptr_t)array * 31 + write) >> 40);
    for (unsigned i = 0; i < 2 * MAX_SITES; i++) {
        int *slot = &g_site_table[(h + i) % (2 * MAX_SITES)];
        if (!*slot) {
            if (g_nsites == MAX_SITES)
                return -1; /* (a kernel.cu of more than 512 places that touch memory: the rest is not counted) */
            lab_emu_site *s = &g_sites[g_nsites];
            s->pc = pc, s->array = array, s->write = (unsigned char)write, s->shared = (unsigned char)shared;
            s->size = size;
            *slot = ++g_nsites;
        }
        const lab_emu_site *s = &g_sites[*slot - 1];
        if (s->pc == pc && s->array == array && s->write == write)
            return last = *slot - 1;
    }
    return -1;
}

/* One lane's access: into its warp's k-th instruction at this site. */
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
            lab_die(LAB_EXIT_NO_MEMORY, "the emulator is out of memory (--explain)");
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

/* One warp instruction's request, sectors or wavefronts, and ideal. */
static void measure(lab_emu_site *s, const group *G)
{
    unsigned lanes = (unsigned)__builtin_popcount(G->mask);
    s->requests++;
    s->lanes += lanes;
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

/* A block of the counted launch is over: its instructions are complete. */
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

/* The counted launch is over; nothing after it is counted, but where it
 * read no global memory (a launch that zeroes an output first): then the
 * call's next launch is counted in its place. */
void lab_emu_explain_launch_end(void)
{
    if (!g_x.counting)
        return;
    int reads = 0;
    for (int s = 0; s < g_nsites; s++)
        reads |= !g_sites[s].shared && !g_sites[s].write && g_sites[s].requests;
    if (!reads) {
        memset(g_sites, 0, (size_t)g_nsites * sizeof *g_sites);
        memset(g_site_table, 0, sizeof g_site_table);
        g_nsites = 0;
        g_last_site = -1;
        g_x.blocks = 0;
        g_x.counting = 0;
        lab_emu.explaining = 0;
        return;
    }
    /* the arrays' names as they are now: a later call renames its buffers */
    for (int s = 0; s < g_nsites; s++)
        snprintf(g_sites[s].name, sizeof g_sites[s].name, "%s", g_sites[s].array);
    g_x.counting = 0;
    g_x.done = 1;
    lab_emu.explaining = 0;
}
