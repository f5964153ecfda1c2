/*
 * attack.c: what a hostile submission's host code would try, one attempt per
 * run, for tests/confine/run.sh. Each is written the way a student could
 * write it in kernel.cu: libc, functions looked up at run time, or a raw
 * system-call instruction.
 *
 *   attack NAME [ARG]
 *
 * Exit status: 0 the attempt succeeded ("ESCAPED ..." on stdout), 1 it was
 * refused ("refused ..."), 2 usage. A few are controls that must succeed
 * under confinement too (threads, stdout, the build folder).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/personality.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/shm.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

/* a function whose code an attempt rewrites (not inlined: called through a pointer) */
__attribute__((noinline)) static int forty_one(void) { return 41; }

/* A tiny shared library's bytes (tests/confine/run.sh builds it and names
 * it at compile time), held in the program as a kernel.cu could hold
 * cuBLAS's: the memory probes try to make them code again. */
#ifdef LAB_TINY_SO
__asm__(".section .rodata\n.globl lab_tiny_so\nlab_tiny_so:\n.incbin \"" LAB_TINY_SO "\"\n"
        ".globl lab_tiny_so_end\nlab_tiny_so_end:\n.previous");
extern const char lab_tiny_so[], lab_tiny_so_end[];
#endif

static int result(int ok, const char *what)
{
    if (ok)
        printf("ESCAPED %s\n", what);
    else
        printf("refused %s: %s\n", what, strerror(errno));
    return ok ? 0 : 1;
}

/* openat through the system-call instruction itself, not libc */
static long raw_openat(const char *path, int flags, int mode)
{
#if defined(__x86_64__)
    long ret;
    register long r10 __asm__("r10") = mode;
    __asm__ volatile("syscall" : "=a"(ret) : "0"(257L), "D"(-100L), "S"(path), "d"((long)flags), "r"(r10)
                     : "rcx", "r11", "memory");
    return ret;
#elif defined(__aarch64__)
    register long x8 __asm__("x8") = 56, x0 __asm__("x0") = -100, x1 __asm__("x1") = (long)path,
                  x2 __asm__("x2") = flags, x3 __asm__("x3") = mode;
    __asm__ volatile("svc 0" : "+r"(x0) : "r"(x8), "r"(x1), "r"(x2), "r"(x3) : "memory");
    return x0;
#else
    return syscall(SYS_openat, AT_FDCWD, path, flags, mode);
#endif
}

/* Machine code of "return 42;", for the probes that make memory executable. */
#if defined(__x86_64__)
static const unsigned char ret42[] = {0xb8, 0x2a, 0, 0, 0, 0xc3}; /* mov eax, 42; ret */
#elif defined(__aarch64__)
static const unsigned char ret42[] = {0x40, 0x05, 0x80, 0x52, 0xc0, 0x03, 0x5f, 0xd6}; /* mov w0, 42; ret */
#else
static const unsigned char ret42[] = {0};
#endif

/* Copy ret42 into p, which must be executable, and run it: 1 when it ran. */
static int run_code(void *p)
{
    memcpy(p, ret42, sizeof ret42);
    __builtin___clear_cache((char *)p, (char *)p + sizeof ret42);
    return ((int (*)(void))p)() == 42;
}

/* The tiny library written to descriptor fd, then loaded through
 * /proc/self/fd/N, as cuBLAS was rebuilt from its bytes: 1 when its
 * function ran. */
static int load_from_fd(int fd)
{
#ifdef LAB_TINY_SO
    size_t len = (size_t)(lab_tiny_so_end - lab_tiny_so);
    if (fd < 0 || write(fd, lab_tiny_so, len) != (ssize_t)len)
        return 0;
    char path[64];
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    void *h = dlopen(path, RTLD_NOW);
    if (!h) {
        printf("dlopen: %s\n", dlerror());
        return 0;
    }
    int (*f)(void) = (int (*)(void))dlsym(h, "lab_tiny");
    return f && f() == 42;
#else
    (void)fd;
    errno = ENOSYS;
    return 0;
#endif
}

static void *thread_body(void *arg)
{
    *(int *)arg = 42;
    return NULL;
}

/* A thread that lives until *arg is 1 (so that it can be named meanwhile). */
static void *waiting_body(void *arg)
{
    while (!__atomic_load_n((int *)arg, __ATOMIC_ACQUIRE))
        sched_yield();
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc < 2)
        return 2;
    const char *a = argv[1], *arg = argc > 2 ? argv[2] : "";
    char path[4096];
    if (!strcmp(a, "write-file")) { /* a file in the class folder */
        snprintf(path, sizeof path, "%s/planted-by-attack", arg);
        int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        return result(fd >= 0 && write(fd, "x", 1) == 1, "created a file");
    }
    if (!strcmp(a, "append-file")) { /* an existing file: the gradebook */
        int fd = open(arg, O_WRONLY | O_APPEND);
        return result(fd >= 0 && write(fd, "forged\n", 7) == 7, "appended to a file");
    }
    if (!strcmp(a, "raw-write-file")) {
        snprintf(path, sizeof path, "%s/planted-by-raw-syscall", arg);
        long fd = raw_openat(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd < 0)
            errno = (int)-fd;
        return result(fd >= 0, "created a file with a raw system call");
    }
    if (!strcmp(a, "read-file")) { /* another student's kernel.cu */
        FILE *f = fopen(arg, "r");
        char buf[64];
        return result(f && fread(buf, 1, sizeof buf, f) > 0, "read a file");
    }
    if (!strcmp(a, "list-dir")) {
        int fd = open(arg, O_RDONLY | O_DIRECTORY);
        return result(fd >= 0, "opened a folder");
    }
    if (!strcmp(a, "dlsym-fopen")) { /* libc found at run time, as in a forged record */
        FILE *(*f)(const char *, const char *) = (FILE * (*)(const char *, const char *))dlsym(RTLD_DEFAULT, "fopen");
        snprintf(path, sizeof path, "%s/grade.json", arg);
        FILE *out = f ? f(path, "w") : NULL;
        return result(out && fputs("{\"score\": 70}\n", out) >= 0 && fclose(out) == 0,
                      "wrote grade.json through a function found at run time");
    }
    if (!strcmp(a, "fork")) {
        pid_t p = fork();
        if (p == 0)
            _exit(0);
        return result(p > 0, "started a process with fork");
    }
    if (!strcmp(a, "spawn")) { /* posix_spawn and system() use clone(CLONE_VFORK) */
        pid_t p;
        char *args[] = {"/bin/true", NULL};
        int rc = posix_spawn(&p, "/bin/true", NULL, NULL, args, environ);
        errno = rc;
        return result(rc == 0, "started a process with posix_spawn");
    }
    if (!strcmp(a, "daemon")) { /* a background process that outlives the run */
        pid_t p = fork();
        if (p == 0) {
            setsid();
            sleep(3);
            int fd = open(arg, O_WRONLY | O_CREAT, 0644);
            if (fd >= 0)
                write(fd, "alive\n", 6);
            _exit(0);
        }
        return result(p > 0, "left a process behind");
    }
    if (!strcmp(a, "exec")) {
        char *args[] = {"/bin/sh", "-c", "true", NULL};
        execve("/bin/sh", args, environ);
        return result(0, "exec'd /bin/sh");
    }
    if (!strcmp(a, "exec-memfd")) { /* a program written into memory, then run */
        int fd = memfd_create("x", 0), src = open("/bin/true", O_RDONLY);
        char buf[65536];
        ssize_t n;
        while (fd >= 0 && src >= 0 && (n = read(src, buf, sizeof buf)) > 0)
            if (write(fd, buf, (size_t)n) != n)
                break;
        char *args[] = {"true", NULL};
        if (fd >= 0)
            fexecve(fd, args, environ);
        return result(0, "exec'd a program from memory");
    }
    if (!strcmp(a, "socket-inet")) {
        int s = socket(AF_INET, SOCK_STREAM, 0);
        return result(s >= 0, "opened a TCP socket");
    }
    if (!strcmp(a, "socket-unix")) {
        int s = socket(AF_UNIX, SOCK_STREAM, 0);
        struct sockaddr_un addr = {AF_UNIX, {0}};
        snprintf(addr.sun_path, sizeof addr.sun_path, "%s", arg);
        return result(s >= 0 && connect(s, (struct sockaddr *)&addr, sizeof addr) == 0,
                      "connected to a UNIX socket");
    }
    if (!strcmp(a, "socket-unix-dgram")) { /* a datagram needs no connect */
        int s = socket(AF_UNIX, SOCK_DGRAM, 0);
        struct sockaddr_un addr = {AF_UNIX, {0}};
        snprintf(addr.sun_path, sizeof addr.sun_path, "%s", arg);
        return result(s >= 0 && sendto(s, "x", 1, 0, (struct sockaddr *)&addr, sizeof addr) == 1,
                      "sent a datagram to a UNIX socket");
    }
    if (!strcmp(a, "mps-probe")) { /* the CUDA driver looks for the MPS daemon so */
        int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        struct sockaddr_un addr = {AF_UNIX, {0}};
        snprintf(addr.sun_path, sizeof addr.sun_path, "%s", arg);
        int c = s >= 0 ? connect(s, (struct sockaddr *)&addr, sizeof addr) : 0;
        int ok = s >= 0 && c < 0 && errno == ENOENT;
        printf("%s a UNIX stream socket: %s\n", ok ? "opened" : "could not open",
               s < 0 ? strerror(errno) : c < 0 ? strerror(errno) : "connected");
        return ok ? 0 : 1;
    }
    if (!strcmp(a, "kill")) { /* the judge, the grader, another student's run */
        return result(kill(atoi(arg), SIGKILL) == 0, "signalled another process");
    }
    if (!strcmp(a, "ptrace")) {
        return result(ptrace(PTRACE_ATTACH, atoi(arg), 0, 0) == 0, "attached to another process");
    }
    if (!strcmp(a, "renice")) {
        return result(setpriority(PRIO_PROCESS, (id_t)atoi(arg), 19) == 0, "reniced another process");
    }
    if (!strcmp(a, "proc-environ")) {
        snprintf(path, sizeof path, "/proc/%s/environ", arg);
        FILE *f = fopen(path, "r");
        char buf[64];
        return result(f && fread(buf, 1, sizeof buf, f) > 0, "read another process's environment");
    }
    if (!strcmp(a, "proc-root")) { /* a file through /proc/self/root */
        snprintf(path, sizeof path, "/proc/self/root%s", arg);
        FILE *f = fopen(path, "r");
        char buf[64];
        return result(f && fread(buf, 1, sizeof buf, f) > 0, "read a file through /proc/self/root");
    }
    if (!strcmp(a, "unshare")) {
        return result(unshare(CLONE_NEWUSER) == 0, "made a new user namespace");
    }
    if (!strcmp(a, "io-uring")) {
        char params[120] = {0};
        return result(syscall(425 /* io_uring_setup */, 4, params) >= 0, "set up io_uring");
    }
    if (!strcmp(a, "int80")) { /* the 32-bit entry point: getpid is 20 there */
#if defined(__x86_64__)
        long ret = 20;
        __asm__ volatile("int $0x80" : "+a"(ret) : : "memory");
        return result(ret > 0, "made a 32-bit system call");
#else
        errno = ENOSYS;
        return result(0, "made a 32-bit system call");
#endif
    }
    /* memory that becomes code: what no honest runner needs */
    if (!strcmp(a, "memfd-dlopen")) { /* a library rebuilt in memory and loaded */
        return result(load_from_fd(memfd_create("lib", 0)), "loaded a library written into a memfd");
    }
    if (!strcmp(a, "tmpfile-dlopen")) { /* an unnamed file (O_TMPFILE) in the run's /dev/shm */
        return result(load_from_fd(open(arg, O_TMPFILE | O_RDWR, 0700)), "loaded a library written into an O_TMPFILE");
    }
    if (!strcmp(a, "openat2-dlopen")) { /* the same through openat2, whose flags a filter cannot read */
        struct { unsigned long long flags, mode, resolve; } how = {O_TMPFILE | O_RDWR, 0700, 0};
        long fd = syscall(437 /* openat2 */, AT_FDCWD, arg, &how, sizeof how);
        return result(load_from_fd((int)fd), "loaded a library written into an openat2 O_TMPFILE");
    }
    if (!strcmp(a, "file-dlopen")) { /* a file of its own in the run's /dev/shm */
        snprintf(path, sizeof path, "%s/lib-%d.so", arg, (int)getpid());
        return result(load_from_fd(open(path, O_RDWR | O_CREAT | O_TRUNC, 0700)),
                      "loaded a library it wrote into a file");
    }
    if (!strcmp(a, "mmap-exec")) { /* anonymous memory mapped writable and executable */
        void *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        return result(p != MAP_FAILED && run_code(p), "ran code in anonymous executable memory");
    }
    if (!strcmp(a, "mprotect-exec")) { /* written first, then made executable */
        void *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p != MAP_FAILED)
            memcpy(p, ret42, sizeof ret42);
        return result(p != MAP_FAILED && mprotect(p, 4096, PROT_READ | PROT_WRITE | PROT_EXEC) == 0 && run_code(p),
                      "made anonymous memory executable (mprotect)");
    }
    if (!strcmp(a, "pkey-mprotect-exec")) { /* the same through pkey_mprotect, key -1 */
        void *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        return result(p != MAP_FAILED &&
                          syscall(SYS_pkey_mprotect, p, 4096, PROT_READ | PROT_WRITE | PROT_EXEC, -1) == 0 &&
                          run_code(p),
                      "made anonymous memory executable (pkey_mprotect)");
    }
    if (!strcmp(a, "mprotect-data")) { /* the program's own writable memory: a page of its data */
        static char page[3 * 4096];
        char *p = (char *)(((unsigned long)page + 4095) & ~4095UL);
        return result(mprotect(p, 4096, PROT_READ | PROT_WRITE | PROT_EXEC) == 0 && run_code(p),
                      "made its writable data executable (mprotect)");
    }
    if (!strcmp(a, "file-mmap-wx")) { /* a file it may read (its own program), mapped private, writable and executable */
        int fd = open(arg, O_RDONLY);
        void *p = fd >= 0 ? mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE, fd, 0) : MAP_FAILED;
        return result(p != MAP_FAILED && run_code(p), "ran code written into a private mapping of a file");
    }
    if (!strcmp(a, "file-mprotect-exec")) { /* the same mapping written first, then made executable */
        int fd = open(arg, O_RDONLY);
        void *p = fd >= 0 ? mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0) : MAP_FAILED;
        if (p != MAP_FAILED)
            memcpy(p, ret42, sizeof ret42);
        return result(p != MAP_FAILED && mprotect(p, 4096, PROT_READ | PROT_WRITE | PROT_EXEC) == 0 && run_code(p),
                      "made a written private mapping of a file executable (mprotect)");
    }
    if (!strcmp(a, "proc-self-mem")) { /* its own code rewritten through /proc/self/mem, which ignores page protections */
        int (*volatile target)(void);
        int fd = open("/proc/self/mem", O_RDWR);
        target = (int (*)(void))(void *)thread_body; /* a function of its own, in its code */
        if (fd < 0 || pwrite(fd, ret42, sizeof ret42, (off_t)(unsigned long)target) != (ssize_t)sizeof ret42)
            return result(0, "rewrote its own code through /proc/self/mem");
        return result(target() == 42, "rewrote its own code through /proc/self/mem");
    }
    if (!strcmp(a, "shmat-exec")) { /* System V shared memory attached executable */
        int id = shmget(IPC_PRIVATE, 4096, IPC_CREAT | 0600);
        void *p = id >= 0 ? shmat(id, NULL, SHM_EXEC) : (void *)-1;
        if (id >= 0)
            shmctl(id, IPC_RMID, NULL);
        return result(p != (void *)-1 && run_code(p), "ran code in shared memory attached with SHM_EXEC");
    }
    if (!strcmp(a, "read-implies-exec")) { /* every readable mapping executable, no PROT_EXEC asked */
        int old = personality(0xffffffff);
        if (old == -1 || personality((unsigned long)old | READ_IMPLIES_EXEC) == -1)
            return result(0, "set READ_IMPLIES_EXEC");
        void *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        return result(p != MAP_FAILED && run_code(p), "ran code in memory mapped without PROT_EXEC (READ_IMPLIES_EXEC)");
    }
    if (!strcmp(a, "dev-shm")) { /* allowed, but private to the run */
        snprintf(path, sizeof path, "/dev/shm/%s", arg);
        int fd = open(path, O_WRONLY | O_CREAT, 0644);
        return result(fd >= 0, "created a file in /dev/shm");
    }
    /* controls: what a kernel launcher needs keeps working */
    if (!strcmp(a, "thread")) {
        pthread_t t;
        int v = 0;
        int rc = pthread_create(&t, NULL, thread_body, &v);
        if (rc == 0)
            pthread_join(t, NULL);
        errno = rc;
        return result(rc == 0 && v == 42, "started a thread");
    }
    if (!strcmp(a, "thread-name")) { /* the CUDA driver names its threads */
        pthread_t t;
        int done = 0, rc = pthread_create(&t, NULL, waiting_body, &done);
        if (rc == 0) {
            rc = pthread_setname_np(t, "confined"); /* another thread's: /proc/self/task/<tid>/comm */
            /* as the CUDA driver names them: fopen "w", which truncates */
            char comm[64];
            snprintf(comm, sizeof comm, "/proc/self/task/%ld/comm", (long)syscall(SYS_gettid));
            FILE *f = rc ? NULL : fopen(comm, "w");
            if (!rc && (!f || fputs("confined2", f) < 0 || fclose(f)))
                rc = errno ? errno : EIO;
            __atomic_store_n(&done, 1, __ATOMIC_RELEASE);
            pthread_join(t, NULL);
        }
        errno = rc;
        return result(rc == 0, "named a thread");
    }
    if (!strcmp(a, "task-mem")) { /* its own code rewritten through /proc/self/task/TID/mem */
        snprintf(path, sizeof path, "/proc/self/task/%ld/mem", (long)syscall(SYS_gettid));
        int fd = open(path, O_RDWR);
        static const unsigned char ret42[] = {0xb8, 42, 0, 0, 0, 0xc3}; /* x86-64: mov eax, 42; ret */
        int (*volatile f)(void) = forty_one;
        if (fd < 0 || pwrite(fd, ret42, sizeof ret42, (off_t)(uintptr_t)f) != (ssize_t)sizeof ret42)
            return result(0, "rewrote its own code through /proc/self/task/TID/mem");
        return result(f() == 42, "rewrote its own code through /proc/self/task/TID/mem");
    }
    if (!strcmp(a, "write-proc")) { /* outside its own task folder: refused */
        snprintf(path, sizeof path, "/proc/%s/oom_score_adj", arg);
        int fd = open(path, O_WRONLY);
        return result(fd >= 0 && write(fd, "1000", 4) == 4, "wrote another process's /proc entry");
    }
    if (!strcmp(a, "stdout")) {
        return result(printf("hello from the confined program\n") > 0 && fflush(stdout) == 0, "wrote stdout");
    }
    if (!strcmp(a, "exit")) {
        exit(atoi(arg));
    }
    if (!strcmp(a, "abort")) {
        abort();
    }
    fprintf(stderr, "attack: unknown attempt '%s'\n", a);
    return 2;
}
