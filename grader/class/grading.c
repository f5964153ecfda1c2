/*
 * grading.c: one student: `make grade` in a fresh copy of the class's lab
 * (OUT/work/NAME) with the student's kernel.cu files put in, and the row
 * made from its grade.json.
 */
#include "class.h"
#include "grader.h"
#include "spawn.h"

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
    char **argv = lab_grow(NULL, (size_t)(words + more + 1) * sizeof *argv);
    for (*n = 0; *n < words; (*n)++)
        argv[*n] = cls.make_cmd[*n];
    return argv;
}

/* What make builds for one student before grading (or checking): the
 * lab's tools, and each submitted stage's programs (with the judge: its
 * judge and the runner that holds the student's code); with check, the
 * runner alone and the emulator where the lab has one (check.c). Into
 * argv from argv[n]; returns the new n. */
static int student_targets(const char *name, char **argv, int n)
{
    if (!cls.sw[SW_CHECK]) {
        argv[n++] = lab_strdup("build/grader/grade");
        argv[n++] = lab_strdup("build/confine/confine");
        argv[n++] = lab_strdup("build/confine/cuda-probe");
        if (judged())
            argv[n++] = lab_strdup("build/judge/echo-runner");
    }
    for (int s = 0; s < cls.nstages; s++) {
        const char *st = cls.stages[s];
        if (!class_submitted_stage(name, st))
            continue;
        if (cls.sw[SW_CHECK]) {
            n = class_check_targets(st, argv, n);
            continue;
        }
        argv[n++] = lab_asprintf("build/%s/exercise", st);
        if (judged()) {
            argv[n++] = lab_asprintf("build/%s/exercise-judge", st);
            argv[n++] = lab_asprintf("build/%s/exercise-runner", st);
        }
    }
    return n;
}

/* Build ahead in the copy work: the copy's old programs of the stages
 * (built from the skeletons) removed first, so that none is graded in
 * place of the student's; then one make -k, whose messages make grade
 * (PREBUILT=1) or the check reads in build/grade-build.log. */
static void build_ahead(const char *work, char **argv, int targets, int n)
{
    for (int i = targets; i < n; i++)
        if (!strncmp(argv[i], "build/", 6) && argv[i][6] >= '0' && argv[i][6] <= '9') {
            char *f = lab_asprintf("%s/%s", work, argv[i]);
            remove(f);
            free(f);
        }
    char *build = lab_asprintf("%s/build", work), *build_log = lab_asprintf("%s/build/grade-build.log", work);
    lab_mkdirs(build);
    proc p = {.dir = work, .out = build_log, .err = ERR_TO_OUT};
    class_run(argv, &p);
    free(build_log);
    free(build);
}

/* A fresh copy of OUT/lab (or of a Slurm task's lab, built once for its
 * students) in OUT/work/NAME with the student's kernel.cu files put in;
 * with ahead, every program of the grade built there too (on the CPUs,
 * before any GPU grades: make grade PREBUILT=1 then builds nothing, so no
 * compiler runs beside a judge that is timing). Each kernel.cu is compiled
 * inside the wall (Makefile, "The wall around a kernel.cu's build"). A
 * stage the student did not send is neither built nor graded (it scores 0,
 * "not submitted"). Fails, with the student's row written, when the lab
 * cannot be copied. */
int class_prepare_one(const char *name, int ahead)
{
    char *dir = lab_asprintf("%s/students/%s", cls.out, name), *work = lab_asprintf("%s/work/%s", cls.out, name);
    char *log = lab_asprintf("%s/grade.log", dir);
    lab_remove_tree(work);
    const char *stale[] = {"grade.json", "results.json", "points.tsv"};
    for (int i = 0; i < 3; i++) {
        char *f = lab_asprintf("%s/%s", dir, stale[i]);
        remove(f);
        free(f);
    }
    char *lab = cls.task_lab ? lab_strdup(cls.task_lab) : lab_asprintf("%s/lab", cls.out);
    char *cp_argv[] = {"cp", "-a", lab, work, NULL};
    proc cp = {.err = ERR_FILE, .err_path = log};
    int copied = class_run(cp_argv, &cp) == 0;
    free(lab);
    if (!copied) {
        char *text = lab_read_file(log, 0), *said = lab_first_line(text);
        char *notes = lab_asprintf("cannot copy the lab to %s: %s", work, said);
        class_write_row(name, "grader error", notes, NULL);
        free(notes);
        free(said);
        free(text);
    }
    char *build_log = lab_asprintf("%s/build/grade-build.log", work);
    remove(build_log); /* made by the build ahead alone (PREBUILT=1) */
    for (int s = 0; copied && s < cls.nstages; s++) {
        const char *st = cls.stages[s];
        char *k = lab_asprintf("%s/kernels/%s/kernel.cu", dir, st), *to = lab_asprintf("%s/exercises/%s/kernel.cu", work, st);
        if (lab_exists(k))
            class_copy_file(k, to);
        free(k);
        free(to);
    }
    if (copied && ahead) {
        int n;
        char **argv = make_argv(14 + 3 * cls.nstages, &n);
        argv[n++] = "-s";
        argv[n++] = "-k";
        argv[n++] = "--no-print-directory";
        argv[n++] = "REQUIRE_CONFINEMENT=1";
        char *arch = cls.arch ? lab_asprintf("CUDA_ARCH=%s", cls.arch) : NULL;
        if (arch)
            argv[n++] = arch;
        char *jobs = cls.build_jobs > 1 ? lab_asprintf("-j%ld", cls.build_jobs) : NULL;
        if (jobs)
            argv[n++] = jobs;
        if (cls.sw[SW_CHECK])
            argv[n++] = "EMU_CHECK_OBJECT=0"; /* emu/emu.mk: the runner's object is checked */
        int targets = n;
        n = student_targets(name, argv, n);
        argv[n] = NULL;
        build_ahead(work, argv, targets, n);
        for (int i = targets; i < n; i++)
            free(argv[i]);
        free(jobs);
        free(arch);
        free(argv);
    }
    free(build_log);
    free(log);
    free(work);
    free(dir);
    return copied ? 0 : -1;
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
    char **line = lab_lines(log, &n);
    for (int i = 0; i < n; i++)
        if (!strncmp(line[i], "grade: ", 7)) {
            free(said);
            said = lab_strdup(line[i] + 7);
        }
    lab_list_free(line);
    return said;
}

/* "03_tiled 04_transpose": the stages the student sent, as ls sorts them. */
static char *submitted(const char *dir)
{
    char *k = lab_asprintf("%s/kernels", dir);
    struct dirent **e;
    int n = scandir(k, &e, NULL, alphasort);
    char *list = lab_strdup("");
    for (int i = 0; i < n; i++) {
        if (e[i]->d_name[0] != '.') {
            lab_join(&list, " ", e[i]->d_name);
        }
        free(e[i]);
    }
    if (n >= 0)
        free(e);
    free(k);
    if (!*list) {
        free(list);
        list = lab_strdup("*");
    }
    return list;
}

/* The stages the student sent and those they did not, each a list
 * joined by spaces (new strings). */
static void split_stages(const char *name, char **sent, char **missing)
{
    *sent = lab_strdup("");
    *missing = lab_strdup("");
    for (int s = 0; s < cls.nstages; s++) {
        char **list = class_submitted_stage(name, cls.stages[s]) ? sent : missing;
        lab_join(list, " ", cls.stages[s]);
    }
}

/* make grade's variables for a student's stages (NULL-terminated). HINTS=0:
 * no hardware counters after the table (not scored; they took 28 s of a
 * student's 53 s on an H200); a student sees them with make grade.
 * PREBUILT=1 when the stages were built ahead: make grade then compiles
 * nothing. PROBED=1 once this process (a worker, a Slurm task) has graded a
 * student on its GPU: the GPU inside the confinement and the judge's
 * sharing of GPU memory are not checked again. BASELINES: the naive
 * baselines this process's first student's grade timed, reused by the
 * later ones on the same GPU (grader/README.md). Each switch said, on or
 * off (make grade's own defaults may differ: the judge is on unless
 * JUDGE=0). */
static char **grade_vars(const char *stages, const char *build_log)
{
    char **vars = lab_grow(NULL, (8 + NSWITCHES) * sizeof *vars), *host = class_host_name(1);
    int v = 0;
    vars[v++] = lab_asprintf("SEED=%s", cls.seed);
    vars[v++] = lab_asprintf("EX=%s", stages);
    vars[v++] = lab_strdup("REQUIRE_CONFINEMENT=1");
    vars[v++] = lab_strdup("HINTS=0");
    vars[v++] = lab_asprintf("PROBED=%d", cls.gpu_probed);
    vars[v++] = lab_asprintf("PREBUILT=%d", lab_exists(build_log));
    vars[v++] = lab_asprintf("BASELINES=%s/work/baselines.%s.%ld.tsv", cls.out, host, (long)getpid());
    for (int i = 0; i < NSWITCHES; i++)
        if (i != SW_CHECK)
            vars[v++] = lab_asprintf("%s=%d", switch_var[i], cls.sw[i]);
    vars[v] = NULL;
    free(host);
    return vars;
}

/* make grade in the copy work with vars, its output appended to log; the
 * grader's status (make's own is 2 whatever the grader's was), its
 * reports copied into dir; *text is the whole log. */
static int run_grade(const char *work, const char *dir, const char *log, char **vars, char **text)
{
    int n, v = 0;
    while (vars[v])
        v++;
    char **argv = make_argv(2 + v, &n);
    argv[n++] = "--no-print-directory";
    argv[n++] = "grade";
    for (int i = 0; i < v; i++)
        argv[n++] = vars[i];
    argv[n] = NULL;
    /* no git repository above the copy: the grader's note about local
     * changes would be about OUT, not about the lab */
    char *ceiling = lab_asprintf("GIT_CEILING_DIRECTORIES=%s/work", cls.out);
    char *env[] = {ceiling, NULL};
    proc p = {.dir = work, .out = log, .append = 1, .err = ERR_TO_OUT, .env = env};
    int st = class_run(argv, &p);
    free(argv);
    free(ceiling);
    *text = lab_read_file(log, 0);
    const char *reports[] = {"grade.json", "results.json"};
    for (int i = 0; i < 2; i++) {
        char *from = lab_asprintf("%s/%s", work, reports[i]), *to = lab_asprintf("%s/%s", dir, reports[i]);
        if (lab_exists(from))
            class_copy_file(from, to);
        free(from);
        free(to);
    }
    return grader_status(*text, st);
}

/* A graded student's notes: the stages not submitted once, then a phrase
 * for each other stage that lost points (new string). */
static char *graded_notes(const points *have, const char *missing)
{
    char *notes = *missing ? lab_asprintf("not submitted: %s", missing) : lab_strdup("");
    char *pad = lab_asprintf(" %s ", missing);
    for (int s = 0; s < have->nstages; s++) {
        const stage_points *sp = &have->stages[s];
        char *word = lab_asprintf(" %s ", sp->name);
        if (*sp->phrase && !strstr(pad, word)) {
            lab_appendf(&notes, "%s%s: %s", *notes ? " | " : "", sp->name, sp->phrase);
        }
        free(word);
    }
    free(pad);
    return notes;
}

/* The row's status for the grader's exit status, and its notes (new
 * string); have is the grade.json read (NULL: none or unreadable, err
 * says why). */
static const char *status_and_notes(int status, const char *text, const points *have, int there, const char *err,
                                    const char *missing, char **notes)
{
    char *said = grader_said(text);
    const char *st_text = "grader error";
    if (status == 0 && have) {
        st_text = "graded";
        *notes = graded_notes(have, missing);
    } else if (status == 0) {
        *notes = there ? lab_asprintf("make grade's grade.json cannot be read: %s (see grade.log)", err)
                       : lab_strdup("make grade wrote no grade.json (see grade.log)");
    } else if (status == 3 || status == 4 || status == 5) {
        static const char *const word[] = {"no GPU", "no build tools", "not confined"};
        static const char *const dflt[] = {"make grade found no GPU", "make grade found no nvcc, make or nm",
                                           "make grade could not confine the runs"};
        int k = status == 3 ? 0 : status == 4 ? 1 : 2;
        st_text = word[k];
        *notes = lab_strdup(said ? said : dflt[k]);
    } else if (text && strstr(text, "No rule to make target 'grade'")) {
        *notes = lab_strdup("this lab has no make grade (no grader/)");
    } else {
        char *last = said ? lab_strdup(said) : lab_last_line(text, "make: ***");
        *notes = lab_asprintf("make grade ended with status %d: %s", status, last);
        free(last);
    }
    free(said);
    if (cls.sw[1]) {
        char *more = lab_asprintf("not confined (UNCONFINED=1)%s%s", **notes ? " | " : "", *notes);
        free(*notes);
        *notes = more;
    }
    return st_text;
}

/* The student graded on the class's clock: marked in cls.clock_marks
 * (each worker is a process of its own), or counted here. */
static void mark_graded(const char *name)
{
    if (!cls.clock_start)
        return;
    if (!cls.clock_marks) {
        cls.clock_graded++;
        return;
    }
    char *mark = lab_asprintf("%s/%s", cls.clock_marks, name);
    if (lab_mkdirs(mark))
        lab_warn("cannot mark %s graded in %s", name, cls.clock_marks);
    free(mark);
}

double class_rate(void)
{
    if (!cls.clock_start)
        return 0;
    int graded = cls.clock_graded;
    DIR *d = cls.clock_marks ? opendir(cls.clock_marks) : NULL;
    for (struct dirent *e; d && (e = readdir(d));)
        graded += e->d_name[0] != '.';
    if (d)
        closedir(d);
    double minutes = (lab_spawn_now() - cls.clock_start) / 60;
    return minutes > 0 ? graded / minutes / (cls.clock_gpus > 0 ? cls.clock_gpus : 1) : 0;
}

/* "[3/40] alice: graded, 52/70 points + 8/10 bonus (T s); 2.9 students a
 * minute on each GPU" (the rate by the class's clock, when it has one). */
static void say_done(const char *name, const char *st_text, const points *have, time_t t0)
{
    char *score = lab_strdup("");
    if (have && !strcmp(st_text, "graded")) {
        free(score);
        score = lab_asprintf(", %s/%s points", have->score, have->max);
        if (atof(have->bonus_max) > 0) {
            lab_appendf(&score, " + %s/%s bonus", have->bonus, have->bonus_max);
        }
    }
    mark_graded(name);
    char *rate = cls.clock_start ? lab_asprintf("; %.1f students a minute on each GPU", class_rate()) : lab_strdup("");
    class_say("[%d/%d] %s: %s%s (%ld s)%s", class_done_count(), cls.nstudents, name, st_text, score, (long)(time(NULL) - t0),
        rate);
    free(rate);
    free(score);
}

/* make grade in the student's prepared copy, for the stages they sent;
 * the row, where a stage not sent scores 0 "not submitted", unrun. */
void class_grade_prepared(const char *name)
{
    char *dir = lab_asprintf("%s/students/%s", cls.out, name), *work = lab_asprintf("%s/work/%s", cls.out, name);
    char *log = lab_asprintf("%s/grade.log", dir), *build_log = lab_asprintf("%s/build/grade-build.log", work);
    time_t t0 = time(NULL);
    char *stages, *missing;
    split_stages(name, &stages, &missing);
    char **vars = grade_vars(stages, build_log);
    const char *gpu = getenv("CUDA_VISIBLE_DEVICES");
    char *sent = submitted(dir);
    char *header = lab_asprintf("class grading of %s with seed %s, stages: %s\nCUDA_VISIBLE_DEVICES=%s\nsubmitted: %s\n\n",
                       name, cls.seed, stages, gpu && *gpu ? gpu : "(not set)", sent);
    if (lab_write_atomic(log, header))
        lab_warn("cannot write %s", log);
    free(header);
    free(sent);
    char *text;
    int status = run_grade(work, dir, log, vars, &text);
    points pts, *have = NULL;
    char err[256] = "", *json = lab_asprintf("%s/grade.json", dir);
    int there = lab_exists(json);
    if (there && class_points_read(json, &pts, err, sizeof err) == 0) {
        have = &pts;
        class_points_add_missing(have, missing);
    }
    free(json);
    char *notes;
    const char *st_text = status_and_notes(status, text, have, there, err, missing, &notes);
    if (status == 0)
        cls.gpu_probed = 1;
    class_write_row(name, st_text, notes, have);
    const char *keep = getenv("KEEP_WORK");
    if (!keep || strcmp(keep, "1"))
        lab_remove_tree(work);
    say_done(name, st_text, have, t0);
    if (have)
        class_points_free(have);
    lab_list_free(vars);
    free(notes);
    free(text);
    free(stages);
    free(missing);
    free(build_log);
    free(log);
    free(work);
    free(dir);
}

void class_grade_one(const char *name)
{
    if (class_prepare_one(name, 0) == 0)
        class_grade_prepared(name);
}
