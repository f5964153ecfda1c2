/*
 * landlock.c: the file system the program may see (see confine.h).
 *
 * Landlock is a Linux security module any process can use on itself: it
 * handles a set of access rights, and every right it handles is refused
 * except beneath the paths given a rule. Here it handles every right the
 * kernel knows, so that, from the moment the rules apply:
 *
 *   - nothing can be written, created, removed, renamed or truncated, except
 *     in the private /dev/shm (judge_confine_mounts) and on the devices below;
 *   - nothing under /proc may be written: not even the threads' names,
 *     since /proc/self/task/TID/mem beside them is the process's own code
 *     (the GPU driver's names go elsewhere: thread_names.c);
 *   - reading is allowed beneath /etc, /proc and /sys, and of the files a
 *     program needs to start (itself, its loader, the libraries it is
 *     linked with: libraries.c) and those of --read-list (the GPU driver's):
 *     no other library, not the user's home, not /tmp, not the lab, not
 *     the class's submissions or its gradebook;
 *   - executing is allowed for the program and its ELF interpreter only;
 *   - a build (--build) may also read and execute beneath the system's
 *     folders (/usr, /lib*, /bin, /sbin) and those of --read-exec (the CUDA
 *     Toolkit), read the paths of --read (its source, the lab's headers),
 *     and write beneath those of --write (its output) and its private
 *     /dev/shm (TMPDIR); of the devices, /dev/null alone;
 *   - /dev/null and friends, and the GPU's device files (/dev/nvidia*), may
 *     be opened for reading and writing, and the GPU's driver may be
 *     talked to with ioctl;
 *   - from ABI 4 on, no TCP connection or listening port; from ABI 6 on, no
 *     signal to a process outside this confinement and no abstract UNIX
 *     socket outside it.
 *
 * The constants are those of <linux/landlock.h>, written out here so that an
 * older header still builds a program that uses a newer kernel's rights.
 */
#include "confine.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/landlock.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef SYS_landlock_create_ruleset
#define SYS_landlock_create_ruleset 444
#define SYS_landlock_add_rule 445
#define SYS_landlock_restrict_self 446
#endif

enum {
    FS_EXECUTE = 1 << 0, FS_WRITE_FILE = 1 << 1, FS_READ_FILE = 1 << 2, FS_READ_DIR = 1 << 3,
    FS_REMOVE_DIR = 1 << 4, FS_REMOVE_FILE = 1 << 5, FS_MAKE_CHAR = 1 << 6, FS_MAKE_DIR = 1 << 7,
    FS_MAKE_REG = 1 << 8, FS_MAKE_SOCK = 1 << 9, FS_MAKE_FIFO = 1 << 10, FS_MAKE_BLOCK = 1 << 11,
    FS_MAKE_SYM = 1 << 12,
    FS_REFER = 1 << 13,     /* ABI 2 */
    FS_TRUNCATE = 1 << 14,  /* ABI 3 */
    FS_IOCTL_DEV = 1 << 15, /* ABI 5 */
    NET_BIND_TCP = 1 << 0, NET_CONNECT_TCP = 1 << 1, /* ABI 4 */
    SCOPE_ABSTRACT_UNIX = 1 << 0, SCOPE_SIGNAL = 1 << 1, /* ABI 6 */
    RULE_PATH_BENEATH = 1
};

/* struct landlock_ruleset_attr as of ABI 6; older kernels take a prefix */
struct ruleset_attr {
    uint64_t handled_access_fs;
    uint64_t handled_access_net;
    uint64_t scoped;
};

struct path_beneath {
    uint64_t allowed_access;
    int32_t parent_fd;
} __attribute__((packed));

/* What every run may read: the kernel's views of itself and of the
 * machine, the system's configuration, the GPU daemon's socket folder. */
const char *const confine_config_dirs[] = {"/etc", "/proc", "/sys", "/run/nvidia-persistenced", NULL};
/* The system's folders: no build runs beneath them (confine_build.c), since
 * a lab there would lie among what every build's tools read. */
const char *const confine_system_dirs[] = {"/usr", "/lib", "/lib64", "/lib32", "/libx32", "/bin", "/sbin", NULL};

int judge_confine_landlock_abi(void)
{
    long abi = syscall(SYS_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);
    return abi < 0 ? 0 : (int)abi;
}

/* Rights that only make sense on a directory. */
static const uint64_t DIR_ONLY = FS_READ_DIR | FS_REMOVE_DIR | FS_REMOVE_FILE | FS_MAKE_CHAR | FS_MAKE_DIR |
                                 FS_MAKE_REG | FS_MAKE_SOCK | FS_MAKE_FIFO | FS_MAKE_BLOCK | FS_MAKE_SYM |
                                 FS_REFER;

/* Allow `rights` (within `handled`) beneath path; a missing path is no error.
 * On a file, the rights that only directories have are dropped. */
static int allow_fd(int ruleset, int given, const char *path, uint64_t rights, uint64_t handled, char *why,
                    size_t len)
{
    int fd = given >= 0 ? given : open(path, O_PATH | O_CLOEXEC);
    if (fd < 0)
        return given < 0 && (errno == ENOENT || errno == ENOTDIR || errno == EACCES) ? 0 : -1;
    struct stat st;
    if (fstat(fd, &st)) {
        if (given < 0)
            close(fd);
        return 0;
    }
    if (!S_ISDIR(st.st_mode))
        rights &= ~DIR_ONLY;
    struct path_beneath rule = {rights & handled, fd};
    int rc = rule.allowed_access ? (int)syscall(SYS_landlock_add_rule, ruleset, RULE_PATH_BENEATH, &rule, 0) : 0;
    int saved = errno;
    if (given < 0)
        close(fd);
    if (rc) {
        snprintf(why, len, "Landlock refused a rule for %s: %s", path, strerror(saved));
        return -1;
    }
    return 0;
}

static int allow(int ruleset, const char *path, uint64_t rights, uint64_t handled, char *why, size_t len)
{
    return allow_fd(ruleset, -1, path, rights, handled, why, len);
}

/* a path of --read, --exec or --write: its descriptor when confine opened
 * one (the path is then not looked up again), else the path */
static int allow_given(int ruleset, int fd, const char *path, uint64_t rights, uint64_t handled, char *why,
                       size_t len)
{
    return fd >= 0 ? allow_fd(ruleset, fd, path, rights, handled, why, len)
                   : allow(ruleset, path, rights, handled, why, len);
}

/* A ruleset that handles every right this kernel's Landlock ABI knows
 * (the file system, TCP, scopes): what no rule allows is refused. Its
 * descriptor, *fs the file-system rights it handles; or -1 with why. */
static int create_ruleset(int abi, uint64_t *fs, char *why, size_t len)
{
    struct ruleset_attr attr = {0, 0, 0};
    attr.handled_access_fs = FS_EXECUTE | FS_WRITE_FILE | FS_READ_FILE | FS_READ_DIR | DIR_ONLY;
    if (abi < 2)
        attr.handled_access_fs &= ~(uint64_t)FS_REFER;
    if (abi >= 3)
        attr.handled_access_fs |= FS_TRUNCATE;
    if (abi >= 5)
        attr.handled_access_fs |= FS_IOCTL_DEV;
    size_t attr_size = 8;
    if (abi >= 4) {
        attr.handled_access_net = NET_BIND_TCP | NET_CONNECT_TCP; /* no rule: no TCP at all */
        attr_size = 16;
    }
    if (abi >= 6) {
        attr.scoped = SCOPE_ABSTRACT_UNIX | SCOPE_SIGNAL;
        attr_size = 24;
    }
    int ruleset = (int)syscall(SYS_landlock_create_ruleset, &attr, attr_size, 0);
    if (ruleset < 0)
        snprintf(why, len, "cannot create a Landlock ruleset (ABI %d): %s", abi, strerror(errno));
    *fs = attr.handled_access_fs;
    return ruleset;
}

#define READ_RIGHTS (FS_READ_FILE | FS_READ_DIR)
#define DEVICE_RIGHTS (FS_READ_FILE | FS_WRITE_FILE | FS_IOCTL_DEV)
/* a private tmpfs (judge_confine_mounts): anything but executing or devices */
#define SHM_RIGHTS(fs) ((fs) & ~(uint64_t)(FS_EXECUTE | FS_MAKE_CHAR | FS_MAKE_BLOCK))

/* What both kinds of run may reach: the system's configuration and the
 * kernel's views (a build: /proc and the loader's cache, nothing else of
 * /etc, so no root-only file whatever its user), the libraries (a build's
 * tools': their loader is executed), --read, --write and --exec, and /dev
 * listed, with its plain devices (a build: /dev/null alone). 0, or -1. */
static int allow_every_run(int ruleset, const confine_paths *paths, uint64_t fs, char *why, size_t len)
{
    static const char *const plain_devices[] = {"/dev/null", "/dev/zero", "/dev/full", "/dev/random",
                                                "/dev/urandom"};
    int rc = 0;
    for (size_t i = 0; !paths->build && confine_config_dirs[i] && !rc; i++)
        rc = allow(ruleset, confine_config_dirs[i], READ_RIGHTS, fs, why, len);
    if (paths->build && !rc)
        rc = allow(ruleset, "/proc", READ_RIGHTS, fs, why, len);
    if (paths->build && !rc)
        rc = allow(ruleset, "/etc/ld.so.cache", FS_READ_FILE, fs, why, len);
    for (int i = 0; i < paths->files.n && !rc; i++)
        rc = allow(ruleset, paths->files.path[i], FS_READ_FILE | (paths->build ? FS_EXECUTE : 0), fs, why, len);
    for (int i = 0; i < paths->nread && !rc; i++)
        rc = allow_given(ruleset, paths->read_fd[i], paths->read[i], READ_RIGHTS, fs, why, len);
    for (int i = 0; i < paths->nwrite && !rc; i++)
        rc = allow_given(ruleset, paths->write_fd[i], paths->write[i], fs & ~(uint64_t)FS_EXECUTE, fs, why, len);
    for (int i = 0; i < paths->nexec && !rc; i++)
        rc = allow_given(ruleset, paths->exec_fd[i], paths->exec[i], FS_EXECUTE | FS_READ_FILE, fs, why, len);
    if (!rc)
        rc = allow(ruleset, "/dev", FS_READ_DIR, fs, why, len);
    for (size_t i = 0; i < (paths->build ? 1 : sizeof plain_devices / sizeof plain_devices[0]) && !rc; i++)
        rc = allow(ruleset, plain_devices[i], DEVICE_RIGHTS & ~(uint64_t)FS_IOCTL_DEV, fs, why, len);
    return rc;
}

/* A build: the compiler's programs (--paths' tools, --read-exec's
 * folders) and its scratch /dev/shm. */
static int allow_build(int ruleset, const confine_paths *paths, uint64_t fs, char *why, size_t len)
{
    int rc = 0;
    for (int i = 0; i < paths->nread_exec && !rc; i++)
        rc = allow(ruleset, paths->read_exec[i], READ_RIGHTS | FS_EXECUTE, fs, why, len);
    if (!rc)
        rc = allow(ruleset, "/dev/shm", SHM_RIGHTS(fs), fs, why, len);
    return rc;
}

/* A program: the GPU's devices (not with --no-gpu), and its private /dev/shm. Nothing under
 * /proc may be written: a right to write the threads' names
 * (/proc/self/task/TID/comm, which the CUDA driver writes) would be one to
 * write /proc/self/task/TID/mem, the process's own code; the driver's
 * names go elsewhere (judge/thread_names.c). */
static int allow_program(int ruleset, const confine_paths *paths, uint64_t fs, char *why, size_t len)
{
    int rc = 0;
    DIR *dev = paths->no_gpu ? NULL : opendir("/dev");
    for (struct dirent *e; dev && !rc && (e = readdir(dev));) {
        if (strncmp(e->d_name, "nvidia", 6) && strcmp(e->d_name, "dxg"))
            continue;
        char path[300];
        snprintf(path, sizeof path, "/dev/%s", e->d_name);
        rc = allow(ruleset, path, DEVICE_RIGHTS | READ_RIGHTS, fs, why, len); /* /dev/nvidia-caps is a folder */
    }
    if (dev)
        closedir(dev);
    if (!rc)
        rc = allow(ruleset, "/dev/shm", SHM_RIGHTS(fs), fs, why, len);
    return rc;
}

int judge_confine_landlock(const confine_paths *paths, char *why, size_t len)
{
    int abi = judge_confine_landlock_abi();
    if (abi < 1) {
        snprintf(why, len, "the kernel has no Landlock (Linux 5.13 or later with landlock among its "
                           "security modules: cat /sys/kernel/security/lsm)");
        return -1;
    }
    uint64_t fs;
    int ruleset = create_ruleset(abi, &fs, why, len);
    if (ruleset < 0)
        return -1;
    int rc = allow_every_run(ruleset, paths, fs, why, len);
    if (!rc)
        rc = paths->build ? allow_build(ruleset, paths, fs, why, len) : allow_program(ruleset, paths, fs, why, len);
    if (rc) {
        if (!why[0])
            snprintf(why, len, "cannot open a path for Landlock: %s", strerror(errno));
        close(ruleset);
        return -1;
    }
    /* --log, from ABI 7 on: denials after the exec are logged (the kernel's
     * audit log, dmesg where no audit daemon runs): what was refused */
    unsigned log_new_exec = paths->log && abi >= 7 ? 1u << 1 : 0;
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) || syscall(SYS_landlock_restrict_self, ruleset, log_new_exec)) {
        snprintf(why, len, "cannot apply the Landlock rules: %s", strerror(errno));
        close(ruleset);
        return -1;
    }
    close(ruleset);
    return 0;
}
