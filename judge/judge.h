/*
 * judge.h: what the judge's backend (judge.cu) offers beyond backend.h: the
 * queue that the contract functions' stand-ins (calls.cu) put the student's
 * calls on, and a stage's end for the worker (worker.cu).
 */
#ifndef LAB_JUDGE_H
#define LAB_JUDGE_H

/* Queue one call of function fn (remote.h: LAB_FN_*) for the student's
 * runner, its pointers shared: sent by lab_backend_send(LAB_STUDENT). */
void lab_judge_queue(int fn, const void *const *ptr, int nptr, const long long *value, int nvalue);

/* A stage's end in the worker: the student's runner stopped (a stage that
 * failed may leave it running), the trace's totals printed and begun
 * again; 1 when nothing of the stage is left (no buffer, no queued call),
 * so that another stage may run in this process. The echo runner stays. */
int lab_judge_stage_end(void);

#endif /* LAB_JUDGE_H */
