/*
 * class.h: class grading (make class, build/grader/class). Instructors only:
 * the student release leaves grader/class/ out.
 *
 *   main.c      the options, the modes, and a class's run from intake on
 *   setup.c     the class's lab, class.conf, the list of submissions,
 *               and whether the runs can be confined
 *   intake.c    each student's kernel.cu files, out of their folder or
 *               archive (the one intake: grader/intake/, whose grader/intake/names.c
 *               names the students), and a hash of what was sent
 *   grading.c   one student: make grade in a copy of the lab, the row
 *   check.c     one student checked without a GPU (make class CHECK=1):
 *               each stage built inside the wall, the emulator where the
 *               lab has one, a row of what was found
 *   points.c    a student's grade.json (grader/jsonread.c) into points
 *               and one short phrase per stage that lost points
 *   gradebook.c the rows (OUT/students/NAME/row.csv) and gradebook.csv
 *   local.c     the local back end: builders, then one worker per GPU
 *   slurm.c     the Slurm back end: a job array, a gradebook job, a task
 *   sys.c       messages, text, files and the programs class grading runs
 *
 * Plain C and POSIX; the programs it runs are make, tar, unzip, cp,
 * nvidia-smi and Slurm's sbatch and squeue.
 */
#ifndef CLASS_H
#define CLASS_H

#include "intake.h"

#include <stddef.h>
#include <sys/types.h>

/* Exit statuses: 0 done (whatever the grades), 1 a step failed, 2 usage,
 * 3 no GPU here for the local back end, 5 the runs cannot be confined,
 * 6 SUBMISSIONS has names to rename (NAMES_REFUSED, grader/intake/names.h), 130 stopped. */
enum { CLASS_OK = 0, CLASS_FAILED = 1, CLASS_USAGE = 2, CLASS_NO_GPU = 3, CLASS_UNCONFINED = 5 };

/* make grade's switches a class can turn on: --sanitize grades every
 * student with SANITIZE=1, and class.conf keeps it; --check (CHECK=1) is
 * the class's own: built and checked without a GPU, never graded. */
#define NSWITCHES 5
enum { SW_CHECK = 4 };
extern const char *const switch_name[NSWITCHES];  /* sanitize ...        */
extern const char *const switch_var[NSWITCHES];   /* SANITIZE ...        */

#define MAX_CLASS_STAGES 64

/* The class: what every part reads. */
typedef struct {
    char *out;              /* OUT, an absolute path                      */
    char *self;             /* this program                               */
    char *seed;             /* class.conf's seed                          */
    char *stages[MAX_CLASS_STAGES];
    int nstages;
    int sw[NSWITCHES];      /* class.conf's switches                      */
    char **names;           /* students.tsv: the students, sorted         */
    char **entries;         /* their entries in SUBMISSIONS               */
    int nstudents;
    int per_task;           /* students per Slurm array task              */
    int wait;               /* --wait: follow the Slurm jobs              */
    char *task_time;        /* a Slurm task's time limit                  */
    char **make_cmd;        /* CLASS_MAKE, or make                        */
    char *task_lab;         /* a Slurm task's lab, built once, or NULL    */
    int gpu_probed;         /* this process graded someone on its GPU     */
    char *arch;             /* CUDA_ARCH of a check's builds, or NULL     */
} class_state;
extern class_state cls;

/* ================================================================ sys.c */
/* Messages: a line on stdout; "class: ..." on stderr and exit 1. */
void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
_Noreturn void die(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* fmt, xstrdup, xrealloc, lines, words_free, first_line, remove_tree,
 * exists, is_dir, is_link: the intake's (grader/intake/intake.h). */
/* Words of text split on blanks, NULL-terminated (free with words_free). */
char **words(const char *text, int *count);
/* The last non-empty line of text that does not start with skip (NULL:
 * any), without the newline (new string). */
char *last_line(const char *text, const char *skip);
/* A file written whole through NAME.tmp and a rename (0, or -1); one is
 * read whole with read_file_text(path, 0) (grader/grader.h). */
int write_atomic(const char *path, const char *text);
int copy_file(const char *from, const char *to);
/* 1 when a's time is later than b's, or a exists and b does not (test -nt). */
int newer(const char *a, const char *b);
/* An absolute path as the shell's `cd P && pwd` gives it (links kept). */
char *abs_path(const char *path);
long cpus(void);
/* hostname, and its first part (hostname -s). */
char *host_name(int short_form);

/* Running a program: stdin from /dev/null (or input), its own output
 * where the fields say. Returns its exit status, 128+signal when killed,
 * 127 when it could not start. */
enum { ERR_INHERIT, ERR_NULL, ERR_TO_OUT, ERR_FILE };
typedef struct {
    const char *dir;        /* chdir there first                          */
    const char *out;        /* stdout to this file (NULL: see capture)    */
    int append;             /* out is appended to                         */
    int err;                /* where stderr goes (ERR_*)                  */
    const char *err_path;   /* ERR_FILE                                   */
    int capture;            /* stdout (and ERR_TO_OUT stderr) into text   */
    const char *input;      /* fed to stdin (small: a job script)         */
    char **env;             /* "KEY=value" set in the child               */
    char *text;             /* captured output, NUL-terminated (free it)  */
    int truncated;          /* more than PROC_CAPTURE bytes came          */
} proc;
#define PROC_CAPTURE (32u << 20)
int run(char *const argv[], proc *p);
/* Run a program and return its stdout (stderr dropped), or NULL when it
 * failed. */
char *output_of(char *const argv[]);
/* The GPUs nvidia-smi -L lists, as "0 1" ("" for none). */
char *listed_gpus(void);

/* ============================================================== setup.c */
/* class.conf's value of key (a new string), or NULL. */
char *conf_get(const char *key);
/* Read OUT's class.conf and students.tsv into cls; dies without them. */
void class_load(void);
/* First run: OUT/lab from the lab's tools/release.sh and class.conf;
 * later runs: the options checked against class.conf. */
void class_setup(const char *lab, const char *submissions, const char *stages_arg,
                 const char *seed_arg, const int *switches_on);
/* Stop (exit 5) before anyone is graded when the runs cannot be confined. */
void check_confinement(void);
/* SUBMISSIONS into OUT/students.tsv. */
void list_submissions(const char *submissions);

/* ============================================================= intake.c */
/* The student's kernel.cu files into OUT/students/NAME/kernels/, or a row
 * saying why there are none: 1 when there is something to grade. */
int intake(const char *submissions, int student);
/* 1 (said in a line) when the student's entry is not what was taken in
 * last: it is taken in and graded again. */
int submission_changed(const char *submissions, int student);

/* ============================================================ grading.c */
/* A fresh copy of the lab with the student's kernels, built ahead when
 * ahead (0, or -1 with the row written); make grade there and the row. */
int prepare_one(const char *name, int ahead);
void grade_prepared(const char *name);
void grade_one(const char *name);
/* Whether the student sent that stage. */
int submitted_stage(const char *name, const char *stage);

/* ============================================================== check.c */
/* What the lab builds once for a check, and what each submitted stage
 * builds (into argv from argv[n]; returns the new n). */
char **check_lab_targets(void);
int check_targets(const char *stage, char **argv, int n);
/* The row of a student whose copy was built ahead: what each stage is. */
void check_prepared(const char *name);

/* ============================================================= points.c */
#define PHRASE_MAX 60
typedef struct {
    char *name;
    char *points;                  /* as make grade wrote it, "" if none */
    char phrase[PHRASE_MAX * 4];   /* why it lost points, "" if it did not */
} stage_points;
typedef struct {
    char *score, *max, *seed, *bonus, *bonus_max;   /* "" when absent */
    stage_points *stages;
    int nstages;
} points;
/* Read a grade.json: 0, or -1 with why in err. */
int points_read(const char *path, points *p, char *err, size_t errlen);
void points_free(points *p);
/* A stage's points, or NULL. */
const stage_points *points_stage(const points *p, const char *stage);
/* The stages of missing (joined by spaces) added with 0 points, their
 * most counted in the maximum (or the bonus's): not submitted, unrun. */
void points_add_missing(points *p, const char *missing);
/* The head of a grader's reason that a note shows (for tests too). */
void phrase_of(const char *reason, int flagged, const char *missed, char *out, size_t len);

/* ========================================================== gradebook.c */
/* The student's row, written in one step (pts may be NULL). */
void write_row(const char *name, const char *status, const char *notes, const points *pts);
/* Field n (from 1) of a row file, or NULL. The status and the notes. */
char *row_field(const char *row_file, int n);
char *row_status(const char *name);
char *row_notes(const char *name);
char *row_path(const char *name);
int has_row(const char *name);
int done_count(void);
/* OUT/gradebook.csv from the rows, then the summary line. */
void collect(void);
void summary(void);
/* One CSV field of text (new string). */
char *csv(const char *text);

/* ============================================================= local.c */
void run_local(const char *todo);

/* ============================================================= slurm.c */
void run_slurm(const char *todo, const char *status_cmd);
void array_task(const char *index, const char *todo);
/* "N of M done[; grading now: ...]" (array and todo: NULL outside a
 * followed Slurm run). */
char *status_line(const char *array, const char *todo);
/* Slurm's time limit t, n times over; NULL for a form Slurm does not take. */
char *slurm_time_times(const char *t, int n);
/* The students of the to-do list's array task index (count in *n). */
char **task_students(const char *todo, long index, int *n);
/* What make grade builds besides make all, built once per lab copy. */
extern const char *const lab_tools[2];

#endif /* CLASS_H */
