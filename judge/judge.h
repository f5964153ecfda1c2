/*
 * judge.h: what the judge's backend (judge.cu) offers beyond backend.h: the
 * queue that the contract functions' stand-ins (calls.cu) put the student's
 * calls on.
 */
#ifndef LAB_JUDGE_H
#define LAB_JUDGE_H

/* Queue one call of function fn (remote.h: LAB_FN_*) for the student's
 * runner, its pointers shared: sent by lab_backend_send(LAB_STUDENT). */
void lab_judge_queue(int fn, const void *const *ptr, int nptr, const long long *value, int nvalue);

#endif /* LAB_JUDGE_H */
