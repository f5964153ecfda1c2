/*
 * grade.c: make grade and make calibrate.
 *
 *   build/grader/grade [STAGE...]          every stage, or those named (03, 03_tiled)
 *   build/grader/grade --sanitize          also compute-sanitizer at small sizes
 *   build/grader/grade --src DIR           grade DIR/<stage>/kernel.cu with this lab's harness
 *   build/grader/grade --calibrate         instructors: thresholds for this GPU
 *   build/grader/grade --help
 *
 * One stage after another, as make built them (tools/grade-build.sh, which
 * asks --plan what to build; the grader runs no make): check the object
 * against the symbol policy, run the program in its own process with
 * a time limit, read its record, score it. The table, the advice and the
 * reports come at the end. Exit status 0 whenever grading ran.
 *
 * main is the list of steps, each a function below in the order it runs;
 * what one step hands the next is a grading (below). A step returns
 * GO_ON, or the exit status that ends the run there.
 */
#include "grader.h"
#include "grading.h"
#include "spawn.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* What the steps hand on, from the options to the reports. */
typedef struct {
    options o;
    char lab[PATH_MAX], rubric_path[PATH_MAX], policy_path[PATH_MAX];
    rubric rb;
    policy pol;
    target t[MAX_TARGETS];
    int n, nstages;               /* programs to run; of them, stages graded */
    int missing[MAX_TARGETS];     /* 1 nothing submitted (or no reference); 2 refused by the intake */
    char refused[REASON_LEN];     /* why the intake refused --src           */
    char gpu_name[NAME_LEN];
    int no_gpu_here;
    confinement conf;
    char build_dir[PATH_MAX];
    char *log;                    /* the build's log (grade-build.log)        */
    stage_result res[MAX_STAGES];
    double t0;
} grading;

enum { GO_ON = -1 };

static void on_signal(int sig)
{
    grader_run_kill_current();
    signal(sig, SIG_DFL);
    raise(sig);
}

static void catch_signals(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    signal(SIGPIPE, SIG_IGN);
    signal(SIGINT, on_signal);
    signal(SIGTERM, on_signal);
}

/* The lab, --src, the rubric and the symbol policy. */
static int read_settings(grading *g)
{
    const options *o = &g->o;
    char err[1024];
    struct stat src_st;
    if (o->src && (stat(o->src, &src_st) || !S_ISDIR(src_st.st_mode))) {
        fprintf(stderr, "grade: --src %s: no such folder (GRADE_SRC names a submission's folder, holding "
                        "NN_name/kernel.cu or exercises/NN_name/kernel.cu)\n", o->src);
        return GRADE_USAGE;
    }
    if (!realpath(o->lab, g->lab)) {
        fprintf(stderr, "grade: cannot find the lab at %s\n", o->lab);
        return GRADE_USAGE;
    }
    if (o->rubric_path)
        snprintf(g->rubric_path, sizeof g->rubric_path, "%s", o->rubric_path);
    else
        snprintf(g->rubric_path, sizeof g->rubric_path, "%s/grader/rubric.tsv", g->lab);
    if (o->policy_path)
        snprintf(g->policy_path, sizeof g->policy_path, "%s", o->policy_path);
    else
        snprintf(g->policy_path, sizeof g->policy_path, "%s/grader/allowed-symbols.txt", g->lab);
    if (grader_rubric_read(g->rubric_path, &g->rb, err, sizeof err) ||
        grader_policy_read(g->policy_path, &g->pol, err, sizeof err)) {
        fprintf(stderr, "grade: %s\n", err);
        return GRADE_USAGE;
    }
    if (o->reference && (o->src || o->calibrate || o->program_mode)) {
        fprintf(stderr, "grade: --reference grades the lab's own reference kernels: not with --src, "
                        "--calibrate or --program\n");
        return GRADE_USAGE;
    }
    return GO_ON;
}

/* What to run: the stages named (or all), or with --program the programs
 * given, each under a stage's name. */
static int choose_targets(grading *g)
{
    static stage_info all[MAX_STAGES];
    const options *o = &g->o;
    int nall = grader_stages_all(all, MAX_STAGES);
    if (!o->program_mode) {
        g->n = grader_select_stages(o, all, nall, g->t);
        if (g->n == 0)
            fprintf(stderr, "grade: stages.tsv lists no stages\n");
        return g->n <= 0 ? GRADE_USAGE : GO_ON;
    }
    if (o->src || o->nnames) {
        fprintf(stderr, "grade: --program grades (or calibrates with) the given programs only\n");
        return GRADE_USAGE;
    }
    g->n = o->nprograms;
    for (int i = 0; i < g->n; i++) {
        target *t = &g->t[i];
        if (grader_program_target(o->programs[i], t))
            return GRADE_USAGE;
        /* one family: each program is compared with the one before */
        strcpy(t->family, "programs");
        /* a program graded under a stage's name gets its lesson */
        for (int k = 0; k < nall; k++)
            if (!strcmp(all[k].dir, t->stage))
                snprintf(t->lesson, sizeof t->lesson, "%s", all[k].lesson);
    }
    return GO_ON;
}

/* Could grading run here at all? One line each if not. Without a GPU,
 * grading builds and reports what does not compile. */
static int check_tools(grading *g)
{
    const options *o = &g->o;
    if (o->program_mode) {
        if (lab_have_program("nm"))
            return GO_ON;
        fprintf(stderr, "grade: cannot grade here: nm is not installed (it comes with binutils)\n");
        return GRADE_NO_TOOLS;
    }
    g->no_gpu_here = !grader_find_gpu(g->gpu_name, sizeof g->gpu_name);
    if (g->no_gpu_here && o->calibrate) {
        fprintf(stderr, "grade: cannot calibrate here: no NVIDIA GPU (nvidia-smi lists none)\n");
        return GRADE_NO_GPU;
    }
    const char *nvcc = getenv("NVCC") && *getenv("NVCC") ? getenv("NVCC") : "nvcc";
    const char *missing = !lab_have_program(nvcc) ? nvcc : !lab_have_program("nm") ? "nm" : NULL;
    if (missing) {
        fprintf(stderr, "grade: cannot grade here: %s is not installed or not on PATH (%s)\n", missing,
                !strcmp(missing, "nm") ? "it comes with binutils" : "install the CUDA Toolkit");
        return GRADE_NO_TOOLS;
    }
    return GO_ON;
}

/* The wall around the programs: probed once, said once (not for --plan,
 * which only names what make builds). The driver's files and the GPU
 * check inside the confinement: where a GPU is, and when testing the
 * grader (--program: its stand-in probe, if the lab has one). */
static int set_up_wall(grading *g)
{
    options *o = &g->o;
    confinement *conf = &g->conf;
    grader_confinement_setup(conf, g->lab, o->unconfined, o->program_mode || !g->no_gpu_here, o->probed);
    o->conf = conf;
    if (!conf->on && o->require_confinement && !o->unconfined) {
        fprintf(stderr, "grade: cannot confine the runs here (%s); a class is graded confined: grade it "
                        "where user namespaces and Landlock work, or say UNCONFINED=1 (the gradebook "
                        "records it)\n", conf->why);
        return GRADE_UNCONFINED;
    }
    if (o->require_confinement && o->sanitize && !o->unconfined) {
        fprintf(stderr, "grade: compute-sanitizer starts processes of its own and cannot run confined; "
                        "a class run with SANITIZE=1 needs UNCONFINED=1 too\n");
        return GRADE_USAGE;
    }
    const char *why_not = !strncmp(conf->why, "not confined: ", 14) ? conf->why + 14 : conf->why;
    if (!conf->on && !o->unconfined)
        printf("note: the runs are not confined here (%s): fine for grading your own work; official "
               "grades come from a machine that confines them (grader/README.md)\n", why_not);
    if (conf->on && o->sanitize)
        printf("note: compute-sanitizer's runs (SANITIZE=1) are not confined: it starts processes of its own\n");
    return GO_ON;
}

/* The judge shares its buffers with the runner by CUDA IPC, which some
 * systems lack (WSL2, some virtual machines): probed once, said once. */
static int check_judge(grading *g)
{
    options *o = &g->o;
    char ipc_line[256];
    if (!o->judge || o->program_mode || g->no_gpu_here || o->probed ||
        grader_judge_can_share(g->lab, ipc_line, sizeof ipc_line))
        return GO_ON;
    if (o->require_confinement) {
        fprintf(stderr, "grade: the judge cannot share GPU memory with a runner here (%s); a class is "
                        "graded by the judge: grade it where CUDA IPC works, or say JUDGE=0\n", ipc_line);
        return GRADE_UNCONFINED;
    }
    printf("note: the judge cannot share GPU memory with a runner here (%s): your kernel is graded in its "
           "own process instead (JUDGE=0), fine for your own work\n", ipc_line);
    o->judge = 0;
    return GO_ON;
}

/* A fresh seed each grading run, printed, so that a grade can be repeated. */
static void draw_seed(options *o)
{
    if (o->have_seed)
        return;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    o->seed = ((unsigned long long)ts.tv_sec * 1000003ULL + (unsigned long long)ts.tv_nsec / 1000) %
              1000000007ULL;
}

/* Where each target's files are: --src's copy, the exercises, or the
 * tiers' reference kernels (stages.tsv), graded instead of the exercises
 * (--reference) or measured beside the solutions (--calibrate). */
static int place_targets(grading *g)
{
    const options *o = &g->o;
    char err[1024];
    snprintf(g->build_dir, sizeof g->build_dir, "%s", g->lab);
    if (o->src && grader_make_scratch(g->lab, o->src, g->t, g->n, g->missing, g->refused, sizeof g->refused, g->build_dir,
                               sizeof g->build_dir, o->plan)) {
        fprintf(stderr, "grade: cannot prepare %s/build/grade-src for --src %s: %s\n", g->lab, o->src,
                strerror(errno));
        return GRADE_USAGE;
    }
    for (int i = 0; i < g->n; i++)
        grader_target_paths(&g->t[i], g->build_dir, g->lab, "", o->calibrate ? "solution" : "exercise", o->judge);
    static tier_reference refs[MAX_REFERENCES];
    int nrefs = o->reference || o->calibrate ? grader_references_read(g->lab, refs, MAX_REFERENCES, err, sizeof err) : 0;
    if (nrefs < 0) {
        fprintf(stderr, "grade: %s\n", err);
        return GRADE_USAGE;
    }
    for (int i = 0; o->reference && i < g->n; i++) {
        const tier_reference *ref = grader_reference_find(refs, nrefs, g->t[i].stage, o->reference);
        if (ref)
            grader_reference_target(&g->t[i], g->lab, ref, o->judge);
        else
            g->missing[i] = 1;
    }
    g->nstages = g->n;
    if (o->calibrate &&
        (g->n = grader_calibration_targets(g->t, g->n, MAX_TARGETS, refs, nrefs, &g->rb, g->lab, o->judge)) < 0) {
        fprintf(stderr, "grade: too many programs to calibrate with (at most %d)\n", MAX_TARGETS);
        return GRADE_USAGE;
    }
    return GO_ON;
}

/* The official grade uses a pristine harness: say so if this one is not. */
static void note_local_changes(const grading *g)
{
    if (g->o.calibrate || g->o.src || !lab_have_program("git"))
        return;
    char *gargv[] = {"git", "-C", (char *)g->lab, "status", "--porcelain", "--", "common", "grader",
                     "Makefile", "stages.tsv", NULL};
    run_result r;
    grader_run_program(gargv, -1, 30, 64 << 10, &r);
    if (r.exited && r.status == 0 && r.tail && r.tail[0])
        printf("note: common/, grader/, the Makefile or stages.tsv have local changes; the "
               "official grade uses the lab's own copies\n");
    grader_run_result_free(&r);
}

/* The first line, and the build's log: built before, by make grade
 * (tools/grade-build.sh) or by a class's builders before any GPU grades,
 * so that nothing is compiled beside a judge that is timing. Without a
 * GPU, the report of the build is all there is. */
static int announce(grading *g)
{
    const options *o = &g->o;
    if (o->program_mode) {
        printf("%s %d program%s (testing the grader), seed %llu\n", o->calibrate ? "calibrating with" : "grading",
               g->n, g->n == 1 ? "" : "s", o->seed);
        return GO_ON;
    }
    printf("%s %d stage%s%s on %s, seed %llu\n", o->calibrate ? "calibrating with" : "grading", g->nstages,
           g->nstages == 1 ? "" : "s", o->src ? " (submitted kernel.cu files)" : "",
           g->no_gpu_here ? "no GPU (its build only)" : g->gpu_name, o->seed);
    if (o->reference)
        printf("the reference kernels of tier %s (stages.tsv), not exercises/\n", o->reference);
    char log_path[PATH_MAX];
    snprintf(log_path, sizeof log_path, "%s/build/grade-build.log", g->lab);
    g->log = lab_read_file(log_path, 1u << 20);
    if (g->no_gpu_here)
        return grader_report_without_gpu(g->t, g->n, g->missing, g->refused, g->log, &g->pol);
    note_local_changes(g);
    return GO_ON;
}

/* A target that has no run: nothing submitted, no reference kernel, or a
 * build that failed (the compiler's lines kept for the report). */
static void score_unbuilt(grading *g, int i, stage_result *s, const char *command)
{
    const target *t = &g->t[i];
    if (g->missing[i] && g->o.reference) {
        char reason[REASON_LEN];
        snprintf(reason, sizeof reason, "no reference kernel for tier %s (stages.tsv)", g->o.reference);
        grader_score_fail(s, reason, NULL);
        return;
    }
    if (g->missing[i] == 2) {
        char reason[REASON_LEN + 16], advice[REASON_LEN];
        snprintf(reason, sizeof reason, "not graded: %s", g->refused);
        snprintf(advice, sizeof advice, "Submit the files themselves, no links: %s/kernel.cu or "
                 "exercises/%s/kernel.cu (a folder, or a zip or tar of one).", t->stage, t->stage);
        grader_score_fail(s, reason, advice);
        return;
    }
    if (g->missing[i]) {
        char advice[REASON_LEN];
        snprintf(advice, sizeof advice, "Submit %s/kernel.cu (your exercises/%s/kernel.cu) to have it graded.",
                 t->stage, t->stage);
        grader_score_fail(s, "no kernel.cu was submitted for this stage", advice);
        return;
    }
    char reason[REASON_LEN + 32], advice[REASON_LEN], lines[4096];
    grader_build_failure(t, g->log, &g->pol, reason, sizeof reason, lines, sizeof lines);
    if (!strncmp(reason, "did not link", 12))
        snprintf(advice, sizeof advice, "Call only your own kernels and what a kernel launcher "
                 "needs: common/%s.h says what kernel.cu may do (`%s` shows the linker's "
                 "message).", t->family, command);
    else
        snprintf(advice, sizeof advice, "Fix the compiler's first error (`%s` shows all of it).", command);
    grader_score_fail(s, reason, advice);
    s->output = grader_text_cleaned(lines);
}

/* Each stage in turn: scored from its run, or from why it has none. */
static void grade_stages(grading *g)
{
    const options *o = &g->o;
    int have_sanitizer = o->sanitize && lab_have_program("compute-sanitizer");
    if (o->sanitize && !have_sanitizer)
        printf("note: compute-sanitizer is not installed (it comes with the full CUDA Toolkit): "
               "SANITIZE=1 is skipped\n");
    if (o->baselines)
        grader_kept_load(o->baselines, g->gpu_name);
    for (int i = 0; i < g->n; i++) {
        stage_result *s = &g->res[i];
        const target *t = &g->t[i];
        grader_score_begin(s, t->stage, grader_rubric_stage(&g->rb, t->stage), &g->rb);
        printf("[%d/%d] %s: ", i + 1, g->n, t->stage);
        fflush(stdout);
        char command[256];
        grader_run_command(t->stage, NULL, command, sizeof command);
        if (g->missing[i] || !grader_target_built(t)) {
            score_unbuilt(g, i, s, command);
        } else {
            extra_args x;
            grader_grade_stage(s, t, &g->rb, &g->pol, o, have_sanitizer, grader_reuse_baseline(&x, g->res, i, g->t, t));
        }
        grader_progress_done(s);
        grader_show_output_tail(s, 8);
    }
    grader_worker_end(); /* the judge's worker, where the stages had one */
    if (o->baselines)
        grader_kept_save(o->baselines, g->res, g->n, g->t);
}

/* The table, grade.json, results.json and grade.tsv; the exit status. */
static int write_reports(grading *g)
{
    const options *o = &g->o;
    grade_info info = {0};
    info.seed = o->seed;
    info.confined = g->conf.on;
    info.judged = o->judge;
    info.confinement = g->conf.why;
    info.seconds = lab_spawn_now() - g->t0;
    info.sanitize = o->sanitize;
    info.rubric_path = g->rubric_path;
    info.source = o->program_mode ? "programs" : o->src ? o->src : o->reference ? "references" : "exercises";
    /* the name the driver reports decides the thresholds; nvidia-smi's
     * stands in when no stage got as far as a record */
    snprintf(info.gpu, sizeof info.gpu, "%s", g->gpu_name);
    for (int i = g->n - 1; i >= 0; i--)
        if (g->res[i].gpu[0])
            snprintf(info.gpu, sizeof info.gpu, "%s", g->res[i].gpu);
    grader_report_table(stdout, g->res, g->n, &info);
    char out_dir[PATH_MAX];
    snprintf(out_dir, sizeof out_dir, "%s", o->out ? o->out : g->lab);
    if (o->out && lab_mkdirs(out_dir))
        fprintf(stderr, "grade: cannot create %s\n", out_dir);
    if (grader_report_write(out_dir, g->res, g->n, &info) == 0)
        printf("reports: %s/grade.json, %s/results.json, %s/grade.tsv (%.0f s in all)\n", out_dir, out_dir,
               out_dir, info.seconds);
    int no_gpu = 0;
    for (int i = 0; i < g->n; i++) {
        no_gpu |= g->res[i].no_gpu;
        grader_stage_result_free(&g->res[i]);
    }
    if (!no_gpu)
        return GRADE_OK;
    fprintf(stderr, "grade: some stages found no usable GPU: their points say nothing about the kernels\n");
    return GRADE_NO_GPU;
}

int main(int argc, char **argv)
{
    static grading g;
    int rc;
    catch_signals();
    /* a run record for the plots' scripts: nothing else */
    if (argc == 3 && !strcmp(argv[1], "--record-tsv"))
        return grader_record_tsv(argv[2]);
    /* the launcher's pre-run checks and verdicts (launched.c) */
    if ((rc = grader_launched_main(argc, argv)) >= 0)
        return rc;
    /* make run on a GPU: what the CPU emulation names in a wrong kernel */
    if ((rc = grader_emulated_main(argc, argv)) >= 0)
        return rc;
    if (grader_parse_options(argc, argv, &g.o))
        return GRADE_USAGE;
    if ((rc = read_settings(&g)) != GO_ON || (rc = choose_targets(&g)) != GO_ON || (rc = check_tools(&g)) != GO_ON)
        return rc;
    if (!g.o.plan) {
        if ((rc = set_up_wall(&g)) != GO_ON || (rc = check_judge(&g)) != GO_ON)
            return rc;
        draw_seed(&g.o);
    }
    g.t0 = lab_spawn_now();
    if (!g.o.program_mode) {
        if ((rc = place_targets(&g)) != GO_ON)
            return rc;
        if (g.o.plan) {
            grader_plan_build(stdout, g.build_dir, g.t, g.n, g.o.jobs, g.o.judge);
            return GRADE_OK;
        }
    }
    if ((rc = announce(&g)) != GO_ON) {
        free(g.log);
        return rc;
    }
    if (g.o.calibrate)
        rc = grader_calibrate(&g.o, g.t, g.n, &g.rb, &g.pol, g.log);
    else
        grade_stages(&g);
    free(g.log);
    return g.o.calibrate ? rc : write_reports(&g);
}
