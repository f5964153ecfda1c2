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
 *   points.c    a student's grade.json (common/jsonread.c) into points
 *               and one short phrase per stage that lost points
 *   gradebook.c the rows (OUT/students/NAME/row.csv) and gradebook.csv
 *   roster.c    the roster (ROSTER): one row each, the id
 *   late.c      when each submission came; DEADLINE and the late policy
 *   book.c      the gradebook's rows: the roster's order, id, lateness
 *   export.c    make export: the gradebook as Gradescope, Canvas import it
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
#include "util.h"

#include <stddef.h>
#include <sys/types.h>

/* Exit statuses: 0 done (whatever the grades), 1 a step failed, 2 usage,
 * 3 no GPU here for the local back end, 5 the runs cannot be confined,
 * 6 SUBMISSIONS has names to rename (NAMES_REFUSED, grader/intake/names.h),
 * 7 ROSTER, TIMES, DEADLINE or LATE_PENALTY cannot be used, or the class
 * cannot be exported, 130 stopped. */
enum { CLASS_OK = 0, CLASS_FAILED = 1, CLASS_USAGE = 2, CLASS_NO_GPU = 3, CLASS_UNCONFINED = 5, CLASS_BAD_TERM = 7 };

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
    long build_jobs;        /* make -j of a student's build ahead, or 0   */
    double clock_start;     /* lab_spawn_now() when grading began, or 0   */
    int clock_gpus;         /* the GPUs grading on that clock             */
    char *clock_marks;      /* a folder where each GPU-graded student is  */
                            /* marked (workers share it), or NULL         */
    int clock_graded;       /* without clock_marks: this process's count  */
} class_state;
extern class_state cls;

/* ================================================================ sys.c */
/* A line on stdout, flushed: the class's progress. Warnings and errors
 * are lab_warn and lab_fatal's "class: ..." on stderr (common/util.h),
 * lab_fatal with one of the exit statuses above. */
void class_say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Text (lab_lines, lab_words, lab_appendf, ...) and files (lab_exists,
 * lab_remove_tree, lab_write_atomic, lab_read_file, ...) are the helper
 * library's: common/util.h. A file copied whole: 0, or -1. */
int class_copy_file(const char *from, const char *to);
/* 1 when a's time is later than b's, or a exists and b does not (test -nt). */
int class_newer(const char *a, const char *b);
/* An absolute path as the shell's `cd P && pwd` gives it (links kept). */
char *class_abs_path(const char *path);
long class_cpus(void);
/* hostname, and its first part (hostname -s). */
char *class_host_name(int short_form);

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
int class_run(char *const argv[], proc *p);
/* A program's stdout alone: intake_output_of (grader/intake/intake.h). */
/* The GPUs nvidia-smi -L lists, as "0 1" ("" for none). */
char *class_listed_gpus(void);

/* ============================================================== setup.c */
/* Read OUT's class.conf and students.tsv into cls; dies without them. */
void class_load(void);
/* First run: OUT/lab from the lab's tools/release.sh and class.conf;
 * later runs: the options checked against class.conf. */
void class_setup(const char *lab, const char *submissions, const char *stages_arg,
                 const char *seed_arg, const int *switches_on);
/* Stop (exit 5) before anyone is graded when the runs cannot be confined. */
void class_check_confinement(void);
/* SUBMISSIONS into OUT/students.tsv. */
void class_list_submissions(const char *submissions);

/* ============================================================= intake.c */
/* The student's kernel.cu files into OUT/students/NAME/kernels/, or a row
 * saying why there are none: 1 when there is something to grade. */
int class_intake(const char *submissions, int student);
/* 1 (said in a line) when the student's entry is not what was taken in
 * last: it is taken in and graded again. */
int class_submission_changed(const char *submissions, int student);
/* Whether the student sent that stage (OUT/students/NAME/kernels/STAGE). */
int class_submitted_stage(const char *name, const char *stage);

/* ============================================================ grading.c */
/* A fresh copy of the lab with the student's kernels, built ahead when
 * ahead (0, or -1 with the row written); make grade there and the row. */
int class_prepare_one(const char *name, int ahead);
void class_grade_prepared(const char *name);
void class_grade_one(const char *name);
/* Students a minute on each GPU by the class's clock (cls.clock_*),
 * counting those graded so far; 0 when the clock has not started. */
double class_rate(void);

/* ============================================================== check.c */
/* What the lab builds once for a check, and what each submitted stage
 * builds (into argv from argv[n]; returns the new n). */
char **class_check_lab_targets(void);
int class_check_targets(const char *stage, char **argv, int n);
/* The row of a student whose copy was built ahead (since: when its
 * build began, for the time said): what each stage is. */
void class_check_prepared(const char *name, time_t since);

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
int class_points_read(const char *path, points *p, char *err, size_t errlen);
void class_points_free(points *p);
/* A stage's points, or NULL. */
const stage_points *class_points_stage(const points *p, const char *stage);
/* The stages of missing (joined by spaces) added with 0 points, their
 * most counted in the maximum (or the bonus's): not submitted, unrun. */
void class_points_add_missing(points *p, const char *missing);
/* The head of a grader's reason that a note shows (for tests too). */
void class_phrase_of(const char *reason, int flagged, const char *missed, char *out, size_t len);

/* ========================================================== gradebook.c */
/* The student's row, written in one step (pts may be NULL). */
void class_write_row(const char *name, const char *status, const char *notes, const points *pts);
/* The status and the notes. */
char *class_row_status(const char *name);
char *class_row_notes(const char *name);
int class_has_row(const char *name);
int class_done_count(void);
/* OUT/gradebook.csv from the rows, then the summary line. */
void class_collect(void);
void class_summary(void);
/* One CSV field of text (new string); n of them as a line after *text. */
char *class_csv(const char *text);
void class_csv_line(char **text, const char *const *field, int n);
/* A CSV line's fields: lab_csv_fields (grader/intake/intake.h). */

/* ============================================================= local.c */
void class_run_local(const char *todo);
/* The local back end's counts in the environment (CLASS_BUILDERS,
 * CLASS_GRADE_CPUS, CLASS_AHEAD) are whole numbers, or the end with why:
 * checked before a class folder is made. */
void class_local_check_env(void);

/* ============================================================= slurm.c */
void class_run_slurm(const char *todo, const char *status_cmd);
void class_array_task(const char *index, const char *todo);
/* "N of M done[; grading now: ...]" (array and todo: NULL outside a
 * followed Slurm run). */
char *class_status_line(const char *array, const char *todo);
/* Slurm's time limit t, n times over; NULL for a form Slurm does not take. */
char *class_slurm_time_times(const char *t, int n);
/* What make grade builds besides make all, built once per lab copy. */
extern const char *const lab_tools[2];

/* ========================================= roster.c, late.c, book.c */
/* The term's side of a class (INSTRUCTORS.md, "Roster, deadline and late
 * days"): what ROSTER, TIMES, DEADLINE and LATE_PENALTY say is checked
 * (exit 7 naming the file and line) and kept in OUT for every later run
 * and the gradebook job; the gradebook is made from it each time, so a
 * new deadline or roster grades no one again. */
typedef struct {
    char *name;             /* as the roster writes it                    */
    char *student;          /* that name as a student's (student_name)    */
    char *id, *email;       /* email "" when the roster gives none        */
    int extra_days, line;
} roster_entry;
/* A CSV file an instructor gives: each row's fields and line number. */
typedef struct {
    char **f;
    int n, line;
} csv_row;
/* Its rows, a byte-order mark, blank lines and a header (a first line
 * whose first field is one of heads, NULL-terminated) left out; -1 with
 * why (new string) when it cannot be read or a quote is left open. */
int class_csv_file(const char *path, const char *const *heads, csv_row **rows, char **why);
void class_csv_rows_free(csv_row *rows, int n);
/* A file the instructor gave, checked, copied into OUT as the name as
 * (OUT's path of it, a new string; dies when it cannot be copied). */
char *class_keep_given(const char *path, const char *as);
/* ROSTER checked and kept as OUT/roster.csv (roster.c). */
void class_roster_keep(const char *path);
/* OUT/roster.csv's entries, 0 when the class has none. */
int class_roster_load(roster_entry **out);
void class_roster_free(roster_entry *r, int n);

/* When a student's submission came (OUT/students/NAME/submission.tsv). */
typedef struct {
    long long time;         /* seconds since 1970; -1 unknown             */
    char *from;             /* where the time was read                    */
    char *sid, *email;      /* a Gradescope export's, "" where none       */
} sent_facts;
/* The deadline, the late policy and TIMES (late.c). */
typedef struct {
    int has_deadline;
    long long deadline;
    char *deadline_given;   /* as DEADLINE gave it                        */
    double penalty;         /* points off a day late                      */
    csv_row *times;         /* TIMES: name or folder, time                */
    long long *times_at;
    int ntimes;
} late_policy;
/* TIMES, DEADLINE and LATE_PENALTY checked and kept (NULL: as before). */
void class_late_keep(const char *times, const char *deadline, const char *penalty);
void class_late_load(late_policy *p);
void class_late_free(late_policy *p);
/* Where the student's submission came from, and when, into OUT/students/NAME/submission.tsv. */
void class_record_sent(const char *submissions, int student);
void class_sent_read(const char *name, sent_facts *f);
void class_sent_free(sent_facts *f);
/* A time in this machine's zone, with its offset (new string). */
char *class_time_text(long long t);
/* Whole days (begun) after the deadline moved by extra days, 0 if none. */
int class_days_late(const late_policy *p, long long sent, int extra_days);

/* OUT/students/NAME/row.csv (book.c). */
char *class_row_path(const char *name);
/* The gradebook's rows (book.c): with a roster, its entries in its order
 * then the students it does not name; otherwise the students. */
typedef struct {
    int ncols, nrows;
    char **head;            /* the columns                                */
    char ***rows;           /* each row's ncols fields                    */
    char **full_name;       /* each row's name as the roster writes it    */
    char **email;           /* each row's email, "" unknown               */
    int *listed;            /* the roster's row (or the class has none)   */
    char *said;             /* the lines class_collect() prints after it        */
} book;
void class_book_make(book *b);
void class_book_free(book *b);
/* The column of that name, or -1. */
int class_book_column(const book *b, const char *name);

/* make export: OUT/gradebook-FORMAT.csv for each of formats (export.c). */
void class_export(const char *formats, const char *assignment);

#endif /* CLASS_H */
