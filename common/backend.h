/*
 * backend.h: where the student's code runs, one interface, two
 * implementations chosen at link time:
 *
 *  - common/run_here.cu: in this process, linked with kernel.cu (make run,
 *    build/<stage>/<variant>);
 *  - judge/judge.cu: in a confined runner process, reached through
 *    judge/remote.h (grades, make run JUDGE=1: build/<stage>/<variant>-judge).
 *
 * The harness (harness.cu, timing.cu, flush.cu, gpu.cu) is compiled once
 * and linked with either; it asks the backend, never the build, where a
 * call goes. judge/README.md, "The judge", says why grades use the second.
 */
#ifndef LAB_BACKEND_H
#define LAB_BACKEND_H

#include <stddef.h>
#include <stdint.h>

typedef struct lab_buffer lab_buffer;

/* Where a queued call runs: here, in the student's runner, or in the echo
 * runner (the runner's loop without student code: what a round trip to a
 * runner costs, for the timing to subtract). */
enum lab_side { LAB_HERE = 0, LAB_STUDENT = 1, LAB_ECHO = 2 };

/* The program's main (common/harness.cu's): stage(argc, argv) runs one
 * stage, its exit status returned. The judge's, given --worker FD, runs
 * the stages a grader asks for one after another in this one process
 * (judge/worker.cu); otherwise, as here, the one stage of its command line. */
int lab_backend_main(int argc, char **argv, int (*stage)(int argc, char **argv));
/* Take the backend's own options out of argv (the judge's --runner, --echo,
 * --confine, --confine-files, --call-limit-s); the rest is the harness's. */
void lab_backend_take_args(int *argc, char **argv);
/* Start what runs beside this process (the judge's runners), before this
 * process makes its own CUDA context. */
void lab_backend_spawn(void);
/* The family of this program ("matmul"): a runner must serve the same. */
void lab_backend_family(const char *family);
/* Every lab_buffer is registered, so that a pointer into one can be shared. */
void lab_backend_register(lab_buffer *b);
void lab_backend_forget(lab_buffer *b);

/* Where the student's calls run: LAB_HERE, or LAB_STUDENT (queued by the
 * contract function's stand-in, sent by lab_backend_send). */
int lab_backend_student_side(void);
/* The side an empty batch of the student's runs on: LAB_ECHO where there is
 * an echo runner, LAB_HERE otherwise (and in this process). */
int lab_backend_empty_side(void);
/* Queue a no-op on side LAB_STUDENT or LAB_ECHO. */
void lab_backend_queue_noop(int side);
/* Send what is queued on side and wait until it is done (profile: inside
 * the profiler's range); a failure ends the run, naming `what`. Nothing
 * queued, or LAB_HERE: nothing happens. */
void lab_backend_send(int side, const char *what, int profile);
/* The student's runner started (so that its start-up is not inside a timed
 * call), or stopped (so that no process of the student is alive while a
 * reference kernel is timed). In this process: nothing. */
void lab_backend_start_student(void);
void lab_backend_stop_student(void);
/* The runner's own event time of its last calls, as it said (LAB_JUDGE_TRACE
 * only, never for a grade); -1: none. */
double lab_backend_said_ms(void);

#endif /* LAB_BACKEND_H */
