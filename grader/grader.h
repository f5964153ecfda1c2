/*
 * grader.h: the pieces of the autograder (make grade, make calibrate).
 *
 *   rubric.c    stages.tsv (build/stages.h): the stages, their rubric lines and
 *               tier references; then grader/rubric.tsv
 *   run.c       one program in its own process group, with a time limit
 *   progress.c  how far a run got, from the driver's progress lines
 *   policy.c    which symbols the student's object may use
 *   score.c     a record and the rubric make points, reasons and advice
 *   wrong.c     why a run is not correct, and what to do
 *   sanitize.c  what compute-sanitizer found
 *   sentence.c  a failing run through the launcher, in one sentence of its output
 *   report.c    the table, grade.json, Gradescope's results.json, grade.tsv
 *   recordtsv.c a driver's run record as tab-separated lines (--record-tsv)
 *   util.c      appending to messages, cleaning text
 *   grading.h   how make grade's own files (options, build, stage,
 *               calibrate, grade) fit together
 *
 * Plain C and POSIX; no CUDA. The grader never links the student's code: it
 * runs each stage's program and reads the record the harness writes to a
 * descriptor of its own (--record-fd), never the program's output.
 */
#ifndef GRADER_H
#define GRADER_H

#include "util.h"

#include <stddef.h>
#include <stdio.h>

/* Exit statuses of the grader itself. */
enum {
    GRADE_OK = 0,        /* grading ran, whatever the score                   */
    GRADE_FAILED = 1,    /* make calibrate: a solution did not pass           */
    GRADE_USAGE = 2,     /* bad options, unknown stage, unreadable rubric     */
    GRADE_NO_GPU = 3,    /* no NVIDIA GPU here                                */
    GRADE_NO_TOOLS = 4,  /* no nvcc or nm                                     */
    GRADE_UNCONFINED = 5 /* confinement asked for and impossible here         */
};

/* ====================================================== stages and rubric */

#define MAX_STAGES 64
#define MAX_TIERS 8
#define MAX_MARGINS 32
#define MAX_THRESHOLDS 32
#define NAME_LEN 128

typedef struct {
    char dir[NAME_LEN];    /* 03_tiled */
    char family[NAME_LEN]; /* matmul   */
    char lesson[256];      /* the table's one line: what the stage teaches */
} stage_info;

/* The stages of stages.tsv, as build/stages.h has them compiled in: the
 * number copied into out (at most max). */
int grader_stages_all(stage_info *out, int max);

/* The reference kernel of a speed tier (a reference line of stages.tsv): the plain
 * form of what the tier's advice says, which make calibrate measures to set
 * the tier's threshold. Built as build/<stage>/<tier>/<source> (the
 * stage's own solution build when it is the solution without flags). */
typedef struct {
    char stage[NAME_LEN];
    char tier[NAME_LEN];
    char source[16];   /* solution or reference: solutions/ or references/<stage>/kernel.cu */
    char flags[256];   /* compiler options ("-DBLOCK=8"), "" for none        */
    char kernel[256];  /* what it does, in one line                          */
} tier_reference;
#define MAX_REFERENCES (MAX_STAGES * 2)
/* The reference lines of stages.tsv (build/stages.h) whose kernel.cu is in
 * the lab at lab (a student release has none): their number, or -1 with
 * why in err. */
int grader_references_read(const char *lab, tier_reference *out, int max, char *err, size_t errlen);
/* The reference of a stage's tier, or NULL. */
const tier_reference *grader_reference_find(const tier_reference *r, int n, const char *stage, const char *tier);

typedef struct {
    char gpu[NAME_LEN]; /* as cudaGetDeviceProperties names it, or "default" */
    double value;
} threshold;

typedef struct {
    char name[NAME_LEN];   /* pass, stretch, ...                          */
    int points;
    char field[NAME_LEN];  /* a dotted path in the record                 */
    int at_most;           /* 0: value >= threshold; 1: value <= threshold */
    char unit[16];         /* printed after numbers: "x", "%"             */
    char advice[512];      /* one sentence for a student who misses it    */
    threshold th[MAX_THRESHOLDS];
    int nth;
} tier;

typedef struct {
    char stage[NAME_LEN];
    int correct_points;
    double limit_s;        /* 0: the rubric's default                     */
    char args[256];        /* extra driver arguments for this stage       */
    tier tiers[MAX_TIERS];
    int ntiers;
    int bonus;             /* scored, but outside the mission's total     */
    int barriers;          /* its lesson is its barriers: a race the CPU
                              emulation names costs the correctness points */
} stage_rubric;

typedef struct {
    char path[512];
    double limit_s;            /* setting limit_s                         */
    char args[256];            /* setting args: every graded run          */
    char sanitize_args[256];   /* setting sanitize_args                   */
    double sanitize_limit_s;   /* setting sanitize_limit_s                */
    int correct_points;        /* setting correct_points: unknown stages  */
    char margin_tier[MAX_MARGINS][NAME_LEN]; /* margin rows: calibrate    */
    char margin_stage[MAX_MARGINS][NAME_LEN]; /* "" for every stage       */
    double margin[MAX_MARGINS];
    int nmargins;
    stage_rubric stages[MAX_STAGES];
    int nstages;
} rubric;

/* Read the rubric. Returns 0, or -1 with "FILE:LINE: what is wrong" in err. */
int grader_rubric_read(const char *path, rubric *r, char *err, size_t errlen);
/* The stage's rubric entry, or NULL when the rubric does not know it. */
const stage_rubric *grader_rubric_stage(const rubric *r, const char *stage);
/* The threshold of a tier for this GPU: the GPU's own row, else "default".
 * Sets *is_default. Returns 0, or -1 when neither row exists. */
int grader_rubric_threshold(const tier *t, const char *gpu, double *value, int *is_default);
/* The calibration margin of a tier name (pass 0.75, ...), or 0 if none. */
/* make calibrate's factor for a stage's tier: the stage's own margin row,
 * else the tier's; 0 when neither exists */
double grader_rubric_margin(const rubric *r, const char *stage, const char *tier_name);
/* Replace the threshold rows of gpu for the given (stage, tier, value)
 * triples in the rubric file, keeping every other line; a comment line
 * above the new rows says when and how they were made. */
typedef struct {
    char stage[NAME_LEN];
    char tier[NAME_LEN];
    double value;
} new_threshold;
int grader_rubric_write_thresholds(const char *path, const char *gpu, const new_threshold *t,
                            int n, const char *comment, char *err, size_t errlen);

/* ================================================================ running */

/* What one program did. */
typedef struct {
    int started;         /* 0: could not even start it (see output)      */
    int exited;          /* ended by exit(): status holds the code        */
    int status;
    int signal;          /* ended by this signal (0: none)                */
    int timed_out;       /* killed at the time limit                      */
    double seconds;
    char *record;        /* what arrived on the record descriptor         */
    size_t record_len;
    int record_overflow; /* more than the record limit arrived            */
    char *tail;          /* the last bytes of stdout + stderr             */
    size_t tail_len;
    unsigned long long output_bytes; /* all of stdout + stderr            */
    char *progress;      /* the last bytes of the progress lines          */
    size_t progress_len;
    int progress_cut;    /* earlier progress bytes were dropped           */
} run_result;

#define RECORD_LIMIT (1u << 20) /* no honest record comes near 1 MiB */
#define OUTPUT_TAIL (16u << 10) /* the output kept for the report     */
#define PROGRESS_KEEP 4096u     /* the progress lines kept: a run has ~25 */

/* Run argv[0] (a path, or a program on PATH) in its own process group:
 * stdin from /dev/null, stdout and stderr into one pipe of which the last
 * `keep` bytes are kept, and (record_fd >= 3) a second pipe that the
 * program sees as descriptor record_fd. The whole group is killed at limit_s or when the
 * program ends. Never blocks on the program's output. */
void grader_run_program(char *const argv[], int record_fd, double limit_s, size_t keep,
                 run_result *r);
/* The same, with a third pipe that the program sees as descriptor
 * progress_fd (>= 3, not record_fd) for its progress lines (--progress-fd):
 * the last PROGRESS_KEEP bytes are kept in progress. */
void grader_run_program_progress(char *const argv[], int record_fd, int progress_fd, double limit_s,
                          size_t keep, run_result *r);
/* A judge's run of a stage (argv: the judge's command line, its record
 * and progress lines at RUN_RECORD_FD and RUN_PROGRESS_FD), as
 * grader_run_program_progress runs it, but by the grade's worker
 * (judge/worker.cu): one judge for a grade's stages, started with the
 * first, told each stage's identity (--stage S --variant V, NULL-ended).
 * LAB_JUDGE_WORKER=0, or a worker that cannot start: the judge alone. */
void grader_run_judged(char *const argv[], const char *const identity[], double limit_s, size_t keep,
                       run_result *r);
/* The worker let go of (the grade's end): it stops its echo runner. */
void grader_worker_end(void);
void grader_run_result_free(run_result *r);
/* How far a run got, from its progress lines (progress.c). */
#define PROGRESS_LINE 160
typedef struct {
    int lines;             /* complete progress lines received             */
    int checks_passed;     /* "checks passed" (or a timing line) was seen  */
    int checking;          /* the last phase is a check                    */
    int timing;            /* the last phase is timing a kernel            */
    int done;              /* "done": the run ended and wrote its record   */
    char last[PROGRESS_LINE]; /* the last line, cleaned                    */
    char size[64];         /* the size of the last phase: "n=4096"         */
    double first_call_ms;  /* the kernel's first timed call (-1: unknown)  */
} run_progress;
/* Read the progress lines a run sent; cut: the text begins inside a line. */
void grader_progress_read(const char *text, size_t len, int cut, run_progress *p);

/* Kill the group of the program being run now, if any (for SIGINT). */
void grader_run_kill_current(void);

/* ============================================================ the policy */

typedef struct {
    int deny;              /* 1: refuse, 0: allow                          */
    int defined;           /* 1: a rule about symbols the object defines   */
    char pattern[NAME_LEN];
    char reason[256];
} policy_rule;

typedef struct {
    policy_rule rules[512];
    int nrules;
    char path[512];
} policy;

int grader_policy_read(const char *path, policy *p, char *err, size_t errlen);
/* Check an object file: every symbol it uses from elsewhere must be allowed,
 * it may define no symbol the rules refuse, and functions with C names only
 * when contract_header declares them. Returns 0 when the object may run;
 * 1 with a message naming the symbol in msg; -1 when the tools failed. */
int grader_policy_check(const policy *p, const char *object, const char *contract_header,
                 char *msg, size_t msglen);
/* The rule deciding one symbol (for tests): NULL when none matches. */
const policy_rule *grader_policy_match(const policy *p, const char *symbol, int defined);

/* =============================================================== scoring */

#define MAX_ADVICE 8
#define REASON_LEN 1024

typedef struct {
    char name[NAME_LEN];
    int points, max;
    int graded;            /* 0: no threshold for this GPU                */
    int have_value;
    double value, threshold;
    int at_most;
    char field[NAME_LEN];
    char unit[16];
} tier_result;

typedef struct {
    char stage[NAME_LEN];
    int points, max;
    int bonus;             /* a bonus stage: not in the total (rubric)     */
    int correct_points, correct_max;
    int correct;           /* the harness's checks (and the sanitizer)     */
    int ran;               /* a valid record came back                     */
    int speed_scored;      /* the harness's checks passed: tiers were scored */
    int flagged;           /* timed faster than the hardware allows        */
    int no_gpu;            /* the program found no usable GPU              */
    int thresholds_default;/* fell back to the default thresholds          */
    char reason[REASON_LEN];      /* why points were lost: correctness, or
                                     the speed of a run that did not finish */
    char note[REASON_LEN];        /* anything else worth saying            */
    char advice[MAX_ADVICE][REASON_LEN];
    int nadvice;
    tier_result tiers[MAX_TIERS];
    int ntiers;
    int have_speedup, have_pct;
    double speedup, pct;   /* timing.speedup_vs_baseline, pct_of_reference */
    char metric[32];
    char gpu[NAME_LEN];
    double seconds;
    char *output;          /* tail of the program's output (owned)         */
    unsigned long long output_bytes;
    char sanitizer[REASON_LEN]; /* what compute-sanitizer found ("": none) */
    char emulate_at[48];   /* wrong on the GPU: the size to emulate it at
                              ("any": the family's small ones; "": not)   */
    int barriers;          /* its lesson is its barriers (the rubric)      */
    char warning[REASON_LEN]; /* correct on the GPU, and the CPU emulation
                              names a bug: said, no points lost ("": none) */
    double baseline_ms;    /* a baseline later stages of the family may reuse */
    char baseline_at[32];  /* (timing.baseline_reusable): its time, its size  */
} stage_result;

/* baseline.c: fill s's baseline_ms and baseline_at from a record that
 * offers its baseline to the later stages of its family. */
void grader_offer_baseline(stage_result *s, const jvalue *rec, int status);

/* result.c: start a stage's result: name and maximum points from the
 * rubric. */
void grader_score_begin(stage_result *s, const char *stage, const stage_rubric *sr, const rubric *r);
/* Score zero for a reason that stopped the stage before a record existed
 * (did not compile, refused symbol, ...), with advice for the student. */
void grader_score_fail(stage_result *s, const char *reason, const char *advice);
void grader_score_add_advice(stage_result *s, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void grader_stage_result_free(stage_result *s);

/* score.c: score a finished run: validate the record against the
 * process's fate, then correctness and each tier. command is what a
 * student types to see the run for themselves (make run EX=03). */
void grader_score_run(stage_result *s, const run_result *run, const stage_rubric *sr,
               const char *command);
/* wrong.c: a run with a valid record that is not correct (its exit
 * status): the reason and the advice, from its first failed check. */
void grader_explain_wrong(stage_result *s, const jvalue *rec, int status, const char *command);
/* The size to emulate a wrong run at (stage_result's emulate_at), from its
 * record and exit status: "" when it is not wrong (1) or a CUDA error (4). */
void grader_emulate_size(const jvalue *rec, int status, char *at, size_t len);
/* The sanitizer found errors: the correctness points are lost. */
void grader_score_sanitizer(stage_result *s, const char *finding, const char *command);

/* Validate a record against the run: returns the parsed record, or NULL with
 * the reason in why. expected_stage: the stage the program must say it is. */
jvalue *grader_record_validate(const run_result *run, const char *expected_stage, char *why,
                        size_t whylen);

/* ============================================================ sanitizer */

/* Read compute-sanitizer's output: 1 with the first error located in a
 * kernel.cu in finding ("Invalid __global__ write of size 4 bytes
 * (exercises/03_tiled/kernel.cu:31)"); 2 when it reported errors, none of
 * them in a kernel.cu (finding: the first); 0 when it found none. */
int grader_sanitizer_finding(const char *out, char *finding, size_t len);

/* ============================================================= sentence */

/* The emulator's first finding in a run's output (its first "  emulator: "
 * line, cleaned): 1 with it in finding, 0 when it named nothing. */
int grader_emulator_finding(const char *out, char *finding, size_t len);
/* What a failing run through the launcher found, in one line of its
 * output: the emulator's first finding, else the error that stopped it,
 * else the line that explains its first failed check, else that check's
 * line, else the verdict's why ("wrong" when there is nothing). */
void grader_run_sentence(const char *out, char *sentence, size_t len);

/* =============================================================== reports */

/* recordtsv.c: --record-tsv RECORD.json: a driver's run record, one line a
 * kernel, on stdout; the exit status. */
int grader_record_tsv(const char *path);

typedef struct {
    unsigned long long seed;
    int confined;          /* the runs were inside build/confine/confine   */
    int judged;            /* by the judge: no result from student code    */
    const char *confinement; /* the probe's line, or why not              */
    char gpu[NAME_LEN];
    double seconds;
    int sanitize;
    const char *rubric_path;
    const char *source;    /* where the kernel.cu files came from         */
} grade_info;

/* The table and the advice, on out. */
void grader_report_table(FILE *out, const stage_result *s, int n, const grade_info *g);
/* grade.json, results.json and grade.tsv in dir; returns 0 or -1 (message on stderr). */
int grader_report_write(const char *dir, const stage_result *s, int n, const grade_info *g);
/* Copy text into out (size outlen) fit for JSON and terminals: valid UTF-8
 * kept, other bytes and control characters but \n and \t become '?'. */
void grader_text_clean(const char *text, size_t len, char *out, size_t outlen);
/* text (NULL: "") so cleaned, in a new string. */
char *grader_text_cleaned(const char *text);

/* ============================================================== helpers */

/* snprintf that appends to buf. */
void grader_appendf(char *buf, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* What a student types to see a stage: make run EX=03 [SEED=...]. */
void grader_run_command(const char *stage, const unsigned long long *seed, char *out, size_t len);
/* lab_have_program, lab_mkdirs and lab_utf8_len: common/util.h. */

#endif /* GRADER_H */
