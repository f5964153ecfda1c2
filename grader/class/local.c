/*
 * local.c: the local back end. Builders on the CPUs prepare and build the
 * students of the to-do list (CLASS_BUILDERS); one worker per GPU (GPUS,
 * default every GPU nvidia-smi lists) grades the next student that is
 * ready, with CUDA_VISIBLE_DEVICES set to its GPU. Where the machine has
 * CPUs enough, the two overlap (a pipeline): each worker keeps
 * CLASS_GRADE_CPUS CPUs of its own (default 4), the builders run on the
 * others and at most CLASS_AHEAD students (default 2 a GPU) ahead of the
 * workers, so that no compiler runs on a CPU that a timed grade uses.
 * Otherwise every student is built first, and only then do the GPUs grade.
 *
 * Who does what is decided by claims, folders made with mkdir in
 * OUT/work/claims.PID: build/NAME by the one builder that builds NAME,
 * ready/NAME once it has, grade/NAME by the one worker that grades NAME;
 * graded/NAME once it is graded, which the progress line's rate counts.
 * Each builder and worker is a process in a session of its own, so that
 * stopping the class (SIGINT, SIGTERM) stops all of their processes (make,
 * the grader, the student's program).
 */
#include "class.h"
#include "grader.h"
#include "spawn.h"

#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

const char *const lab_tools[2] = {"build/grader/grade", "build/confine/confine"};

static char **todo;
static int ntodo;
static const char *claims;
static long ahead;          /* pipelined: students built ahead, at most; 0: all first */

static char *claim(const char *kind, const char *name)
{
    return lab_asprintf("%s/%s/%s", claims, kind, name);
}

/* One worker, on its GPU: grades the first student of the to-do list that
 * no other worker has claimed (with builders: the first whose copy is
 * built), until every student is claimed. */
static void worker(const char *gpu)
{
    if (strcmp(gpu, "none"))
        setenv("CUDA_VISIBLE_DEVICES", gpu, 1);
    char *ready_dir = lab_asprintf("%s/ready", claims);
    int built = lab_is_dir(ready_dir);
    free(ready_dir);
    for (;;) {
        int left = 0, took = 0;
        for (int i = 0; i < ntodo && !took; i++) {
            char *grade = claim("grade", todo[i]), *ready = claim("ready", todo[i]);
            if (!lab_is_dir(grade)) {
                left = 1;
                if ((!built || lab_exists(ready)) && mkdir(grade, 0755) == 0) {
                    class_say("grading %s%s%s", todo[i], strcmp(gpu, "none") ? " on GPU " : "",
                        strcmp(gpu, "none") ? gpu : "");
                    if (built)
                        class_grade_prepared(todo[i]);
                    else
                        class_grade_one(todo[i]);
                    /* from the top again: earlier students first */
                    took = 1;
                }
            }
            free(grade);
            free(ready);
        }
        if (!left)
            return;
        if (!took)
            nanosleep(&(struct timespec){0, 200000000}, NULL);
    }
}

/* Students a builder has claimed and no worker has yet: building or
 * built, waiting for a GPU. */
static long built_ahead(void)
{
    long n = 0;
    for (int i = 0; i < ntodo; i++) {
        char *build = claim("build", todo[i]), *grade = claim("grade", todo[i]);
        n += lab_is_dir(build) && !lab_is_dir(grade);
        free(grade);
        free(build);
    }
    return n;
}

/* One builder, on the CPUs: prepares and builds the next student no other
 * builder has claimed (and, for a check, writes the row: no GPU comes). */
static void builder(void)
{
    for (int i = 0; i < ntodo; i++) {
        while (ahead && built_ahead() >= ahead)
            nanosleep(&(struct timespec){0, 100000000}, NULL);
        char *build = claim("build", todo[i]);
        if (mkdir(build, 0755) == 0) {
            time_t t0 = time(NULL);
            int prepared = class_prepare_one(todo[i], 1) == 0;
            if (prepared && cls.sw[SW_CHECK]) {
                class_check_prepared(todo[i], t0);
            } else if (prepared) {
                char *ready = claim("ready", todo[i]);
                if (lab_write_atomic(ready, ""))
                    lab_warn("cannot write %s", ready);
                free(ready);
            } else {
                /* its row says why; no worker takes it */
                char *grade = claim("grade", todo[i]), *status = class_row_status(todo[i]);
                lab_mkdirs(grade);
                class_say("[%d/%d] %s: %s", class_done_count(), cls.nstudents, todo[i], status);
                free(status);
                free(grade);
            }
        }
        free(build);
    }
}

static volatile sig_atomic_t stop_asked;
static void on_stop(int sig)
{
    (void)sig;
    stop_asked = 1;
}
static void on_child(int sig)
{
    (void)sig;
}

static pid_t *pids;
static int npids;
static sigset_t before;

/* A child: a builder (gpu NULL) or a worker on its GPU, and, pipelined,
 * the CPUs it and every program it starts run on. */
typedef struct {
    const char *gpu;
    cpu_set_t cpus;
    int pinned;
} role;

/* The child's work, with the signals blocked as they were before the
 * class blocked them. */
static int build_or_grade(void *arg)
{
    const role *r = arg;
    sigprocmask(SIG_SETMASK, &before, NULL);
    if (r->pinned && sched_setaffinity(0, sizeof r->cpus, &r->cpus))
        lab_fatal(CLASS_FAILED, "cannot keep the %s to its CPUs: %s", r->gpu ? "worker" : "builder", strerror(errno));
    if (r->gpu)
        worker(r->gpu);
    else
        builder();
    fflush(stdout);
    return 0;
}

/* Start a builder or a worker in a session of its own. */
static void start(role *r)
{
    lab_spawn s = {.run = build_or_grade, .arg = r, .group = LAB_SPAWN_SESSION};
    lab_child c;
    if (lab_spawn_start(&s, &c))
        lab_fatal(CLASS_FAILED, "cannot start a %s: fork failed", r->gpu ? "worker" : "builder");
    pids = lab_grow(pids, (npids + 1) * sizeof *pids);
    pids[npids++] = c.pid;
}

/* Wait for every builder or worker; stopped, stop them all and end. */
static void wait_all(void)
{
    for (;;) {
        int alive = 0;
        for (int i = 0; i < npids; i++) {
            if (pids[i] > 0 && waitpid(pids[i], NULL, WNOHANG) == pids[i])
                pids[i] = 0;
            alive += pids[i] > 0;
        }
        if (stop_asked) {
            for (int i = 0; i < npids; i++)
                if (pids[i] > 0)
                    kill(-pids[i], SIGTERM);
            for (int i = 0; i < npids; i++)
                while (pids[i] > 0 && waitpid(pids[i], NULL, 0) < 0 && errno == EINTR)
                    ;
            lab_remove_tree(claims);
            class_say("class: stopped; run the same command again to grade the rest");
            exit(130);
        }
        if (!alive)
            break;
        sigsuspend(&before);
    }
    npids = 0;
}

/* Build the lab once in OUT/lab: each student's copy then rebuilds only
 * what the student changed (a stand-in CLASS_MAKE builds nothing). For a
 * class: the harness, the skeletons and the grader's tools; for a check:
 * what a stage's runner links with, and the wall, for one architecture. */
static void build_lab_once(void)
{
    class_say("building the lab once in %s/lab (its objects are copied for each student)", cls.out);
    char *lab = lab_asprintf("%s/lab", cls.out), *jobs = lab_asprintf("-j%ld", class_cpus());
    char *log = lab_asprintf("%s/logs/lab-build.log", cls.out);
    char *arch = cls.arch ? lab_asprintf("CUDA_ARCH=%s", cls.arch) : lab_strdup("CUDA_ARCH=");
    char **targets = cls.sw[SW_CHECK] ? class_check_lab_targets() : lab_words("all", NULL);
    int n = 0;
    while (targets[n])
        n++;
    char **argv = lab_grow(NULL, (n + 10) * sizeof *argv);
    int a = 0;
    argv[a++] = "make";
    argv[a++] = "-C";
    argv[a++] = lab;
    argv[a++] = "-s";
    argv[a++] = jobs;
    if (cls.arch)
        argv[a++] = arch;
    if (cls.sw[SW_CHECK])
        argv[a++] = "EMU_CHECK_OBJECT=0"; /* as each student's copy builds (grading.c) */
    for (int i = 0; i < n; i++)
        argv[a++] = targets[i];
    if (!cls.sw[SW_CHECK]) {
        argv[a++] = (char *)lab_tools[0];
        argv[a++] = (char *)lab_tools[1];
    }
    argv[a] = NULL;
    proc p = {.out = log, .err = ERR_TO_OUT};
    if (class_run(argv, &p) != 0)
        class_say("class: the lab's own build failed (see %s); each student's copy builds from scratch", log);
    free(argv);
    lab_list_free(targets);
    free(arch);
    free(log);
    free(jobs);
    free(lab);
}

/* The GPUs to grade on: GPUS (commas or spaces), else those nvidia-smi
 * lists; "none" when there are none (a check, a stand-in make). */
static char **gpus_to_use(const char *listed)
{
    const char *given = getenv("GPUS");
    char *gpus = lab_strdup(given && *given ? given : listed);
    for (char *c = gpus; *c; c++)
        if (*c == ',')
            *c = ' ';
    char **gpu = lab_words(gpus, NULL);
    free(gpus);
    if (!gpu[0]) {
        lab_list_free(gpu);
        gpu = lab_words("none", NULL);
    }
    return gpu;
}

/* A count the environment's key gives (dflt when unset or empty); dies
 * when it is not a whole number. */
static long env_count(const char *key, long dflt)
{
    const char *v = getenv(key);
    if (!v || !*v)
        return dflt;
    if (v[strspn(v, "0123456789")])
        lab_fatal(CLASS_FAILED, "%s is a number, not '%s'", key, v);
    return atol(v);
}

void class_local_check_env(void)
{
    const char *keys[] = {"CLASS_BUILDERS", "CLASS_GRADE_CPUS", "CLASS_AHEAD"};
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        env_count(keys[i], 0);
}

/* Students are built ahead on the CPUs (where there is a GPU to keep
 * busy, or a stand-in make; a check has no GPU phase: its builders write
 * the rows): CLASS_BUILDERS builders, default one per CPU but no more than
 * there are students (each builder's make then runs the CPUs left over,
 * cls.build_jobs, so that one student alone has them all; a pipeline sets
 * its own, plan_pipeline); 0 builds in the workers. */
static long how_many_builders(int gpu_listed, int stand_in, int check)
{
    if (!gpu_listed && !stand_in && !check)
        return 0;
    long builders = env_count("CLASS_BUILDERS", -1);
    if (builders < 0) {
        builders = ntodo < class_cpus() ? ntodo : class_cpus();
        builders = builders > 0 ? builders : 1;
        cls.build_jobs = class_cpus() / builders;
        return builders;
    }
    return check && !builders ? 1 : builders;
}

/* The CPUs of set as a list ("0-3,8"), a new string. */
static char *cpu_list(const cpu_set_t *set)
{
    char *list = lab_strdup("");
    for (int c = 0; c < CPU_SETSIZE; c++) {
        if (!CPU_ISSET(c, set) || (c > 0 && CPU_ISSET(c - 1, set)))
            continue;
        int last = c;
        while (last + 1 < CPU_SETSIZE && CPU_ISSET(last + 1, set))
            last++;
        if (last > c)
            lab_appendf(&list, "%s%d-%d", *list ? "," : "", c, last);
        else
            lab_appendf(&list, "%s%d", *list ? "," : "", c);
    }
    return list;
}

/* The pipeline (the module's comment): worker k runs on the class's CPUs
 * k * g to k * g + g - 1 (g: CLASS_GRADE_CPUS, in the order of the class's
 * affinity), the builders on the rest, at most ahead students ahead. The
 * builders to start (CLASS_BUILDERS, default as many as ahead and as the
 * CPUs allow); ahead stays 0 (every student built first) when
 * CLASS_GRADE_CPUS is 0 or the workers' CPUs leave none for a builder. */
static long plan_pipeline(long builders, int nworkers, role *w, role *b)
{
    long per = env_count("CLASS_GRADE_CPUS", 4), n = 0;
    static int ids[CPU_SETSIZE];
    cpu_set_t all;
    if (sched_getaffinity(0, sizeof all, &all) == 0)
        for (int c = 0; c < CPU_SETSIZE; c++)
            if (CPU_ISSET(c, &all))
                ids[n++] = c;
    long spare = n - nworkers * per;
    if (per < 1 || spare < 1) {
        class_say("every student is built first: %s", per < 1 ? "CLASS_GRADE_CPUS=0"
                                                         : "the CPUs leave no builder one beside the GPUs' grades");
        return builders;
    }
    for (int k = 0; k < nworkers; k++) {
        CPU_ZERO(&w[k].cpus);
        for (long c = k * per; c < (k + 1) * per; c++)
            CPU_SET(ids[c], &w[k].cpus);
        w[k].pinned = 1;
    }
    CPU_ZERO(&b->cpus);
    for (long c = nworkers * per; c < n; c++)
        CPU_SET(ids[c], &b->cpus);
    b->pinned = 1;
    ahead = env_count("CLASS_AHEAD", 2L * nworkers);
    if (ahead < 1)
        lab_fatal(CLASS_FAILED, "CLASS_AHEAD is 1 or more, not '%s'", getenv("CLASS_AHEAD"));
    if (!getenv("CLASS_BUILDERS") || !*getenv("CLASS_BUILDERS")) {
        builders = ahead < spare ? ahead : spare;
        builders = builders < ntodo ? builders : ntodo > 0 ? ntodo : 1;
    }
    cls.build_jobs = builders ? spare / builders : 0;
    char *bl = cpu_list(&b->cpus), *wl = cpu_list(&w[0].cpus);
    class_say("builds beside the grades: %ld builder%s on CPUs %s, at most %ld student%s ahead; each GPU grades on "
        "%ld CPU%s of its own (CLASS_GRADE_CPUS; the first GPU's: %s)",
        builders, builders == 1 ? "" : "s", bl, ahead, ahead == 1 ? "" : "s", per, per == 1 ? "" : "s", wl);
    free(wl);
    free(bl);
    return builders;
}

/* OUT/work/claims.PID and its folders of claims (build and ready only
 * with builders). */
static void make_claims(long builders)
{
    claims = lab_asprintf("%s/work/claims.%ld", cls.out, (long)getpid());
    const char *kinds[] = {"grade", "graded", "build", "ready"};
    for (int i = 0; i < (builders ? 4 : 2); i++) {
        char *d = lab_asprintf("%s/%s", claims, kinds[i]);
        if (lab_mkdirs(d))
            lab_fatal(CLASS_FAILED, "cannot create %s", d);
        free(d);
    }
}

/* The class's rate by its clock, once every worker has ended. */
static void say_rate(int nworkers)
{
    char *marks = lab_asprintf("%s/graded", claims);
    int graded = 0;
    for (int i = 0; i < ntodo; i++) {
        char *m = lab_asprintf("%s/%s", marks, todo[i]);
        graded += lab_is_dir(m);
        free(m);
    }
    free(marks);
    if (graded)
        class_say("graded %d student%s in %.1f s on %d GPU%s: %.1f students a minute on each GPU", graded,
            graded == 1 ? "" : "s", lab_spawn_now() - cls.clock_start, nworkers, nworkers == 1 ? "" : "s",
            class_rate());
}

void class_run_local(const char *todo_file)
{
    char *text = lab_read_file(todo_file, 0);
    todo = lab_lines(text, &ntodo);
    free(text);
    char *listed = class_listed_gpus();
    const char *class_make = getenv("CLASS_MAKE");
    int stand_in = class_make && *class_make, check = cls.sw[SW_CHECK];
    char **gpu = gpus_to_use(listed);
    char *flags = lab_asprintf("%s/lab/build/flags.txt", cls.out);
    if ((*listed || check) && !stand_in && lab_have_program("nvcc") && !lab_exists(flags))
        build_lab_once();
    free(flags);
    long builders = how_many_builders(*listed != 0, stand_in, check);
    int nworkers = 0;
    while (gpu[nworkers])
        nworkers++;
    role *workers = lab_grow(NULL, nworkers * sizeof *workers), builder_role = {0};
    memset(workers, 0, nworkers * sizeof *workers);
    for (int i = 0; i < nworkers; i++)
        workers[i].gpu = gpu[i];
    if (builders && !check)
        builders = plan_pipeline(builders, nworkers, workers, &builder_role);
    make_claims(builders);
    /* SIGINT and SIGTERM stop the class (wait_all), SIGCHLD wakes it */
    sigset_t block;
    sigemptyset(&block);
    sigaddset(&block, SIGINT);
    sigaddset(&block, SIGTERM);
    sigaddset(&block, SIGCHLD);
    sigprocmask(SIG_BLOCK, &block, &before);
    struct sigaction stop = {.sa_handler = on_stop}, chld = {.sa_handler = on_child};
    struct sigaction old_int, old_term, old_chld;
    sigaction(SIGINT, &stop, &old_int);
    sigaction(SIGTERM, &stop, &old_term);
    sigaction(SIGCHLD, &chld, &old_chld);
    /* the builders, then (pipelined: at once) the workers; the class's
     * clock, which the progress lines' rate reads, starts with them */
    time_t t0 = time(NULL);
    if (!check) {
        cls.clock_start = lab_spawn_now();
        cls.clock_gpus = nworkers;
        cls.clock_marks = lab_asprintf("%s/graded", claims);
    }
    for (long i = 0; i < builders; i++)
        start(&builder_role);
    if (builders && !ahead) {
        wait_all();
        class_say("%s every student in %ld s%s", check ? "checked" : "built", (long)(time(NULL) - t0), check ? "" : "; grading");
    }
    for (int i = 0; i < nworkers && !check; i++)
        start(&workers[i]);
    wait_all();
    if (!check)
        say_rate(nworkers);
    free(workers);
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    sigaction(SIGCHLD, &old_chld, NULL);
    sigprocmask(SIG_SETMASK, &before, NULL);
    lab_remove_tree(claims);
    free((char *)claims);
    claims = NULL;
    free(cls.clock_marks);
    cls.clock_marks = NULL;
    cls.clock_start = 0;
    free(pids);
    pids = NULL;
    lab_list_free(gpu);
    free(listed);
    lab_list_free(todo);
}
