/*
 * races.cc: the race watch (emu/README.md). Each 4-byte word of shared
 * memory, and of a buffer of global memory from a launch's first write to
 * it on (check.cc), has a shadow (memory.cc's): its last write and its
 * last two reads, by which thread, at which line, in which barrier
 * interval. An access races with one of them when another thread made it,
 * one of the two writes, and nothing orders them:
 *
 *  - within a block, a __syncthreads() between them (and, for two lanes of
 *    one warp, a warp collective such as __syncwarp());
 *  - across the blocks of a launch, nothing, but for the last-block
 *    pattern: a block that calls __threadfence() publishes what it did so
 *    far, and a later block that then does an atomic sees all that was
 *    published (stage 07's solution);
 *  - two atomics on one word are not a race; an atomic orders no plain
 *    access.
 *
 * A shared word's shadow is about its block, a global word's about its
 * launch: a launch is ordered after the one before it. The blocks of a
 * launch run one after another, so a word's shadow holds accesses of this
 * block and of earlier ones; the barrier intervals (lab_emu.block_epoch)
 * count on from block to block, and the block an access was made in is
 * known from its interval.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_emu.h"
#include "gpu.h"
#include "emu.h"

/* The epochs of one block that a __threadfence() published. */
struct interval {
    uint32_t first, last;
};

static uint32_t g_block;       /* this block, numbered within its launch     */
static uint32_t g_block_first; /* the epoch this block began at              */
static interval *g_published;  /* this launch's, in the order blocks ran     */
static size_t g_npublished, g_published_cap;
static int g_acquired;         /* this block did an atomic after a publication */

/* Pairs of lines already named: a racy kernel races at every element, and
 * one sentence a pair is enough; past MAX_NAMED pairs races are no longer
 * looked for (the run is wrong already). */
enum { MAX_NAMED = 8 };
static const void *g_named[MAX_NAMED][2];
static int g_nnamed;

static inline uint32_t epoch_now(void) { return (uint32_t)lab_emu.block_epoch; }

/* ------------------------------------------------------------ ordering */

void lab_emu_races_launch_start(void)
{
    lab_emu.launch++;
    g_npublished = 0;
}

void lab_emu_races_block_start(void)
{
    const uint3 b = lab_emu_block_idx;
    const dim3 g = lab_emu_grid_dim;
    lab_emu.block_gen++;
    lab_emu.block_epoch++; /* a block begins a barrier interval of its own */
    g_block = b.x + g.x * (b.y + g.y * b.z);
    g_block_first = epoch_now();
    g_acquired = 0;
}

void lab_emu_fence(void)
{
    if (!lab_emu_in_kernel())
        return;
    if (g_npublished && g_published[g_npublished - 1].first == g_block_first) {
        g_published[g_npublished - 1].last = epoch_now();
        return;
    }
    if (g_npublished == g_published_cap) {
        size_t cap = g_published_cap ? 2 * g_published_cap : 256;
        interval *p = (interval *)realloc(g_published, cap * sizeof *p);
        if (!p)
            lab_die(LAB_EXIT_NO_MEMORY, "the emulator is out of memory");
        g_published = p;
        g_published_cap = cap;
    }
    g_published[g_npublished++] = interval{g_block_first, epoch_now()};
}

/* An atomic of this block: what earlier blocks published is ordered
 * before what this block does from here on. (Its other threads' accesses
 * of the same barrier interval are taken as after it too: a race there is
 * missed rather than a false one named.) */
void lab_emu_acquire(void)
{
    if (lab_emu_in_kernel() && g_npublished)
        g_acquired = 1;
}

/* an epoch of an earlier block of this launch, published by its block */
static int published(uint32_t epoch)
{
    size_t lo = 0, hi = g_npublished;
    while (lo < hi) { /* the last interval that begins at or before epoch */
        size_t mid = (lo + hi) / 2;
        if ((uint32_t)(g_published[mid].first - g_published[0].first) <= (uint32_t)(epoch - g_published[0].first))
            lo = mid + 1;
        else
            hi = mid;
    }
    if (!lo)
        return 0;
    const interval *i = &g_published[lo - 1];
    return (uint32_t)(epoch - i->first) <= (uint32_t)(i->last - i->first);
}

enum { TID_BITS = 10, BLOCK_MASK = (1u << 21) - 1, ATOMIC_BIT = 1u << 31, WRITTEN_BIT = 1u << 31 };
static inline unsigned tid_of(const lab_emu_mark *m) { return m->who & ((1u << TID_BITS) - 1); }

/* m was made in this block */
static inline int this_block(const lab_emu_mark *m)
{
    return (uint32_t)(m->epoch - g_block_first) <= (uint32_t)(epoch_now() - g_block_first);
}

/* Access m happened before the one thread me makes now. */
static inline int ordered(const lab_emu_mark *m, unsigned me)
{
    if (!this_block(m))
        return g_acquired && published(m->epoch);
    if (tid_of(m) == me || m->epoch != epoch_now())
        return 1;
    /* lanes of one warp are ordered by the warp's collectives (__syncwarp) */
    return tid_of(m) / 32 == me / 32 && m->wepoch != lab_emu.warp_epoch[me / 32];
}

static inline void stamp(lab_emu_mark *m, unsigned me, const void *pc, int atomic)
{
    m->pc = pc;
    m->epoch = epoch_now();
    m->wepoch = lab_emu.warp_epoch[me / 32];
    m->who = me | (g_block & BLOCK_MASK) << TID_BITS | (atomic ? ATOMIC_BIT : 0);
}

/* ------------------------------------------------------------ naming */

static const char *verb(int access)
{
    return access == LAB_EMU_ATOMIC ? "updates it with an atomic" : access == LAB_EMU_WRITE ? "writes it" : "reads it";
}

/* 1: the pair of lines was named already, or enough were */
static int named_before(const void *pc, const void *other)
{
    for (int i = 0; i < g_nnamed; i++)
        if ((g_named[i][0] == pc && g_named[i][1] == other) || (g_named[i][0] == other && g_named[i][1] == pc))
            return 1;
    if (g_nnamed == MAX_NAMED)
        return 1;
    g_named[g_nnamed][0] = pc;
    g_named[g_nnamed++][1] = other;
    return 0;
}

/* The access of thread me races with m (made as `other`, a read or a
 * write): both threads, the element and both lines, once a pair of lines. */
static void race(uintptr_t a, const lab_emu_mark *m, int other, int access, const void *pc, int global)
{
    if (named_before(pc, m->pc))
        return;
    char me[128], them[128], at[256] = "", at2[256] = "", what[160], key[600];
    lab_emu_thread_text(lab_emu_self->tid, me, sizeof me);
    lab_emu_thread_text_in(m->who >> TID_BITS & BLOCK_MASK, tid_of(m), them, sizeof them);
    lab_emu_line_of(pc, at, sizeof at);
    lab_emu_line_of(m->pc, at2, sizeof at2);
    lab_emu_element_text(a, what, sizeof what);
    /* one report for a pair of lines, whichever thread came first */
    snprintf(key, sizeof key, "race %s %s", strcmp(at, at2) < 0 ? at : at2, strcmp(at, at2) < 0 ? at2 : at);
    /* the lanes of one warp are ordered by __syncwarp(); a __syncthreads()
     * in a branch that only they take (the last warp's tree) can hang, and
     * which code all threads run is not known here: both are said */
    const int one_warp = this_block(m) && tid_of(m) / 32 == lab_emu_self->tid / 32;
    const char *fix = !this_block(m) ? "in one launch: no barrier orders two blocks (end the kernel and launch "
                                       "another for the next step, or add with an atomic)"
        : !one_warp ? "with no __syncthreads() between (a missing or misplaced barrier)"
                    : "two lanes of one warp, which do not run in lockstep: in code that only some threads of the "
                      "block run (the last warp of a reduction, if (tid < 32)) put __syncwarp() between the two "
                      "accesses, or pass the values by shuffles (__shfl_down_sync), since a __syncthreads() there "
                      "can hang the block; where every thread of the block runs it, a __syncthreads() orders them too";
    lab_emu_finding(key, "a race on %s memory, %s: %s %s at %s and %s %s at %s, %s", global ? "global" : "shared",
                    what, them, verb(m->who & ATOMIC_BIT ? LAB_EMU_ATOMIC : other), *at2 ? at2 : "a line of kernel.cu", me,
                    verb(access), *at ? at : "a line of kernel.cu", fix);
}

/* ------------------------------------------------------------ the watch */

/* One access of thread me to the word at a (its shadow w): named if it
 * races with the word's last write or reads. 1: a read of a word that no
 * thread of its block (shared) or launch (global) wrote. */
static inline int watch_word(uintptr_t a, lab_emu_word *w, int access, const void *pc, int global, uint32_t gen,
                             unsigned me)
{
    if ((w->gen & ~WRITTEN_BIT) != gen) {
        memset(w, 0, sizeof *w);
        w->gen = gen;
    }
    int atomic = access == LAB_EMU_ATOMIC;
    if (w->w.pc && !(atomic && w->w.who & ATOMIC_BIT) && !ordered(&w->w, me)) {
        race(a, &w->w, LAB_EMU_WRITE, access, pc, global);
        return 0;
    }
    if (access != LAB_EMU_READ) {
        if (w->r.pc && !ordered(&w->r, me))
            race(a, &w->r, LAB_EMU_READ, access, pc, global);
        else if (w->r2.pc && !ordered(&w->r2, me))
            race(a, &w->r2, LAB_EMU_READ, access, pc, global);
        stamp(&w->w, me, pc, atomic);
        w->gen |= WRITTEN_BIT;
        w->r.pc = w->r2.pc = NULL;
        return 0;
    }
    int unwritten = !(w->gen & WRITTEN_BIT);
    w->gen |= WRITTEN_BIT; /* (named once an element) */
    /* a read another thread made, not ordered with this one, is kept
     * beside it: a later write may race with either */
    stamp(w->r.pc && !ordered(&w->r, me) ? &w->r2 : &w->r, me, pc, 0);
    return unwritten;
}

int lab_emu_watch(uintptr_t base, lab_emu_word *shadow, uintptr_t a, size_t n, int access, const void *pc, int global)
{
    if (global && g_nnamed == MAX_NAMED)
        return 0;
    unsigned me = lab_emu_self->tid;
    uint32_t gen = (global ? lab_emu.launch : (uint32_t)lab_emu.block_gen) & ~WRITTEN_BIT;
    int unwritten = 0;
    for (uintptr_t i = (a - base) / 4; i <= (a + n - 1 - base) / 4; i++)
        unwritten |= watch_word(base + 4 * i, &shadow[i], access, pc, global, gen, me);
    return unwritten;
}
