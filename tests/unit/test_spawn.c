/* test_spawn.c: starting a process (common/spawn.c): where its output
 * goes, its environment, folder and descriptors, its exit status, a time
 * limit that stops its whole group, and finding a program. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "spawn.h"
#include "unit.h"

/* sh -c script, stdout (and stderr, with to_out) into *text. */
static int shell(const char *script, lab_spawn *s, char **text)
{
    char *argv[] = {"sh", "-c", (char *)script, NULL};
    s->argv = argv;
    s->out.kind = LAB_IO_PIPE;
    return lab_spawn_run(s, text, 1u << 20, NULL);
}

static int returns(void *arg)
{
    return *(int *)arg;
}

static int refuses(void *arg)
{
    (void)arg;
    return 1;
}

/* Is the process gone (or a zombie nobody has reaped yet)? */
static int gone(pid_t pid)
{
    char path[64], stat[256] = "";
    snprintf(path, sizeof path, "/proc/%ld/stat", (long)pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return 1;
    size_t n = fread(stat, 1, sizeof stat - 1, f);
    fclose(f);
    stat[n] = 0;
    const char *paren = strrchr(stat, ')');
    return paren && paren[1] == ' ' && paren[2] == 'Z';
}

static void test_output_and_status(void)
{
    char *text = NULL;
    lab_spawn s = {.err = {LAB_IO_STDOUT, NULL}};
    CHECK(shell("echo out; echo err >&2", &s, &text) == 0 && text && !strcmp(text, "out\nerr\n"));
    free(text);
    lab_spawn q = {0};
    CHECK(shell("exit 3", &q, &text) == 3 && text && !text[0]);
    free(text);
    CHECK(shell("kill -TERM $$", &q, &text) == 128 + SIGTERM);
    free(text);
    /* kept to max bytes, the rest read and dropped */
    char *argv[] = {"sh", "-c", "echo abcdef", NULL};
    lab_spawn cut = {.argv = argv, .out = {LAB_IO_PIPE, NULL}};
    int truncated = 0;
    CHECK(lab_spawn_run(&cut, &text, 3, &truncated) == 0 && text && !strcmp(text, "abc") && truncated);
    free(text);
    /* the text written to stdin */
    char *cat[] = {"cat", NULL};
    lab_spawn in = {.argv = cat, .in = {LAB_IO_PIPE, NULL}, .input = "a job script", .out = {LAB_IO_PIPE, NULL}};
    CHECK(lab_spawn_run(&in, &text, 100, NULL) == 0 && text && !strcmp(text, "a job script"));
    free(text);
}

static void test_environment_and_folder(void)
{
    char *text = NULL, *set[] = {"LAB_SPAWN_TEST=set", NULL}, *unset[] = {"HOME", NULL};
    setenv("LAB_SPAWN_TEST", "ours", 1);
    lab_spawn s = {.env_set = set, .env_unset = unset, .dir = "/"};
    CHECK(shell("echo \"$LAB_SPAWN_TEST ${HOME:-none} $(pwd)\"", &s, &text) == 0 && text &&
          !strcmp(text, "set none /\n"));
    free(text);
    CHECK(!strcmp(getenv("LAB_SPAWN_TEST"), "ours")); /* ours unchanged */
    unsetenv("LAB_SPAWN_TEST");
}

static void test_descriptors(void)
{
    char *text = NULL;
    int p[2];
    CHECK(pipe(p) == 0);
    /* a pipe at descriptor 7, where the child expects its record */
    lab_spawn s = {.fds = {{p[1], 7}}, .nfds = 1};
    CHECK(shell("echo record >&7", &s, &text) == 0);
    free(text);
    close(p[1]);
    char got[32] = "";
    CHECK(read(p[0], got, sizeof got - 1) == 7 && !strncmp(got, "record\n", 7));
    close(p[0]);
    /* a descriptor left open without close-on-exec reaches the child,
     * unless every other one is closed */
    int open_fd = open("/dev/null", O_RDONLY);
    char script[64];
    snprintf(script, sizeof script, "test -e /proc/self/fd/%d", open_fd);
    lab_spawn keep = {0}, closed = {.close_others = 1};
    CHECK(shell(script, &keep, &text) == 0);
    free(text);
    CHECK(shell(script, &closed, &text) == 1);
    free(text);
    close(open_fd);
}

static void test_limit_and_group(void)
{
    /* past its limit the whole group is stopped (the grandchild too): 124,
     * as timeout(1) says it */
    char file[] = "/tmp/lab-spawn-XXXXXX";
    int fd = mkstemp(file);
    CHECK(fd >= 0);
    close(fd);
    char script[128];
    snprintf(script, sizeof script, "sleep 30 & echo $! > %s; wait", file);
    char *argv[] = {"sh", "-c", script, NULL};
    lab_spawn s = {.argv = argv, .group = LAB_SPAWN_GROUP, .limit_s = 0.3};
    lab_child c;
    CHECK(lab_spawn_start(&s, &c) == 0);
    CHECK(lab_spawn_wait(&c) == LAB_SPAWN_TIMED_OUT && c.timed_out);
    double took = lab_spawn_now() - c.started;
    CHECK(took >= 0.3 && took < 5);
    long grandchild = 0;
    FILE *f = fopen(file, "r");
    CHECK(f && fscanf(f, "%ld", &grandchild) == 1 && grandchild > 0);
    if (f)
        fclose(f);
    unlink(file);
    int stopped = 0;
    for (int i = 0; i < 100 && !(stopped = gone((pid_t)grandchild)); i++)
        usleep(10000);
    CHECK(stopped);
    /* one that ends in time keeps its own status */
    char *quick[] = {"sh", "-c", "exit 4", NULL};
    lab_spawn q = {.argv = quick, .group = LAB_SPAWN_GROUP, .limit_s = 5};
    CHECK(lab_spawn_run(&q, NULL, 0, NULL) == 4);
}

static void test_start_and_find(void)
{
    /* a function instead of a program; a hook that refuses; no program */
    int five = 5;
    lab_spawn f = {.run = returns, .arg = &five};
    CHECK(lab_spawn_run(&f, NULL, 0, NULL) == 5);
    char *sh[] = {"sh", "-c", "exit 0", NULL};
    lab_spawn hook = {.argv = sh, .before_exec = refuses};
    CHECK(lab_spawn_run(&hook, NULL, 0, NULL) == LAB_SPAWN_NOT_STARTED);
    char *none[] = {"lab-no-such-program", NULL};
    lab_spawn missing = {.argv = none, .err = {LAB_IO_STDOUT, NULL}, .who = "unit"};
    char *text = NULL;
    missing.out.kind = LAB_IO_PIPE;
    CHECK(lab_spawn_run(&missing, &text, 1000, NULL) == LAB_SPAWN_NOT_STARTED && text &&
          strstr(text, "unit: cannot run lab-no-such-program"));
    free(text);
    /* what lab_spawn_run would not keep: a stderr pipe, a limit while it reads */
    char *noisy[] = {"sh", "-c", "echo said >&2", NULL};
    lab_spawn both = {.argv = noisy, .out = {LAB_IO_PIPE, NULL}, .err = {LAB_IO_PIPE, NULL}};
    errno = 0;
    CHECK(lab_spawn_run(&both, &text, 100, NULL) == LAB_SPAWN_NOT_STARTED && errno == EINVAL && !text);
    char *forever[] = {"sh", "-c", "sleep 1", NULL};
    lab_spawn limited = {.argv = forever, .out = {LAB_IO_PIPE, NULL}, .limit_s = 0.2};
    errno = 0;
    CHECK(lab_spawn_run(&limited, &text, 100, NULL) == LAB_SPAWN_NOT_STARTED && errno == EINVAL && !text);
    limited.out.kind = LAB_IO_NULL;
    CHECK(lab_spawn_run(&limited, NULL, 0, NULL) == LAB_SPAWN_TIMED_OUT);
    lab_spawn bad_file = {.argv = sh, .out = {LAB_IO_FILE, "/nonexistent/folder/out"}};
    CHECK(lab_spawn_run(&bad_file, NULL, 0, NULL) == LAB_SPAWN_NOT_STARTED);
    char path[PATH_MAX];
    CHECK(lab_find_program("sh", path) == 0 && path[0] == '/');
    errno = 0;
    CHECK(lab_find_program("lab-no-such-program", path) == -1 && errno == ENOENT);
    CHECK(lab_find_program("/etc/passwd", path) == -1); /* not executable */
}

void test_spawn(void)
{
    test_output_and_status();
    test_environment_and_folder();
    test_descriptors();
    test_limit_and_group();
    test_start_and_find();
}
