/*
 * check.cc: every memory access of a kernel.cu, watched (emu/README.md).
 *
 * kernel.cu is compiled with -fsanitize=thread: the compiler calls
 * __tsan_read4(address) before each 4-byte load, and so on. This file
 * defines those hooks (the sanitizer's own library is never linked), as
 * the race detectors of GPU kernels do, and names:
 *
 *  - global memory: an access outside the buffer it belongs to (memory.cc
 *    gives each cudaMalloc pages of its own, and names the harness's
 *    buffers as the contract names them: A, B, C);
 *  - shared memory: a read of an address no thread of the block wrote
 *    (an uninitialized tile), an access past the array;
 *  - a misaligned vector access, which a GPU stops with an error;
 *
 * and hands each access inside a buffer or a shared array to the race
 * watch (races.cc), and each access of the counted launch to explain.cc.
 */
#include <stdio.h>

#include "emu.h"

static void where(const void *pc, char *out, size_t len)
{
    char line[256] = "";
    lab_emu_line_of(pc, line, sizeof line);
    snprintf(out, len, "%s", *line ? line : "a line of kernel.cu");
}

/* --------------------------------------------------------- global memory */

/* The buffer an access of a kernel falls in, or NULL: then it is named
 * (outside its buffer, or the host's). */
static lab_emu_buffer *global_access(uintptr_t a, size_t n, int write, const void *pc)
{
    char who[128], at[256];
    lab_emu_buffer *al = lab_emu_buffer_of(a);
    if (al && a >= al->lo && a + n <= al->hi)
        return lab_emu_self ? al : NULL; /* (set while a kernel runs) */
    where(pc, at, sizeof at);
    if (!lab_emu_in_kernel()) {
        lab_emu_finding(at, "%s: the host code %s GPU memory (the host cannot dereference a device pointer: "
                        "only a kernel may)", at, write ? "writes" : "reads");
        return NULL;
    }
    lab_emu_thread_text(lab_emu_current_tid(), who, sizeof who);
    char key[300];
    snprintf(key, sizeof key, "global %s", at);
    if (!al) {
        lab_emu_finding(key, "%s: %s %s an address outside every buffer", at, who, write ? "writes" : "reads");
        return NULL;
    }
    /* a vector access (a float4: 16 bytes) names each element it covers */
    long long index = a >= al->lo ? (long long)(a - al->lo) / 4 : -(long long)((al->lo - a + 3) / 4);
    long long last = a + n > al->lo ? (long long)(a + n - 1 - al->lo) / 4 : -(long long)((al->lo - a - n + 4) / 4);
    long long count = (long long)(al->hi - al->lo) / 4;
    long long past = a >= al->lo ? last - count + 1 : -index;
    char elements[64];
    if (last > index)
        snprintf(elements, sizeof elements, "[%lld..%lld] (%zu bytes at once)", index, last, n);
    else
        snprintf(elements, sizeof elements, "[%lld]", index);
    lab_emu_finding(key, "%s: %s %s %s%s, %lld element%s %s %s, which has %lld", at, who,
                    write ? "writes" : "reads", al->name, elements, past, past == 1 ? "" : "s",
                    a >= al->lo ? "past the end of" : "before the start of", al->name, count);
    return NULL;
}

/* Each word of an access of a kernel inside buffer al, to the race watch,
 * from the launch's first write to the buffer on: the reads of a buffer
 * that a launch only reads (the inputs) cost nothing and race with
 * nothing. Accesses of less than a word are not watched: two threads may
 * write two bytes of one word without a race. */
static inline void global_watch(lab_emu_buffer *al, uintptr_t a, size_t n, int access, const void *pc)
{
    if (n < 4 || (access == LAB_EMU_READ && al->written_in != lab_emu.launch))
        return;
    al->written_in = lab_emu.launch;
    if (!al->shadow)
        al->shadow = lab_emu_shadow_new((al->bytes + 3) / 4);
    lab_emu_watch(al->base, al->shadow, a, n, access, pc, 1);
}

/* --------------------------------------------------------- shared memory */

/* A read of a shared word no thread of the block wrote: named once an element. */
static void unwritten(uintptr_t a, const void *pc)
{
    char who[128], at[256], what[128], key[300];
    lab_emu_thread_text(lab_emu_current_tid(), who, sizeof who);
    where(pc, at, sizeof at);
    lab_emu_element_text(a, what, sizeof what);
    snprintf(key, sizeof key, "uninit %s", at);
    lab_emu_finding(key, "%s: %s reads %s, which no thread of its block has written: shared memory starts "
                    "undefined in every block (fill every element a thread will read, zeros past the edge)",
                    at, who, what);
}

static void shared_access(uintptr_t a, size_t n, int write, const void *pc, int dynamic)
{
    if (!lab_emu_in_kernel())
        return;
    uintptr_t lo = (uintptr_t)lab_emu_dynamic_shared;
    lab_emu_word *shadow = lab_emu_memory.dynamic_shadow;
    const char *array = "extern __shared__";
    if (!dynamic) { /* the named array it is in; none: a global of the host's */
        const lab_emu_shared_array *s = lab_emu_shared_of(a);
        if (!s)
            return;
        if (a + n > s->base + s->bytes) {
            char who[128], at[256], key[300];
            lab_emu_thread_text(lab_emu_current_tid(), who, sizeof who);
            where(pc, at, sizeof at);
            snprintf(key, sizeof key, "shared %s", at);
            lab_emu_finding(key, "%s: %s %s past the end of the shared array %s", at, who,
                            write ? "writes" : "reads", s->name);
            return;
        }
        lo = s->base;
        shadow = s->shadow;
        array = s->name;
    } else if (a + n - lo > lab_emu.dynamic_bytes) {
        char who[128], at[256], key[300];
        lab_emu_thread_text(lab_emu_current_tid(), who, sizeof who);
        where(pc, at, sizeof at);
        snprintf(key, sizeof key, "shared %s", at);
        lab_emu_finding(key, "%s: %s %s past the end of the dynamic shared memory (%zu bytes asked at the "
                        "launch): %zu bytes past it", at, who, write ? "writes" : "reads", lab_emu.dynamic_bytes,
                        (size_t)(a + n - lo - lab_emu.dynamic_bytes));
        return;
    }
    if (lab_emu.explaining)
        lab_emu_explain_access(a, n, write, pc, 1, array);
    if (!shadow)
        return;
    if (lab_emu_watch(lo, shadow, a, n, write ? LAB_EMU_WRITE : LAB_EMU_READ, pc, 0) && !write)
        unwritten(a, pc);
}

/* ------------------------------------------------------------ the hooks */

static void misaligned(uintptr_t a, size_t n, const void *pc)
{
    char who[128], at[256];
    lab_emu_thread_text(lab_emu_current_tid(), who, sizeof who);
    where(pc, at, sizeof at);
    fflush(stdout);
    printf("  emulator: %s: %s accesses %zu bytes at an address that is not a multiple of %zu (0x%lx): the GPU "
           "stops the kernel with a misaligned address\n", at, who, n, n, (unsigned long)a);
    lab_emu.findings++;
    lab_emu_abort_launch(cudaErrorMisalignedAddress);
}

static inline void access(const void *p, size_t n, int write, const void *pc, int aligned)
{
    uintptr_t a = (uintptr_t)p;
    if (lab_emu_memory.nstored)
        lab_emu_settle_store();
    int global = lab_emu_is_global(a);
    int shared = a - lab_emu_memory.shared_lo < lab_emu_memory.shared_hi - lab_emu_memory.shared_lo;
    int dynamic = a - (uintptr_t)lab_emu_dynamic_shared < LAB_EMU_MAX_DYNAMIC;
    if (!global && !shared && !dynamic)
        return; /* the thread's own variables, or the host's */
    if (aligned && (a & (n - 1)) && lab_emu_in_kernel())
        misaligned(a, n, pc);
    if (global) {
        lab_emu_buffer *al = global_access(a, n, write, pc);
        if (al)
            global_watch(al, a, n, write ? LAB_EMU_WRITE : LAB_EMU_READ, pc);
        if (lab_emu.explaining) {
            const lab_emu_buffer *al = lab_emu_buffer_of(a);
            lab_emu_explain_access(a, n, write, pc, 0, al ? al->name : "global memory");
        }
        if (write && n % 4 == 0 && a % 4 == 0 && lab_emu_in_kernel())
            lab_emu_note_store((void *)p, n / 4);
    } else
        shared_access(a, n, write, pc, dynamic);
}

/* a float4's copy, at the kernel's line pc (cuda_emu.h) */
void lab_emu_vector_access(const void *p, size_t align, int write, const void *pc)
{
    access(p, align, write, pc, 1);
}

void lab_emu_atomic_access(const void *p, size_t bytes, const void *pc)
{
    uintptr_t a = (uintptr_t)p;
    lab_emu_acquire();
    if (lab_emu_is_global(a)) {
        lab_emu_buffer *al = global_access(a, bytes, 1, pc);
        if (al)
            global_watch(al, a, bytes, LAB_EMU_ATOMIC, pc);
    }
}

#define HOOKS(n) \
    extern "C" void __tsan_read##n(void *p) { access(p, n, 0, __builtin_return_address(0), 1); } \
    extern "C" void __tsan_write##n(void *p) { access(p, n, 1, __builtin_return_address(0), 1); } \
    extern "C" void __tsan_unaligned_read##n(void *p) { access(p, n, 0, __builtin_return_address(0), 0); } \
    extern "C" void __tsan_unaligned_write##n(void *p) { access(p, n, 1, __builtin_return_address(0), 0); }
HOOKS(1)
HOOKS(2)
HOOKS(4)
HOOKS(8)
HOOKS(16)
extern "C" void __tsan_read_range(void *p, size_t n) { access(p, n, 0, __builtin_return_address(0), 0); }
extern "C" void __tsan_write_range(void *p, size_t n) { access(p, n, 1, __builtin_return_address(0), 0); }
extern "C" void __tsan_init(void) {}
extern "C" void __tsan_func_entry(void *caller) { (void)caller; }
/* where the thread's functions returned: the kernel's is the last of
 * them in a file of the student's (the launch's own templates follow it) */
extern "C" void __tsan_func_exit(void)
{
    if (lab_emu_self)
        lab_emu_self->exits[lab_emu_self->nexits++ % 8] = __builtin_return_address(0);
}
