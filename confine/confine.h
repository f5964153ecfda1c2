/*
 * confine.h: running a program that must not touch anything but its own run.
 *
 * build/confine/confine is the wall around student code (grader/README.md,
 * "The threat model"). It starts one program the way the grader wants it
 * confined, before a single instruction of that program runs (constructors,
 * static initializers and ifunc resolvers of the student's object included):
 *
 *   namespaces.c  new user, PID, mount, network and IPC namespaces: the
 *                 program sees no other process, no network but its own
 *                 loopback, a private /dev/shm, and holds no
 *                 privilege over the machine;
 *   landlock.c    the file system: read (not write) the system's libraries
 *                 and configuration, the devices it needs, and the folders
 *                 named with --read; execute only the program; no TCP;
 *                 no signals to processes outside;
 *   seccomp.c     the system calls: no new processes (threads yes), no
 *                 other program, no sockets, no tracing, no namespaces, no io_uring, no 32-bit
 *                 entry points;
 *   main.c        the command line, and the order of the steps.
 *
 * Plain C and Linux; no library beyond libc.
 */
#ifndef CONFINE_H
#define CONFINE_H

#include <stddef.h>

/* Exit statuses of confine itself (the program's own pass through). */
enum {
    CONFINE_USAGE = 125,       /* bad command line                           */
    CONFINE_UNAVAILABLE = 126, /* the kernel cannot confine here (see why)   */
    CONFINE_EXEC_FAILED = 127  /* the program could not be started            */
};

#define CONFINE_MAX_PATHS 32

typedef struct {
    const char *read[CONFINE_MAX_PATHS]; /* folders (or files) it may read       */
    int nread;
    const char *exec[CONFINE_MAX_PATHS]; /* files it may execute: the program,   */
    int nexec;                           /* its ELF interpreter                 */
    const char *write[CONFINE_MAX_PATHS]; /* --write: diagnosis only          */
    int nwrite;
    /* each path opened (O_PATH) by confine_open_paths, before the user
     * changes: -1 where it could not be */
    int read_fd[CONFINE_MAX_PATHS], exec_fd[CONFINE_MAX_PATHS], write_fd[CONFINE_MAX_PATHS];
    int log; /* --log: Landlock's denials to the kernel's log (ABI 7)   */
} confine_paths;

/* ----------------------------------------------------------- namespaces.c */

/* Open every path of paths (O_PATH), while the caller may still reach them
 * all: a lab under a folder only root may enter stays usable after the
 * change to nobody. The program's (exec_fd[0]) stays open across the exec:
 * it is what is executed (execveat), so that a script still finds itself. */
void confine_open_paths(confine_paths *paths);

/* The user nobody's ids, looked up while the password file can be read. */
void confine_find_nobody(void);

/* Become the user nobody, with no supplementary groups (root only). -1 with
 * the reason in why. */
int confine_leave_root(char *why, size_t len);

/* Enter new user, PID, mount, network and IPC namespaces, mapping the
 * caller's uid and gid to themselves (the program keeps its own files' DAC
 * view; the walls are the rest). *as_root (root): PID, mount, network and
 * IPC namespaces without a user one, the program to become nobody later;
 * where even root may not, nobody now, and *as_root becomes 0. After this
 * the caller must fork: the child is process 1 of the new PID namespace.
 * -1 with the reason in why. */
int confine_unshare(int *as_root, char *why, size_t len);

/* In the child (process 1): make every mount private, mount a private
 * tmpfs on /dev/shm (the user nobody's, as_root), and a /proc of the new
 * PID namespace (other processes vanish from it). *fresh_proc says whether /proc could be
 * remounted (it cannot where the outer /proc has masked parts, as in some
 * containers; then Landlock and the PID namespace still hide what matters).
 * -1 with the reason in why. */
int confine_mounts(int as_root, int *fresh_proc, char *why, size_t len);

/* ------------------------------------------------------------ landlock.c */

/* The Landlock ABI the kernel offers (0: none). */
int confine_landlock_abi(void);

/* Restrict the file system to paths (and the system folders every program
 * needs), and TCP and signals where the ABI allows. -1 with why. */
int confine_landlock(const confine_paths *paths, char *why, size_t len);

/* ------------------------------------------------------------- seccomp.c */

/* Install the system-call filter (sets no_new_privs). The one exec it
 * lets through is the execveat whose path argument is the pointer exec_path:
 * the caller's own exec of the program. -1 with why. */
int confine_seccomp(const void *exec_path, char *why, size_t len);

#endif /* CONFINE_H */
