/*
 * judge.h: what the judge builds (-DLAB_JUDGE) add to the harness
 * (judge.cu; remote.h has the runner's side).
 */
#ifndef LAB_JUDGE_H
#define LAB_JUDGE_H

#include <stdint.h>

#include "gpu.h"
#include "remote.h"

/* The family of this judge (set by lab_record_begin): its runner must say
 * the same. */
extern const char *lab_judge_family;

/* Take --runner, --echo, --confine and --call-limit-s out of argv. */
void lab_judge_take_args(int *argc, char **argv);
/* the runners' processes started, not waited for (lab_start) */
void lab_judge_spawn(void);
/* Every lab_buffer is registered, so that a pointer into one can be shared. */
void lab_judge_register(lab_buffer *b);
void lab_judge_forget(lab_buffer *b);
/* The stubs of the contract functions: queue one call for the runner. */
void lab_judge_queue(int fn, const void *const *ptr, int nptr, const long long *value, int nvalue);
/* Send the queued calls (profile: inside the profiler's range) and wait for
 * the runner to say it is done; a failure ends the run with a message. */
void lab_judge_flush(const char *what, int profile);
/* Stop the student's runner (the next call starts it again): judge_timing.cu
 * times the baselines with no process of the student alive. */
void lab_judge_stop_student(void);
/* Start it now (it starts at its first call otherwise): so that its
 * start-up is not inside a timed call. */
void lab_judge_start_student(void);
/* The echo runner (remote.h): started the first time, mapping what the
 * student's runner maps; 0 where there is none (warned once). Its calls are
 * queued and sent as the student's are: what a timed batch costs without
 * student code, for judge_timing.cu to subtract. */
int lab_judge_have_echo(void);
void lab_judge_queue_echo(int fn, const void *const *ptr, int nptr, const long long *value, int nvalue);
void lab_judge_flush_echo(void);
/* The student's runner's own event time of its last calls, as it said: for
 * LAB_JUDGE_TRACE=1 only (judge_timing.cu), never for a grade. -1: none. */
double lab_judge_runner_said_ms(void);
/* A no-op kernel launched here (judge_timing.cu). */
void lab_noop_here(void);

/* The L2 flushes of a batch (judge_flush.cu): at most this many calls in a
 * batch, each after its own flush (a request holds LAB_REMOTE_MAX_CALLS). */
enum { LAB_JUDGE_MAX_BATCH = LAB_REMOTE_MAX_CALLS / 2 };
/* The flushed buffer, its twin and the sums: made the first time. */
void lab_l2_setup(void);
/* Before a batch: every flush's sum back to zero. */
void lab_l2_clear_sums(void);
/* Flush k of a batch, salted: here (remote 0), or queued for the
 * student's runner (1) or the echo runner (2). */
void lab_l2_flush(int remote, int k, uint64_t salt);
/* After a remote batch: every flush gave the sum the judge computes itself
 * on the twin, or the run ends. */
void lab_l2_verify(const uint64_t *salt, int count, int remote);
/* What a flush costs more after a kernel that wrote `bytes` (by events,
 * here, measured once a size). */
double lab_l2_writeback_ms(size_t bytes);
/* One flush here, timed by events: a canary. */
double lab_l2_canary_ms(void);

#endif /* LAB_JUDGE_H */
