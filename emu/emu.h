/*
 * emu.h: what the parts of the CPU emulation tell each other, from the
 * bottom up (state.cc what all of them read, memory.cc the device's memory,
 * races.cc the race watch, explain.cc the counts, runtime.cc the threads,
 * check.cc every access, api.cc the CUDA calls, lines.c the source lines,
 * main.cc the program): each part calls only those below it. Not seen by a
 * kernel.cu.
 */
#ifndef LAB_EMU_H
#define LAB_EMU_H

#include <stddef.h>

#include "lab.h"

enum {
    LAB_EMU_EXIT_REFUSED = 4,           /* a construct the emulator cannot run */
    LAB_EMU_MAX_DYNAMIC = 227 * 1024,   /* dynamic shared memory a block may ask */
    LAB_EMU_MAX_WARPS = 32
};

/* state.cc, the bottom: what every part reads, and the findings. It calls
 * none of the others; each calls only the parts listed before it here
 * (memory.cc, races.cc and explain.cc; runtime.cc; check.cc; api.cc). */
struct lab_emu_state {
    cudaError_t error;            /* the sticky error, as a GPU keeps it      */
    cudaError_t last;             /* what cudaGetLastError returns next       */
    int aborted;                  /* the launch in progress ended by a fault  */
    lab_emu_thread *running;      /* the thread running now; NULL: the scheduler's turn or the host's */
    unsigned long long block_epoch; /* barriers released since the program began */
    unsigned long long block_gen;   /* blocks started since the program began   */
    uint32_t launch;              /* launches started since the program began  */
    unsigned warp_epoch[LAB_EMU_MAX_WARPS]; /* warp collectives completed        */
    size_t dynamic_bytes;         /* this launch's dynamic shared memory      */
    const char *launch_file;
    int launch_line;
    unsigned long long seed;      /* the run's seed: the shuffled thread orders */
    int findings;                 /* problems named so far                    */
    int explaining;               /* the launch that --explain counts runs     */
};
extern lab_emu_state lab_emu;
/* "thread 3 of block 2", of this block or of block number `block` of the
 * launch (counted as it runs them) */
void lab_emu_thread_text(unsigned tid, char *out, size_t len);
void lab_emu_thread_text_in(unsigned block, unsigned tid, char *out, size_t len);
unsigned lab_emu_current_tid(void);
int lab_emu_in_kernel(void);
void lab_emu_set_error(cudaError_t e); /* kept as a GPU keeps it: the last, and a fault sticky */
/* a finding the block cannot go on after (a barrier not every thread reaches) */
[[noreturn]] void lab_emu_fatal_finding(const char *why, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* one problem the GPU may hide, printed at once (the first few of each kind) */
void lab_emu_finding(const char *key, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* memory.cc: the device's memory (the buffers cudaMalloc gives, the shared
 * arrays), each word's shadow for the race watch, an element's name */
struct __attribute__((packed)) lab_emu_mark { /* one access: who made it, where, when */
    const void *pc;     /* NULL: none                                          */
    uint32_t epoch;     /* its barrier interval (lab_emu.block_epoch)          */
    uint32_t wepoch;    /* the collectives its warp had completed before it    */
    uint32_t who;       /* its thread (10 bits), block (21, as the launch runs them), an atomic (1) */
};
struct __attribute__((aligned(64))) lab_emu_word { /* one 4-byte word's shadow: a cache line */
    uint32_t gen;       /* the block (shared) or launch (global) it is about, else empty; the top bit:
                           a thread of the block wrote it (shared memory's uninitialized reads) */
    lab_emu_mark w, r, r2; /* the last write; the last read, and another thread's read not ordered with it */
};
struct lab_emu_buffer {     /* one cudaMalloc */
    uintptr_t base, bytes;  /* as cudaMalloc gave it             */
    uintptr_t lo, hi;       /* the buffer the harness placed in it (guard zones around it), or base..base+bytes */
    char name[48];
    int live;
    lab_emu_word *shadow;   /* the race watch's, made when a kernel first writes it */
    uint32_t written_in;    /* the last launch that wrote it (lab_emu.launch) */
};
struct lab_emu_shared_array { /* a __shared__ array (emu/rewrite.c names each) */
    uintptr_t base;
    size_t bytes, elem;
    int rank;
    size_t dims[4];
    char name[48];
    lab_emu_word *shadow;
};
struct lab_emu_memory_map {       /* what check.cc reads at every access, without a call */
    uintptr_t arena, arena_bytes;   /* all device memory lies here */
    uintptr_t shared_lo, shared_hi; /* around every shared array */
    lab_emu_word *dynamic_shadow;   /* the dynamic shared memory's */
    float *stored;                  /* a kernel's last store to global memory, its floats */
    size_t nstored;
};
extern lab_emu_memory_map lab_emu_memory;
static inline int lab_emu_is_global(uintptr_t a) { return a - lab_emu_memory.arena < lab_emu_memory.arena_bytes; }
lab_emu_word *lab_emu_shadow_new(size_t words);
void lab_emu_shadow_free(lab_emu_word *shadow, size_t words);
void *lab_emu_device_alloc(size_t bytes);
int lab_emu_device_free(void *p);
int lab_emu_is_device(const void *p, size_t bytes);
lab_emu_buffer *lab_emu_buffer_of(uintptr_t a); /* the buffer a is in or just past, or NULL */
void lab_emu_name_buffer(const void *data, size_t bytes, const char *name);
const lab_emu_shared_array *lab_emu_shared_of(uintptr_t a); /* the shared array a is in, or NULL */
void lab_emu_element_text(uintptr_t a, char *out, size_t len); /* "As[3][17]", "C[42]" */
void lab_emu_shared_block_start(void); /* a block's shared memory starts undefined */
void lab_emu_note_store(void *p, size_t floats); /* a kernel's store to global memory */
void lab_emu_settle_store(void); /* a NaN just stored, made the GPU's */

/* races.cc: the race watch, a shadow of each word of shared and global
 * memory (its last write and reads) */
enum { LAB_EMU_READ = 0, LAB_EMU_WRITE = 1, LAB_EMU_ATOMIC = 2 };
void lab_emu_races_launch_start(void);
void lab_emu_races_block_start(void);
void lab_emu_acquire(void); /* an atomic: what earlier blocks published is seen */
/* an access of n bytes at a by the running thread, each word of it: its
 * shadow is shadow[(word - base) / 4]. 1: a read of a word not written
 * in its block (shared) or launch (global) */
int lab_emu_watch(uintptr_t base, lab_emu_word *shadow, uintptr_t a, size_t n, int access, const void *pc, int global);

/* explain.cc: what the memory system sees of one launch (make explain,
 * and the technique's counts); explain_report.cc: its table and its rows */
enum { LAB_EMU_MAX_SITES = 512 };
struct lab_emu_site {     /* one place of kernel.cu that reads or writes memory */
    const void *pc;
    const char *array;    /* check.cc's name of the array, during the launch */
    char name[48];        /* ... kept when it ends */
    unsigned char write, shared;
    size_t size;          /* bytes a lane moves */
    unsigned long long requests, units, ideal; /* units: sectors or wavefronts */
    unsigned long long lanes; /* the lanes' accesses, summed over its warp instructions */
};
struct lab_emu_explained_launch {
    int armed, picked, in_call, counting, done;
    char want[64];        /* the call to count, by its size ("n=2097153"); empty: the first */
    char size[64];        /* the call's size: "n=256" */
    const char *file;     /* where the launch is */
    int line;
    dim3 grid, block;
    size_t dynamic;
    unsigned long long blocks; /* counted */
    lab_emu_site sites[LAB_EMU_MAX_SITES];
    int nsites;
};
extern lab_emu_explained_launch lab_emu_explained;
void lab_emu_explain_arm(const char *size); /* count the first call at this size (NULL: the first call) */
void lab_emu_explain_call(int entering, const char *size); /* the contract function, at this size */
int lab_emu_explain_launch(dim3 grid, dim3 block, size_t dynamic, const char *file, int line); /* 1: counted */
void lab_emu_explain_access(uintptr_t a, size_t n, int write, const void *pc, int shared, const char *array);
void lab_emu_explain_block_end(unsigned nthreads);
void lab_emu_explain_launch_end(void);
void lab_emu_explain_report(int status);
/* The sites of the counted launch merged by source line, memory (global,
 * shared), direction and array, in the order of the source. */
struct lab_emu_row {
    char where[256];      /* "exercises/01_naive/kernel.cu:35" */
    unsigned line;
    int shared, write;
    const char *name;
    size_t size;          /* the widest access's bytes */
    unsigned long long requests, units, ideal, lanes;
};
int lab_emu_explain_rows(lab_emu_row *rows); /* their number; rows has LAB_EMU_MAX_SITES */
const char *lab_emu_short_place(const char *where); /* "kernel.cu:35" */

/* runtime.cc: the threads of a block as fibers, and their scheduler (the
 * launches, barriers and warp collectives it runs: cuda_emu.h). A fault in
 * the running thread ends the launch, the error sticky. */
void lab_emu_abort_launch(cudaError_t e);

/* technique.cc: whether the stage's technique is there (its technique
 * lines of stages.tsv), from the counted launch: 1 and a sentence in said,
 * present set, or 0 where nothing was counted or the stage has none */
int lab_emu_technique(char *said, size_t len, int *present);

/* lines.c: "kernel.cu:42" for an address of the program's code, or "" */
extern "C" void lab_emu_line_of(const void *pc, char *out, size_t len);

#endif /* LAB_EMU_H */
