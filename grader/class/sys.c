/*
 * sys.c: class grading's helpers: its progress lines, files, and
 * running the programs it needs (make, cp, nvidia-smi, sbatch, squeue)
 * with their input and output where the caller says. Errors and warnings
 * are the helper library's (lab_fatal, lab_warn: common/util.h).
 */
#include "class.h"
#include "spawn.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void class_say(const char *f, ...)
{
    va_list ap;
    va_start(ap, f);
    vprintf(f, ap);
    va_end(ap);
    putchar('\n');
    fflush(stdout);
}

int class_copy_file(const char *from, const char *to)
{
    int in = open(from, O_RDONLY | O_CLOEXEC);
    if (in < 0)
        return -1;
    int out = open(to, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    int ok = out >= 0;
    char buf[65536];
    ssize_t n;
    while (ok && (n = read(in, buf, sizeof buf)) != 0) {
        if (n < 0 && errno == EINTR)
            continue;
        ok = n > 0 && write(out, buf, (size_t)n) == n;
    }
    close(in);
    if (out >= 0 && close(out))
        ok = 0;
    return ok ? 0 : -1;
}

int class_newer(const char *a, const char *b)
{
    struct stat sa, sb;
    if (stat(a, &sa))
        return 0;
    if (stat(b, &sb))
        return 1;
    if (sa.st_mtim.tv_sec != sb.st_mtim.tv_sec)
        return sa.st_mtim.tv_sec > sb.st_mtim.tv_sec;
    return sa.st_mtim.tv_nsec > sb.st_mtim.tv_nsec;
}

char *class_abs_path(const char *path)
{
    char *joined;
    if (path[0] == '/') {
        joined = lab_strdup(path);
    } else {
        /* the logical working folder, as the shell keeps it in PWD */
        const char *pwd = getenv("PWD");
        struct stat a, b;
        char here[PATH_MAX];
        if (!pwd || pwd[0] != '/' || stat(pwd, &a) || stat(".", &b) || a.st_dev != b.st_dev ||
            a.st_ino != b.st_ino)
            pwd = getcwd(here, sizeof here) ? here : "/";
        joined = lab_asprintf("%s/%s", pwd, path);
    }
    /* drop "." and empty parts; ".." takes the part before it away */
    char *out = lab_grow(NULL, strlen(joined) + 2);
    size_t n = 0;
    for (char *p = joined; *p;) {
        while (*p == '/')
            p++;
        size_t len = strcspn(p, "/");
        if (!len)
            break;
        if (len == 1 && p[0] == '.') {
        } else if (len == 2 && p[0] == '.' && p[1] == '.') {
            while (n > 0 && out[--n] != '/')
                ;
        } else {
            out[n++] = '/';
            memcpy(out + n, p, len);
            n += len;
        }
        p += len;
    }
    if (!n)
        out[n++] = '/';
    out[n] = 0;
    free(joined);
    return out;
}

long class_cpus(void)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
        return CPU_COUNT(&set);
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? n : 1;
}

char *class_host_name(int short_form)
{
    char h[256] = "";
    gethostname(h, sizeof h - 1);
    if (short_form)
        h[strcspn(h, ".")] = 0;
    return lab_strdup(h);
}

/* ========================================================== programs */

int class_run(char *const argv[], proc *p)
{
    static const lab_io_kind err_kind[] = {[ERR_INHERIT] = LAB_IO_INHERIT, [ERR_NULL] = LAB_IO_NULL,
                                           [ERR_TO_OUT] = LAB_IO_STDOUT, [ERR_FILE] = LAB_IO_FILE};
    lab_io_kind out = p->out ? (p->append ? LAB_IO_APPEND : LAB_IO_FILE) : p->capture ? LAB_IO_PIPE : LAB_IO_INHERIT;
    lab_spawn s = {.argv = argv,
                   .who = "class",
                   .dir = p->dir,
                   .in = {p->input ? LAB_IO_PIPE : LAB_IO_NULL, NULL},
                   .out = {out, p->out},
                   .err = {err_kind[p->err], p->err_path},
                   .input = p->input,
                   .env_set = p->env};
    p->truncated = 0;
    int status = lab_spawn_run(&s, &p->text, PROC_CAPTURE, &p->truncated);
    if (out == LAB_IO_PIPE && !p->text)
        p->text = lab_strdup("");
    return status;
}

char *class_listed_gpus(void)
{
    char *argv[] = {"nvidia-smi", "-L", NULL};
    char *text = intake_output_of(argv, NULL);
    char *list = lab_strdup("");
    for (char *p = text; p && *p;) {
        size_t n = strcspn(p, "\n");
        unsigned gpu;
        char colon;
        if (!strncmp(p, "GPU ", 4) && sscanf(p + 4, "%u%c", &gpu, &colon) == 2 && colon == ':') {
            lab_appendf(&list, "%s%u", *list ? " " : "", gpu);
        }
        p += n + (p[n] == '\n');
    }
    free(text);
    return list;
}
