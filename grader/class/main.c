/*
 * main.c: grade a whole class (make class). Instructors only.
 *
 *   build/grader/class --submissions DIR [--out DIR] [--backend local|slurm] [--per-task N]
 *       [--stages "03 04"] [--seed S] [--sanitize] [--unconfined] [--judge] [--once] [--wait] [--retry]
 *       [--roster FILE] [--times FILE] [--deadline TIME] [--late-penalty POINTS]
 *   build/grader/class --status --out DIR
 *   build/grader/class --collect --out DIR
 *   build/grader/class --export --out DIR [--format "gradescope canvas plain"] [--assignment NAME]
 *
 * The options, the modes, and a class's run: the class set up (setup.c),
 * every student without a row taken in (intake.c), then graded by a back
 * end (local.c, slurm.c), and the gradebook written (gradebook.c), with the
 * roster's and the deadline's columns (book.c); --export writes it in the
 * forms other tools import (export.c).
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
    "                     [--roster FILE] [--times FILE] [--deadline TIME] [--late-penalty POINTS]\n"
    "  build/grader/class --check --submissions DIR [--out DIR] [--arch 90] [--stages \"03 04\"]\n"
    "  build/grader/class --status --out DIR\n"
    "  build/grader/class --export --out DIR [--format \"gradescope canvas plain\"] [--assignment NAME]\n";

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
    "--roster (ROSTER, a CSV file: name or folder, student id, email, extra days) gives every\n"
    "entry a row with its id, in its order (\"no submission\" where SUBMISSIONS has nothing of\n"
    "it), and names the students it does not list. --deadline (DEADLINE) and --late-penalty\n"
    "(LATE_PENALTY, points off for each day late) add each submission's time and the days late;\n"
    "--times (TIMES, a CSV file: name or folder, time) gives the times. The class keeps them:\n"
    "a later run with new ones changes the gradebook and grades no one again. --export (make\n"
    "export) writes OUT/gradebook-FORMAT.csv for Gradescope, Canvas, or plain (id, total, stages).\n\n"
    "Settings from the environment: GPUS, CLASS_BUILDERS, CLASS_GRADE_CPUS (CPUs each GPU's\n"
    "grade keeps from the builders, 0: build everyone first), CLASS_AHEAD (students built\n"
    "ahead of the GPUs), KEEP_WORK=1, CLASS_MAKE (the make\n"
    "that runs make grade), CLASS_CONFINE (the program probed for confinement), and for\n"
    "Slurm SLURM_PARTITION, SLURM_ACCOUNT, SLURM_TIME, SLURM_THROTTLE, SLURM_GRES,\n"
    "SLURM_CPUS, SLURM_EXTRA.\n\n"
    "Exit status: 0 done (whatever the grades), 1 a step failed, 2 usage, 3 no GPU here for\n"
    "the local back end, 5 the runs cannot be confined, 6 an entry of SUBMISSIONS has a name to\n"
    "change (a control character in it, or two entries of one student), 7 the roster, times,\n"
    "deadline or late penalty cannot be used, or the class cannot be exported, 130 stopped.\n";

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
    char *lab = lab_strdup(self);
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
    if (!class_has_row(name))
        return 1;
    if (!retry)
        return 0;
    char *status = class_row_status(name);
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
    char *listed = class_listed_gpus();
    int any = *listed != 0;
    free(listed);
    if (any)
        return;
    if (lab_have_program("sbatch"))
        lab_warn("no GPU here (nvidia-smi lists none): from a Slurm login node, BACKEND=slurm grades on the GPU nodes");
    else
        lab_warn("no GPU here (nvidia-smi lists none) and no Slurm (sbatch): grade the class on a machine with an "
             "NVIDIA GPU");
    exit(CLASS_NO_GPU);
}

/* The term's settings a run was given (NULL: as the class has them). */
typedef struct {
    const char *roster, *times, *deadline, *late_penalty;
} term_args;

/* A class's run: set up, take every student in, grade, the gradebook. */
static void grade_class(const char *submissions, const char *backend, const char *stages, const char *seed,
                        const int *switches, int retry, const term_args *term)
{
    if (!submissions)
        usage("--submissions DIR is needed");
    if (!lab_is_dir(submissions))
        lab_fatal(CLASS_FAILED, "%s is not a folder", submissions);
    char *conf = lab_asprintf("%s/class.conf", cls.out);
    int check = switches[SW_CHECK];
    if (!lab_exists(conf) && !check)
        stop_without_gpu(backend);
    free(conf);
    if (strchr(cls.out, '\'') || strchr(cls.out, '\n'))
        usage("the --out path may not hold a quote or a newline");
    if (!strcmp(backend, "local"))
        class_local_check_env();
    if (lab_mkdirs(cls.out))
        lab_fatal(CLASS_FAILED, "cannot create %s", cls.out);
    char *abs = class_abs_path(cls.out);
    cls.out = abs;
    char *lock = lab_asprintf("%s/.lock", cls.out);
    int fd = open(lock, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
    if (fd >= 0 && flock(fd, LOCK_EX | LOCK_NB))
        lab_fatal(CLASS_FAILED, "another make class is running on %s", cls.out);
    free(lock);
    if (term->roster)
        class_roster_keep(term->roster);
    class_late_keep(term->times, term->deadline, term->late_penalty);
    char *lab = lab_of(cls.self);
    class_setup(lab, submissions, stages, seed, switches);
    class_load();
    class_check_confinement();
    class_list_submissions(submissions);
    if (!cls.sw[SW_CHECK])
        stop_without_gpu(backend);
    int m = cls.nstudents;
    if (!m)
        lab_fatal(CLASS_FAILED, "%s holds no submissions (one folder or archive per student)", submissions);
    /* intake here, for both back ends: refusals get their rows now, and
     * the jobs read only OUT */
    char *todo = lab_asprintf("%s/work/todo.txt", cls.out), *list = lab_strdup("");
    int refused = 0, done_before = 0, n = 0;
    for (int i = 0; i < m; i++) {
        const char *name = cls.names[i];
        if (!needs_grading(name, retry) && !class_submission_changed(submissions, i)) {
            done_before++;
        } else if (class_intake(submissions, i)) {
            lab_appendf(&list, "%s\n", name);
            n++;
        } else {
            refused++;
            char *status = class_row_status(name), *notes = class_row_notes(name);
            class_say("[%d/%d] %s: %s: %s", class_done_count(), m, name, status, notes);
            free(status);
            free(notes);
        }
    }
    if (lab_write_atomic(todo, list))
        lab_fatal(CLASS_FAILED, "cannot write %s", todo);
    free(list);
    class_say("%d students, seed %s: %d graded before, %d refused now, %d to grade (%s)", m, cls.seed, done_before, refused,
        n, backend);
    if (!n) {
        class_collect();
    } else if (!strcmp(backend, "local")) {
        class_run_local(todo);
        class_collect();
    } else {
        /* the gradebook job writes the gradebook */
        class_run_slurm(todo, cls.self);
    }
    free(todo);
    free(lab);
}

/* The command line, as read. */
typedef struct {
    const char *submissions, *out, *backend, *stages, *seed, *task, *todo, *per_task, *mode, *arch;
    const char *format, *assignment;
    term_args term;
    int switches[NSWITCHES], retry, per_task_given;
} class_args;

/* The arguments into a (usage() for one it does not know). */
static void read_arguments(int argc, char **argv, class_args *a)
{
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        const char *valued[] = {"--submissions", "--out",    "--backend", "--stages", "--seed",
                                "--task",        "--todo",   "--per-task", "--arch",  "--roster",
                                "--times",       "--deadline", "--late-penalty", "--format", "--assignment"};
        int v = -1;
        for (int k = 0; k < 15; k++)
            if (!strcmp(arg, valued[k]))
                v = k;
        if (v >= 0) {
            if (i + 1 >= argc || !argv[i + 1][0]) {
                char *why = lab_asprintf("%s needs a value", arg);
                usage(why);
            }
            const char *value = argv[++i];
            const char **to[] = {&a->submissions, &a->out, &a->backend, &a->stages, &a->seed,
                                 &a->task, &a->todo, &a->per_task, &a->arch, &a->term.roster,
                                 &a->term.times, &a->term.deadline, &a->term.late_penalty, &a->format,
                                 &a->assignment};
            *to[v] = value;
            if (v == 5)
                a->mode = "task";
            if (v == 7)
                a->per_task_given = 1;
        } else if (!strcmp(arg, "--wait")) {
            cls.wait = 1;
        } else if (!strcmp(arg, "--retry")) {
            a->retry = 1;
        } else if (!strcmp(arg, "--status") || !strcmp(arg, "--collect") || !strcmp(arg, "--export")) {
            a->mode = arg + 2;
        } else if (!strcmp(arg, "-h") || !strcmp(arg, "--help")) {
            printf(help, synopsis);
            exit(0);
        } else {
            /* --sanitize and the other switches of make grade */
            int known = 0;
            for (int k = 0; k < NSWITCHES; k++)
                if (!strncmp(arg, "--", 2) && !strcmp(arg + 2, switch_name[k]))
                    a->switches[k] = known = 1;
            if (!known) {
                char *why = lab_asprintf("unknown argument '%s'", arg);
                usage(why);
            }
        }
    }
}

/* Each value checked (usage() for a wrong one); the class's out folder,
 * students per Slurm task and architecture set. */
static void check_arguments(class_args *a)
{
    int run_mode = !strcmp(a->mode, "run");
    if (!a->out) {
        if (!run_mode)
            usage("--out DIR is needed");
        a->out = "class-grades";
    }
    cls.out = lab_strdup(a->out);
    if (strcmp(a->backend, "local") && strcmp(a->backend, "slurm")) {
        char *why = lab_asprintf("--backend is local or slurm, not '%s'", a->backend);
        usage(why);
    }
    /* the term's settings come with a class's run, which keeps them */
    const char *term = a->term.roster     ? "--roster (ROSTER)"
                       : a->term.times    ? "--times (TIMES)"
                       : a->term.deadline ? "--deadline (DEADLINE)"
                       : a->term.late_penalty ? "--late-penalty (LATE_PENALTY)" : NULL;
    if (term && !run_mode) {
        char *why = lab_asprintf("%s is given to make class, which keeps it for the class's later runs and make export", term);
        usage(why);
    }
    if ((a->format || a->assignment) && strcmp(a->mode, "export"))
        usage("--format (FORMAT) and --assignment (ASSIGNMENT) are make export's (--export)");
    if (a->seed && a->seed[strspn(a->seed, "0123456789")])
        usage("--seed takes a whole number");
    /* students per Slurm array task: a whole number from 1 up; the local
     * back end has no tasks to fill (its GPUs take the next student as
     * they finish) */
    const char *per_task = a->per_task;
    if (!*per_task || per_task[0] == '0' || per_task[strspn(per_task, "0123456789")] || strlen(per_task) > 6) {
        char *why = lab_asprintf("--per-task (PER_TASK) is how many students one Slurm array task grades: a whole number, "
                        "1 or more, not '%s'", per_task);
        usage(why);
    }
    cls.per_task = atoi(per_task);
    /* a check builds on this machine's CPUs, for one architecture (--arch:
     * the course GPU's, e.g. 90), and runs nothing on a GPU */
    if (run_mode && a->switches[SW_CHECK] && strcmp(a->backend, "local"))
        usage("--check (CHECK=1) builds and checks on this machine, without a GPU: leave out --backend (BACKEND)");
    if (a->arch && (!*a->arch || a->arch[strspn(a->arch, "0123456789 ")]))
        usage("--arch takes compute capabilities as make's CUDA_ARCH does, e.g. 90 or \"80 90\"");
    cls.arch = a->arch ? lab_strdup(a->arch) : NULL;
    if (run_mode && !strcmp(a->backend, "local") && a->per_task_given)
        usage("--per-task (PER_TASK) is for the Slurm back end (BACKEND=slurm); the local back end gives each GPU "
              "the next student as it finishes");
}

/* SLURM_TIME: one student's time limit; a Slurm task of several students
 * gets as many times it. */
static void set_task_time(const class_args *a)
{
    const char *slurm_time = getenv("SLURM_TIME");
    cls.task_time = lab_strdup(slurm_time && *slurm_time ? slurm_time : "01:00:00");
    if (!strcmp(a->mode, "run") && !strcmp(a->backend, "slurm") && cls.per_task > 1) {
        char *times = class_slurm_time_times(cls.task_time, cls.per_task);
        if (!times) {
            char *why = lab_asprintf("SLURM_TIME is one student's time limit in a form Slurm takes (M, M:S, H:M:S, D-H, "
                            "D-H:M, D-H:M:S), not '%s'", slurm_time ? slurm_time : "");
            usage(why);
        }
        free(cls.task_time);
        cls.task_time = times;
    }
}

/* make grade runs in copies of the lab: nothing of a make that called us
 * (jobserver, command-line variables); CLASS_MAKE's make, and this
 * program's own path (the Slurm jobs run its copy). */
static void set_make_and_self(void)
{
    unsetenv("MAKEFLAGS");
    unsetenv("MFLAGS");
    unsetenv("MAKELEVEL");
    const char *make = getenv("CLASS_MAKE");
    cls.make_cmd = lab_words(make && *make ? make : "make", NULL);
    if (!cls.make_cmd[0])
        cls.make_cmd = lab_words("make", NULL);
    char self[PATH_MAX];
    ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
    if (len <= 0)
        lab_fatal(CLASS_FAILED, "cannot tell where this program is (/proc/self/exe)");
    self[len] = 0;
    cls.self = lab_strdup(self);
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    class_args a = {.backend = "local", .per_task = "1", .mode = "run"};
    read_arguments(argc, argv, &a);
    check_arguments(&a);
    set_task_time(&a);
    set_make_and_self();
    if (!strcmp(a.mode, "status")) {
        class_load();
        char *line = class_status_line(NULL, NULL);
        class_say("%s", line);
        free(line);
        class_summary();
    } else if (!strcmp(a.mode, "collect")) {
        class_load();
        class_collect();
    } else if (!strcmp(a.mode, "task")) {
        class_load();
        class_array_task(a.task, a.todo);
    } else if (!strcmp(a.mode, "export")) {
        class_load();
        class_export(a.format ? a.format : "gradescope canvas plain", a.assignment ? a.assignment : "GPU lab");
    } else {
        grade_class(a.submissions, a.backend, a.stages, a.seed, a.switches, a.retry, &a.term);
    }
    return 0;
}
