/*
 * namespaces.c: a process tree of its own (see confine.h).
 *
 * New user namespace first: it is what lets an unprivileged user create the
 * others, and the caller's uid and gid are mapped to themselves so that files
 * look the same from inside. Within it, new PID, mount, network and IPC
 * namespaces: no other process can be seen or signalled, the only network is
 * a loopback that is down, and System V IPC objects are private.
 *
 * Started as root, confine needs no user namespace for the others, and the
 * program becomes the user nobody (no groups, no capabilities) before the
 * system-call filter: root's files and root's privileges over the machine
 * (its /proc/sys, say) stay out of reach even where a layer would let a
 * path through.
 */
#include "confine.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/capability.h>
#include <pwd.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef PR_CAP_AMBIENT
#define PR_CAP_AMBIENT 47
#define PR_CAP_AMBIENT_CLEAR_ALL 4
#endif

static int write_file(const char *path, const char *text)
{
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    size_t len = strlen(text);
    ssize_t w = write(fd, text, len);
    int saved = errno;
    close(fd);
    errno = saved;
    return w == (ssize_t)len ? 0 : -1;
}

void judge_confine_open_paths(confine_paths *paths)
{
    for (int i = 0; i < paths->nread; i++)
        paths->read_fd[i] = open(paths->read[i], O_PATH | O_CLOEXEC);
    for (int i = 0; i < paths->nwrite; i++)
        paths->write_fd[i] = open(paths->write[i], O_PATH | O_CLOEXEC);
    for (int i = 0; i < paths->nexec; i++)
        paths->exec_fd[i] = open(paths->exec[i], O_PATH | (i ? O_CLOEXEC : 0));
}

static uid_t nobody_uid = 65534;
static gid_t nobody_gid = 65534;

void judge_confine_find_nobody(void)
{
    const struct passwd *pw = getpwnam("nobody");
    if (pw) {
        nobody_uid = pw->pw_uid;
        nobody_gid = pw->pw_gid;
    }
}

void judge_confine_nobody_ids(unsigned *uid, unsigned *gid)
{
    *uid = (unsigned)nobody_uid;
    *gid = (unsigned)nobody_gid;
}

int judge_confine_leave_root(char *why, size_t len)
{
    uid_t uid = nobody_uid;
    gid_t gid = nobody_gid;
    if (setgroups(0, NULL) || setresgid(gid, gid, gid) || setresuid(uid, uid, uid)) {
        snprintf(why, len, "cannot leave root for the user nobody (%u): %s", (unsigned)uid, strerror(errno));
        return -1;
    }
    /* a changed uid makes the process undumpable, and its /proc entries
     * root's: the program could not name its own threads */
    prctl(PR_SET_DUMPABLE, 1, 0, 0, 0);
    return 0;
}

int judge_confine_unshare(int *as_root, char *why, size_t len)
{
    /* root needs no user namespace for the others (and some systems refuse
     * user namespaces to all but root): the program becomes nobody later
     * (judge_confine_leave_root, in process 2); where even root may not, nobody
     * tries with a user namespace of its own */
    if (*as_root) {
        if (unshare(CLONE_NEWPID | CLONE_NEWNS | CLONE_NEWNET | CLONE_NEWIPC) == 0)
            return 0;
        if (judge_confine_leave_root(why, len))
            return -1;
        *as_root = 0;
    }
    uid_t uid = getuid();
    gid_t gid = getgid();
    if (unshare(CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNS | CLONE_NEWNET | CLONE_NEWIPC)) {
        snprintf(why, len, "cannot create user, PID, mount and network namespaces: %s%s", strerror(errno),
                 errno == EPERM || errno == ENOSPC
                     ? " (user namespaces are disabled here: kernel.unprivileged_userns_clone,"
                       " user.max_user_namespaces, or a container's seccomp profile)"
                     : "");
        return -1;
    }
    char map[64];
    snprintf(map, sizeof map, "%u %u 1\n", (unsigned)uid, (unsigned)uid);
    if (write_file("/proc/self/uid_map", map)) {
        snprintf(why, len, "cannot map the user id into the new namespace: %s", strerror(errno));
        return -1;
    }
    /* an unprivileged process must give up setgroups before mapping gids */
    if (write_file("/proc/self/setgroups", "deny") && errno != ENOENT) {
        snprintf(why, len, "cannot deny setgroups in the new namespace: %s", strerror(errno));
        return -1;
    }
    snprintf(map, sizeof map, "%u %u 1\n", (unsigned)gid, (unsigned)gid);
    if (write_file("/proc/self/gid_map", map)) {
        snprintf(why, len, "cannot map the group id into the new namespace: %s", strerror(errno));
        return -1;
    }
    return 0;
}

static int is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

int judge_confine_mounts(int as_root, int build, int *fresh_proc, char *why, size_t len)
{
    *fresh_proc = 0;
    /* nothing mounted here may leak back into the machine's namespace */
    if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL)) {
        snprintf(why, len, "cannot make the mounts private: %s", strerror(errno));
        return -1;
    }
    /* an empty, private /dev/shm (the one scratch folder a GPU driver may
     * want): nothing another run left there can be read, and nothing written
     * there outlives this run. /tmp is not needed: Landlock keeps it out of
     * reach (and the lab itself may live under /tmp) */
    char options[96];
    /* a build's is its compiler's scratch folder (TMPDIR); where the
     * program or the build will be nobody, it is nobody's */
    const char *size = build ? "1g" : "64m";
    if (as_root)
        snprintf(options, sizeof options, "size=%s,mode=700,uid=%u,gid=%u", size, (unsigned)nobody_uid,
                 (unsigned)nobody_gid);
    else
        snprintf(options, sizeof options, "size=%s,mode=700", size);
    if (is_dir("/dev/shm") && mount("confine", "/dev/shm", "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, options)) {
        snprintf(why, len, "cannot mount a private /dev/shm: %s", strerror(errno));
        return -1;
    }
    /* a /proc that shows this PID namespace only; refused where the outer
     * /proc has parts masked (some containers): then the outer one stays */
    if (mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) == 0)
        *fresh_proc = 1;
    return 0;
}

/* (confine.h) The capabilities dropped are the new user namespace's, or
 * root's. */
int judge_confine_drop_capabilities(int become_nobody, char *why, size_t len)
{
    for (int cap = 0; cap <= 63; cap++)
        if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) && errno != EINVAL) {
            snprintf(why, len, "cannot drop capability %d: %s", cap, strerror(errno));
            return -1;
        }
    prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
    /* SECBIT_NOROOT and its lock, and the locks of SECBIT_NO_SETUID_FIXUP (off) and SECBIT_KEEP_CAPS */
    if (prctl(PR_SET_SECUREBITS, 0x01 | 0x02 | 0x08 | 0x20, 0, 0, 0)) {
        snprintf(why, len, "cannot lock the securebits: %s", strerror(errno));
        return -1;
    }
    /* root: the user nobody, which clears the capabilities too (a build
     * whose paths nobody cannot reach stays root without capabilities, and
     * said so: Landlock, not the user, is then its wall) */
    if (become_nobody && judge_confine_leave_root(why, len))
        return -1;
    struct __user_cap_header_struct h = {_LINUX_CAPABILITY_VERSION_3, 0};
    struct __user_cap_data_struct d[2];
    memset(d, 0, sizeof d);
    if (syscall(SYS_capset, &h, d)) {
        snprintf(why, len, "cannot drop the capabilities: %s", strerror(errno));
        return -1;
    }
    return 0;
}
