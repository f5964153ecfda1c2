/*
 * thread_names.c: what the CUDA driver needs of /proc, without a right to
 * write anything there (judge/README.md, "What the GPU driver needs").
 *
 * The driver names the threads it starts by writing
 * /proc/self/task/TID/comm (fopen "w"), and fails to initialize when that
 * open fails. A right to write under /proc/self/task would also be a right
 * to write /proc/self/task/TID/mem, through which a process rewrites its
 * own code: memory become code. So the wall gives no write right under
 * /proc at all, and every program that runs confined (the runner, the echo
 * runner, the stage's own program, cuda-probe) is linked with this file,
 * whose fopen, fopen64 and pthread_setname_np take the place of the C
 * library's (the program exports them: -rdynamic, so that a library loaded
 * later, libcuda, binds to them). A thread's name goes to /dev/null; the
 * calling thread's own name is set by prctl, which needs no file. Every
 * other call goes to the C library unchanged.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>

/* "/proc/self/task/<digits>/comm" or "/proc/thread-self/comm" */
static int names_a_thread(const char *path)
{
    if (!path)
        return 0;
    const char *rest = NULL;
    if (!strncmp(path, "/proc/self/task/", 16))
        rest = path + 16;
    else if (!strncmp(path, "/proc/thread-self/comm", 22))
        return path[22] == 0;
    if (!rest || *rest < '0' || *rest > '9')
        return 0;
    while (*rest >= '0' && *rest <= '9')
        rest++;
    return !strcmp(rest, "/comm");
}

typedef FILE *open_fn(const char *, const char *);

static FILE *open_or_discard(const char *name, const char *path, const char *mode)
{
    open_fn *real = (open_fn *)dlsym(RTLD_NEXT, name);
    if (!real)
        return NULL;
    if (mode && (mode[0] == 'w' || mode[0] == 'a') && names_a_thread(path))
        return real("/dev/null", mode);
    return real(path, mode);
}

FILE *fopen(const char *path, const char *mode) { return open_or_discard("fopen", path, mode); }
FILE *fopen64(const char *path, const char *mode) { return open_or_discard("fopen64", path, mode); }

int pthread_setname_np(pthread_t thread, const char *name)
{
    if (strlen(name) > 15)
        return 34; /* ERANGE, as the C library says */
    if (pthread_equal(thread, pthread_self()))
        prctl(PR_SET_NAME, name, 0, 0, 0);
    return 0;
}
