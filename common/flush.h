/*
 * flush.h: the L2 flushes of the timed batches (flush.cu), for timing.cu.
 */
#ifndef LAB_FLUSH_H
#define LAB_FLUSH_H

#include <stddef.h>
#include <stdint.h>

#include "lab.h"

/* The flushed buffer, private to this process: made the first time, of
 * the size the timing policy says (policy.c). */
void lab_l2_setup(const lab_timing_policy *p);
/* An L2 flush, here: before a batch's calls, wherever they run (a runner
 * is never asked to flush: judge/README.md, "The judge"). */
void lab_l2_flush(void);
/* What a flush costs more after a kernel that wrote `bytes` (by events,
 * here, measured once a size). */
double lab_l2_writeback_ms(size_t bytes);
/* One flush here, timed by events: a canary. */
double lab_l2_canary_ms(void);
/* A no-op kernel launched here (timing.cu). */
void lab_noop_here(void);

#endif /* LAB_FLUSH_H */
