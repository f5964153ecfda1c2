/*
 * judge.h: what the judge builds (-DLAB_JUDGE) add to the harness
 * (judge.cu; remote.h has the runner's side).
 */
#ifndef LAB_JUDGE_H
#define LAB_JUDGE_H

#include <stdint.h>

#include "gpu.h"

/* The family of this judge (set by lab_record_begin): its runner must say
 * the same. */
extern const char *lab_judge_family;

/* Take --runner, --echo, --confine and --call-limit-s out of argv. */
void lab_judge_take_args(int *argc, char **argv);
/* Every lab_buffer is registered, so that a pointer into one can be shared. */
void lab_judge_register(lab_buffer *b);
void lab_judge_forget(lab_buffer *b);
/* The stubs of the contract functions: queue one call for the runner. */
void lab_judge_queue(int fn, const void *const *ptr, int nptr, const long long *value, int nvalue);
/* Send the queued calls (profile: inside the profiler's range) and wait for
 * the runner to say it is done; a failure ends the run with a message. */
void lab_judge_flush(const char *what, int profile);
/* A no-op kernel through the echo runner, waited for: the round trip a
 * timed call makes (timing.cu). 0, or -1 where there is no echo runner. */
int lab_judge_echo_noop(void);
/* The student's runner's own event time of its last calls, as it said: for
 * LAB_JUDGE_TRACE=1 only (timing.cu), never for a grade. -1: none. */
double lab_judge_runner_said_ms(void);
/* The judge's GPU clock (LAB_JUDGE_CLOCK=gpu, timing.cu): queue the pending
 * calls (or, echo, a no-op through the echo runner) behind the flags at
 * `flags` (go, done) with this gate, the runner answering at once; -1 where
 * there is no echo runner. Then wait, polling, for the event `done` that
 * follows the judge's own wait for the runner's flag: 0, or -1 when the
 * runner died or ran out of time (the caller must release its stream
 * first). Then finish: the runner synchronizes and answers; a failure ends
 * the run with the runner's fate. */
int lab_judge_gated(int echo, unsigned gate, const void *flags);
int lab_judge_gated_wait(int echo, cudaEvent_t done);
void lab_judge_gated_finish(int echo, int failed);
/* A no-op through the student's runner: LAB_JUDGE_TRACE=1 only. */
void lab_judge_student_noop(void);
/* A no-op kernel launched here (gpu.cu). */
void lab_noop_here(void);

#endif /* LAB_JUDGE_H */
