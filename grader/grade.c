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
 */
#include "grader.h"
#include "grading.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static void on_signal(int sig)
{
    run_kill_current();
    signal(sig, SIG_DFL);
    raise(sig);
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    signal(SIGPIPE, SIG_IGN);
    signal(SIGINT, on_signal);
    signal(SIGTERM, on_signal);
    /* a run record for the plots' scripts: nothing else */
    if (argc == 3 && !strcmp(argv[1], "--record-tsv"))
        return record_tsv(argv[2]);
    options o;
    if (parse_options(argc, argv, &o))
        return GRADE_USAGE;
    struct stat src_st;
    if (o.src && (stat(o.src, &src_st) || !S_ISDIR(src_st.st_mode))) {
        fprintf(stderr, "grade: --src %s: no such folder (GRADE_SRC names a submission's folder, holding "
                        "NN_name/kernel.cu or exercises/NN_name/kernel.cu)\n", o.src);
        return GRADE_USAGE;
    }
    char lab[PATH_MAX];
    if (!realpath(o.lab, lab)) {
        fprintf(stderr, "grade: cannot find the lab at %s\n", o.lab);
        return GRADE_USAGE;
    }
    char rubric_path[PATH_MAX], policy_path[PATH_MAX], err[1024];
    if (o.rubric_path)
        snprintf(rubric_path, sizeof rubric_path, "%s", o.rubric_path);
    else
        snprintf(rubric_path, sizeof rubric_path, "%s/grader/rubric.tsv", lab);
    if (o.policy_path)
        snprintf(policy_path, sizeof policy_path, "%s", o.policy_path);
    else
        snprintf(policy_path, sizeof policy_path, "%s/grader/allowed-symbols.txt", lab);

    static rubric rb;
    static policy pol;
    if (rubric_read(rubric_path, &rb, err, sizeof err) || policy_read(policy_path, &pol, err, sizeof err)) {
        fprintf(stderr, "grade: %s\n", err);
        return GRADE_USAGE;
    }
    static target t[MAX_TARGETS];
    static stage_info all[MAX_STAGES];
    int n;
    if (o.reference && (o.src || o.calibrate || o.program_mode)) {
        fprintf(stderr, "grade: --reference grades the lab's own reference kernels: not with --src, "
                        "--calibrate or --program\n");
        return GRADE_USAGE;
    }
    if (o.program_mode) {
        if (o.src || o.nnames) {
            fprintf(stderr, "grade: --program grades (or calibrates with) the given programs only\n");
            return GRADE_USAGE;
        }
        n = o.nprograms;
        /* a program graded under a stage's name gets its lesson */
        int nall = stages_all(all, MAX_STAGES);
        for (int i = 0; i < n; i++) {
            if (program_target(o.programs[i], &t[i]))
                return GRADE_USAGE;
            /* one family: each program is compared with the one before */
            strcpy(t[i].family, "programs");
            for (int k = 0; k < nall; k++)
                if (!strcmp(all[k].dir, t[i].stage))
                    snprintf(t[i].lesson, sizeof t[i].lesson, "%s", all[k].lesson);
        }
    } else {
        int nall = stages_all(all, MAX_STAGES);
        n = select_stages(&o, all, nall, t);
        if (n < 0)
            return GRADE_USAGE;
        if (n == 0) {
            fprintf(stderr, "grade: stages.tsv lists no stages\n");
            return GRADE_USAGE;
        }
    }

    /* could grading run here at all? One line each if not. */
    char gpu_name[NAME_LEN] = "";
    int no_gpu_here = 0;
    if (!o.program_mode) {
        /* without a GPU, grading builds and reports what does not compile */
        no_gpu_here = !find_gpu(gpu_name, sizeof gpu_name);
        if (no_gpu_here && o.calibrate) {
            fprintf(stderr, "grade: cannot calibrate here: no NVIDIA GPU (nvidia-smi lists none)\n");
            return GRADE_NO_GPU;
        }
        const char *nvcc = getenv("NVCC") && *getenv("NVCC") ? getenv("NVCC") : "nvcc";
        const char *missing = !have_program(nvcc) ? nvcc : !have_program("nm") ? "nm" : NULL;
        if (missing) {
            fprintf(stderr, "grade: cannot grade here: %s is not installed or not on PATH (%s)\n", missing,
                    !strcmp(missing, "nm") ? "it comes with binutils" : "install the CUDA Toolkit");
            return GRADE_NO_TOOLS;
        }
    } else if (!have_program("nm")) {
        fprintf(stderr, "grade: cannot grade here: nm is not installed (it comes with binutils)\n");
        return GRADE_NO_TOOLS;
    }
    /* the wall around the programs: probed once, said once (not for --plan,
     * which only names what make builds) */
    static confinement conf;
    if (o.plan)
        goto targets;
    /* the driver's files and the GPU check inside the confinement: where a
     * GPU is, and when testing the grader (--program: its stand-in probe,
     * if the lab has one) */
    confinement_setup(&conf, lab, o.unconfined, o.program_mode || !no_gpu_here, o.probed);
    o.conf = &conf;
    if (!conf.on && o.require_confinement && !o.unconfined) {
        fprintf(stderr, "grade: cannot confine the runs here (%s); a class is graded confined: grade it "
                        "where user namespaces and Landlock work, or say UNCONFINED=1 (the gradebook "
                        "records it)\n", conf.why);
        return GRADE_UNCONFINED;
    }
    if (o.require_confinement && o.sanitize && !o.unconfined) {
        fprintf(stderr, "grade: compute-sanitizer starts processes of its own and cannot run confined; "
                        "a class run with SANITIZE=1 needs UNCONFINED=1 too\n");
        return GRADE_USAGE;
    }
    const char *why_not = !strncmp(conf.why, "not confined: ", 14) ? conf.why + 14 : conf.why;
    if (!conf.on && !o.unconfined)
        printf("note: the runs are not confined here (%s): fine for grading your own work; official "
               "grades come from a machine that confines them (grader/README.md)\n", why_not);
    if (conf.on && o.sanitize)
        printf("note: compute-sanitizer's runs (SANITIZE=1) are not confined: it starts processes of its own\n");
    /* the judge shares its buffers with the runner by CUDA IPC, which some
     * systems lack (WSL2, some virtual machines): probed once, said once */
    char ipc_line[256];
    if (o.judge && !o.program_mode && !no_gpu_here && !o.probed && !judge_can_share(lab, ipc_line, sizeof ipc_line)) {
        if (o.require_confinement) {
            fprintf(stderr, "grade: the judge cannot share GPU memory with a runner here (%s); a class is "
                            "graded by the judge: grade it where CUDA IPC works, or say JUDGE=0\n", ipc_line);
            return GRADE_UNCONFINED;
        }
        printf("note: the judge cannot share GPU memory with a runner here (%s): your kernel is graded in its "
               "own process instead (JUDGE=0), fine for your own work\n", ipc_line);
        o.judge = 0;
    }
    if (!o.have_seed) {
        /* a fresh seed each grading run, printed, so that a grade can be repeated */
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        o.seed = ((unsigned long long)ts.tv_sec * 1000003ULL + (unsigned long long)ts.tv_nsec / 1000) %
                 1000000007ULL;
    }

targets:;
    double t0 = now_s();
    const char *variant = o.calibrate ? "solution" : "exercise";
    char build_dir[PATH_MAX];
    snprintf(build_dir, sizeof build_dir, "%s", lab);
    int missing[MAX_TARGETS] = {0};
    char *log = NULL;
    if (!o.program_mode) {
        if (o.src && make_scratch(lab, o.src, t, n, missing, build_dir, sizeof build_dir, o.plan)) {
            fprintf(stderr, "grade: cannot prepare %s/build/grade-src for --src %s: %s\n", lab, o.src,
                    strerror(errno));
            return GRADE_USAGE;
        }
        for (int i = 0; i < n; i++)
            target_paths(&t[i], build_dir, lab, "", variant, o.judge);
        /* the tiers' reference kernels (stages.tsv): graded instead of the
         * exercises (--reference), or measured beside the solutions */
        static tier_reference refs[MAX_REFERENCES];
        int nrefs = o.reference || o.calibrate ? references_read(lab, refs, MAX_REFERENCES, err, sizeof err) : 0;
        if (nrefs < 0) {
            fprintf(stderr, "grade: %s\n", err);
            return GRADE_USAGE;
        }
        for (int i = 0; o.reference && i < n; i++) {
            const tier_reference *ref = reference_find(refs, nrefs, t[i].stage, o.reference);
            if (ref)
                reference_target(&t[i], lab, ref, o.judge);
            else
                missing[i] = 1;
        }
        int nstages = n;
        if (o.calibrate && (n = calibration_targets(t, n, MAX_TARGETS, refs, nrefs, &rb, lab, o.judge)) < 0) {
            fprintf(stderr, "grade: too many programs to calibrate with (at most %d)\n", MAX_TARGETS);
            return GRADE_USAGE;
        }
        if (o.plan) {
            plan_build(stdout, build_dir, t, n, o.jobs, o.judge);
            return GRADE_OK;
        }
        printf("%s %d stage%s%s on %s, seed %llu\n", o.calibrate ? "calibrating with" : "grading", nstages,
               nstages == 1 ? "" : "s", o.src ? " (submitted kernel.cu files)" : "",
               no_gpu_here ? "no GPU (its build only)" : gpu_name, o.seed);
        if (o.reference)
            printf("the reference kernels of tier %s (stages.tsv), not exercises/\n", o.reference);
        char log_path[PATH_MAX];
        snprintf(log_path, sizeof log_path, "%s/build/grade-build.log", lab);
        /* built before: by make grade (tools/grade-build.sh), or by a
         * class's builders before any GPU grades, so that nothing is
         * compiled beside a judge that is timing */
        log = read_file_text(log_path, 1u << 20);
        if (no_gpu_here) {
            int rc = report_without_gpu(t, n, missing, log, &pol);
            free(log);
            return rc;
        }
        if (!o.calibrate && !o.src && have_program("git")) {
            /* the official grade uses a pristine harness: say so if this one is not */
            char *gargv[] = {"git", "-C", lab, "status", "--porcelain", "--", "common", "grader",
                             "Makefile", "stages.tsv", NULL};
            run_result g;
            run_program(gargv, -1, 30, 64 << 10, &g);
            if (g.exited && g.status == 0 && g.tail && g.tail[0])
                printf("note: common/, grader/, the Makefile or stages.tsv have local changes; the "
                       "official grade uses the lab's own copies\n");
            run_result_free(&g);
        }
    } else {
        printf("%s %d program%s (testing the grader), seed %llu\n", o.calibrate ? "calibrating with" : "grading",
               n, n == 1 ? "" : "s", o.seed);
    }

    if (o.calibrate) {
        int rc = calibrate(&o, t, n, &rb, &pol, log);
        free(log);
        return rc;
    }

    int have_sanitizer = o.sanitize && have_program("compute-sanitizer");
    if (o.sanitize && !have_sanitizer)
        printf("note: compute-sanitizer is not installed (it comes with the full CUDA Toolkit): "
               "SANITIZE=1 is skipped\n");
    static stage_result res[MAX_STAGES];
    if (o.baselines)
        kept_load(o.baselines, gpu_name);
    for (int i = 0; i < n; i++) {
        stage_result *s = &res[i];
        const stage_rubric *sr = rubric_stage(&rb, t[i].stage);
        score_begin(s, t[i].stage, sr, &rb);
        printf("[%d/%d] %s: ", i + 1, n, t[i].stage);
        fflush(stdout);
        char command[256];
        run_command(t[i].stage, NULL, command, sizeof command);
        if (missing[i] && o.reference) {
            char reason[REASON_LEN];
            snprintf(reason, sizeof reason, "no reference kernel for tier %s (stages.tsv)", o.reference);
            score_fail(s, reason, NULL);
        } else if (missing[i] == 2) {
            score_fail(s, "its kernel.cu is not a plain file of its own (a symbolic link, or a file with other "
                          "names): nothing of it was graded",
                       "Submit the file itself, not a link to it.");
        } else if (missing[i]) {
            char advice[REASON_LEN];
            snprintf(advice, sizeof advice, "Submit %s/kernel.cu (your exercises/%s/kernel.cu) to have it graded.",
                     t[i].stage, t[i].stage);
            score_fail(s, "no kernel.cu was submitted for this stage", advice);
        } else if (!target_built(&t[i])) {
            char reason[REASON_LEN + 32], advice[REASON_LEN], lines[4096];
            build_failure(&t[i], log, &pol, reason, sizeof reason, lines, sizeof lines);
            if (!strncmp(reason, "did not link", 12))
                snprintf(advice, sizeof advice, "Call only your own kernels and what a kernel launcher "
                         "needs: common/%s.h says what kernel.cu may do (`%s` shows the linker's "
                         "message).", t[i].family, command);
            else
                snprintf(advice, sizeof advice, "Fix the compiler's first error (`%s` shows all of it).",
                         command);
            score_fail(s, reason, advice);
            s->output = malloc(strlen(lines) + 1);
            if (s->output)
                text_clean(lines, strlen(lines), s->output, strlen(lines) + 1);
        } else {
            extra_args x;
            grade_stage(s, &t[i], &rb, &pol, &o, have_sanitizer, reuse_baseline(&x, res, i, t, &t[i]));
        }
        progress_done(s);
        show_output_tail(s, 8);
    }
    free(log);
    if (o.baselines)
        kept_save(o.baselines, res, n, t);

    grade_info g = {0};
    g.seed = o.seed;
    g.confined = conf.on;
    g.judged = o.judge;
    g.confinement = conf.why;
    g.seconds = now_s() - t0;
    g.sanitize = o.sanitize;
    g.rubric_path = rubric_path;
    g.source = o.program_mode ? "programs" : o.src ? o.src : o.reference ? "references" : "exercises";
    /* the name the driver reports decides the thresholds; nvidia-smi's
     * stands in when no stage got as far as a record */
    snprintf(g.gpu, sizeof g.gpu, "%s", gpu_name);
    for (int i = n - 1; i >= 0; i--)
        if (res[i].gpu[0])
            snprintf(g.gpu, sizeof g.gpu, "%s", res[i].gpu);
    report_table(stdout, res, n, &g);
    char out_dir[PATH_MAX];
    snprintf(out_dir, sizeof out_dir, "%s", o.out ? o.out : lab);
    if (o.out && mkdirs(out_dir))
        fprintf(stderr, "grade: cannot create %s\n", out_dir);
    if (report_write(out_dir, res, n, &g) == 0)
        printf("reports: %s/grade.json, %s/results.json, %s/grade.tsv (%.0f s in all)\n", out_dir, out_dir, out_dir,
               g.seconds);
    int no_gpu = 0;
    for (int i = 0; i < n; i++) {
        no_gpu |= res[i].no_gpu;
        stage_result_free(&res[i]);
    }
    if (no_gpu) {
        fprintf(stderr, "grade: some stages found no usable GPU: their points say nothing about the "
                        "kernels\n");
        return GRADE_NO_GPU;
    }
    return GRADE_OK;
}
