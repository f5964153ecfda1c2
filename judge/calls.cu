/*
 * calls.cu: both ends of a call to the contract function across the judge
 * and its runner (remote.h). One file, three families, two sides:
 *
 *  -DLAB_RUNNER_FAMILY_<name>: the runner's lab_family_call, which calls the
 *   student's function on the pointers the judge shared;
 *  -DLAB_JUDGE_FAMILY_<name>: the judge's stand-in for the contract function,
 *   which queues the call for the runner (judge.h, judge.cu);
 *  -DLAB_RUNNER_ECHO: the echo runner, which calls nothing of a student's.
 *
 * The Makefile compiles it once per family and side.
 */
#include "remote.h"

#if defined(LAB_JUDGE_FAMILY_matmul) || defined(LAB_JUDGE_FAMILY_transpose) || defined(LAB_JUDGE_FAMILY_reduce)
#include "judge.h"
#define QUEUE(...)                                                                       \
    do {                                                                                 \
        const void *p_[] = {__VA_ARGS__};                                                \
        lab_judge_queue(LAB_FN_CONTRACT, p_, (int)(sizeof p_ / sizeof p_[0]), v_,        \
                        (int)(sizeof v_ / sizeof v_[0]));                                \
    } while (0)
#endif

/* ------------------------------------------------------------ matmul */
#if defined(LAB_RUNNER_FAMILY_matmul) || defined(LAB_JUDGE_FAMILY_matmul)
#include "matmul.h"
#endif
#ifdef LAB_RUNNER_FAMILY_matmul
extern "C" const char lab_family_name[] = "matmul";
extern "C" int lab_family_call(const lab_remote_call *c, void *const *p)
{
    if (c->fn != LAB_FN_CONTRACT || !p[0] || !p[1] || !p[2])
        return -1;
    matmul((const float *)p[0], (const float *)p[1], (float *)p[2], (int)c->value[0]);
    return 0;
}
#endif
#ifdef LAB_JUDGE_FAMILY_matmul
void matmul(const float *A, const float *B, float *C, int n)
{
    const long long v_[] = {n};
    QUEUE(A, B, C);
}
#endif

/* --------------------------------------------------------- transpose */
#if defined(LAB_RUNNER_FAMILY_transpose) || defined(LAB_JUDGE_FAMILY_transpose)
#include "transpose.h"
#endif
#ifdef LAB_RUNNER_FAMILY_transpose
extern "C" const char lab_family_name[] = "transpose";
extern "C" int lab_family_call(const lab_remote_call *c, void *const *p)
{
    if (c->fn != LAB_FN_CONTRACT || !p[0] || !p[1])
        return -1;
    transpose((const float *)p[0], (float *)p[1], (int)c->value[0], (int)c->value[1]);
    return 0;
}
#endif
#ifdef LAB_JUDGE_FAMILY_transpose
void transpose(const float *in, float *out, int rows, int cols)
{
    const long long v_[] = {rows, cols};
    QUEUE(in, out);
}
#endif

/* ------------------------------------------------------------ reduce */
#if defined(LAB_RUNNER_FAMILY_reduce) || defined(LAB_JUDGE_FAMILY_reduce)
#include "reduce.h"
#endif
#ifdef LAB_RUNNER_FAMILY_reduce
extern "C" const char lab_family_name[] = "reduce";
extern "C" int lab_family_call(const lab_remote_call *c, void *const *p)
{
    if (c->fn != LAB_FN_CONTRACT || !p[0] || !p[1] || !p[2])
        return -1;
    reduce((const float *)p[0], (float *)p[1], (int)c->value[0], (float *)p[2]);
    return 0;
}
#endif
#ifdef LAB_JUDGE_FAMILY_reduce
void reduce(const float *in, float *out, int n, float *scratch)
{
    const long long v_[] = {n};
    QUEUE(in, out, scratch);
}
#endif

/* -------------------------------------------------------------- echo */
#ifdef LAB_RUNNER_ECHO
extern "C" const char lab_family_name[] = "echo";
extern "C" int lab_family_call(const lab_remote_call *c, void *const *p)
{
    (void)c;
    (void)p;
    return -1; /* the echo runner runs no contract function */
}
#endif
