/*
 * confine.h: running a program that must not touch anything but its own run.
 *
 * build/confine/confine is the wall around student code (judge/README.md,
 * "The threat model"). It starts one program the way the grader wants it
 * confined, before a single instruction of that program runs (constructors,
 * static initializers and ifunc resolvers of the student's object included):
 *
 *   namespaces.c  new user, PID, mount, network and IPC namespaces: the
 *                 program sees no other process, no network but its own
 *                 loopback, a private /dev/shm, and holds no
 *                 privilege over the machine (its capabilities dropped,
 *                 root become the user nobody);
 *   landlock.c    the file system: read (not write) the system's libraries
 *                 and configuration, the devices it needs, and the folders
 *                 named with --read; execute only the program; no TCP;
 *                 no signals to processes outside;
 *   seccomp.c     the system calls: no new processes (threads yes), no
 *                 other program, no sockets, no tracing, no namespaces, no io_uring, no 32-bit
 *                 entry points;
 *   confine_build.c  a build's limits, where it may not run, and running it
 *                 plainly where the machine cannot confine (--or-unconfined);
 *   libraries.c   the files a program needs to start: itself, its loader
 *                 (or a script's interpreter) and the libraries it is
 *                 linked with, found as the loader finds them;
 *   confine.c     the command line, and the order of the steps.
 *
 * Two kinds of run: a program (the default), which may read only what it
 * needs to start and the files of --read-list, and a build (--build), a
 * compiler's many programs, which may also run the tools of --paths and
 * write its --write folders, under limits of time, memory and file size.
 * What each may read, write and execute: landlock.c, and judge/README.md,
 * "The wall around the build, and the libraries a run can load".
 *
 * Plain C and Linux; no library beyond libc.
 */
#ifndef CONFINE_H
#define CONFINE_H

#include <stddef.h>

/* Exit statuses of confine itself (the program's own pass through). */
enum {
    CONFINE_TIME_LIMIT = 124,  /* a build stopped at its time limit          */
    CONFINE_USAGE = 125,       /* bad command line                           */
    CONFINE_UNAVAILABLE = 126, /* the kernel cannot confine here (see why)   */
    CONFINE_EXEC_FAILED = 127  /* the program could not be started            */
};

#define CONFINE_MAX_PATHS 128
#define CONFINE_MAX_FILES 512

/* A list of files (libraries, the driver's files) a run may read. */
typedef struct {
    char *path[CONFINE_MAX_FILES];
    int n;
} confine_list;

typedef struct {
    const char *read[CONFINE_MAX_PATHS]; /* folders (or files) it may read       */
    int nread;
    const char *exec[CONFINE_MAX_PATHS]; /* files it may execute: the program,   */
    int nexec;                           /* its ELF interpreter                 */
    const char *write[CONFINE_MAX_PATHS]; /* --write: diagnosis only          */
    int nwrite;
    /* each path opened (O_PATH) by judge_confine_open_paths, before the user
     * changes: -1 where it could not be */
    int read_fd[CONFINE_MAX_PATHS], exec_fd[CONFINE_MAX_PATHS], write_fd[CONFINE_MAX_PATHS];
    int log; /* --log: Landlock's denials to the kernel's log (ABI 7)   */
    int build; /* --build: a compiler's run (see above)                 */
    int no_gpu; /* --no-gpu: a program that may not open the GPU's devices
                 * (a runner: its CUDA calls go to the device server) */
    const char *read_exec[CONFINE_MAX_PATHS]; /* --read-exec: folders of tools */
    int nread_exec;
    confine_list files; /* the program's libraries and --read-list's files */
} confine_paths;

/* The folders every run may read (the kernel's views and the system's
 * configuration), and those a build may also execute from. */
extern const char *const confine_config_dirs[];
extern const char *const confine_system_dirs[];

/* ----------------------------------------------------------- namespaces.c */

/* Open every path of paths (O_PATH), while the caller may still reach them
 * all: a lab under a folder only root may enter stays usable after the
 * change to nobody. The program's (exec_fd[0]) stays open across the exec:
 * it is what is executed (execveat), so that a script still finds itself. */
void judge_confine_open_paths(confine_paths *paths);

/* The user nobody's ids, looked up while the password file can be read. */
void judge_confine_find_nobody(void);

/* The user nobody's uid and gid (after judge_confine_find_nobody). */
void judge_confine_nobody_ids(unsigned *uid, unsigned *gid);
/* Become the user nobody, with no supplementary groups (root only). -1 with
 * the reason in why. */
int judge_confine_leave_root(char *why, size_t len);

/* Enter new user, PID, mount, network and IPC namespaces, mapping the
 * caller's uid and gid to themselves (the program keeps its own files' DAC
 * view; the walls are the rest). *as_root (root): PID, mount, network and
 * IPC namespaces without a user one, the program to become nobody later;
 * where even root may not, nobody now, and *as_root becomes 0. After this
 * the caller must fork: the child is process 1 of the new PID namespace.
 * -1 with the reason in why. */
int judge_confine_unshare(int *as_root, char *why, size_t len);

/* In the child (process 1): make every mount private, mount a private
 * tmpfs on /dev/shm (the user nobody's when as_root: the program or the
 * build becomes nobody), and a /proc of the new PID namespace (other
 * processes vanish from it); a build's /dev/shm is larger (its TMPDIR). *fresh_proc says whether /proc could be
 * remounted (it cannot where the outer /proc has masked parts, as in some
 * containers; then Landlock and the PID namespace still hide what matters).
 * -1 with the reason in why. */
int judge_confine_mounts(int as_root, int build, int *fresh_proc, char *why, size_t len);

/* Drop every capability for good (the bounding, ambient, effective,
 * permitted and inheritable sets; securebits locked so that exec gives none
 * back); become_nobody: root becomes the user nobody first. -1 with why. */
int judge_confine_drop_capabilities(int become_nobody, char *why, size_t len);

/* ------------------------------------------------------------ landlock.c */

/* The Landlock ABI the kernel offers (0: none). */
int judge_confine_landlock_abi(void);

/* Restrict the file system to paths (the system's folders a run of its kind
 * needs), and TCP and signals where the ABI allows. -1 with why. */
int judge_confine_landlock(const confine_paths *paths, char *why, size_t len);

/* ------------------------------------------------------------- seccomp.c */

/* Install the system-call filter (sets no_new_privs). The one exec it
 * lets through is the execveat whose path argument is the pointer exec_path:
 * the caller's own exec of the program; processes: a build's filter, where
 * new processes and programs are allowed; threads: 0 refuses new threads
 * too (a runner with no GPU). -1 with why. */
int judge_confine_seccomp(const void *exec_path, int processes, int threads, char *why, size_t len);

/* -------------------------------------------------------- confine_build.c */

/* A build's limits (address space a process, a written file's size, no
 * core), inherited by every process it starts, and TMPDIR its private
 * /dev/shm. -1 with why. */
int judge_confine_build_limits(long memory_mb, long file_mb, char *why, size_t len);
/* Exit (CONFINE_UNAVAILABLE, one line naming label) when the working
 * folder lies beneath a folder every build may read: a lab there would
 * show its solutions to every build. */
void judge_confine_build_check_folder(const confine_paths *paths, const char *label);
/* --paths FILE (tools/wall-paths.sh): each "tool PATH" may be read and
 * executed, with its loader and libraries; each "read PATH" read. -1 with
 * why. */
int judge_confine_build_paths(confine_paths *paths, const char *file, char *why, size_t len);
/* Root: whether the user nobody can reach every path of the build (read
 * what it reads, enter its working folder); then its output folders become
 * nobody's. 0 when it can, else -1 with the first path it cannot reach. */
int judge_confine_build_as_nobody(const confine_paths *paths, char *why, size_t len);
/* After a build as nobody: the output folders and what they hold (one
 * level: the compiler's outputs) are root's again. 0, or -1 (said on
 * stderr) where one is still nobody's: the build must not be used. */
int judge_confine_build_give_back(const confine_paths *paths);
/* A build's limits: its time, each process's memory, a file's size. */
typedef struct {
    double time_s;
    long memory_mb, file_mb;
} confine_build_limits_t;
/* Return when this machine confines (confine --probe); else one note, and
 * PROGRAM runs plainly under the build's limits: as the caller where that
 * is not root; as root, as the user nobody (its output root's again
 * after), or, where nobody cannot reach the build's paths, not at all
 * (one line, exit CONFINE_UNAVAILABLE). Never returns. */
void judge_confine_build_plainly_if_unconfinable(char *const argv[], const char *path,
                                                const confine_paths *paths, const char *label,
                                                const confine_build_limits_t *limits);

/* ----------------------------------------------------------- libraries.c */

/* Add program and every library it is linked with (DT_NEEDED, to the end,
 * found as the dynamic loader finds them) to out, as real paths. -1 when
 * program is no ELF file or out is full; otherwise the number of names
 * that could not be found (the loader will name them when it runs). */
int judge_confine_libraries(const char *program, confine_list *out);
/* The ELF interpreter a program names (PT_INTERP), or the interpreter of
 * a #! script, into out; "" when it has none. */
void judge_confine_interpreter(const char *program, char *out, size_t len);
/* Add every absolute path of a file, one a line; -1 when it cannot be read. */
int judge_confine_list_read(confine_list *list, const char *file);

#endif /* CONFINE_H */
