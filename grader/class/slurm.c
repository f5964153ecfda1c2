/*
 * slurm.c: the Slurm back end. One sbatch job array, one task per
 * PER_TASK students of the to-do list, each on a GPU of its own and at
 * most SLURM_THROTTLE at a time, then a job that depends on it (afterany)
 * and writes the gradebook. Each task runs OUT/bin/class --task K: its
 * students one after another, each row written when that student is done.
 */
#include "class.h"
#include "grader.h"
#include "spawn.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const char *env_or(const char *key, const char *fallback)
{
    const char *v = getenv(key);
    return v && *v ? v : fallback;
}

/* The students of the to-do list's array task index (count in *n). */
static char **task_students(const char *todo, long index, int *n)
{
    char *text = lab_read_file(todo, 0);
    int all;
    char **line = lab_lines(text, &all);
    free(text);
    char **mine = lab_grow(NULL, (cls.per_task + 1) * sizeof *mine);
    *n = 0;
    for (long i = index * cls.per_task; i >= 0 && i < all && i < (index + 1) * cls.per_task; i++)
        mine[(*n)++] = lab_strdup(line[i]);
    mine[*n] = NULL;
    lab_list_free(line);
    return mine;
}

char *class_status_line(const char *array, const char *todo)
{
    char *running = lab_strdup("");
    if (array) {
        /* in each running task, the first of its students without a row
         * since the to-do list was made */
        char *argv[] = {"squeue", "-h", "-j", (char *)array, "-t", "R", "-o", "%K", NULL};
        char *text = intake_output_of(argv, NULL);
        int n;
        char **task = lab_lines(text, &n);
        for (int i = 0; i < n; i++) {
            char *end;
            long k = strtol(task[i], &end, 10);
            if (end == task[i])
                continue;
            int m;
            char **names = task_students(todo, k, &m);
            for (int j = 0; j < m; j++) {
                char *row = class_row_path(names[j]);
                int done = class_newer(row, todo);
                free(row);
                if (!done) {
                    lab_join(&running, " ", names[j]);
                    break;
                }
            }
            lab_list_free(names);
        }
        lab_list_free(task);
        free(text);
    }
    char *line = lab_asprintf("%d of %d done%s%s", class_done_count(), cls.nstudents, *running ? "; grading now: " : "", running);
    free(running);
    return line;
}

/* sbatch with argv and the job script on stdin: the job's id, or NULL. */
static char *submit(char **argv, const char *script)
{
    proc p = {.capture = 1, .input = script};
    if (class_run(argv, &p) != 0) {
        free(p.text);
        return NULL;
    }
    p.text[strcspn(p.text, ";\n")] = 0;
    return p.text;
}

/* The to-do list, copied to a name of its own in OUT/logs (the jobs read
 * it there; a later run writes another): its path, and *n its students. */
static char *stamped_todo(const char *todo_file, int *n)
{
    char *text = lab_read_file(todo_file, 0);
    lab_list_free(lab_lines(text, n));
    char stamp[32];
    time_t now = time(NULL);
    strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", localtime(&now));
    char *todo = lab_asprintf("%s/logs/todo-%s.txt", cls.out, stamp);
    if (lab_write_atomic(todo, text ? text : ""))
        lab_fatal(CLASS_FAILED, "cannot write %s", todo);
    free(text);
    return todo;
}

/* The options both jobs get (SLURM_PARTITION, SLURM_ACCOUNT,
 * SLURM_EXTRA) into opt: how many. */
static int both_jobs_options(char **opt)
{
    char **extra = lab_words(getenv("SLURM_EXTRA"), NULL);
    int o = 0;
    if (*env_or("SLURM_PARTITION", ""))
        opt[o++] = lab_asprintf("--partition=%s", getenv("SLURM_PARTITION"));
    if (*env_or("SLURM_ACCOUNT", ""))
        opt[o++] = lab_asprintf("--account=%s", getenv("SLURM_ACCOUNT"));
    for (int i = 0; extra[i] && o < 48; i++)
        opt[o++] = lab_strdup(extra[i]);
    lab_list_free(extra);
    return o;
}

/* --wait: until squeue knows neither job (a failed squeue, a busy
 * controller, is asked again; one that says the jobs are gone is not),
 * saying the progress as it changes; then the gradebook job's log. */
static void wait_for_jobs(const char *array, const char *collector, const char *todo)
{
    char *both = lab_asprintf("%s,%s", array, collector), *last = lab_strdup("");
    for (;;) {
        char *q[] = {"squeue", "-h", "-j", both, "-o", "%i", NULL};
        proc p = {.capture = 1, .err = ERR_TO_OUT};
        int st = class_run(q, &p);
        int gone = st == 0 ? !p.text[strspn(p.text, " \n")] : strcasestr(p.text, "invalid job id") != NULL;
        free(p.text);
        if (gone)
            break;
        char *line = class_status_line(array, todo);
        if (strcmp(line, last))
            class_say("%s", line);
        free(last);
        last = line;
        nanosleep(&(struct timespec){2, 0}, NULL);
    }
    /* the last word, however quickly the jobs ended */
    char *line = class_status_line(array, todo);
    if (strcmp(line, last))
        class_say("%s", line);
    free(line);
    free(last);
    free(both);
    char *log = lab_asprintf("%s/logs/gradebook-%s.log", cls.out, collector), *said = lab_read_file(log, 0);
    if (said) {
        fputs(said, stdout);
        fflush(stdout);
    }
    free(said);
    free(log);
}

void class_run_slurm(const char *todo_file, const char *status_cmd)
{
    if (!lab_have_program("sbatch"))
        lab_fatal(CLASS_FAILED, "sbatch is not here: run make class BACKEND=slurm on a Slurm login node");
    int n;
    char *todo = stamped_todo(todo_file, &n);
    char *opt[64];
    int o = both_jobs_options(opt);
    int tasks = (n + cls.per_task - 1) / cls.per_task;
    const char *throttle = env_or("SLURM_THROTTLE", "4");
    char *argv[80];
    int a = 0;
    argv[a++] = "sbatch";
    argv[a++] = "--parsable";
    argv[a++] = "--job-name=lab-grade";
    for (int i = 0; i < o; i++)
        argv[a++] = opt[i];
    char *dyn[6];
    argv[a++] = dyn[0] = lab_asprintf("--array=0-%d%%%s", tasks - 1, throttle);
    argv[a++] = dyn[1] = lab_asprintf("--gres=%s", env_or("SLURM_GRES", "gpu:1"));
    argv[a++] = "--ntasks=1";
    argv[a++] = dyn[2] = lab_asprintf("--cpus-per-task=%s", env_or("SLURM_CPUS", "4"));
    argv[a++] = dyn[3] = lab_asprintf("--time=%s", cls.task_time);
    argv[a++] = dyn[4] = lab_asprintf("--output=%s/logs/grade-%%A_%%a.log", cls.out);
    argv[a] = NULL;
    char *script = lab_asprintf("#!/bin/bash\n# %d student(s) of the class, one after another: task K grades lines\n"
                       "# K*%d+1 to K*%d+%d of the to-do list\n"
                       "exec '%s/bin/class' --task \"$SLURM_ARRAY_TASK_ID\" --per-task %d --todo '%s' --out '%s'\n",
                       cls.per_task, cls.per_task, cls.per_task, cls.per_task, cls.out, cls.per_task, todo, cls.out);
    char *array = submit(argv, script);
    if (!array)
        lab_fatal(CLASS_FAILED, "sbatch refused the array job (see its message above)");
    free(script);
    a = 3 + o;
    argv[a++] = dyn[5] = lab_asprintf("--dependency=afterany:%s", array);
    argv[a++] = "--ntasks=1";
    argv[a++] = "--time=00:10:00";
    argv[a++] = lab_asprintf("--output=%s/logs/gradebook-%%j.log", cls.out);
    argv[a] = NULL;
    argv[2] = "--job-name=lab-gradebook";
    script = lab_asprintf("#!/bin/bash\nexec '%s/bin/class' --collect --out '%s'\n", cls.out, cls.out);
    char *collector = submit(argv, script);
    if (!collector)
        lab_fatal(CLASS_FAILED, "sbatch refused the gradebook job (the array %s is queued: scancel %s)", array, array);
    free(argv[a - 1]);
    free(script);
    class_say("submitted job array %s (%d student%s, %d task%s of at most %d, at most %s at a time) and job %s, "
        "which writes %s/gradebook.csv when the array has ended",
        array, n, n == 1 ? "" : "s", tasks, tasks == 1 ? "" : "s", cls.per_task, throttle, collector, cls.out);
    class_say("follow: squeue -j %s,%s; logs in %s/logs/; progress: %s --status --out %s", array, collector, cls.out,
        status_cmd, cls.out);
    if (cls.wait)
        wait_for_jobs(array, collector, todo);
    for (int i = 0; i < 6; i++)
        free(dyn[i]);
    for (int i = 0; i < o; i++)
        free(opt[i]);
    free(collector);
    free(array);
    free(todo);
}

/* A task of the array, on its GPU: its students one after another, each
 * in a fresh copy of the lab. A student whose row is newer than the to-do
 * list was graded by this task before Slurm started it again (a requeue)
 * and is skipped. With more than one student, the lab is built once for
 * this node's GPU and each student's copy rebuilds only their kernels. */
void class_array_task(const char *index, const char *todo)
{
    if (!*index || index[strspn(index, "0123456789")])
        lab_fatal(CLASS_FAILED, "--task takes the array task's index, not '%s'", index);
    if (!todo || !lab_exists(todo))
        lab_fatal(CLASS_FAILED, "--task needs --todo FILE, the to-do list of the array");
    int n;
    char **names = task_students(todo, atol(index), &n);
    if (!n) {
        char *text = lab_read_file(todo, 0);
        int all;
        lab_list_free(lab_lines(text, &all));
        lab_fatal(CLASS_FAILED, "array task %s has no students: %s lists %d", index, todo, all);
    }
    char *joined = lab_strdup(""), *host = class_host_name(0);
    for (int i = 0; i < n; i++) {
        lab_join(&joined, " ", names[i]);
    }
    class_say("array task %s on %s: %s", index, host, joined);
    free(host);
    free(joined);
    char *listed = class_listed_gpus();
    if (cls.per_task > 1 && !*env_or("CLASS_MAKE", "") && lab_have_program("nvcc") && *listed) {
        char *lab = lab_asprintf("%s/lab", cls.out), *jobs = lab_asprintf("-j%ld", class_cpus());
        char *id = getenv("SLURM_JOB_ID") && *getenv("SLURM_JOB_ID") ? lab_strdup(getenv("SLURM_JOB_ID"))
                                                                      : lab_asprintf("%ld", (long)getpid());
        char *task_lab = lab_asprintf("%s/work/lab.%s", cls.out, id), *log = lab_asprintf("%s.log", task_lab);
        lab_remove_tree(task_lab);
        char *cp[] = {"cp", "-a", lab, task_lab, NULL};
        char *make[] = {"make", "-C", task_lab, "-s", jobs, "all", (char *)lab_tools[0], (char *)lab_tools[1], NULL};
        proc p = {.err = ERR_INHERIT}, q = {.out = log, .err = ERR_TO_OUT};
        if (class_run(cp, &p) == 0 && class_run(make, &q) == 0) {
            class_say("built the lab once in %s for this task's students", task_lab);
            cls.task_lab = task_lab;
        } else {
            class_say("class: the lab's build for this task failed (see %s); each student's copy builds from scratch", log);
            lab_remove_tree(task_lab);
            free(task_lab);
        }
        free(log);
        free(id);
        free(jobs);
        free(lab);
    }
    free(listed);
    cls.clock_start = lab_spawn_now(); /* the task's clock: its students a minute on its GPU */
    cls.clock_gpus = 1;
    for (int i = 0; i < n; i++) {
        char *row = class_row_path(names[i]);
        if (class_newer(row, todo)) {
            class_say("%s: graded already by this task before it was started again", names[i]);
        } else {
            class_say("grading %s", names[i]);
            class_grade_one(names[i]);
        }
        free(row);
    }
    if (cls.task_lab) {
        char *log = lab_asprintf("%s.log", cls.task_lab);
        lab_remove_tree(cls.task_lab);
        remove(log);
        free(log);
        free(cls.task_lab);
        cls.task_lab = NULL;
    }
    lab_list_free(names);
}

/* Digits, at least one: its value into *v. */
static int number(const char *s, size_t len, long long *v)
{
    if (!len || len > 12)
        return 0;
    *v = 0;
    for (size_t i = 0; i < len; i++) {
        if (s[i] < '0' || s[i] > '9')
            return 0;
        *v = *v * 10 + (s[i] - '0');
    }
    return 1;
}

/* Slurm's time limit t (M, M:S, H:M:S, D-H, D-H:M or D-H:M:S, or
 * UNLIMITED) n times over, as D-HH:MM:SS; NULL for any other form. */
char *class_slurm_time_times(const char *t, int n)
{
    const char *unlimited[] = {"UNLIMITED", "INFINITE", "unlimited", "infinite"};
    for (int i = 0; i < 4; i++)
        if (!strcmp(t, unlimited[i]))
            return lab_strdup(t);
    long long part[4] = {0}, d = 0, h = 0, m = 0, s = 0;
    const char *dash = strchr(t, '-'), *p = dash ? dash + 1 : t;
    if (dash && !number(t, (size_t)(dash - t), &d))
        return NULL;
    int k = 0;
    for (;;) {
        size_t len = strcspn(p, ":");
        if (k == 3 || !number(p, len, &part[k++]))
            return NULL;
        if (!p[len])
            break;
        p += len + 1;
    }
    if (dash) {
        h = part[0], m = part[1], s = part[2];
    } else if (k == 3) {
        h = part[0], m = part[1], s = part[2];
    } else {
        m = part[0], s = part[1];
    }
    long long total = (((d * 24 + h) * 60 + m) * 60 + s) * n;
    /* 0 is Slurm's "no limit", which n times over stays */
    if (total <= 0)
        return lab_strdup("0");
    return lab_asprintf("%lld-%02lld:%02lld:%02lld", total / 86400, total % 86400 / 3600, total % 3600 / 60, total % 60);
}
