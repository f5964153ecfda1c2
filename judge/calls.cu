/*
 * calls.cu: both ends of a call to the contract function across the judge
 * and its runner (remote.h), for any family: the family's header (given
 * with -include common/<family>.h) says the function's arguments once
 * (LAB_CONTRACT, common/contract.h), and this file passes them on.
 *
 *  -DLAB_JUDGE_STUB: the judge's stand-in for the contract function, which
 *   queues the call for the runner (judge.h, judge.cu): its arrays as
 *   pointers, its values as integers, each in order;
 *  -DLAB_RUNNER_FAMILY=<name>: the runner's lab_family_call, which calls
 *   the student's function on the pointers the judge shared;
 *  -DLAB_RUNNER_ECHO: the echo runner, which calls nothing of a student's.
 *
 * The Makefile compiles it once per family and side.
 */
#include "remote.h"

#ifndef LAB_RUNNER_ECHO
#include "contract.h"

#define LAB_ARRAY_POINTER(type, name, floats) name,
#define LAB_VALUE_INTEGER(type, name) (long long)name,
#define LAB_ARRAY_COUNT(type, name, floats) +1
#define LAB_VALUE_COUNT(type, name) +1
static_assert(0 LAB_CONTRACT(LAB_ARRAY_COUNT, LAB_VALUE_SKIP, LAB_NONE) <= LAB_REMOTE_MAX_ARGS &&
                  0 LAB_CONTRACT(LAB_ARRAY_SKIP, LAB_VALUE_COUNT, LAB_NONE) <= LAB_REMOTE_MAX_ARGS,
              "the contract function has more arrays or values than a call carries (LAB_REMOTE_MAX_ARGS)");
#endif

#ifdef LAB_JUDGE_STUB
#include "judge.h"
/* (each list ends with a 0 that is not sent, so that none is empty) */
void LAB_CONTRACT_NAME(LAB_CONTRACT_PARAMS)
{
    const void *p[] = {LAB_CONTRACT(LAB_ARRAY_POINTER, LAB_VALUE_SKIP, LAB_NONE) 0};
    const long long v[] = {LAB_CONTRACT(LAB_ARRAY_SKIP, LAB_VALUE_INTEGER, LAB_NONE) 0};
    lab_judge_queue(LAB_FN_CONTRACT, p, (int)(sizeof p / sizeof p[0]) - 1, v, (int)(sizeof v / sizeof v[0]) - 1);
}
#endif

#ifdef LAB_RUNNER_FAMILY
/* each array from the next pointer (none may be NULL), each value from the
 * next integer */
#define LAB_ARRAY_TAKE(type, name, floats)                                                                  \
    type name = (type)p[np++];                                                                             \
    if (!name)                                                                                             \
        return -1;
#define LAB_VALUE_TAKE(type, name) type name = (type)c->value[nv++];
extern "C" const char lab_family_name[] = LAB_STRING(LAB_RUNNER_FAMILY);
extern "C" int lab_family_call(const lab_remote_call *c, void *const *p)
{
    if (c->fn != LAB_FN_CONTRACT)
        return -1;
    int np = 0, nv = 0;
    LAB_CONTRACT(LAB_ARRAY_TAKE, LAB_VALUE_TAKE, LAB_NONE)
    (void)np;
    (void)nv;
    LAB_CONTRACT_NAME(LAB_CONTRACT_ARGS);
    return 0;
}
#endif

#ifdef LAB_RUNNER_ECHO
extern "C" const char lab_family_name[] = "echo";
extern "C" int lab_family_call(const lab_remote_call *c, void *const *p)
{
    (void)c;
    (void)p;
    return -1; /* the echo runner runs no contract function */
}
#endif
