/*
 * runtime.cc: the CUDA execution model on the CPU (emu/README.md).
 *
 * A launch runs its blocks one after another. A block's threads are
 * fibers, each on a stack of its own, switched by a few instructions
 * (lab_emu_switch) and never preempted: a thread runs until it reaches a
 * barrier, a warp collective or its end. The scheduler then runs the next
 * thread; when none can run, it releases the barrier (or the collective)
 * that all of them wait at, or names the threads that never will: a
 * thread that returned while others wait, threads at different barriers.
 * Between barriers the threads run in order, reversed or shuffled by the
 * seed (block by block), so that a result that depends on the order shows.
 *
 * Memory accesses reach check.cc through the compiler's instrumentation of
 * kernel.cu (-fsanitize=thread, without its library).
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "cuda_emu.h"
#include "gpu.h"
#include "emu.h"

#if !defined(__x86_64__)
#error "the CPU emulation switches fibers with x86-64 instructions: build it on an x86-64 machine"
#endif

/* Save the callee-saved registers and the FPU's control words on this
 * stack, store its top in *from, and continue on stack `to`. */
extern "C" void lab_emu_switch(void **from, void *to);
asm(".text\n.globl lab_emu_switch\n.type lab_emu_switch,@function\nlab_emu_switch:\n"
    "pushq %rbp\npushq %rbx\npushq %r12\npushq %r13\npushq %r14\npushq %r15\n"
    "subq $8, %rsp\nstmxcsr (%rsp)\nfnstcw 4(%rsp)\n"
    "movq %rsp, (%rdi)\nmovq %rsi, %rsp\n"
    "ldmxcsr (%rsp)\nfldcw 4(%rsp)\naddq $8, %rsp\n"
    "popq %r15\npopq %r14\npopq %r13\npopq %r12\npopq %rbx\npopq %rbp\nret\n"
    ".size lab_emu_switch, .-lab_emu_switch\n");

enum { READY, AT_BARRIER, AT_WARP, DONE };
enum { STACK_BYTES = 256 * 1024, MAX_THREADS = 1024 };

struct fiber {
    lab_emu_thread pub; /* first: lab_emu.running points at it (current()) */
    void *sp;
    int state, started;
    const char *file; /* where it waits */
    int line, op, kind, predicate, arg, width;
    unsigned mask;
    unsigned long long value, result;
};

static fiber g_threads[MAX_THREADS];
static unsigned char *g_stacks; /* MAX_THREADS stacks, a guard page below each */
static void *g_scheduler_sp;
static void (*g_body)(void *);
static void *g_ctx;
static unsigned g_nthreads;
static unsigned long long g_launches;

/* ------------------------------------------------------------- fibers */

/* The thread running now (state.cc's lab_emu.running is its first
 * member), or NULL: the scheduler's turn, or the host's. */
static inline fiber *current(void) { return (fiber *)lab_emu.running; }

static void fiber_main(void)
{
    g_body(g_ctx);
    lab_emu_settle_store();
    current()->state = DONE;
    lab_emu_switch(&current()->sp, g_scheduler_sp);
    __builtin_unreachable();
}

static void stacks_once(void)
{
    if (g_stacks)
        return;
    size_t bytes = (size_t)STACK_BYTES * MAX_THREADS;
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED)
        lab_die(LAB_EMU_EXIT_REFUSED, "the emulator could not map its threads' stacks (%zu MB)", bytes >> 20);
    g_stacks = (unsigned char *)p;
    for (int i = 0; i < MAX_THREADS; i++) /* a stack that overflows faults at once */
        mprotect(g_stacks + (size_t)i * STACK_BYTES, 4096, PROT_NONE);
}

static void fiber_start(fiber *f, unsigned i)
{
    uintptr_t top = ((uintptr_t)(g_stacks + (size_t)(i + 1) * STACK_BYTES) & ~(uintptr_t)15) - 8;
    void **sp = (void **)top;
    *--sp = (void *)fiber_main; /* where its first switch returns to */
    for (int r = 0; r < 6; r++)
        *--sp = NULL;
    --sp;
    ((uint32_t *)sp)[0] = 0x1f80; /* MXCSR: round to nearest, no exceptions */
    ((uint16_t *)sp)[2] = 0x037f; /* x87 control word */
    f->sp = sp;
    f->started = 1;
}

static void resume(fiber *f)
{
    lab_emu.running = &f->pub;
    lab_emu_self = &f->pub;
    if (!f->started)
        fiber_start(f, (unsigned)(f - g_threads));
    lab_emu_switch(&g_scheduler_sp, f->sp);
    lab_emu.running = NULL;
}

/* Back to the scheduler from the running thread, until it resumes it. */
static void yield(void)
{
    fiber *f = current();
    lab_emu_settle_store();
    lab_emu_switch(&f->sp, g_scheduler_sp);
}

/* A fault in a thread (a misaligned or illegal address): end the launch
 * here, as the GPU would; the error is sticky, as on the GPU. */
void lab_emu_abort_launch(cudaError_t e)
{
    lab_emu_set_error(e);
    lab_emu.aborted = 1;
    if (fiber *f = current()) {
        f->state = DONE;
        lab_emu_switch(&f->sp, g_scheduler_sp);
    }
}

static void on_fault(int sig, siginfo_t *si, void *uc)
{
    (void)uc;
    if (!current()) { /* not a kernel's: the harness's own, a bug to see plainly */
        signal(sig, SIG_DFL);
        raise(sig);
        return;
    }
    char who[128];
    lab_emu_thread_text(current()->pub.tid, who, sizeof who);
    fflush(stdout);
    printf("  emulator: %s touched address %p, outside every buffer: on a GPU, an illegal address\n", who, si->si_addr);
    lab_emu.findings++;
    lab_emu_abort_launch(cudaErrorIllegalAddress);
}

/* ----------------------------------------------------------- barriers */

int lab_emu_syncthreads(int kind, int predicate, const char *file, int line)
{
    fiber *f = current();
    if (!f)
        lab_emu_refuse("__syncthreads() outside a kernel", file, line);
    f->state = AT_BARRIER;
    f->kind = kind;
    f->predicate = predicate;
    f->file = file;
    f->line = line;
    yield();
    return (int)f->result;
}

unsigned long long lab_emu_warp(int op, unsigned mask, unsigned long long value, int arg, int width,
                                const char *file, int line)
{
    fiber *f = current();
    if (!f)
        lab_emu_refuse("a warp collective outside a kernel", file, line);
    if (!(mask >> f->pub.lane & 1u)) {
        char who[96];
        lab_emu_thread_text(f->pub.tid, who, sizeof who);
        lab_emu_fatal_finding("a warp collective whose mask leaves out a lane that calls it",
                              "%s:%d: %s calls a warp collective whose mask 0x%08x leaves out its own lane %u: "
                              "every lane that calls it must be in its mask", file, line, who, mask, f->pub.lane);
    }
    f->state = AT_WARP;
    f->op = op;
    f->mask = mask;
    f->value = value;
    f->arg = arg;
    f->width = width;
    f->file = file;
    f->line = line;
    yield();
    return f->result;
}

unsigned lab_emu_activemask(void)
{
    unsigned w = current()->pub.warp, m = 0;
    for (unsigned l = 0; l < 32 && w * 32 + l < g_nthreads; l++)
        if (g_threads[w * 32 + l].state != DONE)
            m |= 1u << l;
    return m;
}

/* The lanes of warp w that exist (a last, partial warp has fewer). */
static unsigned lanes_of(unsigned w)
{
    unsigned n = g_nthreads - w * 32;
    return n >= 32 ? 0xffffffffu : (1u << n) - 1;
}

/* Complete the collective that lanes `group` of warp w wait at. */
static void complete_warp(unsigned w, unsigned group)
{
    fiber *L = &g_threads[w * 32];
    int op = -1;
    unsigned ballot = 0;
    for (unsigned l = 0; l < 32; l++)
        if (group >> l & 1u) {
            op = L[l].op;
            ballot |= (L[l].value != 0) << l;
        }
    for (unsigned l = 0; l < 32; l++) {
        if (!(group >> l & 1u))
            continue;
        fiber *t = &L[l];
        int width = t->width > 0 && t->width <= 32 ? t->width : 32;
        unsigned base = l / width * width, src = l;
        switch (op) {
        case LAB_EMU_SHFL: src = base + (unsigned)t->arg % width; break;
        case LAB_EMU_SHFL_UP: src = l >= base + (unsigned)t->arg ? l - t->arg : l; break;
        case LAB_EMU_SHFL_DOWN: src = l + t->arg < base + width ? l + t->arg : l; break;
        case LAB_EMU_SHFL_XOR: src = (l ^ (unsigned)t->arg) < base + width && (l ^ (unsigned)t->arg) >= base ?
                                     l ^ (unsigned)t->arg : l; break;
        }
        if (op >= LAB_EMU_SHFL && op <= LAB_EMU_SHFL_XOR)
            t->result = (group >> src & 1u) ? L[src].value : t->value;
        else if (op == LAB_EMU_ALL)
            t->result = (ballot & group) == group;
        else if (op == LAB_EMU_ANY)
            t->result = ballot != 0;
        else if (op == LAB_EMU_BALLOT)
            t->result = ballot;
        t->state = READY;
    }
    lab_emu.warp_epoch[w]++;
}

/* Where a thread is, for a message: "returned (line 40)", "waits at the
 * __syncthreads() of line 52". */
static void where_text(const fiber *t, char *out, size_t len)
{
    if (t->state == DONE) {
        char at[256] = "";
        for (unsigned k = 0; k < 8 && k < t->pub.nexits && !*at; k++) {
            lab_emu_line_of(t->pub.exits[(t->pub.nexits - 1 - k) % 8], at, sizeof at);
            const char *dot = strrchr(at, '.');
            if (!dot || strncmp(dot, ".cu:", 4))
                *at = 0; /* a header's: the launch's templates */
        }
        snprintf(out, len, "returned%s%s%s", *at ? " (" : "", at, *at ? ")" : "");
    } else if (t->state == AT_BARRIER)
        snprintf(out, len, "waits at the barrier of %s:%d", t->file, t->line);
    else
        snprintf(out, len, "waits at the warp collective of %s:%d", t->file, t->line);
}

[[noreturn]] static void stuck(const fiber *a, const fiber *b, const char *why)
{
    char wa[128], wb[128], pa[320], pb[320];
    lab_emu_thread_text(a->pub.tid, wa, sizeof wa);
    lab_emu_thread_text(b->pub.tid, wb, sizeof wb);
    where_text(a, pa, sizeof pa);
    where_text(b, pb, sizeof pb);
    lab_emu_fatal_finding(why, "%s: %s %s, while %s %s. On a GPU this hangs or reads stale shared memory; "
                          "every thread of a block must reach the same barriers", why, wa, pa, wb, pb);
}

/* Every warp whose waiting lanes can go on: 1 when one did. */
static int release_warps(void)
{
    int any = 0;
    for (unsigned w = 0; w * 32 < g_nthreads; w++) {
        fiber *L = &g_threads[w * 32];
        unsigned exist = lanes_of(w);
        for (unsigned l = 0; l < 32; l++) {
            if (!(exist >> l & 1u) || L[l].state != AT_WARP)
                continue;
            unsigned group = L[l].mask & exist, ready = 1;
            for (unsigned m = 0; m < 32; m++)
                if ((group >> m & 1u) && !(L[m].state == AT_WARP && L[m].mask == L[l].mask))
                    ready = 0;
            if (ready) {
                complete_warp(w, group);
                any = 1;
            }
        }
    }
    return any;
}

/* No thread can run: release the barrier, or say why it never releases. */
static int release_barrier(void)
{
    fiber *waiting = NULL, *done = NULL, *warp = NULL;
    for (unsigned i = 0; i < g_nthreads; i++) {
        fiber *t = &g_threads[i];
        if (t->state == AT_BARRIER && !waiting) waiting = t;
        if (t->state == DONE && !done) done = t;
        if (t->state == AT_WARP && !warp) warp = t;
    }
    if (warp) {
        /* a lane of its mask will never come: it returned or waits elsewhere */
        fiber *L = &g_threads[warp->pub.warp * 32];
        for (unsigned m = 0; m < 32; m++)
            if ((warp->mask & lanes_of(warp->pub.warp)) >> m & 1u && L[m].state != AT_WARP)
                stuck(warp, &L[m], "a warp collective that some lanes of its mask never reach");
        stuck(warp, warp, "lanes of a warp wait at warp collectives with different masks");
    }
    if (!waiting)
        return 0; /* every thread is done */
    if (done)
        stuck(waiting, done, "a thread returned before a barrier that others wait at");
    for (unsigned i = 0; i < g_nthreads; i++) {
        fiber *t = &g_threads[i];
        if (t->line != waiting->line || strcmp(t->file, waiting->file))
            stuck(waiting, t, "threads of a block wait at different barriers");
    }
    unsigned long long count = 0;
    for (unsigned i = 0; i < g_nthreads; i++)
        count += g_threads[i].predicate != 0;
    for (unsigned i = 0; i < g_nthreads; i++) {
        fiber *t = &g_threads[i];
        t->result = t->kind == LAB_EMU_COUNT ? count : t->kind == LAB_EMU_AND ? count == g_nthreads
                  : t->kind == LAB_EMU_OR ? count > 0 : 0;
        t->state = READY;
    }
    lab_emu.block_epoch++;
    return 1;
}

/* ------------------------------------------------------------- blocks */

/* The order the threads of this block run in between barriers: in order,
 * reversed, or shuffled by the seed, a different one for the next block. */
static void thread_order(unsigned *order, unsigned long long block)
{
    for (unsigned i = 0; i < g_nthreads; i++)
        order[i] = i;
    unsigned pick = (unsigned)((g_launches + block) % 3);
    if (pick == 1)
        for (unsigned i = 0; i < g_nthreads / 2; i++) {
            unsigned x = order[i];
            order[i] = order[g_nthreads - 1 - i];
            order[g_nthreads - 1 - i] = x;
        }
    if (pick == 2) {
        unsigned long long s = lab_emu.seed ^ (block * 0x9e3779b97f4a7c15ULL) ^ g_launches;
        for (unsigned i = g_nthreads; i > 1; i--) {
            s = s * 6364136223846793005ULL + 1442695040888963407ULL;
            unsigned j = (unsigned)((s >> 33) % i), x = order[i - 1];
            order[i - 1] = order[j];
            order[j] = x;
        }
    }
}

static void run_block(const dim3 &block, unsigned long long linear)
{
    static unsigned order[MAX_THREADS];
    unsigned i = 0;
    for (unsigned z = 0; z < block.z; z++)
        for (unsigned y = 0; y < block.y; y++)
            for (unsigned x = 0; x < block.x; x++, i++) {
                fiber *f = &g_threads[i];
                memset(f, 0, sizeof *f);
                f->pub.thread_idx = uint3{x, y, z};
                f->pub.tid = i;
                f->pub.lane = i % 32;
                f->pub.warp = i / 32;
            }
    lab_emu_races_block_start();
    lab_emu_shared_block_start();
    thread_order(order, linear);
    for (;;) {
        int ran;
        do {
            ran = 0;
            for (unsigned k = 0; k < g_nthreads && !lab_emu.aborted; k++)
                if (g_threads[order[k]].state == READY) {
                    resume(&g_threads[order[k]]);
                    ran = 1;
                }
            if (lab_emu.aborted)
                return;
        } while (ran);
        if (release_warps())
            continue;
        if (!release_barrier())
            return;
    }
}

/* A launch no GPU takes: said, and its error kept, as a GPU keeps it. */
static void no_gpu_takes(const char *file, int line, dim3 grid, dim3 block, size_t shared)
{
    fflush(stdout);
    printf("  emulator: %s:%d: a launch of grid (%u,%u,%u), block (%u,%u,%u) and %zu bytes of dynamic shared "
           "memory, which no GPU takes\n", file, line, grid.x, grid.y, grid.z, block.x, block.y, block.z, shared);
    lab_emu_set_error(cudaErrorInvalidConfiguration);
}

void lab_emu_run(void (*body)(void *), void *ctx, dim3 grid, dim3 block, size_t shared, const char *file, int line)
{
    if (current())
        lab_emu_refuse("a launch from inside a kernel (dynamic parallelism)", file, line);
    unsigned long long threads = (unsigned long long)block.x * block.y * block.z;
    if (lab_emu.error != cudaSuccess)
        return; /* a sticky error: nothing runs any more, as on a GPU */
    if (threads == 0 || threads > 1024 || block.z > 64 || grid.x == 0 || grid.y == 0 || grid.z == 0 ||
        grid.y > 65535 || grid.z > 65535 || shared > LAB_EMU_MAX_DYNAMIC) {
        no_gpu_takes(file, line, grid, block, shared);
        return;
    }
    stacks_once();
    static int handlers;
    if (!handlers) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_sigaction = on_fault;
        sa.sa_flags = SA_SIGINFO | SA_NODEFER;
        sigaction(SIGSEGV, &sa, NULL);
        sigaction(SIGBUS, &sa, NULL);
        handlers = 1;
    }
    g_body = body;
    g_ctx = ctx;
    g_nthreads = (unsigned)threads;
    lab_emu_block_dim = block;
    lab_emu_grid_dim = grid;
    lab_emu.dynamic_bytes = shared;
    lab_emu.launch_file = file;
    lab_emu.launch_line = line;
    lab_emu.aborted = 0;
    /* make explain: the memory accesses of this launch counted, block by block */
    int explained = lab_emu_explain_launch(grid, block, shared, file, line);
    lab_emu_races_launch_start();
    unsigned long long linear = 0;
    for (unsigned z = 0; z < grid.z; z++)
        for (unsigned y = 0; y < grid.y; y++)
            for (unsigned x = 0; x < grid.x && !lab_emu.aborted; x++, linear++) {
                lab_emu_block_idx = uint3{x, y, z};
                run_block(block, linear);
                if (explained)
                    lab_emu_explain_block_end(g_nthreads);
            }
    lab_emu_self = NULL;
    if (explained)
        lab_emu_explain_launch_end();
    g_launches++;
}

void lab_emu_refuse(const char *what, const char *file, int line)
{
    lab_die(LAB_EMU_EXIT_REFUSED, "%s:%d: the CPU emulation cannot run %s; on a GPU it may be fine "
                  "(make run where there is one)", file, line, what);
}
