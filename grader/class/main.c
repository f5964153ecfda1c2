/*
 * main.c: grade a whole class (make class). Instructors only.
 *
 *   build/grader/class --submissions DIR [--out DIR] [--backend local|slurm] [--per-task N]
 *       [--stages "03 04"] [--seed S] [--sanitize] [--unconfined] [--judge] [--once] [--wait] [--retry]
 *   build/grader/class --status --out DIR
 *   build/grader/class --collect --out DIR
 *
 * The options, the modes, and a class's run: the class set up (setup.c),
 * every student without a row taken in (intake.c), then graded by a back
 * end (local.c, slurm.c), and the gradebook written (gradebook.c).
 * INSTRUCTORS.md, "Grade the class", says what a class is to the
 * instructor. The Slurm jobs run OUT/bin/class, this program's copy:
 * --task K --per-task N --todo FILE (task K of the job array) and
 * --collect (the gradebook).
 */
#include "class.h"
#include "grader.h"

#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

class_state cls;

static const char synopsis[] =
    "  build/grader/class --submissions DIR [--out DIR] [--backend local|slurm] [--per-task N]\n"
    "                     [--stages \"03 04\"] [--seed S] [--sanitize] [--unconfined] [--judge] [--once] [--wait] [--retry]\n"
    "  build/grader/class --check --submissions DIR [--out DIR] [--arch 90] [--stages \"03 04\"]\n"
    "  build/grader/class --status --out DIR\n";

static const char help[] =
    "build/grader/class: grade a whole class (make class; INSTRUCTORS.md, \"Grade the class\").\n\n%s\n"
    "SUBMISSIONS holds one entry per student: a folder or an archive (.tar.gz, .tgz, .tar,\n"
    ".tar.xz, .tar.bz2; .zip where unzip is installed) with the student's kernel.cu files.\n"
    "Each student is graded by make grade in a copy of the lab of their own (OUT/lab).\n"
    "OUT (default class-grades) gets gradebook.csv, students/NAME/ (row.csv, kernels/,\n"
    "grade.json, results.json, grade.log), lab/, logs/ and class.conf (the seed, stages and\n"
    "switches of the class; a re-run uses them). A student with a row is done: running the\n"
    "same command again grades only those without one (--retry: also those whose row blames\n"
    "the machine). --check (make class CHECK=1) needs no GPU: each stage is built inside the\n"
    "wall for --arch, and checked on the CPU emulator where the lab has one; the rows say what\n"
    "each stage is (status \"checked\", no points).\n\n"
    "Settings from the environment: GPUS, CLASS_BUILDERS, KEEP_WORK=1, CLASS_MAKE (the make\n"
    "that runs make grade), CLASS_CONFINE (the program probed for confinement), and for\n"
    "Slurm SLURM_PARTITION, SLURM_ACCOUNT, SLURM_TIME, SLURM_THROTTLE, SLURM_GRES,\n"
    "SLURM_CPUS, SLURM_EXTRA.\n\n"
    "Exit status: 0 done (whatever the grades), 1 a step failed, 2 usage, 3 no GPU here for\n"
    "the local back end, 5 the runs cannot be confined, 130 stopped.\n";

static _Noreturn void usage(const char *why)
{
    fputs(synopsis, stderr);
    if (why)
        fprintf(stderr, "class: %s\n", why);
    exit(CLASS_USAGE);
}

/* This program's own path, and the lab it was built in (its folder's
 * parent's parent: LAB/build/grader/class). */
static char *lab_of(const char *self)
{
    char *lab = xstrdup(self);
    for (int up = 0; up < 3; up++) {
        char *slash = strrchr(lab, '/');
        if (slash && slash != lab)
            *slash = 0;
    }
    return lab;
}

/* Whether a student still needs grading: no row yet, or (--retry) a row
 * whose status blames the machine. */
static int needs_grading(const char *name, int retry)
{
    if (!has_row(name))
        return 1;
    if (!retry)
        return 0;
    char *status = row_status(name);
    const char *machine[] = {"no GPU", "no build tools", "grader error", "not confined"};
    int again = 0;
    for (int i = 0; i < 4; i++)
        again |= !strcmp(status, machine[i]);
    free(status);
    return again;
}

/* The local back end grades on this machine's GPUs: with none, the class
 * stops before building anything, in one line (GPUS named by hand, or a
 * stand-in CLASS_MAKE, is taken at its word). */
static void stop_without_gpu(const char *backend)
{
    const char *gpus = getenv("GPUS"), *make = getenv("CLASS_MAKE");
    if (strcmp(backend, "local") || (gpus && *gpus) || (make && *make))
        return;
    char *listed = listed_gpus();
    int any = *listed != 0;
    free(listed);
    if (any)
        return;
    if (have_program("sbatch"))
        warn("no GPU here (nvidia-smi lists none): from a Slurm login node, BACKEND=slurm grades on the GPU nodes");
    else
        warn("no GPU here (nvidia-smi lists none) and no Slurm (sbatch): grade the class on a machine with an "
             "NVIDIA GPU");
    exit(CLASS_NO_GPU);
}

/* A class's run: set up, take every student in, grade, the gradebook. */
static void grade_class(const char *submissions, const char *backend, const char *stages, const char *seed,
                        const int *switches, int retry)
{
    if (!submissions)
        usage("--submissions DIR is needed");
    if (!is_dir(submissions))
        die("%s is not a folder", submissions);
    char *conf = fmt("%s/class.conf", cls.out);
    int check = switches[SW_CHECK];
    if (!exists(conf) && !check)
        stop_without_gpu(backend);
    free(conf);
    if (strchr(cls.out, '\'') || strchr(cls.out, '\n'))
        usage("the --out path may not hold a quote or a newline");
    if (mkdirs(cls.out))
        die("cannot create %s", cls.out);
    char *abs = abs_path(cls.out);
    cls.out = abs;
    char *lock = fmt("%s/.lock", cls.out);
    int fd = open(lock, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
    if (fd >= 0 && flock(fd, LOCK_EX | LOCK_NB))
        die("another make class is running on %s", cls.out);
    free(lock);
    char *lab = lab_of(cls.self);
    class_setup(lab, submissions, stages, seed, switches);
    class_load();
    check_confinement();
    list_submissions(submissions);
    if (!cls.sw[SW_CHECK])
        stop_without_gpu(backend);
    int m = cls.nstudents;
    if (!m)
        die("%s holds no submissions (one folder or archive per student)", submissions);
    /* intake here, for both back ends: refusals get their rows now, and
     * the jobs read only OUT */
    char *todo = fmt("%s/work/todo.txt", cls.out), *list = xstrdup("");
    int refused = 0, done_before = 0, n = 0;
    for (int i = 0; i < m; i++) {
        const char *name = cls.names[i];
        if (!needs_grading(name, retry)) {
            done_before++;
        } else if (intake(submissions, i)) {
            char *more = fmt("%s%s\n", list, name);
            free(list);
            list = more;
            n++;
        } else {
            refused++;
            char *status = row_status(name), *notes = row_notes(name);
            say("[%d/%d] %s: %s: %s", done_count(), m, name, status, notes);
            free(status);
            free(notes);
        }
    }
    if (write_atomic(todo, list))
        die("cannot write %s", todo);
    free(list);
    say("%d students, seed %s: %d graded before, %d refused now, %d to grade (%s)", m, cls.seed, done_before, refused,
        n, backend);
    if (!n) {
        collect();
    } else if (!strcmp(backend, "local")) {
        run_local(todo);
        collect();
    } else {
        /* the gradebook job writes the gradebook */
        run_slurm(todo, cls.self);
    }
    free(todo);
    free(lab);
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    const char *submissions = NULL, *out = NULL, *backend = "local", *stages = NULL, *seed = NULL;
    const char *task = NULL, *todo = NULL, *per_task = "1", *mode = "run", *arch = NULL;
    int switches[NSWITCHES] = {0}, retry = 0, per_task_given = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *valued[] = {"--submissions", "--out", "--backend", "--stages", "--seed", "--task", "--todo",
                                "--per-task", "--arch"};
        int v = -1;
        for (int k = 0; k < 9; k++)
            if (!strcmp(a, valued[k]))
                v = k;
        if (v >= 0) {
            if (i + 1 >= argc || !argv[i + 1][0]) {
                char *why = fmt("%s needs a value", a);
                usage(why);
            }
            const char *value = argv[++i];
            const char **to[] = {&submissions, &out, &backend, &stages, &seed, &task, &todo, &per_task, &arch};
            *to[v] = value;
            if (v == 5)
                mode = "task";
            if (v == 7)
                per_task_given = 1;
        } else if (!strcmp(a, "--wait")) {
            cls.wait = 1;
        } else if (!strcmp(a, "--retry")) {
            retry = 1;
        } else if (!strcmp(a, "--status") || !strcmp(a, "--collect")) {
            mode = a + 2;
        } else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            printf(help, synopsis);
            return 0;
        } else {
            /* --sanitize and the other switches of make grade */
            int known = 0;
            for (int k = 0; k < NSWITCHES; k++)
                if (!strncmp(a, "--", 2) && !strcmp(a + 2, switch_name[k]))
                    switches[k] = known = 1;
            if (!known) {
                char *why = fmt("unknown argument '%s'", a);
                usage(why);
            }
        }
    }
    int run_mode = !strcmp(mode, "run");
    if (!out) {
        if (!run_mode)
            usage("--out DIR is needed");
        out = "class-grades";
    }
    cls.out = xstrdup(out);
    if (strcmp(backend, "local") && strcmp(backend, "slurm")) {
        char *why = fmt("--backend is local or slurm, not '%s'", backend);
        usage(why);
    }
    if (seed && seed[strspn(seed, "0123456789")])
        usage("--seed takes a whole number");
    /* students per Slurm array task: a whole number from 1 up; the local
     * back end has no tasks to fill (its GPUs take the next student as
     * they finish) */
    if (!*per_task || per_task[0] == '0' || per_task[strspn(per_task, "0123456789")] || strlen(per_task) > 6) {
        char *why = fmt("--per-task (PER_TASK) is how many students one Slurm array task grades: a whole number, "
                        "1 or more, not '%s'", per_task);
        usage(why);
    }
    cls.per_task = atoi(per_task);
    /* a check builds on this machine's CPUs, for one architecture (--arch:
     * the course GPU's, e.g. 90), and runs nothing on a GPU */
    if (run_mode && switches[SW_CHECK] && strcmp(backend, "local"))
        usage("--check (CHECK=1) builds and checks on this machine, without a GPU: leave out --backend (BACKEND)");
    if (arch && (!*arch || arch[strspn(arch, "0123456789 ")]))
        usage("--arch takes compute capabilities as make's CUDA_ARCH does, e.g. 90 or \"80 90\"");
    cls.arch = arch ? xstrdup(arch) : NULL;
    if (run_mode && !strcmp(backend, "local") && per_task_given)
        usage("--per-task (PER_TASK) is for the Slurm back end (BACKEND=slurm); the local back end gives each GPU "
              "the next student as it finishes");
    const char *slurm_time = getenv("SLURM_TIME");
    cls.task_time = xstrdup(slurm_time && *slurm_time ? slurm_time : "01:00:00");
    if (run_mode && !strcmp(backend, "slurm") && cls.per_task > 1) {
        char *times = slurm_time_times(cls.task_time, cls.per_task);
        if (!times) {
            char *why = fmt("SLURM_TIME is one student's time limit in a form Slurm takes (M, M:S, H:M:S, D-H, "
                            "D-H:M, D-H:M:S), not '%s'", slurm_time ? slurm_time : "");
            usage(why);
        }
        free(cls.task_time);
        cls.task_time = times;
    }
    /* make grade runs in copies of the lab: nothing of a make that called
     * us (jobserver, command-line variables) */
    unsetenv("MAKEFLAGS");
    unsetenv("MFLAGS");
    unsetenv("MAKELEVEL");
    const char *make = getenv("CLASS_MAKE");
    cls.make_cmd = words(make && *make ? make : "make", NULL);
    if (!cls.make_cmd[0])
        cls.make_cmd = words("make", NULL);
    char self[PATH_MAX];
    ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
    if (len <= 0)
        die("cannot tell where this program is (/proc/self/exe)");
    self[len] = 0;
    cls.self = xstrdup(self);

    if (!strcmp(mode, "status")) {
        class_load();
        char *line = status_line(NULL, NULL);
        say("%s", line);
        free(line);
        summary();
    } else if (!strcmp(mode, "collect")) {
        class_load();
        collect();
    } else if (!strcmp(mode, "task")) {
        class_load();
        array_task(task, todo);
    } else {
        grade_class(submissions, backend, stages, seed, switches, retry);
    }
    return 0;
}
