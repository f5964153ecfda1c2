/*
 * resources.h: what the compiler gave a kernel (registers, local memory,
 * shared memory), read from its object, beside what it gave the tier's
 * reference kernel: the sentence a correct stage that missed a speed tier
 * gets (grader/resources.c).
 */
#ifndef RESOURCES_H
#define RESOURCES_H

#include <stddef.h>

#include "grader.h"
#include "grading.h"

/* One object's kernels for one architecture, summed up: the most of each
 * over its kernels (a stage's kernel.cu often has two, e.g. an edge form). */
typedef struct {
    char arch[16];       /* sm_90: the highest the text has          */
    char kernel[NAME_LEN]; /* the kernel with the most registers     */
    int kernels;         /* how many kernels it had for that arch     */
    int registers;       /* per thread                               */
    int local_bytes;     /* per thread: spills, and arrays in memory */
    int spill_bytes;     /* per thread, stores + loads (ptxas -v); -1: not known */
    int shared_bytes;    /* per block                                */
    int overlap;         /* multiply-adds between a global load and the
                            shared store after it (resources_overlap)  */
} resource_use;

/* Read the text of `cuobjdump --dump-resource-usage OBJECT` or of nvcc's
 * `-Xptxas -v` lines into u, for architecture arch (sm_90; NULL: the
 * highest in the text): 0, or -1 when the text has no kernel for it. */
int grader_resources_parse(const char *text, const char *arch, resource_use *u);

/* From the text of `cuobjdump -sass OBJECT`: the most FFMA instructions
 * between a run of global loads (LDG) and the first shared store (STS)
 * after it. A double buffer through registers has a tile's multiply-adds
 * there (1024 for the bonus stage's solution); a kernel that stores what it
 * loads at once has 0. -1: no such pair, or copies by cp.async (LDGSTS).
 * arch: that architecture's code only (NULL: all). */
int grader_resources_overlap(const char *sass, const char *arch);

/* cuobjdump on PATH, or beside $NVCC (the toolkit's bin/): 0, or -1. */
int grader_resources_find_cuobjdump(char *out, size_t len);
/* What `TOOL OPTION OBJECT` prints (cuobjdump), or NULL when it fails. */
char *grader_resources_dump(const char *tool, const char *option, const char *object);

/* Warps an SM's 65,536 registers hold at `registers` a thread (allocated
 * 8 at a time), at most 64. */
int grader_resources_warps(int registers);

/* The tier's reference kernel's row of the table (grader/resources.tsv,
 * make resources-expected): 0, or -1 when it has none for that stage,
 * tier and architecture (arch NULL: any). */
int grader_resources_expected(const char *table, const char *stage, const char *tier, const char *arch,
                       resource_use *u);

/* The sentence for stage (08_warptiling): the student's kernel (s)
 * beside the reference (r). */
void grader_resources_sentence(char *out, size_t len, const char *stage, const resource_use *s, const resource_use *r);

/* For a correct stage that missed a tier of which grader/resources.tsv
 * (under lab) has the reference's row: cuobjdump on the student's object,
 * and the sentence among the advice. Says nothing when cuobjdump is not
 * here or cannot read the object (a note says why). */
void grader_explain_resources(stage_result *s, const target *t, const char *lab);

#endif
