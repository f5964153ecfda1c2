/*
 * seccomp.c: the system calls the program may not make (see confine.h).
 *
 * A classic BPF filter, checked by the kernel on every system call however
 * it is made (libc, a function found at run time, or a raw syscall
 * instruction). It refuses, with an error the program can see:
 *
 *   - new processes: fork, vfork, clone without CLONE_THREAD (threads, which
 *     the CUDA runtime starts, are allowed, but not to a runner with no
 *     GPU: confine --no-gpu), clone3 (whose flags a filter cannot read:
 *     ENOSYS makes libc fall back to clone);
 *   - other programs: execve, and execveat but the one confine makes;
 *   - code that was not linked in: memory never becomes executable unless
 *     it maps a file privately and read-only (what the loader does with a
 *     library): no memfd_create, no executable anonymous, shared or
 *     writable mapping, no mprotect or pkey_mprotect that adds execution,
 *     no SysV segment attached with SHM_EXEC, no READ_IMPLIES_EXEC
 *     personality, no remap_file_pages. The files it may map at all are
 *     Landlock's to say (its program, its libraries, the driver's), and
 *     its one writable folder, the private /dev/shm, is mounted noexec;
 *   - the network: no socket but a UNIX one (the CUDA driver opens one),
 *     no connect at all and no datagram to an address, so no connection
 *     of any kind;
 *   - other processes: ptrace, process_vm_readv/writev, pidfd_open/getfd/
 *     send_signal, kcmp (the PID namespace already hides them);
 *   - escapes and kernel surface: mount, umount2, pivot_root, chroot,
 *     unshare, setns, open_by_handle_at, bpf, perf_event_open, userfaultfd,
 *     io_uring_*, keyctl and friends, and loading modules or kexec.
 *
 * A build's filter (confine --build) lets processes and programs through:
 * a compiler is many programs (nvcc starts the preprocessor, cicc, ptxas,
 * the host compiler and the assembler); the rest of the list stays refused.
 *
 * On x86-64 it kills a process that enters through a 32-bit entry point
 * (int 0x80, with other system-call numbers) or uses the x32 numbers:
 * otherwise those would be a way around the list.
 *
 * The filter is written as rules, each a short block that loads what it
 * tests and either returns or falls through to the next rule; a jump's
 * offset is computed from the labels it joins (jump_here), never counted.
 */
#include "confine.h"

#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/shm.h>
#include <sys/socket.h>
#include <sys/syscall.h>

#if defined(__x86_64__)
#define NATIVE_ARCH AUDIT_ARCH_X86_64
#define X32_BIT 0x40000000u
#elif defined(__aarch64__)
#define NATIVE_ARCH AUDIT_ARCH_AARCH64
#else
#error "confine knows the system calls of x86-64 and aarch64 only"
#endif

/* Refused with EPERM. Names a kernel header lacks are skipped. */
static const int DENIED[] = {
    __NR_ptrace, __NR_process_vm_readv, __NR_process_vm_writev, __NR_kcmp,
#ifdef __NR_pidfd_open
    __NR_pidfd_open,
#endif
#ifdef __NR_pidfd_getfd
    __NR_pidfd_getfd,
#endif
#ifdef __NR_pidfd_send_signal
    __NR_pidfd_send_signal,
#endif
    __NR_mount, __NR_umount2, __NR_pivot_root, __NR_chroot, __NR_unshare, __NR_setns,
    __NR_open_by_handle_at, __NR_name_to_handle_at, __NR_bpf, __NR_perf_event_open, __NR_userfaultfd,
#ifdef __NR_io_uring_setup
    __NR_io_uring_setup, __NR_io_uring_enter, __NR_io_uring_register,
#endif
#ifdef __NR_fsopen
    __NR_fsopen, __NR_fsmount, __NR_fsconfig, __NR_fspick, __NR_move_mount, __NR_open_tree,
#endif
    __NR_keyctl, __NR_add_key, __NR_request_key, __NR_init_module, __NR_finit_module, __NR_delete_module,
    __NR_kexec_load,
#ifdef __NR_kexec_file_load
    __NR_kexec_file_load,
#endif
    __NR_reboot, __NR_swapon, __NR_swapoff, __NR_acct, __NR_quotactl,
#ifdef __NR_iopl
    __NR_iopl, __NR_ioperm,
#endif
};

/* Refused with EPERM to a program, allowed to a build (a compiler starts
 * processes): new processes and code from memory. */
static const int DENIED_TO_A_PROGRAM[] = {
#ifdef __NR_fork
    __NR_fork,
#endif
#ifdef __NR_vfork
    __NR_vfork,
#endif
    __NR_execve, __NR_memfd_create, __NR_remap_file_pages,
};

#define RET_ERRNO(e) (SECCOMP_RET_ERRNO | ((e) & SECCOMP_RET_DATA))
#define ARG_LO(i) ((unsigned)offsetof(struct seccomp_data, args[i]))
#define ARG_HI(i) ((unsigned)offsetof(struct seccomp_data, args[i]) + 4)

enum { MAX = 256 };
typedef struct {
    struct sock_filter f[MAX];
    int n;
} filter;

static void put(filter *p, struct sock_filter s)
{
    if (p->n < MAX)
        p->f[p->n] = s;
    p->n++; /* counted past MAX too: judge_confine_seccomp refuses a filter too long */
}
static void load(filter *p, unsigned offset) { put(p, (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offset)); }
static void ret(filter *p, unsigned action) { put(p, (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, action)); }
/* A conditional jump whose targets are set later (jump_here): returns its
 * place. op: BPF_JEQ, BPF_JSET or BPF_JGE, against k. */
static int jump(filter *p, unsigned op, unsigned k)
{
    put(p, (struct sock_filter)BPF_JUMP(BPF_JMP | op | BPF_K, k, 0, 0));
    return p->n - 1;
}
/* Make the true (when) or false branch of the jump at `at` land on the
 * next instruction to be put. */
static void jump_here(filter *p, int at, int when)
{
    if (at >= MAX || p->n >= MAX)
        return;
    unsigned char off = (unsigned char)(p->n - at - 1);
    if (when)
        p->f[at].jt = off;
    else
        p->f[at].jf = off;
}

/* Rule: the call nr returns action. */
static void refuse_call(filter *p, int nr, unsigned action)
{
    load(p, offsetof(struct seccomp_data, nr));
    int is_call = jump(p, BPF_JEQ, (unsigned)nr);
    jump_here(p, is_call, 1);
    ret(p, action);
    jump_here(p, is_call, 0);
}

/* Rule: the call nr, when the low word of argument arg has any of bits,
 * returns action. */
static void refuse_call_with_bits(filter *p, int nr, int arg, unsigned bits, unsigned action)
{
    load(p, offsetof(struct seccomp_data, nr));
    int is_call = jump(p, BPF_JEQ, (unsigned)nr);
    jump_here(p, is_call, 1);
    load(p, ARG_LO(arg));
    int has = jump(p, BPF_JSET, bits);
    jump_here(p, has, 1);
    ret(p, action);
    jump_here(p, is_call, 0);
    jump_here(p, has, 0);
}

/* Rule: the call nr, when its 64-bit argument arg is not value, returns
 * action. */
static void refuse_call_unless_arg(filter *p, int nr, int arg, unsigned long long value, unsigned action)
{
    load(p, offsetof(struct seccomp_data, nr));
    int is_call = jump(p, BPF_JEQ, (unsigned)nr);
    jump_here(p, is_call, 1);
    load(p, ARG_LO(arg));
    int lo = jump(p, BPF_JEQ, (unsigned)(value & 0xffffffffu));
    jump_here(p, lo, 1);
    load(p, ARG_HI(arg));
    int hi = jump(p, BPF_JEQ, (unsigned)(value >> 32));
    jump_here(p, lo, 0);
    jump_here(p, hi, 0);
    ret(p, action);
    jump_here(p, is_call, 0);
    jump_here(p, hi, 1);
}

/* The architecture first (system-call numbers mean nothing without it),
 * then no x32 numbers. */
static void native_calls_only(filter *p)
{
    load(p, offsetof(struct seccomp_data, arch));
    int native = jump(p, BPF_JEQ, NATIVE_ARCH);
    jump_here(p, native, 0);
    ret(p, SECCOMP_RET_KILL_PROCESS);
    jump_here(p, native, 1);
#ifdef X32_BIT
    load(p, offsetof(struct seccomp_data, nr));
    int x32 = jump(p, BPF_JGE, X32_BIT);
    jump_here(p, x32, 1);
    ret(p, SECCOMP_RET_KILL_PROCESS);
    jump_here(p, x32, 0);
#endif
}

/* Sockets: the CUDA driver opens a UNIX socket to look for the MPS daemon,
 * and fails to initialize if it cannot open one, but takes a refused
 * connection as "no daemon". So: UNIX sockets may be opened (of no use
 * outside: a private network namespace for abstract names, Landlock for
 * files), every connect is refused with ENOENT, a datagram to an address
 * (sendto with one, sendmsg, sendmmsg) with EACCES, and every other kind
 * of socket with EACCES. */
static void no_network(filter *p)
{
    refuse_call(p, __NR_connect, RET_ERRNO(ENOENT));
    refuse_call(p, __NR_sendmsg, RET_ERRNO(EACCES));
    refuse_call(p, __NR_sendmmsg, RET_ERRNO(EACCES));
    refuse_call_unless_arg(p, __NR_sendto, 4, 0, RET_ERRNO(EACCES));
    refuse_call_unless_arg(p, __NR_socket, 0, AF_UNIX, RET_ERRNO(EACCES));
}

/* A program (not a build): no process, no other program, and no memory
 * that becomes code unless it maps a file, privately and read-only; no
 * thread either where `threads` is 0. */
static void one_program_of_linked_code(filter *p, const void *exec_path, int threads)
{
    for (size_t i = 0; i < sizeof DENIED_TO_A_PROGRAM / sizeof DENIED_TO_A_PROGRAM[0]; i++)
        refuse_call(p, DENIED_TO_A_PROGRAM[i], RET_ERRNO(EPERM));
#ifdef __NR_clone3
    /* clone3, whose flags a filter cannot read: ENOSYS, and libc falls back to clone */
    refuse_call(p, __NR_clone3, RET_ERRNO(ENOSYS));
#endif
    /* clone: threads (CLONE_THREAD in the low word of the flags, the first
     * argument on both architectures) yes, processes no; a runner with no
     * GPU (confine --no-gpu) has no CUDA runtime to start threads, and
     * threads of its own could keep every core busy while the judge times
     * an empty batch beside it (the clock would count that wait as what a
     * round trip costs, and take it off the student's calls): none */
    if (!threads)
        refuse_call(p, __NR_clone, RET_ERRNO(EPERM));
    load(p, offsetof(struct seccomp_data, nr));
    int is_clone = jump(p, BPF_JEQ, __NR_clone);
    jump_here(p, is_clone, 1);
    load(p, ARG_LO(0));
    int thread = jump(p, BPF_JSET, CLONE_THREAD);
    jump_here(p, thread, 0);
    ret(p, RET_ERRNO(EPERM));
    jump_here(p, is_clone, 0);
    jump_here(p, thread, 1);
    /* execveat: once, by confine itself (of the program's descriptor),
     * whose path string is at exec_path; a program cannot know that
     * address (confine is built position-independent, so its memory is
     * laid out at random, and it is gone after the exec), so no other
     * passes. Were it guessed, Landlock still lets only the program itself
     * be executed again */
    refuse_call_unless_arg(p, __NR_execveat, 1, (unsigned long long)(uintptr_t)exec_path, RET_ERRNO(EPERM));
    /* mmap with PROT_EXEC: only of a file, privately, not writable */
    load(p, offsetof(struct seccomp_data, nr));
    int is_mmap = jump(p, BPF_JEQ, __NR_mmap);
    jump_here(p, is_mmap, 1);
    load(p, ARG_LO(2));
    int exec = jump(p, BPF_JSET, PROT_EXEC);
    jump_here(p, exec, 1);
    int writable = jump(p, BPF_JSET, PROT_WRITE);
    jump_here(p, writable, 0);
    load(p, ARG_LO(3));
    int not_a_private_file = jump(p, BPF_JSET, MAP_ANONYMOUS | MAP_SHARED);
    jump_here(p, writable, 1);
    jump_here(p, not_a_private_file, 1);
    ret(p, RET_ERRNO(EPERM));
    jump_here(p, is_mmap, 0);
    jump_here(p, exec, 0);
    jump_here(p, not_a_private_file, 0);
    /* no mapping gains execution later, nor a SysV segment */
    refuse_call_with_bits(p, __NR_mprotect, 2, PROT_EXEC, RET_ERRNO(EPERM));
#ifdef __NR_pkey_mprotect
    refuse_call_with_bits(p, __NR_pkey_mprotect, 2, PROT_EXEC, RET_ERRNO(EPERM));
#endif
    refuse_call_with_bits(p, __NR_shmat, 2, SHM_EXEC, RET_ERRNO(EPERM));
    /* personality: asking (0xffffffff) yes; READ_IMPLIES_EXEC, which makes
     * every readable mapping executable, no (nor any other change) */
    refuse_call_unless_arg(p, __NR_personality, 0, 0xffffffffu, RET_ERRNO(EPERM));
}

int judge_confine_seccomp(const void *exec_path, int processes, int threads, char *why, size_t len)
{
    static filter p;
    p.n = 0;
    native_calls_only(&p);
    no_network(&p);
    for (size_t i = 0; i < sizeof DENIED / sizeof DENIED[0]; i++)
        refuse_call(&p, DENIED[i], RET_ERRNO(EPERM));
    /* a build: processes and programs; the rest of the list stays refused */
    if (!processes)
        one_program_of_linked_code(&p, exec_path, threads);
    ret(&p, SECCOMP_RET_ALLOW);
    if (p.n > MAX) {
        snprintf(why, len, "the system-call filter is too long (%d instructions, %d at most)", p.n, MAX);
        return -1;
    }
    struct sock_fprog prog = {(unsigned short)p.n, p.f};
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) || prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog)) {
        snprintf(why, len, "cannot install the system-call filter: %s", strerror(errno));
        return -1;
    }
    return 0;
}
