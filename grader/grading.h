/*
 * grading.h: how the grader's own files fit together (make grade, make
 * calibrate); grader.h has the pieces they are built from.
 *
 *   options.c   the command line and which stages are graded
 *   build.c     is there a GPU; the copy of the lab for --src; make -k -j
 *   stage.c     one stage: policy, run, score, sanitizer; progress lines
 *   calibrate.c thresholds from the solutions on this GPU
 *   grade.c     main: one stage after another, then the reports
 */
#ifndef GRADING_H
#define GRADING_H

#include "grader.h"

/* One stage to grade (or to calibrate with). */
typedef struct {
    char stage[NAME_LEN];
    char family[NAME_LEN];
    char binary[1024];
    char object[1024];
    char header[1024];
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
    char *names[MAX_STAGES];
    int nnames;
    char *programs[MAX_STAGES];
    int nprograms;
} options;



/* options.c */
int parse_options(int argc, char **argv, options *o);
/* The targets: every stage of stages.tsv, or those named by prefix; to
 * calibrate a stage, the previous stage of its family too. -1: unknown name. */
int select_stages(const options *o, const stage_info *all, int nall, target *t);
/* --program STAGE=BINARY[:OBJECT[:HEADER]] into a target. */
int program_target(const char *spec, target *t);

/* build.c */
/* The first GPU's name when one is here; 0 when there is none. */
int find_gpu(char *name, size_t len);
/* For --src: a copy of the lab in lab/build/grade-src holding the submitted
 * kernel.cu files, everything else linked to this lab. */
int make_scratch(const char *lab, const char *src, target *t, int n, int *missing,
                 char *scratch, size_t len);
/* make -k -j of every target's binary, old binaries removed first. */
void build(const char *dir, target *t, int n, int jobs, const char *variant, char **log,
           double *seconds);
/* The compiler's complaint about one stage, from the build log. */
void build_errors(const char *log, const char *stage, char *first, size_t firstlen,
                  char *lines, size_t lineslen);

/* stage.c */
/* What a student types to see a stage: make run EX=03 [SEED=...]. */
void run_command(const char *stage, const unsigned long long *seed, char *out, size_t len);
/* The arguments every graded run gets, then the rubric's. */
int run_args(char **argv, int max, const target *t, const rubric *rb, const stage_rubric *sr,
             char *seed_text, char *argbuf, size_t arglen);
void grade_stage(stage_result *s, const target *t, const rubric *rb, const policy *pol,
                 const options *o, int have_sanitizer);
void progress_done(const stage_result *s);
void show_output_tail(const stage_result *s, int max_lines);

/* calibrate.c */
int calibrate(const options *o, target *t, int n, const rubric *rb, const policy *pol,
              const char *log);

#endif /* GRADING_H */
