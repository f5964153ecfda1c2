/*
 * grading.c: one student: `make grade` in a fresh copy of the class's lab
 * (OUT/work/NAME) with the student's kernel.cu files put in, and the row
 * made from its grade.json.
 */
#include "class.h"
#include "grader.h"

#include <dirent.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int judged(void)
{
    return cls.sw[2];
}

/* CLASS_MAKE's words (or make), with room for more arguments and the NULL
 * after them; *n is where the next one goes. */
static char **make_argv(int more, int *n)
{
    int words = 0;
    while (cls.make_cmd[words])
        words++;
    char **argv = xrealloc(NULL, (size_t)(words + more + 1) * sizeof *argv);
    for (*n = 0; *n < words; (*n)++)
        argv[*n] = cls.make_cmd[*n];
    return argv;
}

/* A fresh copy of OUT/lab (or of a Slurm task's lab, built once for its
 * students) in OUT/work/NAME with the student's kernel.cu files put in;
 * with ahead, every program of the grade built there too (on the CPUs,
 * before any GPU grades: make grade PREBUILT=1 then builds nothing, so no
 * compiler runs beside a judge that is timing). Each kernel.cu is compiled
 * inside the wall (Makefile, "The wall around a kernel.cu's build"). Fails,
 * with the student's row written, when the lab cannot be copied. */
int prepare_one(const char *name, int ahead)
{
    char *dir = fmt("%s/students/%s", cls.out, name), *work = fmt("%s/work/%s", cls.out, name);
    char *log = fmt("%s/grade.log", dir);
    remove_tree(work);
    const char *stale[] = {"grade.json", "results.json", "points.tsv"};
    for (int i = 0; i < 3; i++) {
        char *f = fmt("%s/%s", dir, stale[i]);
        remove(f);
        free(f);
    }
    char *lab = cls.task_lab ? xstrdup(cls.task_lab) : fmt("%s/lab", cls.out);
    char *cp_argv[] = {"cp", "-a", lab, work, NULL};
    proc cp = {.err = ERR_FILE, .err_path = log};
    if (run(cp_argv, &cp) != 0) {
        char *text = slurp(log), *said = first_line(text);
        char *notes = fmt("cannot copy the lab to %s: %s", work, said);
        write_row(name, "grader error", notes, NULL);
        free(notes);
        free(said);
        free(text);
        free(lab);
        free(log);
        free(work);
        free(dir);
        return -1;
    }
    free(lab);
    char *build_log = fmt("%s/build/grade-build.log", work);
    remove(build_log); /* made by the build ahead alone (PREBUILT=1) */
    /* what make grade would build before it grades: the grader, the
     * confinement, and each stage's program (with the judge: its judge and
     * the runner that holds the student's code) */
    int n;
    char **argv = make_argv(8 + 3 * cls.nstages, &n);
    argv[n++] = "-s";
    argv[n++] = "-k";
    argv[n++] = "--no-print-directory";
    argv[n++] = "REQUIRE_CONFINEMENT=1";
    int targets = n;
    argv[n++] = xstrdup("build/grader/grade");
    argv[n++] = xstrdup("build/confine/confine");
    argv[n++] = xstrdup("build/confine/cuda-probe");
    if (judged())
        argv[n++] = xstrdup("build/judge/echo-runner");
    for (int s = 0; s < cls.nstages; s++) {
        const char *st = cls.stages[s];
        char *k = fmt("%s/kernels/%s/kernel.cu", dir, st), *to = fmt("%s/exercises/%s/kernel.cu", work, st);
        if (exists(k))
            copy_file(k, to);
        free(k);
        free(to);
        argv[n++] = fmt("build/%s/exercise", st);
        if (judged()) {
            argv[n++] = fmt("build/%s/exercise-judge", st);
            argv[n++] = fmt("build/%s/exercise-runner", st);
        }
    }
    argv[n] = NULL;
    /* a stage that does not build is left to make grade, which reports it
     * from the build's messages; the copy's programs (built from the
     * skeletons) go first, so that none is graded in place of the
     * student's */
    if (ahead) {
        for (int i = targets; i < n; i++)
            if (!strncmp(argv[i], "build/", 6) && argv[i][6] >= '0' && argv[i][6] <= '9') {
                char *f = fmt("%s/%s", work, argv[i]);
                remove(f);
                free(f);
            }
        char *build = fmt("%s/build", work);
        mkdirs(build);
        free(build);
        proc p = {.dir = work, .out = build_log, .err = ERR_TO_OUT};
        run(argv, &p);
    }
    for (int i = targets; i < n; i++)
        free(argv[i]);
    free(argv);
    free(build_log);
    free(log);
    free(work);
    free(dir);
    return 0;
}

/* The status make grade ended with: make's own is 2 whatever the
 * grader's was, and make names the grader's in its last "*** [...grade]
 * Error N" line. */
static int grader_status(const char *log, int st)
{
    regex_t re;
    if (!log || regcomp(&re, "\\*\\*\\* \\[[^]]*grade\\] Error ([0-9]+)", REG_EXTENDED))
        return st;
    regmatch_t m[2];
    for (const char *p = log; regexec(&re, p, 2, m, p == log ? 0 : REG_NOTBOL) == 0; p += m[0].rm_eo)
        st = atoi(p + m[1].rm_so);
    regfree(&re);
    return st;
}

/* The grader's own one-line complaint ("grade: ..."), the last one. */
static char *grader_said(const char *log)
{
    char *said = NULL;
    int n;
    char **line = lines(log, &n);
    for (int i = 0; i < n; i++)
        if (!strncmp(line[i], "grade: ", 7)) {
            free(said);
            said = xstrdup(line[i] + 7);
        }
    words_free(line);
    return said;
}

/* "03_tiled 04_transpose": the stages the student sent, as ls sorts them. */
static char *submitted(const char *dir)
{
    char *k = fmt("%s/kernels", dir);
    struct dirent **e;
    int n = scandir(k, &e, NULL, alphasort);
    char *list = xstrdup("");
    for (int i = 0; i < n; i++) {
        if (e[i]->d_name[0] != '.') {
            char *more = fmt("%s%s%s", list, *list ? " " : "", e[i]->d_name);
            free(list);
            list = more;
        }
        free(e[i]);
    }
    if (n >= 0)
        free(e);
    free(k);
    if (!*list) {
        free(list);
        list = xstrdup("*");
    }
    return list;
}

/* make grade in the student's prepared copy; the row. */
void grade_prepared(const char *name)
{
    char *dir = fmt("%s/students/%s", cls.out, name), *work = fmt("%s/work/%s", cls.out, name);
    char *log = fmt("%s/grade.log", dir), *build_log = fmt("%s/build/grade-build.log", work);
    time_t t0 = time(NULL);
    char *stages = xstrdup(""), *missing = xstrdup("");
    for (int s = 0; s < cls.nstages; s++) {
        char *more = fmt("%s%s%s", stages, s ? " " : "", cls.stages[s]);
        free(stages);
        stages = more;
        char *k = fmt("%s/kernels/%s/kernel.cu", dir, cls.stages[s]);
        if (!exists(k)) {
            more = fmt("%s %s", missing, cls.stages[s]);
            free(missing);
            missing = more;
        }
        free(k);
    }
    /* HINTS=0: no hardware counters after the table (not scored; they took
     * 28 s of a student's 53 s on an H200); a student sees them with make
     * grade. PREBUILT=1 when the stages were built ahead: make grade then
     * compiles nothing. PROBED=1 once this process (a worker, a Slurm task)
     * has graded a student on its GPU: the GPU inside the confinement and
     * the judge's sharing of GPU memory are not checked again. BASELINES:
     * the naive baselines this process's first student's grade timed,
     * reused by the later ones on the same GPU (grader/README.md). */
    char *host = host_name(1);
    char *vars[8 + NSWITCHES];
    int v = 0;
    vars[v++] = fmt("SEED=%s", cls.seed);
    vars[v++] = fmt("EX=%s", stages);
    vars[v++] = xstrdup("REQUIRE_CONFINEMENT=1");
    vars[v++] = xstrdup("HINTS=0");
    vars[v++] = fmt("PROBED=%d", cls.gpu_probed);
    vars[v++] = fmt("PREBUILT=%d", exists(build_log));
    vars[v++] = fmt("BASELINES=%s/work/baselines.%s.%ld.tsv", cls.out, host, (long)getpid());
    /* each switch said, on or off (make grade's own defaults may differ:
     * the judge is on unless JUDGE=0) */
    for (int i = 0; i < NSWITCHES; i++)
        vars[v++] = fmt("%s=%d", switch_var[i], cls.sw[i]);
    free(host);
    const char *gpu = getenv("CUDA_VISIBLE_DEVICES");
    char *sent = submitted(dir);
    char *header = fmt("class grading of %s with seed %s, stages: %s\nCUDA_VISIBLE_DEVICES=%s\nsubmitted: %s\n\n",
                       name, cls.seed, stages, gpu && *gpu ? gpu : "(not set)", sent);
    if (write_atomic(log, header))
        warn("cannot write %s", log);
    free(header);
    free(sent);
    int n;
    char **argv = make_argv(2 + v, &n);
    argv[n++] = "--no-print-directory";
    argv[n++] = "grade";
    for (int i = 0; i < v; i++)
        argv[n++] = vars[i];
    argv[n] = NULL;
    /* no git repository above the copy: the grader's note about local
     * changes would be about OUT, not about the lab */
    char *ceiling = fmt("GIT_CEILING_DIRECTORIES=%s/work", cls.out);
    char *env[] = {ceiling, NULL};
    proc p = {.dir = work, .out = log, .append = 1, .err = ERR_TO_OUT, .env = env};
    int st = run(argv, &p);
    char *text = slurp(log);
    int status = grader_status(text, st);
    const char *reports[] = {"grade.json", "results.json"};
    for (int i = 0; i < 2; i++) {
        char *from = fmt("%s/%s", work, reports[i]), *to = fmt("%s/%s", dir, reports[i]);
        if (exists(from))
            copy_file(from, to);
        free(from);
        free(to);
    }
    points pts, *have = NULL;
    char err[256] = "", *json = fmt("%s/grade.json", dir);
    int there = exists(json);
    if (there && points_read(json, &pts, err, sizeof err) == 0)
        have = &pts;
    free(json);
    char *said = grader_said(text), *notes = xstrdup("");
    const char *st_text;
    switch (status) {
    case 0:
        st_text = "graded";
        cls.gpu_probed = 1;
        /* the stages not submitted once, then a phrase for each other
         * stage that lost points */
        if (*missing) {
            free(notes);
            notes = fmt("not submitted:%s", missing);
        }
        if (have) {
            char *pad = fmt("%s ", missing);
            for (int s = 0; s < have->nstages; s++) {
                const stage_points *sp = &have->stages[s];
                char *word = fmt(" %s ", sp->name);
                if (*sp->phrase && !strstr(pad, word)) {
                    char *more = fmt("%s%s%s: %s", notes, *notes ? " | " : "", sp->name, sp->phrase);
                    free(notes);
                    notes = more;
                }
                free(word);
            }
            free(pad);
        } else {
            st_text = "grader error";
            free(notes);
            notes = there ? fmt("make grade's grade.json cannot be read: %s (see grade.log)", err)
                          : xstrdup("make grade wrote no grade.json (see grade.log)");
        }
        break;
    case 3:
        st_text = "no GPU";
        free(notes);
        notes = xstrdup(said ? said : "make grade found no GPU");
        break;
    case 5:
        st_text = "not confined";
        free(notes);
        notes = xstrdup(said ? said : "make grade could not confine the runs");
        break;
    case 4:
        st_text = "no build tools";
        free(notes);
        notes = xstrdup(said ? said : "make grade found no nvcc, make or nm");
        break;
    default:
        st_text = "grader error";
        free(notes);
        if (text && strstr(text, "No rule to make target 'grade'")) {
            notes = xstrdup("this lab has no make grade (no grader/)");
        } else {
            char *last = said ? xstrdup(said) : last_line(text, "make: ***");
            notes = fmt("make grade ended with status %d: %s", status, last);
            free(last);
        }
    }
    if (cls.sw[1]) {
        char *more = fmt("not confined (UNCONFINED=1)%s%s", *notes ? " | " : "", notes);
        free(notes);
        notes = more;
    }
    write_row(name, st_text, notes, have);
    const char *keep = getenv("KEEP_WORK");
    if (!keep || strcmp(keep, "1"))
        remove_tree(work);
    char *score = xstrdup("");
    if (have && !strcmp(st_text, "graded")) {
        free(score);
        score = fmt(", %s/%s points", have->score, have->max);
        if (atof(have->bonus_max) > 0) {
            char *more = fmt("%s + %s/%s bonus", score, have->bonus, have->bonus_max);
            free(score);
            score = more;
        }
    }
    say("[%d/%d] %s: %s%s (%ld s)", done_count(), cls.nstudents, name, st_text, score, (long)(time(NULL) - t0));
    free(score);
    if (have)
        points_free(have);
    for (int i = 0; i < v; i++)
        free(vars[i]);
    free(argv);
    free(ceiling);
    free(said);
    free(notes);
    free(text);
    free(stages);
    free(missing);
    free(build_log);
    free(log);
    free(work);
    free(dir);
}

void grade_one(const char *name)
{
    if (prepare_one(name, 0) == 0)
        grade_prepared(name);
}
