/*
 * spawn.h: the one way the lab starts a process (the grader's runs of a
 * stage, class grading's make, tar and Slurm commands and its workers,
 * profile's ncu, the judge's runners, the wall's own probe).
 *
 * A child gets, in this order: a process group or session of its own
 * (when asked), the default action for SIGPIPE, SIGINT, SIGTERM and
 * SIGCHLD and no blocked signal (whatever the caller set for itself), its
 * stdin, stdout and stderr, more descriptors at the numbers it expects,
 * the others closed (when asked), its environment, its working folder,
 * the caller's hook (before_exec); then the program, or, without one, a
 * function of the caller's. Files are opened and the environment built
 * before the fork: between fork and exec the child calls only what is
 * safe in a process forked from one with threads (the judge has CUDA's).
 *
 * Where the lab starts a process another way, the caller says why:
 * judge/confine.c (its tree in new namespaces, and an exec the system-call
 * filter lets through once), judge/cuda_probe.cu (a child that must not
 * exec: it tests the parent's CUDA memory from a second process).
 */
#ifndef LAB_SPAWN_H
#define LAB_SPAWN_H

#include <stddef.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Where one of stdin, stdout, stderr goes. */
typedef enum {
    LAB_IO_INHERIT = 0, /* the caller's                                    */
    LAB_IO_NULL,        /* /dev/null                                       */
    LAB_IO_FILE,        /* path, created or truncated (before any chdir)   */
    LAB_IO_APPEND,      /* path, created or appended to                    */
    LAB_IO_PIPE,        /* a pipe; the caller's end in lab_child           */
    LAB_IO_STDOUT       /* stderr only: wherever stdout goes               */
} lab_io_kind;

typedef struct {
    lab_io_kind kind;
    const char *path; /* LAB_IO_FILE, LAB_IO_APPEND */
} lab_io;

/* A descriptor of the caller's, at the number the child expects it
 * (the record's, a runner's requests). */
typedef struct {
    int from, to;
} lab_fd_map;

enum { LAB_SPAWN_MAX_FDS = 6 };
enum { LAB_SPAWN_SAME_GROUP = 0, LAB_SPAWN_GROUP, LAB_SPAWN_SESSION };
/* The exit status of a child stopped at its time limit, as timeout(1). */
enum { LAB_SPAWN_TIMED_OUT = 124, LAB_SPAWN_NOT_STARTED = 127 };

typedef struct {
    char *const *argv;     /* argv[0]: a path, or found on PATH; NULL: run()  */
    int (*run)(void *arg); /* without argv: the child's work, its status      */
    void *arg;             /* for run and before_exec                         */
    const char *who;       /* "class": its one line when argv[0] cannot run    */
    const char *dir;       /* working folder (NULL: the caller's)             */
    lab_io in, out, err;
    const char *input;     /* in LAB_IO_PIPE: this text is written, then EOF  */
    char *const *env_set;  /* "NAME=VALUE" set in the child                   */
    char *const *env_unset; /* NAME removed from the child's environment      */
    lab_fd_map fds[LAB_SPAWN_MAX_FDS];
    int nfds;
    int close_others;      /* every descriptor above 2 but fds[] closed       */
    int group;             /* LAB_SPAWN_GROUP, LAB_SPAWN_SESSION              */
    double limit_s;        /* > 0: lab_spawn_wait stops its group after it    */
    /* in the child, last before exec: resource limits, confinement; a
     * nonzero return ends the child with LAB_SPAWN_NOT_STARTED */
    int (*before_exec)(void *arg);
} lab_spawn;

/* A started child, as its parent sees it. */
typedef struct {
    pid_t pid;
    int in, out, err;    /* the caller's ends of LAB_IO_PIPE, else -1       */
    double started;      /* lab_spawn_now() at the start                    */
    double limit_s;
    int own_group;       /* its pid is its group's id: the group is killed  */
    int reaped, status;  /* waitpid's status, once reaped                   */
    int timed_out;       /* stopped at limit_s                              */
} lab_child;

/* Start a child as s says: 0, or -1 with errno (nothing started). The
 * child's input, when given, is written before this returns (small: a job
 * script). The caller closes c->out and c->err when it has read them. */
int lab_spawn_start(const lab_spawn *s, lab_child *c);

/* Without waiting: 1 when the child has ended or has run past its limit
 * (then its whole group is killed: whatever it left behind), and it is
 * reaped; 0 while it runs. Looked at before reaping, so that the group's
 * id is not reused while the group is killed. */
int lab_spawn_check(lab_child *c);

/* Wait for the child (its limit kept, when it has one): its exit status,
 * 128 + the signal that killed it, or LAB_SPAWN_TIMED_OUT. */
int lab_spawn_wait(lab_child *c);

/* Start, read stdout (when LAB_IO_PIPE) into *text (at most max bytes,
 * *truncated set past them; NULL text: not kept), wait: as
 * lab_spawn_wait, LAB_SPAWN_NOT_STARTED when it could not start. Refused
 * (LAB_SPAWN_NOT_STARTED, errno EINVAL) for a stderr pipe, and for a
 * stdout pipe with a time limit: the reading would ignore both. */
int lab_spawn_run(const lab_spawn *s, char **text, size_t max, int *truncated);

/* A wait status as a shell gives it: the exit status, or 128 + signal. */
int lab_spawn_exit_code(int status);

/* The clock a time limit is kept by (CLOCK_MONOTONIC, seconds). */
double lab_spawn_now(void);

/* A program's path (out: PATH_MAX bytes, real): name itself when it has a
 * slash, else the first executable name on PATH. 0, or -1 with errno
 * (ENOENT: not on PATH). */
int lab_find_program(const char *name, char *out);

#ifdef __cplusplus
}
#endif

#endif /* LAB_SPAWN_H */
