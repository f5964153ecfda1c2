/*
 * failed-calls.c: which calls into the C library fail, and why, for a
 * program that fails in the confinement without saying what was refused
 * (strace cannot follow it there: ptrace is refused). Preloaded:
 *
 *   gcc -shared -fPIC -O2 -o build/failed-calls.so research/diagnose/failed-calls.c -ldl
 *   LD_PRELOAD=$PWD/build/failed-calls.so build/confine/confine --read build -- PROGRAM
 *
 * Each failing open, openat, fopen, access, stat, mkdir, socket, connect,
 * memfd_create, ioctl, write, readlink or unlink prints one line on stderr:
 * "failed-call: open("/dev/nvidia-uvm", 0x2) = -1 EACCES". Calls the
 * library makes through raw system calls are not seen. Diagnosis only: not
 * part of any build.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

static void report(const char *call, const char *what, long arg, int err)
{
    char line[512];
    int n = snprintf(line, sizeof line, "failed-call: %s(\"%s\", 0x%lx) = -1 %s\n", call, what ? what : "", arg,
                     strerrorname_np(err) ? strerrorname_np(err) : "?");
    if (n > 0)
        (void)!write(2, line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1);
    errno = err;
}

#define NEXT(name) static __typeof__(name) *next; if (!next) next = (__typeof__(name) *)dlsym(RTLD_NEXT, #name)

#define OPEN_LIKE(fn)                                                   \
    int fn(const char *path, int flags, ...)                            \
    {                                                                   \
        NEXT(fn);                                                       \
        va_list ap;                                                     \
        va_start(ap, flags);                                            \
        mode_t mode = (mode_t)va_arg(ap, int);                          \
        va_end(ap);                                                     \
        int r = next(path, flags, mode);                                \
        if (r < 0) report(#fn, path, flags, errno);                     \
        return r;                                                       \
    }
OPEN_LIKE(open)
OPEN_LIKE(open64)

#define OPENAT_LIKE(fn)                                                 \
    int fn(int dir, const char *path, int flags, ...)                   \
    {                                                                   \
        NEXT(fn);                                                       \
        va_list ap;                                                     \
        va_start(ap, flags);                                            \
        mode_t mode = (mode_t)va_arg(ap, int);                          \
        va_end(ap);                                                     \
        int r = next(dir, path, flags, mode);                           \
        if (r < 0) report(#fn, path, flags, errno);                     \
        return r;                                                       \
    }
OPENAT_LIKE(openat)
OPENAT_LIKE(openat64)

FILE *fopen(const char *path, const char *mode)
{
    NEXT(fopen);
    FILE *f = next(path, mode);
    if (!f) report("fopen", path, mode[0], errno);
    return f;
}
FILE *fopen64(const char *path, const char *mode)
{
    NEXT(fopen64);
    FILE *f = next(path, mode);
    if (!f) report("fopen64", path, mode[0], errno);
    return f;
}
/* a call on a path: TYPE NAME(PARAMS), called with ARGS, ARG reported */
#define PATH_CALL(type, name, params, args, arg)                        \
    type name params                                                    \
    {                                                                   \
        NEXT(name);                                                     \
        type r = next args;                                             \
        if (r < 0) report(#name, path, (long)(arg), errno);             \
        return r;                                                       \
    }
PATH_CALL(int, access, (const char *path, int how), (path, how), how)
PATH_CALL(int, stat, (const char *path, struct stat *st), (path, st), 0)
PATH_CALL(int, mkdir, (const char *path, mode_t mode), (path, mode), mode)
PATH_CALL(int, unlink, (const char *path), (path), 0)
PATH_CALL(ssize_t, readlink, (const char *path, char *buf, size_t len), (path, buf, len), 0)
PATH_CALL(int, chmod, (const char *path, mode_t mode), (path, mode), mode)
PATH_CALL(int, mknod, (const char *path, mode_t mode, dev_t dev), (path, mode, dev), mode)
int socket(int domain, int type, int protocol)
{
    NEXT(socket);
    int r = next(domain, type, protocol);
    if (r < 0) report("socket", "", domain, errno);
    return r;
}
int connect(int fd, const struct sockaddr *a, socklen_t len)
{
    NEXT(connect);
    int r = next(fd, a, len);
    if (r < 0) report("connect", a && a->sa_family == AF_UNIX ? a->sa_data : "", fd, errno);
    return r;
}
int memfd_create(const char *name, unsigned flags)
{
    NEXT(memfd_create);
    int r = next(name, flags);
    if (r < 0) report("memfd_create", name, flags, errno);
    return r;
}
int ioctl(int fd, unsigned long request, ...)
{
    NEXT(ioctl);
    va_list ap;
    va_start(ap, request);
    void *arg = va_arg(ap, void *);
    va_end(ap);
    int r = next(fd, request, arg);
    if (r < 0) {
        char what[64];
        snprintf(what, sizeof what, "fd %d", fd);
        report("ioctl", what, (long)request, errno);
    }
    return r;
}
ssize_t write(int fd, const void *buf, size_t len)
{
    NEXT(write);
    ssize_t r = next(fd, buf, len);
    if (r < 0 && fd != 2) {
        char what[64];
        snprintf(what, sizeof what, "fd %d", fd);
        report("write", what, (long)len, errno);
    }
    return r;
}

/* new processes and programs: refused in the confinement */
#include <spawn.h>
#include <sys/resource.h>
pid_t fork(void)
{
    NEXT(fork);
    pid_t r = next();
    if (r < 0) report("fork", "", 0, errno);
    return r;
}
int posix_spawn(pid_t *pid, const char *path, const posix_spawn_file_actions_t *fa, const posix_spawnattr_t *at,
                char *const argv[], char *const envp[])
{
    NEXT(posix_spawn);
    int r = next(pid, path, fa, at, argv, envp);
    if (r) report("posix_spawn", path, 0, r);
    return r;
}
int execve(const char *path, char *const argv[], char *const envp[])
{
    NEXT(execve);
    int r = next(path, argv, envp);
    report("execve", path, 0, errno);
    return r;
}
int execv(const char *path, char *const argv[])
{
    NEXT(execv);
    int r = next(path, argv);
    report("execv", path, 0, errno);
    return r;
}
int setrlimit(__rlimit_resource_t res, const struct rlimit *rl)
{
    NEXT(setrlimit);
    int r = next(res, rl);
    if (r < 0) report("setrlimit", "", res, errno);
    return r;
}
