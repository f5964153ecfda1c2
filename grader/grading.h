/*
 * grading.h: how the grader's own files fit together (make grade, make
 * calibrate); grader.h has the pieces they are built from.
 *
 *   options.c   the command line and which stages are graded
 *   build.c     is there a GPU; the copy of the lab for --src; what make builds (--plan)
 *   stage.c     one stage: policy, run, score, sanitizer; progress lines
 *   library.c   header-only library code that would do a stage's work
 *   calibrate.c thresholds from the solutions on this GPU
 *   confinement.c whether the runs are confined, and how
 *   grade.c     main: one stage after another, then the reports
 */
#ifndef GRADING_H
#define GRADING_H

#include "grader.h"

/* confinement.c: are the graded programs run inside build/confine/confine? */
typedef struct {
    int on;
    char program[4096];  /* build/confine/confine                           */
    char files[4096];    /* build/confine/driver-files: the GPU driver's    */
                         /* files, readable by the runs ("" without a GPU)  */
    char why[512];       /* the probe's one line: "confined: ..." or why not */
} confinement;
/* Probe (unless unconfined) and decide; gpu_here: list the GPU driver's
 * files (build/confine/cuda-probe --files) and, unless probed (a class's
 * worker made that check with its first student), check that the GPU
 * works inside the confinement. */
void grader_confinement_setup(confinement *c, const char *lab, int unconfined, int gpu_here, int probed);
/* Whether two processes can share GPU memory here, as the judge and its
 * runner must (build/confine/cuda-probe --ipc): 1 yes; its line in line. */
int grader_judge_can_share(const char *lab, char *line, size_t len);
/* The words that go before a program's own argv when confined (0 when not):
 * confine [--read-list <the driver's files>] -- . */
int grader_confinement_wrap(const confinement *c, char **argv, int max);

/* The descriptors a graded run writes its record and its progress lines to
 * (--record-fd, --progress-fd). */
#define RUN_RECORD_FD 3
#define RUN_RECORD_FD_TEXT "3"
#define RUN_PROGRESS_FD 4
#define RUN_PROGRESS_FD_TEXT "4"

/* The programs of a grade or a calibration: the stages', and the reference
 * kernels of their tiers. */
#define MAX_TARGETS (MAX_STAGES * 2)

/* One stage to grade (or to calibrate with): its own program, or the
 * reference kernel of one of its tiers (tier). */
typedef struct {
    char stage[NAME_LEN];
    char tier[NAME_LEN];  /* "" or the tier whose reference kernel this is   */
    char family[NAME_LEN];
    char binary[1024];   /* the stage's program (the judge, with --judge)  */
    char runner[1024];   /* with --judge: the runner with kernel.cu        */
    char variant[NAME_LEN]; /* exercise, solution, or a reference's source */
    char knob[NAME_LEN + 16]; /* its build's knob text: "" or "<tier> reference" */
    char object[1024];
    char header[1024];
    char source[1024];   /* the kernel.cu the object is compiled from      */
    char emulated[1024]; /* its CPU emulation, run when it is wrong ("": none) */
    char lesson[256];    /* stages.tsv's line for the stage ("" if none)   */
    int compare_only;   /* calibrate: measured for the comparison, not written */
} target;

typedef struct {
    const char *lab;
    const char *src;
    const char *out;
    const char *rubric_path;
    const char *policy_path;
    unsigned long long seed;
    int have_seed;
    int sanitize;
    int calibrate;
    int runs;
    int jobs;
    int program_mode;
    int unconfined;            /* --unconfined: run the programs as they are */
    int judge;                 /* --judge: the judge and its runner          */
    int require_confinement;   /* --require-confinement: a class run        */
    int probed;                /* --probed: the GPU checks were made before  */
    int once;                  /* --once: no second run after a missed tier  */
    int plan;                  /* --plan: say what make must build; no grade */
    const char *reference;     /* --reference TIER: grade the tier's reference kernels */
    const char *baselines;     /* --baselines FILE: kept between grades      */
    const confinement *conf;   /* set by main once probed                   */
    char *names[MAX_STAGES];
    int nnames;
    char *programs[MAX_STAGES];
    int nprograms;
} options;



/* options.c */
int grader_parse_options(int argc, char **argv, options *o);
/* The targets: every stage of stages.tsv, or those named by prefix; to
 * calibrate a stage, the previous stage of its family too. -1: unknown name. */
int grader_select_stages(const options *o, const stage_info *all, int nall, target *t);
/* --program STAGE[:TIER]=BINARY[:OBJECT[:HEADER]] into a target (TIER:
 * the reference kernel of that tier). */
int grader_program_target(const char *spec, target *t);
/* The paths of a target's programs under dir: build/<stage>/<sub><variant>
 * (with -judge when judged), its runner, object and source file; sub is ""
 * or a tier's folder ("pass/"); variant exercise, solution or reference. */
void grader_target_paths(target *t, const char *dir, const char *lab, const char *sub, const char *variant, int judge);
/* t (a stage's target) becomes the reference kernel ref of one of its tiers,
 * built in lab. */
void grader_reference_target(target *t, const char *lab, const tier_reference *ref, int judge);

/* build.c */
/* The first GPU's name when one is here; 0 when there is none. */
int grader_find_gpu(char *name, size_t len);
/* For --src: a copy of the lab in lab/build/grade-src holding the submitted
 * kernel.cu files as the one intake took them in (grader/intake/),
 * everything else linked to this lab (prepare: make it; else only its name
 * and the stages not submitted, in missing: 2 each, with why in refused,
 * when the intake refused the submission). */
int grader_make_scratch(const char *lab, const char *src, target *t, int n, int *missing, char *refused, size_t rlen,
                 char *scratch, size_t len, int prepare);
/* --plan: make's arguments (-C dir -jN and the programs) for every target's
 * programs, on one line on out, old ones removed first; judge: the echo
 * runner too. Every program's path must begin with dir. */
void grader_plan_build(FILE *out, const char *dir, target *t, int n, int jobs, int judge);
/* 1 when the target's programs exist. */
int grader_target_built(const target *t);
/* Why a stage has no program after the build: "kernel.cu does not define
 * matmul(...)" when its object lacks the contract's function; "did not
 * link: undefined reference to cublasCreate_v2: kernel.cu calls cuBLAS:
 * ..." (the policy's sentence where it refuses the symbol); else the
 * compiler's first error; lines to show beneath it. */
void grader_build_failure(const target *t, const char *log, const policy *pol, char *reason, size_t rlen,
                   char *lines, size_t llen);
/* No GPU here: what the build found for each stage, then the one line why
 * nothing runs. Returns GRADE_NO_GPU. */
int grader_report_without_gpu(const target *t, int n, const int *missing, const char *refused, const char *log,
                       const policy *pol);
/* The compiler's complaint about one stage, from the build log. */
void grader_build_errors(const char *log, const char *stage, char *first, size_t firstlen,
                  char *lines, size_t lineslen);

/* library.c */
/* Whether kernel.cu opened a header of a library that would do the stage's
 * work (CUB, Thrust, cg::reduce, ...), read from the list of headers nvcc -MD
 * wrote beside the object (exercise.o: exercise.d). 0: none; 1: refused, msg
 * says which and why, to follow "kernel.cu "; -1: the list is missing, was
 * written without the system headers, or is older than kernel.cu (source;
 * without one, the first file the list names), and msg says so. */
int grader_library_check(const target *t, char *msg, size_t len);
/* 1 when the object has a list library_check can read (0: compile it again). */
int grader_library_list_usable(const target *t);

/* stage.c */
/* The command line of a graded run: confine's words when confined, the
 * program, the arguments every run gets, then the rubric's. */
typedef struct {
    char *argv[80];
    char seed[32];
    char words[600];
} command_line;
int grader_run_args(command_line *c, const target *t, const rubric *rb, const stage_rubric *sr,
             const confinement *conf, unsigned long long seed);
/* baseline.c */
/* The words a stage's run gets after the rubric's (extra: NULL for none):
 * a baseline an earlier stage of the same family measured (stage_result's
 * baseline_ms, baseline_at), as --baseline-ms MS --baseline-at SIZE. */
typedef struct {
    char ms[32], at[32];
    char *argv[5];
} extra_args;
const extra_args *grader_reuse_baseline(extra_args *x, const stage_result *earlier, int n, const target *t,
                                 const target *this_one);
/* Baselines kept between grades on one GPU (--baselines FILE, one line a
 * family: family, GPU, ms, size, tab-separated). kept_load reads FILE (a
 * missing file is none; malformed lines are skipped) and keeps the lines
 * of gpu; reuse_baseline falls back to them for a family no stage of this
 * grade timed. kept_save adds to FILE, atomically, the families this grade
 * timed that it did not have. */
void grader_kept_load(const char *path, const char *gpu);
void grader_kept_save(const char *path, const stage_result *res, int n, const target *t);

void grader_grade_stage(stage_result *s, const target *t, const rubric *rb, const policy *pol,
                 const options *o, int have_sanitizer, const extra_args *extra);
void grader_progress_done(const stage_result *s);
void grader_show_output_tail(const stage_result *s, int max_lines);

/* calibrate.c */
/* After the stages' solutions t[0..n-1], the reference kernels calibrate
 * measures: every tier's of a stage it calibrates, the last tier's of a
 * stage it only compares with. Returns the new count (at most max), or -1
 * when there is no room. */
int grader_calibration_targets(target *t, int n, int max, const tier_reference *refs, int nrefs, const rubric *rb,
                        const char *lab, int judge);
int grader_calibrate(const options *o, target *t, int n, const rubric *rb, const policy *pol,
              const char *log);

/* launched.c: the checks before any run of student code, the grade's and
 * the launcher's (judge/launch.sh): 1 with the reason and advice when they
 * refuse t's object, 0 when not. */
int grader_prerun_refusal(const target *t, const policy *pol, char *reason, size_t rlen, char *advice, size_t alen);
/* grade --prerun and --run-checks (the launcher's): their exit status, or
 * -1 when argv asks for neither. */
int grader_launched_main(int argc, char **argv);
/* STAGE's target for the checks (stages.tsv): its family, lesson, header;
 * -1 when there is no such stage. */
int grader_prerun_target(const char *stage, const char *object, target *t);

/* emulated.c: what the CPU emulation names in a kernel.cu graded on the
 * GPU. emulated_cause: the first finding of PROGRAM (the stage's emulated
 * program, PROGRAM.check.o its object for the launcher), run by
 * judge/launch.sh from lab at size at ("n=17", "33x65"; "any": small sizes
 * of the family's), with seed, within limit_s; 1 with it in cause, 0 when
 * it names nothing. */
int grader_emulated_cause(const char *lab, const char *stage, const char *program, const char *at, int own,
                   unsigned long long seed, double limit_s, char *cause, size_t len);
/* The run a stage correct on the GPU gets, begun beside the GPU's runs:
 * emulated_findings takes its finding. */
void grader_emulated_begin(const target *t, const options *o);
/* A wrong stage: the emulation's finding, before its advice. A correct
 * one: the finding as its warning, or its correctness points lost where
 * the stage's lesson is its barriers. */
void grader_emulated_findings(stage_result *s, const target *t, const options *o);
/* grade --emulated-cause (make run on a GPU) and --emulated-check: the
 * exit status, or -1 when argv asks for neither. */
int grader_emulated_main(int argc, char **argv);

#endif /* GRADING_H */
