/*
 * setup.c: the class itself: its lab (OUT/lab, a student release of the
 * instructors' lab made once), OUT/class.conf (the seed, the stages and
 * make grade's switches, kept for every later run), the list of
 * submissions (OUT/students.tsv), and whether the students' runs can be
 * confined here.
 */
#include "class.h"
#include "stages.h"
#include "grader.h"
#include "names.h"

#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#ifndef LAB_CONFINE_SRCS
#error "LAB_CONFINE_SRCS: the Makefile hands over the wall's sources (CONFINE_SRCS)"
#endif
#include <unistd.h>

const char *const switch_name[NSWITCHES] = {"sanitize", "unconfined", "judge", "once", "check"};
const char *const switch_var[NSWITCHES] = {"SANITIZE", "UNCONFINED", "JUDGE", "ONCE", "CHECK"};

/* class.conf's value of key (a new string), or NULL. */
static char *conf_get(const char *key)
{
    char *path = lab_asprintf("%s/class.conf", cls.out);
    char *text = lab_read_file(path, 0);
    free(path);
    char *value = NULL;
    size_t k = strlen(key);
    for (char *p = text; p && *p && !value;) {
        size_t n = strcspn(p, "\n");
        if (n > k && !strncmp(p, key, k) && p[k] == '=') {
            value = lab_grow(NULL, n - k);
            memcpy(value, p + k + 1, n - k - 1);
            value[n - k - 1] = 0;
        }
        p += n + (p[n] == '\n');
    }
    free(text);
    return value;
}

/* OUT/students.tsv: NAME<TAB>ENTRY lines. */
static void load_students(void)
{
    char *path = lab_asprintf("%s/students.tsv", cls.out);
    char *text = lab_read_file(path, 0);
    free(path);
    cls.nstudents = 0;
    for (char *p = text; p && *p;) {
        size_t n = strcspn(p, "\n");
        char *line = lab_first_line(p);
        char *tab = strchr(line, '\t');
        if (tab) {
            *tab = 0;
            if (!intake_name_is_clean(line) || strchr(tab + 1, '\t'))
                lab_fatal(CLASS_FAILED, "%s/students.tsv has a line that is not NAME<TAB>ENTRY with a clean name: '%s'; run make class "
                    "again to list the submissions anew", cls.out, line);
            cls.names = lab_grow(cls.names, (cls.nstudents + 1) * sizeof *cls.names);
            cls.entries = lab_grow(cls.entries, (cls.nstudents + 1) * sizeof *cls.entries);
            cls.names[cls.nstudents] = lab_strdup(line);
            cls.entries[cls.nstudents++] = lab_strdup(tab + 1);
        }
        free(line);
        p += n + (p[n] == '\n');
    }
    free(text);
}

void class_load(void)
{
    char *stages = conf_get("stages");
    cls.seed = conf_get("seed");
    if (!stages || !cls.seed)
        lab_fatal(CLASS_FAILED, "%s holds no class", cls.out);
    char **w = lab_words(stages, &cls.nstages);
    if (cls.nstages > MAX_CLASS_STAGES)
        lab_fatal(CLASS_FAILED, "%s/class.conf names more than %d stages", cls.out, MAX_CLASS_STAGES);
    for (int i = 0; i < cls.nstages; i++)
        cls.stages[i] = w[i];
    free(w);
    free(stages);
    for (int i = 0; i < NSWITCHES; i++) {
        char *v = conf_get(switch_name[i]);
        cls.sw[i] = v && !strcmp(v, "1");
        free(v);
    }
    load_students();
}

/* The stages to grade: every stage of the lab (stages.tsv's table, compiled
 * in: build/stages.h; the class's lab is this one's commit), or those want
 * names (each the first stage it begins), once each, joined by spaces. */
static char *resolve_stages(const char *want)
{
    static const struct {
        const char *name, *family, *knob, *sweep, *lesson;
    } table[] = {LAB_STAGE_TABLE};
    char *all = lab_strdup("");
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
        lab_join(&all, " ", table[i].name);
    if (!want || !*want)
        return all;
    char **w = lab_words(want, NULL), **every = lab_words(all, NULL);
    char *result = lab_strdup("");
    for (int i = 0; w[i]; i++) {
        const char *found = NULL;
        for (int j = 0; every[j] && !found; j++)
            if (!strncmp(every[j], w[i], strlen(w[i])))
                found = every[j];
        if (!found)
            lab_fatal(CLASS_FAILED, "no stage matches '%s'; the stages are: %s", w[i], all);
        char *padded = lab_asprintf(" %s ", result), *word = lab_asprintf(" %s ", found);
        if (!strstr(padded, word))
            lab_join(&result, " ", found);
        free(padded);
        free(word);
    }
    lab_list_free(w);
    lab_list_free(every);
    free(all);
    return result;
}

/* The lab snapshot, made by the instructors' tools/release.sh --class (a
 * student release less the records of measurements/, which make grade
 * never reads: most of the lab's files, copied for each student). */
static void make_lab(const char *lab)
{
    char *dest = lab_asprintf("%s/lab", cls.out), *log = lab_asprintf("%s/logs/release.log", cls.out);
    char *release = lab_asprintf("%s/tools/release.sh", lab);
    lab_remove_tree(dest);
    if (access(release, X_OK))
        lab_fatal(CLASS_FAILED, "%s has no tools/release.sh: class grading needs the instructors' copy of the lab", lab);
    char *argv[] = {release, "--class", dest, NULL};
    proc p = {.out = log, .err = ERR_TO_OUT};
    int st = class_run(argv, &p);
    char *text = lab_read_file(log, 0);
    int n;
    char **line = lab_lines(text, &n);
    if (st) {
        char *tail = lab_strdup("");
        for (int i = n > 3 ? n - 3 : 0; i < n; i++) {
            lab_join(&tail, "\n", line[i]);
        }
        lab_fatal(CLASS_FAILED, "could not copy the lab into %s: %s", dest, tail);
    }
    /* its line "release: N files of commit C ...", then what it says
     * after it (uncommitted changes of the lab are graded with) */
    int at = n;
    char *made = lab_strdup("");
    for (int i = 0; i < n && at == n; i++) {
        unsigned files;
        char commit[64];
        if (sscanf(line[i], "release: %u files of commit %63[0-9a-f]", &files, commit) == 2) {
            free(made);
            made = lab_asprintf("%u files of commit %s", files, commit);
            at = i;
        }
    }
    class_say("the lab every student is graded with: %s, %s", dest, made);
    for (int i = at + 1; i < n; i++)
        if (!strstr(line[i], "is a git repository"))
            class_say("%s", line[i] + (strncmp(line[i], "release: ", 9) ? 0 : 9));
    lab_list_free(line);
    free(made);
    free(text);
    free(release);
    free(log);
    free(dest);
}

/* A class graded before: the same stages, seed and switches, or another
 * OUT (die). */
static void same_as_before(const char *stages, const char *stages_arg, const char *seed_arg,
                           const int *switches_on)
{
    char *was = conf_get("stages"), *seed = conf_get("seed");
    if (stages_arg && *stages_arg && strcmp(stages, was ? was : ""))
        lab_fatal(CLASS_FAILED, "%s was graded with stages '%s', not '%s': use another --out", cls.out, was ? was : "", stages);
    if (seed_arg && *seed_arg && strcmp(seed_arg, seed ? seed : ""))
        lab_fatal(CLASS_FAILED, "%s was graded with seed %s, not %s: use another --out", cls.out, seed ? seed : "", seed_arg);
    for (int i = 0; i < NSWITCHES; i++) {
        char *v = conf_get(switch_name[i]);
        if (switches_on[i] && !(v && !strcmp(v, "1")))
            lab_fatal(CLASS_FAILED, "%s was graded without %s=1: use another --out", cls.out, switch_var[i]);
        if (i == SW_CHECK && !switches_on[i] && v && !strcmp(v, "1"))
            lab_fatal(CLASS_FAILED, "%s is a check (CHECK=1), not a grading: grade the class into another OUT", cls.out);
        free(v);
    }
    free(was);
    free(seed);
}

/* A new class: OUT/class.conf with its seed (one for the whole class:
 * everyone gets the same inputs), stages and switches. */
static void write_class_conf(const char *conf, const char *stages, const char *seed_arg, const int *switches_on)
{
    char *seed;
    if (seed_arg && *seed_arg) {
        seed = lab_strdup(seed_arg);
    } else {
        uint32_t r = (uint32_t)time(NULL) ^ (uint32_t)getpid();
        FILE *f = fopen("/dev/urandom", "rb");
        if (f) {
            if (fread(&r, sizeof r, 1, f) != 1)
                r ^= (uint32_t)clock();
            fclose(f);
        }
        seed = lab_asprintf("%u", (unsigned)(r % 1000000007u));
    }
    char created[64];
    time_t now = time(NULL);
    strftime(created, sizeof created, "%Y-%m-%d %H:%M UTC", gmtime(&now));
    char *text = lab_asprintf("seed=%s\nstages=%s\n", seed, stages);
    for (int i = 0; i < NSWITCHES; i++)
        lab_appendf(&text, "%s=%d\n", switch_name[i], switches_on[i] ? 1 : 0);
    lab_appendf(&text, "created=%s\n", created);
    if (lab_write_atomic(conf, text))
        lab_fatal(CLASS_FAILED, "cannot write %s", conf);
    free(text);
    free(seed);
}

/* OUT/submissions.conf, and OUT/bin/class: the Slurm tasks run this
 * copy, so that rebuilding the lab cannot change a running class. */
static void write_submissions_and_copy_self(const char *submissions)
{
    char *subs = class_abs_path(submissions), *path = lab_asprintf("%s/submissions.conf", cls.out);
    char *text = lab_asprintf("submissions=%s\n", subs);
    if (lab_write_atomic(path, text))
        lab_fatal(CLASS_FAILED, "cannot write %s", path);
    free(text);
    free(path);
    free(subs);
    char *bin = lab_asprintf("%s/bin/class", cls.out), *tmp = lab_asprintf("%s/bin/class.tmp", cls.out);
    if (lab_is_dir(bin) && !lab_is_link(bin))
        lab_remove_tree(bin);
    if (class_copy_file(cls.self, tmp) || chmod(tmp, 0755) || rename(tmp, bin))
        lab_fatal(CLASS_FAILED, "cannot copy %s to %s", cls.self, bin);
    free(bin);
    free(tmp);
}

void class_setup(const char *lab, const char *submissions, const char *stages_arg,
                 const char *seed_arg, const int *switches_on)
{
    const char *sub[] = {"students", "logs", "work", "bin"};
    for (int i = 0; i < 4; i++) {
        char *d = lab_asprintf("%s/%s", cls.out, sub[i]);
        if (lab_mkdirs(d))
            lab_fatal(CLASS_FAILED, "cannot create %s", cls.out);
        free(d);
    }
    char *stages_tsv = lab_asprintf("%s/lab/stages.tsv", cls.out);
    if (!lab_exists(stages_tsv))
        make_lab(lab);
    else
        class_say("the lab every student is graded with: %s/lab (made by the first run of this class)", cls.out);
    free(stages_tsv);
    char *stages = resolve_stages(stages_arg);
    char *conf = lab_asprintf("%s/class.conf", cls.out);
    if (lab_exists(conf))
        same_as_before(stages, stages_arg, seed_arg, switches_on);
    else
        write_class_conf(conf, stages, seed_arg, switches_on);
    free(conf);
    free(stages);
    write_submissions_and_copy_self(submissions);
}

/* ========================================================== confinement */
/* A class is graded confined (judge/README.md, "The threat model"):
 * every student's make grade asks for it, and here, before anyone is
 * graded, the class stops (exit 5) where the machine cannot confine,
 * unless the instructor said --unconfined (UNCONFINED=1), which every row
 * then notes. The probe is confine itself, built from the class's lab with
 * the C compiler (CLASS_CONFINE names another program to probe: tests). */
void class_check_confinement(void)
{
    /* (not confinement, but as much a matter of trust: each grade.json
     * says "judged": false too) */
    if (!cls.sw[2])
        class_say("the grades are NOT the judge's (JUDGE=0): a student's own process makes their results");
    if (cls.sw[1]) {
        class_say("the runs are NOT confined (UNCONFINED=1): every row of the gradebook says so");
        return;
    }
    if (cls.sw[0]) {
        lab_warn("SANITIZE=1 runs compute-sanitizer, which cannot run confined: add UNCONFINED=1 to grade with it");
        exit(CLASS_UNCONFINED);
    }
    const char *given = getenv("CLASS_CONFINE");
    char *probe = NULL, *log = lab_asprintf("%s/logs/confine-build.log", cls.out);
    if (given && *given) {
        probe = lab_strdup(given);
    } else {
        const char *cc = getenv("CC");
        char **argv = lab_words(cc && *cc ? cc : "cc", NULL);
        int n = 0;
        while (argv[n])
            n++;
        /* the wall's own files: the Makefile's CONFINE_SRCS, compiled in */
        int nsrcs = 0;
        char **srcs = lab_words(LAB_CONFINE_SRCS, &nsrcs);
        argv = lab_grow(argv, (n + 9 + nsrcs) * sizeof *argv);
        argv[n++] = lab_strdup("-O2");
        argv[n++] = lab_strdup("-std=c11");
        argv[n++] = lab_strdup("-D_GNU_SOURCE");
        argv[n++] = lab_asprintf("-I%s/lab/judge", cls.out);
        argv[n++] = lab_asprintf("-I%s/lab/common", cls.out);
        for (int i = 0; i < nsrcs; i++)
            argv[n++] = lab_asprintf("%s/lab/%s", cls.out, srcs[i]);
        lab_list_free(srcs);
        argv[n++] = lab_strdup("-o");
        argv[n++] = probe = lab_asprintf("%s/bin/confine", cls.out);
        argv[n] = NULL;
        proc p = {.out = log, .err = ERR_TO_OUT};
        if (class_run(argv, &p) != 0)
            probe = NULL;
        else
            probe = lab_strdup(probe);
        lab_list_free(argv);
    }
    char *said = NULL;
    if (probe) {
        char *argv[] = {probe, "--probe", NULL};
        proc p = {.capture = 1, .err = ERR_TO_OUT};
        class_run(argv, &p);
        said = p.text;
        size_t n = said ? strlen(said) : 0;
        while (n && said[n - 1] == '\n')
            said[--n] = 0;
    }
    if (said && !strncmp(said, "confined: ", 10)) {
        class_say("the runs are confined: %s", said + 10);
    } else {
        char *why = said && *said ? lab_strdup(said) : NULL;
        if (!why) {
            char *text = lab_read_file(log, 0);
            char *last = lab_last_line(text, NULL);
            why = lab_asprintf("confine could not be built: %s", last);
            free(last);
            free(text);
        }
        lab_warn("cannot confine the students' runs here (%s); grade the class where user namespaces and "
             "Landlock work, or say UNCONFINED=1 (every row then says so)", why);
        exit(CLASS_UNCONFINED);
    }
    free(said);
    free(probe);
    free(log);
}

/* ========================================================== submissions */
/* List SUBMISSIONS into OUT/students.tsv: each entry's name checked and
 * made the student's (grader/intake/names.c); stops (exit 6) on an entry whose name
 * holds a control character or two entries of one student, before anyone
 * is taken in: the instructor renames them. */
void class_list_submissions(const char *submissions)
{
    char *out_real = realpath(cls.out, NULL), *why = NULL;
    named_entry *e;
    int n = intake_name_entries(submissions, out_real, &e, &why);
    free(out_real);
    if (n < 0) {
        lab_warn("%s: %s", submissions, why);
        exit(NAMES_REFUSED);
    }
    char *text = lab_strdup("");
    for (int i = 0; i < n; i++) {
        char *path = lab_asprintf("%s/%s", submissions, e[i].entry);
        if (!lab_is_dir(path) && !e[i].archive) {
            lab_warn("ignored %s: not a folder, a tarball or a zip file", path);
        } else {
            lab_appendf(&text, "%s\t%s\n", e[i].name, e[i].entry);
        }
        free(path);
    }
    intake_named_entries_free(e, n);
    char *path = lab_asprintf("%s/students.tsv", cls.out);
    if (lab_write_atomic(path, text))
        lab_fatal(CLASS_FAILED, "cannot write %s", path);
    free(path);
    free(text);
    load_students();
}
