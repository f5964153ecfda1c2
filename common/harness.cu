/*
 * harness.cu: the one sequence every stage runs (family.h), whichever
 * family it is and wherever the student's code runs (backend.h):
 * correctness first, at every size; then the student's timing, the check of
 * its last timed call, and the reference kernels' timing in the same run;
 * then the table, the family's conclusion and the record.
 *
 *   build/03_tiled/exercise --help
 */
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "family.h"

/* the stage's family (lab.h): a judge's worker runs stages of several */
#define F lab_family_run

/* 0, or -1 with why size (named `what`) is not one the family takes */
static int size_ok(lab_dims d, const char *what, char *err, size_t len)
{
    if (F->size_ok)
        return F->size_ok(d, what, err, len);
    if (d.rows <= F->max_n)
        return 0;
    snprintf(err, len, "%s %lld is too large for this lab (at most %s%lld)", what, d.rows, F->max_note, F->max_n);
    return -1;
}

/* --sizes (or the stage's, or the family's) and --n (or the stage's, or
 * the family's), each a size the family takes, or the end with
 * LAB_EXIT_USAGE. The stage's own come from stages.tsv (build_info.c). */
static void settle_sizes(lab_args *a)
{
    char err[192];
    const char *sizes = *lab_stage_sizes ? lab_stage_sizes : F->sizes;
    if (!a->have_sizes && lab_parse_sizes(sizes, F->allow_2d, a->sizes, &a->nsizes, err, sizeof err))
        lab_die(LAB_EXIT_USAGE, "default sizes: %s", err);
    if (!a->have_timing)
        a->timing = a->profile && F->profiled_size.rows ? F->profiled_size : F->timed_size;
    /* (stage_sizes has read the stage's timed size once already) */
    if (!a->have_timing && *lab_stage_timed)
        lab_parse_dims(lab_stage_timed, F->allow_2d, &a->timing, err, sizeof err);
    for (int i = 0; i < a->nsizes; i++)
        if (size_ok(a->sizes[i], "size", err, sizeof err))
            lab_die(LAB_EXIT_USAGE, "%s", err);
    if (size_ok(a->timing, "--n", err, sizeof err))
        lab_die(LAB_EXIT_USAGE, "%s", err);
}

/* One check, where the family has no check of its own: a problem of one
 * set, the student's call on it, its output checked. */
static int check_one(lab_dims d, const char *label, const char *whole_ok, cublasHandle_t h, const lab_args *a,
                     lab_record *rec)
{
    void *ctx = F->problem_new(d, 1, a->seed, h);
    F->kernels[0].call(ctx, 0);
    lab_student_sync(label);
    int ok = F->check_set(ctx, 0, label, whole_ok, a, rec);
    F->problem_free(ctx);
    return ok;
}

/* a size as the checks label it: "n=17", or "33x65" */
static void label_of(lab_dims d, char *out, size_t len)
{
    if (F->allow_2d)
        snprintf(out, len, "%lldx%lld", d.rows, d.cols);
    else
        snprintf(out, len, "n=%lld", d.rows);
}

int lab_whole_tiles(lab_dims d)
{
    return F->whole_tiles > 0 && d.rows % F->whole_tiles == 0 && (!F->allow_2d || d.cols % F->whole_tiles == 0);
}

/* A stage's own sizes (stages.tsv), checked before anything else: sizes
 * the family takes, the first of whole tiles as the family's is (so that a
 * kernel wrong on partial tiles alone is told so). --help's text to help. */
static void stage_sizes(char *help, size_t len)
{
    lab_dims d[LAB_MAX_SIZES];
    int n;
    char err[192];
    if (*lab_stage_sizes && lab_parse_sizes(lab_stage_sizes, F->allow_2d, d, &n, err, sizeof err))
        lab_die(LAB_EXIT_USAGE, "stages.tsv, the sizes of %s: %s", lab_stage, err);
    if (*lab_stage_sizes && F->whole_tiles > 0 && !lab_whole_tiles(d[0]))
        lab_die(LAB_EXIT_USAGE, "stages.tsv, the sizes of %s: the first must be of whole tiles "
                "(a multiple of %d), as the %s family's is (%s)", lab_stage, F->whole_tiles, F->name, F->sizes);
    if (*lab_stage_timed && lab_parse_dims(lab_stage_timed, F->allow_2d, &d[0], err, sizeof err))
        lab_die(LAB_EXIT_USAGE, "stages.tsv, the timed size of %s: %s", lab_stage, err);
    int used = snprintf(help, len, "%s  default --sizes  %s (%s)\n", F->help,
                        *lab_stage_sizes ? lab_stage_sizes : F->sizes,
                        *lab_stage_sizes ? "this stage's, stages.tsv" : "the family's");
    if (*lab_stage_timed && used > 0 && (size_t)used < len)
        snprintf(help + used, len - used, "  default --n      %s (this stage's, stages.tsv)\n", lab_stage_timed);
}

/* Every check size (with --check-only, the timing size last); 1 when all
 * passed. The timing size is otherwise checked on the timed calls' output,
 * after timing, so that a correct kernel too slow to time at that size has
 * passed every check first. */
static int run_checks(const lab_args *a, cublasHandle_t h, lab_record *rec)
{
    int all_ok = 1, nchecks = a->nsizes + (a->check_only ? 1 : 0);
    lab_dims checked[LAB_MAX_SIZES + 1];
    int ok[LAB_MAX_SIZES + 1];
    char whole_ok[32] = ""; /* a size of whole tiles that passed */
    lab_json_array(&rec->j, "checks");
    for (int i = 0; i < nchecks; i++) {
        checked[i] = i < a->nsizes ? a->sizes[i] : a->timing;
        char label[32];
        label_of(checked[i], label, sizeof label);
        lab_progress("check %s", label);
        ok[i] = (F->check ? F->check : check_one)(checked[i], label, whole_ok[0] ? whole_ok : NULL, h, a, rec);
        if (ok[i] && lab_whole_tiles(checked[i]) && !whole_ok[0])
            snprintf(whole_ok, sizeof whole_ok, "%s", label);
        all_ok &= ok[i];
    }
    lab_json_end(&rec->j);
    lab_json_bool(&rec->j, "correct", all_ok);
    if (!all_ok) {
        const char *hint = F->failed_hint ? F->failed_hint(checked, ok, nchecks) : NULL;
        if (hint)
            printf("\n%s\n", hint);
        printf("\nnot timed: the kernel must pass every check first. Fix the first failing size,\n"
               "then run again (make run EX=%s). The seed above repeats these inputs (SEED=%llu).\n",
               lab_stage, (unsigned long long)a->seed);
        if (!strcmp(lab_variant, "exercise"))
            printf("Your edits go in the TODO(lab) parts of exercises/%s/kernel.cu.\n", lab_stage);
    }
    return all_ok;
}

/* The naive matrix product is the slowest call of a grade and the same in
 * every matrix-product stage: the grader times it in stage 01 and hands its
 * time to the later stages of the same grade (--baseline-ms, --baseline-at). */
static int reuse_baseline(const lab_args *a, const char *label, lab_timing *t)
{
    if (!(a->baseline_ms > 0) || !a->baseline_at || strcmp(a->baseline_at, label))
        return 0;
    t->st.median = t->st.p25 = t->st.p75 = a->baseline_ms;
    t->st.min = t->st.max = t->st.mean = a->baseline_ms;
    t->st.reps = 0; /* not timed here */
    t->st.rse = 0;
    return 1;
}

static void time_kernel(lab_measure *m, const lab_kernel *k, lab_timing *t, void *ctx, int nsets,
                        const lab_timing_policy *policy, int is_student)
{
    lab_timed timed = {k->call, k->prepare, F->refresh, k->check, k->wrong_hint,
                       k->writes_one ? sizeof(float) : F->output_bytes(ctx), is_student};
    lab_time(m, t, &timed, ctx, nsets, policy);
}

enum { MAX_KERNELS = 8 };

/* Time the student, check its last timed call, time the references; the
 * table, the conclusion, the record. */
static int run_timing(const lab_args *a, const lab_timing_policy *policy, const lab_gpu *g, cublasHandle_t h,
                      lab_record *rec)
{
    const int nsets = lab_sets_that_fit(F->sets, F->set_bytes(a->timing));
    const double work = F->work(a->timing);
    void *ctx = F->problem_new(a->timing, nsets, a->seed ^ 0x5eedULL, h);
    const lab_kernel *K = F->kernels;
    if (a->profile)
        return lab_profile_call(rec, K[0].call, K[0].prepare, ctx);
    lab_measure m;
    lab_measure_begin(&m, a, &lab_measure_on_gpu);
    lab_timing rows[MAX_KERNELS];
    memset(rows, 0, sizeof rows);
    for (int i = 0; i < F->nkernels; i++) {
        rows[i].name = K[i].name;
        rows[i].label = K[i].label;
    }
    char label[32];
    label_of(a->timing, label, sizeof label);
    if (F->timing_intro)
        F->timing_intro(ctx, nsets);
    else
        printf("\ntiming at %s (%d input sets, fresh inputs, L2 flushed before the first call)...\n", label, nsets);
    /* the student first: where the backend runs it, the runner that ran
     * the checks (timing.cu); its samples wait in m for the settle */
    time_kernel(&m, &K[0], &rows[0], ctx, nsets, policy, 1);

    /* the last timed call's output must be right too */
    lab_json_array(&rec->j, "timed_output_check");
    lab_progress("check %s (the last timed call)", label);
    int last_ok = F->check_set(ctx, rows[0].last_set, label, NULL, a, rec);
    lab_json_end(&rec->j);
    if (!last_ok) {
        printf("the output of the last timed call is wrong, although the first call was right:\n"
               "does the kernel depend on state left by an earlier call?\n");
        lab_record_end(rec, LAB_EXIT_WRONG, "the last timed call's output is wrong");
        return LAB_EXIT_WRONG;
    }
    int reused = 0, verified[MAX_KERNELS];
    for (int i = 1; i < F->nkernels; i++) {
        if (K[i].reusable && reuse_baseline(a, label, &rows[i]))
            reused = 1;
        else
            time_kernel(&m, &K[i], &rows[i], ctx, nsets, policy, 0);
        verified[i] = K[i].verify ? K[i].verify(ctx, rows[i].last_set, K[i].label) : 1;
    }
    /* the student's samples settled (its runner stopped, its canaries
     * judged, the write-back taken off), whichever kernel came last; then
     * the rates */
    lab_measure_settle(&m);
    double scale[MAX_KERNELS];
    for (int i = 0; i < F->nkernels; i++)
        scale[i] = K[i].work_scale;
    lab_measure_rates(&m, rows, F->nkernels, work, scale);

    /* a time below what the hardware allows cannot be real */
    double floor_ms = F->floor_ms(ctx, g);
    int plausible = rows[0].st.median >= floor_ms;
    lab_print_timings(rows, F->nkernels, F->unit, &rows[F->reference], &rows[F->baseline]);
    if (reused)
        printf("  (the naive kernel's time was measured by an earlier stage of this grade)\n");
    lab_record_timing_begin(rec, label, F->unit, work, floor_ms, plausible, lab_measure_disturbed(&m));
    F->conclude(ctx, rows, g, floor_ms, plausible, &rec->j);
    for (int i = 1; i < F->nkernels; i++) {
        char key[64];
        snprintf(key, sizeof key, "%s_result_ok", K[i].name);
        if (K[i].verify)
            lab_json_bool(&rec->j, key, verified[i]);
        if (K[i].reusable) /* the grader may hand this time to the next stages */
            lab_json_bool(&rec->j, "baseline_reusable", 1);
    }
    if (reused)
        lab_json_string(&rec->j, "baseline_from", "an earlier stage of this grade");
    lab_record_timing_end(rec, rows, F->nkernels);
    F->problem_free(ctx);
    lab_record_end(rec, LAB_EXIT_OK, plausible ? "ok" : "implausibly fast");
    return LAB_EXIT_OK;
}

/* One stage: its checks, then its timing; the exit status. */
static int run_stage(int argc, char **argv)
{
    lab_args a;
    lab_gpu g;
    lab_phase("main");
    static char help[1024];
    stage_sizes(help, sizeof help);
    lab_start(argc, argv, F->allow_2d, help, &a, &g);
    settle_sizes(&a);

    lab_record rec;
    lab_record_begin(&rec, F->name, &a, &g);
    lab_timing_policy policy; /* the one policy (policy.c), whole in the record */
    lab_policy_fill(&policy, &a);
    lab_policy_json(&rec.j, &policy);
    cublasHandle_t h = lab_cublas_strict();
    lab_phase("context and cuBLAS ready");
    printf("%s (%s%s%s) on %s, seed %llu\n", lab_stage, lab_variant, *lab_knob ? ", " : "", lab_knob, g.name,
           (unsigned long long)a.seed);
    printf("%s\n", F->intro);

    if (!run_checks(&a, h, &rec)) {
        lab_record_end(&rec, LAB_EXIT_WRONG, "wrong result");
        return LAB_EXIT_WRONG;
    }
    printf("all results match.\n");
    lab_progress("checks passed");
    if (a.check_only) {
        lab_record_end(&rec, LAB_EXIT_OK, "checked, not timed (--check-only)");
        return LAB_EXIT_OK;
    }
    int status = run_timing(&a, &policy, &g, h, &rec);
    CUBLAS_CHECK(cublasDestroy(h));
    return status;
}

int main(int argc, char **argv) { return lab_backend_main(argc, argv, run_stage); }
