/*
 * memory.cc: the device's memory as the emulation keeps it (emu/README.md,
 * "How it works"): the buffers cudaMalloc gives (each on pages of its own,
 * in one reserved range; named as the contract names them: A, B, C), the
 * block's shared arrays (emu/rewrite.c names each) and its dynamic shared
 * memory, each 4-byte word's shadow (the race watch's, races.cc), an
 * element's name in a message ("C[42]", "As[3][17]"), and the last store of
 * a kernel, made the GPU's. The watch of each access is check.cc's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "gpu.h"
#include "emu.h"

lab_emu_memory_map lab_emu_memory = {0, 0, UINTPTR_MAX, 0, NULL, NULL, 0};
/* the block's dynamic shared memory (extern __shared__), the most a block
 * of a GPU of this lab may ask for */
__attribute__((aligned(256))) unsigned char lab_emu_dynamic_shared[LAB_EMU_MAX_DYNAMIC];

/* ------------------------------------------------------------ shadows */

/* A zeroed shadow of `words` words: pages only where a kernel touches it. */
lab_emu_word *lab_emu_shadow_new(size_t words)
{
    void *p = mmap(NULL, words * sizeof(lab_emu_word), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                   -1, 0);
    if (p == MAP_FAILED)
        lab_die(LAB_EXIT_NO_MEMORY, "the emulator is out of memory (a shadow of %zu words)", words);
    return (lab_emu_word *)p;
}

void lab_emu_shadow_free(lab_emu_word *shadow, size_t words)
{
    if (shadow)
        munmap(shadow, words * sizeof(lab_emu_word));
}

/* --------------------------------------------------------- global memory */

/* All device memory lies in one reserved range (lab_emu_memory.arena), so
 * that an address is known to be device memory by two comparisons. */
static uintptr_t g_arena_used;
enum { MAX_ALLOCS = 4096 };
static lab_emu_buffer g_allocs[MAX_ALLOCS];
static int g_nallocs;
static lab_emu_buffer *g_last;

/* The reserved range, once: the largest of 64 GB down to 1 GB that maps. */
static int arena_once(void)
{
    for (uintptr_t size = 64ULL << 30; size >= (1ULL << 30) && !lab_emu_memory.arena; size /= 2) {
        void *p = mmap(NULL, size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (p != MAP_FAILED) {
            lab_emu_memory.arena = (uintptr_t)p;
            lab_emu_memory.arena_bytes = size;
        }
    }
    return lab_emu_memory.arena != 0;
}

void *lab_emu_device_alloc(size_t bytes)
{
    if (!lab_emu_memory.arena && !arena_once())
        return NULL;
    uintptr_t pages = (bytes + 4095) & ~(uintptr_t)4095;
    /* a gap of unmapped pages after each: an access far past it faults */
    if (g_nallocs == MAX_ALLOCS || g_arena_used + pages + 65536 > lab_emu_memory.arena_bytes)
        return NULL;
    uintptr_t base = lab_emu_memory.arena + g_arena_used;
    if (pages && mprotect((void *)base, pages, PROT_READ | PROT_WRITE))
        return NULL;
    g_arena_used += pages + 65536;
    lab_emu_buffer *a = &g_allocs[g_nallocs++];
    memset(a, 0, sizeof *a);
    a->base = a->lo = base;
    a->bytes = bytes;
    a->hi = base + bytes;
    a->live = 1;
    snprintf(a->name, sizeof a->name, "a buffer of %zu bytes", bytes);
    return (void *)base;
}

lab_emu_buffer *lab_emu_buffer_of(uintptr_t a)
{
    if (g_last && a - g_last->base < g_last->bytes + 65536)
        return g_last;
    for (int i = g_nallocs - 1; i >= 0; i--)
        if (a - g_allocs[i].base < g_allocs[i].bytes + 65536)
            return g_last = &g_allocs[i];
    return NULL;
}

int lab_emu_device_free(void *p)
{
    lab_emu_buffer *a = lab_emu_buffer_of((uintptr_t)p);
    if (!a || a->base != (uintptr_t)p || !a->live)
        return -1;
    a->live = 0;
    lab_emu_shadow_free(a->shadow, (a->bytes + 3) / 4);
    a->shadow = NULL;
    mprotect(p, (a->bytes + 4095) & ~(size_t)4095, PROT_NONE); /* never reused: a late access faults */
    return 0;
}

int lab_emu_is_device(const void *p, size_t bytes)
{
    lab_emu_buffer *a = lab_emu_buffer_of((uintptr_t)p);
    return a && a->live && (uintptr_t)p + bytes <= a->base + a->bytes;
}

void lab_emu_name_buffer(const void *data, size_t bytes, const char *name)
{
    lab_emu_buffer *a = lab_emu_buffer_of((uintptr_t)data);
    if (!a)
        return;
    if (bytes) {
        a->lo = (uintptr_t)data;
        a->hi = (uintptr_t)data + bytes;
    }
    if (name)
        snprintf(a->name, sizeof a->name, "%s", name);
}

/* The last store of a kernel to global memory: a NaN it stored becomes the
 * GPU's one NaN (0x7fffffff) at the thread's next access or switch. A CPU
 * keeps the bits of a NaN operand in its result, so 0 * (the harness's
 * poison) would otherwise still read as "never written". */
void lab_emu_note_store(void *p, size_t floats)
{
    lab_emu_memory.stored = (float *)p;
    lab_emu_memory.nstored = floats;
}

void lab_emu_settle_store(void)
{
    float *stored = lab_emu_memory.stored;
    for (size_t i = 0; i < lab_emu_memory.nstored; i++) {
        uint32_t bits;
        memcpy(&bits, &stored[i], 4);
        if ((bits & 0x7f800000u) == 0x7f800000u && (bits & 0x007fffffu))
            bits = 0x7fffffffu, memcpy(&stored[i], &bits, 4);
    }
    lab_emu_memory.nstored = 0;
}

/* --------------------------------------------------------- shared memory */

enum { MAX_SHARED = 256 };
static lab_emu_shared_array g_shared[MAX_SHARED];
static int g_nshared;

void lab_emu_name_shared(const void *p, size_t bytes, size_t elem, const char *name, int rank, const size_t *dims)
{
    if (g_nshared == MAX_SHARED)
        return;
    lab_emu_shared_array *s = &g_shared[g_nshared++];
    s->base = (uintptr_t)p;
    s->bytes = bytes;
    s->shadow = lab_emu_shadow_new((bytes + 3) / 4);
    if (s->base < lab_emu_memory.shared_lo) lab_emu_memory.shared_lo = s->base;
    if (s->base + bytes > lab_emu_memory.shared_hi) lab_emu_memory.shared_hi = s->base + bytes;
    s->elem = elem;
    s->rank = rank > 4 ? 4 : rank;
    memcpy(s->dims, dims, sizeof s->dims);
    snprintf(s->name, sizeof s->name, "%s", name);
}

const lab_emu_shared_array *lab_emu_shared_of(uintptr_t a)
{
    for (int i = 0; i < g_nshared; i++)
        if (a - g_shared[i].base < g_shared[i].bytes)
            return &g_shared[i];
    return NULL;
}

/* "As[3][17]", or the dynamic shared memory's byte */
static void shared_text(uintptr_t a, char *out, size_t len)
{
    const lab_emu_shared_array *s = lab_emu_shared_of(a);
    if (s) {
        size_t e = (a - s->base) / s->elem, used = snprintf(out, len, "%s", s->name);
        size_t stride = s->bytes / s->elem;
        for (int d = 0; d < s->rank && used < len; d++) {
            stride /= s->dims[d] ? s->dims[d] : 1;
            used += snprintf(out + used, len - used, "[%zu]", e / stride);
            e %= stride;
        }
    } else if (a - (uintptr_t)lab_emu_dynamic_shared < LAB_EMU_MAX_DYNAMIC)
        snprintf(out, len, "the dynamic shared memory (extern __shared__), byte %zu",
                 (size_t)(a - (uintptr_t)lab_emu_dynamic_shared));
    else
        snprintf(out, len, "shared memory");
}

void lab_emu_element_text(uintptr_t a, char *out, size_t len)
{
    const lab_emu_buffer *al = lab_emu_is_global(a) ? lab_emu_buffer_of(a) : NULL;
    if (al && a >= al->lo)
        snprintf(out, len, "%s[%zu]", al->name, (size_t)(a - al->lo) / 4);
    else
        shared_text(a, out, len);
}

void lab_emu_shared_block_start(void)
{
    if (!lab_emu_memory.dynamic_shadow)
        lab_emu_memory.dynamic_shadow = lab_emu_shadow_new(LAB_EMU_MAX_DYNAMIC / 4);
    /* a block's shared memory starts undefined: NaN, so that a read of it
     * shows in the output even where no check names it */
    for (int i = 0; i < g_nshared; i++)
        memset((void *)g_shared[i].base, 0xff, g_shared[i].bytes);
    memset(lab_emu_dynamic_shared, 0xff, lab_emu.dynamic_bytes);
}
