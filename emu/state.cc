/*
 * state.cc: what every part of the CPU emulation reads (emu/README.md, "How
 * it works"): the running thread and its block, the run's state (the sticky
 * error, the epochs, the findings), a thread's name in a message, and the
 * findings themselves. It calls none of the other parts: the scheduler
 * (runtime.cc), the memory (memory.cc), the watches (check.cc, races.cc,
 * explain.cc) and the CUDA calls (api.cc) all stand on it.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu.h"
#include "emu.h"

lab_emu_thread *lab_emu_self;
uint3 lab_emu_block_idx;
dim3 lab_emu_block_dim, lab_emu_grid_dim;

lab_emu_state lab_emu;

/* ----------------------------------------------------- the running thread */

void lab_emu_thread_text(unsigned tid, char *out, size_t len)
{
    const uint3 k = lab_emu_block_idx;
    const dim3 g = lab_emu_grid_dim;
    lab_emu_thread_text_in(k.x + g.x * (k.y + g.y * k.z), tid, out, len);
}

void lab_emu_thread_text_in(unsigned block, unsigned tid, char *out, size_t len)
{
    const dim3 b = lab_emu_block_dim, g = lab_emu_grid_dim;
    const uint3 t = {tid % b.x, tid / b.x % b.y, tid / (b.x * b.y)};
    const uint3 k = {block % g.x, block / g.x % g.y, block / (g.x * g.y)};
    if (b.z > 1 || g.z > 1)
        snprintf(out, len, "thread (%u,%u,%u) of block (%u,%u,%u)", t.x, t.y, t.z, k.x, k.y, k.z);
    else if (b.y > 1 || g.y > 1)
        snprintf(out, len, "thread (%u,%u) of block (%u,%u)", t.x, t.y, k.x, k.y);
    else
        snprintf(out, len, "thread %u of block %u", t.x, k.x);
}

unsigned lab_emu_current_tid(void) { return lab_emu.running ? lab_emu.running->tid : ~0u; }
int lab_emu_in_kernel(void) { return lab_emu.running != NULL; }

/* -------------------------------------------------------------- errors */

void lab_emu_set_error(cudaError_t e)
{
    if (lab_emu.last == cudaSuccess)
        lab_emu.last = e;
    if (e == cudaErrorIllegalAddress || e == cudaErrorMisalignedAddress || e == cudaErrorLaunchFailure)
        lab_emu.error = e;
}

/* ------------------------------------------------------------ findings */

/* One finding's line, as make grade's emulated runs and emu/grade.sh
 * quote it. */
static void say_finding(const char *fmt, va_list ap)
{
    char msg[1024];
    vsnprintf(msg, sizeof msg, fmt, ap);
    fflush(stdout);
    printf("  emulator: %s\n", msg);
}

/* (emu.h) Said as every finding is, then the run ends, wrong, its record
 * saying why in short. */
void lab_emu_fatal_finding(const char *why, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    say_finding(fmt, ap);
    va_end(ap);
    lab_emu.findings++;
    lab_die(LAB_EXIT_WRONG, "the CPU emulation stopped the kernel: %s (the finding above)", why);
    exit(LAB_EXIT_WRONG); /* (lab_die does not return) */
}

enum { MAX_KEYS = 512, SHOWN_IN_ALL = 12 };
static char *g_keys[MAX_KEYS];
static int g_nkeys;

void lab_emu_finding(const char *key, const char *fmt, ...)
{
    lab_emu.findings++;
    for (int i = 0; i < g_nkeys; i++)
        if (!strcmp(g_keys[i], key))
            return; /* named once already, at this line */
    if (g_nkeys < MAX_KEYS)
        g_keys[g_nkeys++] = strdup(key);
    if (g_nkeys > SHOWN_IN_ALL)
        return;
    va_list ap;
    va_start(ap, fmt);
    say_finding(fmt, ap);
    va_end(ap);
    if (g_nkeys == SHOWN_IN_ALL)
        printf("  emulator: (further problems are counted, not shown)\n");
    fflush(stdout);
}
