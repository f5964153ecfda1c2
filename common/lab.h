/*
 * lab.h: the host-side pieces every stage program and the grader share.
 *
 * Plain C, no CUDA: exit statuses, the random-number generator, argument
 * parsing, statistics, result comparison and the JSON writer. Everything here
 * is unit-tested on a machine without a GPU (tests/unit/).
 */
#ifndef LAB_H
#define LAB_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------- exit codes */

/* Every stage program ends with one of these; the grader and the tests rely on them. */
enum lab_exit {
    LAB_EXIT_OK = 0,         /* every check passed (and timing ran)            */
    LAB_EXIT_WRONG = 1,      /* the kernel ran but a check failed              */
    LAB_EXIT_USAGE = 2,      /* bad command-line arguments                     */
    LAB_EXIT_NO_GPU = 3,     /* no usable CUDA device or driver                */
    LAB_EXIT_CUDA_ERROR = 4, /* a CUDA error (often sticky) stopped the run    */
    LAB_EXIT_NO_MEMORY = 5   /* the GPU could not hold the requested size      */
};

/* A signal that ended a program, in words ("segmentation fault (SIGSEGV)"):
 * signals.c. */
const char *lab_signal_text(int sig);

/* With LAB_JUDGE_TRACE set, one line on stderr as a phase of a stage's
 * program begins, "judge phase: MS WHAT", MS since its process started
 * (phases.c; research/judge-phases.sh tabulates them); else nothing. */
void lab_phase(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The marks' origin moved to now: a judge's worker, as each stage begins. */
void lab_phase_restart(void);

/* ----------------------------------------------------- identity of a binary */

/* Set at build time (common/build_info.c): which stage, exercise or solution,
 * and the value of the stage's compile-time knob, e.g. "TILE=16"; the
 * stage's own checked sizes and timed size (stages.tsv's sizes line), or ""
 * for the family's; and its family (family.h). The judge's worker
 * (judge/worker.cu) sets them again for each stage it runs. */
extern const char *lab_stage, *lab_variant, *lab_knob;
extern const char *lab_stage_sizes, *lab_stage_timed;
struct lab_family_s;
extern const struct lab_family_s *lab_family_run;

/* -------------------------------------------------------------- arguments */

#define LAB_MAX_SIZES 16

/* One problem size: rows x cols for matrices, rows = element count for 1D. */
typedef struct {
    long long rows, cols;
} lab_dims;

typedef struct {
    lab_dims timing;             /* --n N, --n RxC: the size that is timed      */
    int have_timing;
    lab_dims sizes[LAB_MAX_SIZES]; /* --sizes a,b,c: checked before timing      */
    int nsizes;
    int have_sizes;
    uint64_t seed;               /* --seed S (default: from the clock)          */
    int have_seed;
    const char *json_path;       /* --json FILE: write the record there         */
    int record_fd;               /* --record-fd FD: write the record to FD      */
    int progress_fd;             /* --progress-fd FD: one line per phase to FD  */
    int check_only;              /* --check-only: correctness, no timing        */
    double budget_ms;            /* --budget-ms: timing budget per kernel       */
    int have_budget;             /*   (the timing policy's, policy.c)           */
    double baseline_ms;          /* --baseline-ms MS --baseline-at SIZE: the     */
    const char *baseline_at;     /* baseline's time at SIZE, measured earlier in */
                                 /* the same grade (matmul): not timed again     */
    int quiet;                   /* --quiet: only the summary lines             */
    int profile;                 /* --profile: checks, then one call to profile */
    int help;                    /* --help                                      */
    int print_policy;            /* --print-policy: the timing policy, and end  */
    /* experiments, from the environment (not options: the grader passes
     * its environment on): LAB_JUDGE_RSE=X stops sampling at a relative
     * standard error of X (0: the policy's 1%); LAB_JUDGE_TRACE prints
     * where the timing's time goes */
    double judge_rse;
    int judge_trace;
} lab_args;

/* Parse "N" or "RxC" into dims; 1D families accept only "N". Returns 0 on
 * success, -1 (with a message in err) when the text is not a size >= 1. */
int lab_parse_dims(const char *text, int allow_2d, lab_dims *out,
                   char *err, size_t errlen);

/* Parse a comma-separated list of sizes ("1,17,255" or "1x1,33x65"). */
int lab_parse_sizes(const char *list, int allow_2d, lab_dims *sizes, int *nsizes,
                    char *err, size_t errlen);

/* Parse the options every stage program shares. Returns 0, or -1 with a one-line
 * message in err (the caller prints it and exits LAB_EXIT_USAGE). */
int lab_parse_args(int argc, char **argv, int allow_2d, lab_args *a,
                   char *err, size_t errlen);

/* Print the shared options, for --help. */
void lab_print_usage(FILE *out, const char *prog, const char *family_help);
/* What --help or --print-policy asks for, printed to out: 1 when one was
 * asked (the program ends), else 0. */
int lab_print_asked(FILE *out, const lab_args *a, const char *prog, const char *family_help);

/* ------------------------------------------------------ random inputs */

/* What the host and the GPU both run: __host__ __device__ under nvcc, and
 * nothing in plain C. */
#ifdef __CUDACC__
#define LAB_HD __host__ __device__
#else
#define LAB_HD
#endif

/* A counter-based generator: value i of stream seed does not depend on any
 * other value, so the host and the GPU produce the same numbers in parallel.
 * Values are uniform in [-0.5, 0.5) with 24 random bits: never zeros, never
 * small integers, which would hide wrong indexing and reduced precision. */
static inline LAB_HD uint64_t lab_mix64(uint64_t x)
{
    /* splitmix64's finalizer: every input bit affects every output bit */
    x ^= x >> 30; x *= 0xbf58476d1ce4e5b9ULL;
    x ^= x >> 27; x *= 0x94d049bb133111ebULL;
    x ^= x >> 31;
    return x;
}

/* The 64 random bits behind value i of stream seed. */
static inline LAB_HD uint64_t lab_hash(uint64_t seed, uint64_t i)
{
    return lab_mix64(lab_mix64(seed) ^ (i * 0x9e3779b97f4a7c15ULL));
}

/* The value that hash h stands for: its top 24 bits, in [-0.5, 0.5). */
static inline LAB_HD float lab_uniform_of(uint64_t h)
{
    return (float)(h >> 40) * (1.0f / 16777216.0f) - 0.5f;
}

static inline LAB_HD float lab_uniform(uint64_t seed, uint64_t i)
{
    return lab_uniform_of(lab_hash(seed, i));
}

/* ------------------------------------------------------------- statistics */

typedef struct {
    int reps;
    double median, p25, p75, min, max, mean;
    double rse; /* relative standard error of the median (stats.c)          */
} lab_stats;

/* Summarise n timings (milliseconds). n >= 1. */
void lab_stats_compute(const double *ms, int n, lab_stats *out);

/* The most calls a timed batch may hold (a request to a runner holds one
 * whole: judge/judge.cu); the policy's max_batch is at most this. */
enum { LAB_MAX_BATCH = 32 };

/* The timing policy: every setting of how a kernel is timed. policy.c has
 * the defaults and lab_policy_fill, the one function that fills it, in
 * the order common/README.md ("The timing policy") gives; the record has
 * it whole (timing_policy). The first four are the stop rule of
 * lab_timing_done, for samples of one call or (timing.cu) of one batch. */
typedef struct {
    int min_trials;    /* always at least this many samples                  */
    int max_trials;    /* never more                                         */
    double target_rse; /* stop once the median is known this well: its
                          relative standard error (0.01 = 1%)                */
    double budget_ms;  /* or once this much kernel time has been spent       */
    double warm_up_again_below_ms; /* a first call shorter: warmed up once more */
    int max_batch;         /* calls a batch, at most (LAB_MAX_BATCH)          */
    int max_calls;         /* timed calls a kernel, at most                   */
    double long_call_ms;   /* a call longer: batches of about batch_ms ...    */
    double batch_ms;       /* ... of GPU time; shorter: of max_batch calls    */
    double slow_call_ms;   /* a first call longer: min_trials is slow_trials  */
    int slow_trials;
    double slower_call_ms; /* a first call longer still: slower_trials        */
    int slower_trials;
    int l2_flush_l2s;      /* the L2 flush's buffer: this many times the L2 ... */
    int l2_flush_min_mib;  /* ... and at least this many MiB                  */
} lab_timing_policy;

/* The policy of a run with options a (policy.c). */
void lab_policy_fill(lab_timing_policy *p, const lab_args *a);

/* 1 when the samples so far are enough under the policy. */
int lab_timing_done(const double *ms, int n, const lab_timing_policy *p);

/* ------------------------------------------------------------- comparison */

/* Result of comparing a computed array with the reference. */
typedef struct {
    long long checked;     /* elements compared                               */
    long long bad;         /* elements outside their bound (NaN included)     */
    long long nan;         /* of those, NaN or infinite                       */
    long long never_written; /* of those, still holding the poison pattern    */
    double max_abs_err;    /* over finite elements                            */
    double worst_ratio;    /* max |got-want|/bound (> 1 means outside)        */
    double rel_norm_err;   /* ||got-want||_2 / ||want||_2 over finite values  */
    long long bad_row_min, bad_row_max, bad_col_min, bad_col_max;
} lab_compare;

/* The bit pattern written into outputs before every call (a quiet NaN that no
 * arithmetic produces), and into the guard zones around every buffer. */
#define LAB_POISON_BITS 0x7fc0dead
#define LAB_GUARD_BITS 0x7fc0face

/* What a comparison adds up, one element at a time (lab_compare_add): the
 * host's lab_compare_arrays and the GPU's pass over a whole output
 * (family.h, lab_output_compare) apply the same rule. */
typedef struct {
    long long checked, bad, nan, never_written;
    double max_abs_err, worst_ratio, diff2, want2;
} lab_compare_sums;

static inline LAB_HD uint32_t lab_bits_of(float x)
{
    union {
        float f;
        uint32_t u;
    } v;
    v.f = x;
    return v.u;
}

/* got against want, within bound (has_bound), else bit for bit, added to s:
 * 1 when it passes. NaN and infinity never pass. */
static inline LAB_HD int lab_compare_add(lab_compare_sums *s, float got, float want, int has_bound, double bound)
{
    s->checked++;
    int ok;
    if ((lab_bits_of(got) & 0x7f800000u) == 0x7f800000u) {
        s->nan++;
        s->never_written += lab_bits_of(got) == LAB_POISON_BITS;
        ok = 0;
    } else {
        const double d = (double)got - (double)want, err = d < 0 ? -d : d;
        s->diff2 += err * err;
        s->want2 += (double)want * want;
        if (err > s->max_abs_err)
            s->max_abs_err = err;
        if (has_bound) {
            ok = err <= bound;
            const double ratio = bound > 0 ? err / bound : (err > 0 ? (double)INFINITY : 0);
            if (ratio > s->worst_ratio)
                s->worst_ratio = ratio;
        } else {
            ok = lab_bits_of(got) == lab_bits_of(want);
            if (!ok)
                s->worst_ratio = INFINITY;
        }
    }
    s->bad += !ok;
    return ok;
}

/* b's sums added to a's; out filled from s (the rows and columns of its
 * failures unknown) */
void lab_compare_merge(lab_compare_sums *a, const lab_compare_sums *b);
void lab_compare_finish(const lab_compare_sums *s, lab_compare *out);

/* Compare got with want element by element. bound[i] is the largest allowed
 * |got-want| (bound == NULL: the values must be bitwise equal). NaN never
 * passes. The first max_show failures are printed to log as
 * (row, col, got, expected, bound). */
void lab_compare_arrays(const float *got, const float *want, const float *bound,
                        long long rows, long long cols, int max_show, FILE *log,
                        lab_compare *out);

/* Index of the first element of a guard zone that no longer holds
 * LAB_GUARD_BITS, or -1 when the zone is intact. */
long long lab_guard_first_bad(const float *zone, size_t count);

/* Print one sentence that says where the failures are (edges, a tile, all),
 * for a student to act on. whole_ok: the label of an earlier check, at a
 * size that is a multiple of every tile the lab's stages use, that passed
 * ("n=256"), or NULL; then a failure at label ("n=17") is the last, partial
 * tile's, and the sentence says so. */
void lab_explain_failures(FILE *out, const lab_compare *c, long long rows,
                          long long cols, const char *whole_ok, const char *label);

/* ------------------------------------------------------------------ hints */

/* The size in a call's label: "n=17" (rows = cols = 17) or "17x33". Returns 0,
 * or -1 when the label holds no size. */
int lab_call_dims(const char *label, lab_dims *out);

/* A hint for a kernel that failed with the CUDA error named error_name
 * ("cudaErrorInvalidValue") in the call labelled size ("n=1", "17x33"): the
 * causes that error has at that size, and what to check. Returns 1 with
 * the hint in out, 0 (out empty) when there is nothing specific to say. */
int lab_launch_hint(const char *error_name, const char *size, char *out, size_t len);

/* ------------------------------------------------------------ JSON writer */

/* A small streaming writer: one key per line, so records are easy to read by
 * eye and by line-based tools. Nesting is tracked so commas are always right. */
#define LAB_JSON_DEPTH 16
typedef struct {
    FILE *f;
    int depth;
    int count[LAB_JSON_DEPTH]; /* members written at each level        */
    char close[LAB_JSON_DEPTH]; /* the bracket that closes each level  */
} lab_json;

void lab_json_start(lab_json *j, FILE *f);             /* opens the top object */
void lab_json_finish(lab_json *j);                     /* closes it, newline  */
void lab_json_object(lab_json *j, const char *key);    /* key NULL in arrays  */
void lab_json_array(lab_json *j, const char *key);
void lab_json_end(lab_json *j);                        /* closes either       */
void lab_json_string(lab_json *j, const char *key, const char *value);
void lab_json_number(lab_json *j, const char *key, double value); /* NaN -> null */
void lab_json_int(lab_json *j, const char *key, long long value);
void lab_json_bool(lab_json *j, const char *key, int value);

/* The timing policy, whole: into a record (an object, timing_policy), and
 * for --print-policy, one setting a line (policy.c). */
void lab_policy_json(lab_json *j, const lab_timing_policy *p);
void lab_policy_print(FILE *out, const lab_timing_policy *p);

#ifdef __cplusplus
}
#endif

#endif /* LAB_H */
