/*
 * flush.h: the L2 flushes of the timed batches (flush.cu), for timing.cu.
 */
#ifndef LAB_FLUSH_H
#define LAB_FLUSH_H

#include <stddef.h>
#include <stdint.h>

/* The flushed buffer, its twin and the sums: made the first time. */
void lab_l2_setup(void);
/* Before a batch: every flush's sum back to zero. */
void lab_l2_clear_sums(void);
/* Flush k of a batch, salted: here (LAB_HERE), or queued for a runner
 * (LAB_STUDENT, LAB_ECHO: backend.h). */
void lab_l2_flush(int side, int k, uint64_t salt);
/* After a runner's batch: every flush gave the sum computed here on the
 * twin, or the run ends. */
void lab_l2_verify(const uint64_t *salt, int count, int side);
/* What a flush costs more after a kernel that wrote `bytes` (by events,
 * here, measured once a size). */
double lab_l2_writeback_ms(size_t bytes);
/* One flush here, timed by events: a canary. */
double lab_l2_canary_ms(void);
/* A no-op kernel launched here (timing.cu). */
void lab_noop_here(void);

#endif /* LAB_FLUSH_H */
