/*
 * seccomp.c: the system calls the program may not make (see confine.h).
 *
 * A classic BPF filter, checked by the kernel on every system call however
 * it is made (libc, a function found at run time, or a raw syscall
 * instruction). It refuses, with an error the program can see:
 *
 *   - new processes: fork, vfork, clone without CLONE_THREAD (threads, which
 *     the CUDA runtime starts, are allowed), clone3 (whose flags a filter
 *     cannot read: ENOSYS makes libc fall back to clone);
 *   - other programs: execve, and execveat but the one confine makes;
 *   - the network: no socket but a UNIX one (the CUDA driver opens one),
 *     no connect at all and no datagram to an address, so no connection
 *     of any kind;
 *   - other processes: ptrace, process_vm_readv/writev, pidfd_open/getfd/
 *     send_signal,
 *     kcmp (the PID namespace already hides them);
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
#include <sys/prctl.h>
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
#ifdef __NR_fork
    __NR_fork,
#endif
#ifdef __NR_vfork
    __NR_vfork,
#endif
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

#define STMT(code, k) ((struct sock_filter)BPF_STMT((code), (k)))
#define JUMP(code, k, t, f) ((struct sock_filter)BPF_JUMP((code), (k), (t), (f)))
#define RET_ERRNO(e) (SECCOMP_RET_ERRNO | ((e) & SECCOMP_RET_DATA))

int confine_seccomp(const void *exec_path, int processes, char *why, size_t len)
{
    const unsigned long long exec_at = (unsigned long long)(uintptr_t)exec_path;
    enum { MAX = 128 };
    struct sock_filter f[MAX];
    int n = 0;
    const int ndenied = (int)(sizeof DENIED / sizeof DENIED[0]);
    /* the architecture first: system-call numbers mean nothing without it */
    f[n++] = STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch));
    f[n++] = JUMP(BPF_JMP | BPF_JEQ | BPF_K, NATIVE_ARCH, 1, 0);
    f[n++] = STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS);
    f[n++] = STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr));
#ifdef X32_BIT
    f[n++] = JUMP(BPF_JMP | BPF_JGE | BPF_K, X32_BIT, 0, 1);
    f[n++] = STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS);
#endif
    /* sockets: the CUDA driver opens a UNIX socket to look for the MPS
     * daemon, and fails to initialize if it cannot open one, but takes a
     * refused connection as "no daemon". So: UNIX sockets may be opened (of
     * no use outside: a private network namespace for abstract names,
     * Landlock for files), every connect is refused with ENOENT, a datagram
     * to an address (sendto with one, sendmsg, sendmmsg) with EACCES, and
     * every other kind of socket with EACCES */
    f[n++] = JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_connect, 0, 1);
    f[n++] = STMT(BPF_RET | BPF_K, RET_ERRNO(ENOENT));
    f[n++] = JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_sendmsg, 1, 0);
    f[n++] = JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_sendmmsg, 0, 1);
    f[n++] = STMT(BPF_RET | BPF_K, RET_ERRNO(EACCES));
    f[n++] = JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_sendto, 0, 6);
    f[n++] = STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[4]));
    f[n++] = JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 3);
    f[n++] = STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[4]) + 4);
    f[n++] = JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 1);
    f[n++] = STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
    f[n++] = STMT(BPF_RET | BPF_K, RET_ERRNO(EACCES));
    f[n++] = JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_socket, 0, 4);
    f[n++] = STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[0]));
    f[n++] = JUMP(BPF_JMP | BPF_JEQ | BPF_K, AF_UNIX, 1, 0);
    f[n++] = STMT(BPF_RET | BPF_K, RET_ERRNO(EACCES));
    f[n++] = STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
    /* after the list come 15 instructions, T+0 .. T+14; the last two
     * are "allow" (T+13) and "refuse with EPERM" (T+14) */
    for (int i = 0; i < ndenied; i++) {
        int process = 0;
#ifdef __NR_fork
        process |= DENIED[i] == __NR_fork;
#endif
#ifdef __NR_vfork
        process |= DENIED[i] == __NR_vfork;
#endif
        /* a build's compiler starts processes: no refusal there (the same
         * length, so that every jump below still lands where it should) */
        f[n++] = processes && process ? JUMP(BPF_JMP | BPF_JA | BPF_K, 0, 0, 0)
                                      : JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)DENIED[i],
                                             (unsigned char)(ndenied - i + 13), 0);
    }
    if (processes) {
        /* a build: processes and programs (T+0 .. T+12 fall through to
         * T+13, allow); what else the list refuses stays refused */
        for (int k = 0; k < 13; k++)
            f[n++] = JUMP(BPF_JMP | BPF_JA | BPF_K, 0, 0, 0);
        f[n++] = STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
        f[n++] = STMT(BPF_RET | BPF_K, RET_ERRNO(EPERM));
        goto install;
    }
    /* T+0, T+1: nothing (sockets are handled above) */
    f[n++] = JUMP(BPF_JMP | BPF_JA | BPF_K, 0, 0, 0);
    f[n++] = JUMP(BPF_JMP | BPF_JA | BPF_K, 0, 0, 0);
    /* T+2: clone3, whose flags a filter cannot read: ENOSYS, and libc falls
     * back to clone */
#ifdef __NR_clone3
    f[n++] = JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_clone3, 0, 1);
    f[n++] = STMT(BPF_RET | BPF_K, RET_ERRNO(ENOSYS));
#else
    f[n++] = JUMP(BPF_JMP | BPF_JA | BPF_K, 0, 0, 0);
    f[n++] = JUMP(BPF_JMP | BPF_JA | BPF_K, 0, 0, 0);
#endif
    /* T+4: execve: never.
     * T+5: execveat: once, by confine itself (of the program's descriptor),
     * whose path string is at exec_at; a program cannot know that address
     * (confine is built position-independent, so its memory is laid out at
     * random, and it is gone after the exec), so no other passes, a memfd
     * neither. Were it guessed, Landlock still lets only the program itself
     * be executed again */
    f[n++] = JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_execve, 9, 0);
    f[n++] = JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_execveat, 0, 4);
    f[n++] = STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[1]));
    f[n++] = JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)(exec_at & 0xffffffffu), 0, 6);
    f[n++] = STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[1]) + 4);
    f[n++] = JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)(exec_at >> 32), 3, 4);
    /* T+10: clone: threads (CLONE_THREAD in the low word of the first
     * argument, the flags on both architectures) yes, processes no */
    f[n++] = JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_clone, 0, 2);
    f[n++] = STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[0]));
    f[n++] = JUMP(BPF_JMP | BPF_JSET | BPF_K, CLONE_THREAD, 0, 1);
    f[n++] = STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
    f[n++] = STMT(BPF_RET | BPF_K, RET_ERRNO(EPERM));
install:
    if (n > MAX) {
        snprintf(why, len, "the system-call filter is too long");
        return -1;
    }
    struct sock_fprog prog = {(unsigned short)n, f};
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) || prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog)) {
        snprintf(why, len, "cannot install the system-call filter: %s", strerror(errno));
        return -1;
    }
    return 0;
}
