/*
 * similarity.c: build/grader/similarity: each stage's submitted kernel.cu
 * files compared pair by pair, and each against the lab's own kernels (the
 * solution, the tiers' reference kernels, and for the reduction the
 * ladder of research/ladder/), on fingerprints of their token streams
 * (fingerprint.c) with the skeleton's text taken out as base code.
 *
 *   similarity --lab DIR --submissions DIR --out DIR [--stages "03 07"] [--known DIR]
 *              [--marks FILE | --review N]
 *   similarity --lab DIR --class OUT --out DIR ...    (the kernels make class took in)
 *
 * Writes OUT/similarity.csv (stage, student, other, score, review; by
 * stage, highest first) and OUT/similarity.html (ranked within each stage,
 * side by side, the shared runs marked). A score is how much of the
 * smaller file's fingerprints the other has, 0 to 100. A pair is marked
 * for review at its stage's mark (marks.c: DIR/grader/class/report/marks.tsv,
 * measured; --review N: one mark for every stage).
 * It accuses no one and changes no grade. The folders are those of the
 * class intake (INSTRUCTORS.md, "Collect"): NAME/exercises/NN_name/kernel.cu
 * or NAME/NN_name/kernel.cu, a single top folder allowed; plain files and
 * folders only: a link is refused and said so. A student is named as make
 * class names them (grader/intake/names.c). Archives are make class's to unpack: run
 * similarity on its OUT (--class).
 */
#include "names.h"
#include "report.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The names in a folder, sorted, without dot files, NULL-terminated (free
 * with lab_list_free); NULL when unreadable. */
static char **listing(const char *dir, int *n)
{
    DIR *d = opendir(dir);
    if (!d)
        return NULL;
    char **v = NULL;
    *n = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.' || intake_is_os_litter(e->d_name))
            continue;
        v = lab_grow(v, (size_t)(*n + 2) * sizeof *v);
        v[(*n)++] = lab_strdup(e->d_name);
        v[*n] = NULL;
    }
    closedir(d);
    qsort(v, (size_t)*n, sizeof *v, by_name);
    return v;
}

/* 'd' a folder, 'l' a link, 'f' a plain file, 0 absent or other. */
static int kind_of(const char *path)
{
    struct stat st;
    if (lstat(path, &st))
        return 0;
    return S_ISLNK(st.st_mode) ? 'l' : S_ISDIR(st.st_mode) ? 'd' : S_ISREG(st.st_mode) ? 'f' : 0;
}

/* ============================================================ the class */

typedef struct {
    char *stages[64];
    int nstages;
    doc *docs;
    int ndocs;
    int nstudent_docs;      /* the students' come first, then the lab's   */
    stage_mark *marks;      /* one a stage                                */
    sim_pair *pairs;
    int npairs;
    int own, nothing;       /* students' files with and without text of their own */
} corpus;

static int warnings;
static void warn_entry(const char *who, const char *why)
{
    fprintf(stderr, "similarity: %s: %s\n", who, why);
    warnings++;
}

/* The text compared: src as the preprocessor gives it, or src itself
 * (freed or returned) when it cannot be had, said so. */
static char *compared_text(const char *who, char *src, size_t *len)
{
    char *why = NULL, *text = report_preprocess(src, *len, len, &why);
    if (text) {
        free(src);
        return text;
    }
    char *said = lab_asprintf("does not preprocess (%s): compared as written", why);
    warn_entry(who, said);
    free(said);
    free(why);
    *len = strlen(src);
    return src;
}

static void add_doc(corpus *c, const char *who, int lab, char *src, size_t len, int stage)
{
    src = compared_text(who, src, &len);
    c->docs = lab_grow(c->docs, (size_t)(c->ndocs + 1) * sizeof *c->docs);
    doc *d = &c->docs[c->ndocs++];
    memset(d, 0, sizeof *d);
    d->who = lab_strdup(who);
    d->lab = lab;
    d->src = src;
    d->len = len;
    d->stage = stage;
}

/* The folder that holds a student's stage folders, directly or in
 * exercises/: ROOT, or the one folder inside it. NULL (said why) when
 * neither has any. */
static char *stage_root(const corpus *c, const char *who, const char *root, int depth)
{
    char *ex = lab_asprintf("%s/exercises", root);
    int k = kind_of(ex);
    free(ex);
    if (k == 'd')
        return lab_strdup(root);
    if (k == 'l') {
        warn_entry(who, "exercises/ is a link: refused (plain files and folders only)");
        return NULL;
    }
    for (int s = 0; s < c->nstages; s++) {
        char *p = lab_asprintf("%s/%s", root, c->stages[s]);
        int sk = kind_of(p);
        free(p);
        if (sk)
            return lab_strdup(root);
    }
    int n;
    char **names = listing(root, &n);
    char *found = NULL;
    if (names && n == 1 && depth == 0) {
        char *only = lab_asprintf("%s/%s", root, names[0]);
        if (kind_of(only) == 'd')
            found = stage_root(c, who, only, 1);
        else if (kind_of(only) == 'l')
            warn_entry(who, "its one folder is a link: refused (plain files and folders only)");
        free(only);
    }
    lab_list_free(names);
    return found;
}

/* The student's kernel.cu of each stage (ROOT/exercises/NN_name or
 * ROOT/NN_name), as plain files: a link anywhere on the way is refused. */
static void take_student(corpus *c, const char *who, const char *root)
{
    char *dir = stage_root(c, who, root, 0);
    if (!dir)
        return;
    for (int s = 0; s < c->nstages; s++) {
        for (int in_ex = 1; in_ex >= 0; in_ex--) {
            char *sd = lab_asprintf("%s%s/%s", dir, in_ex ? "/exercises" : "", c->stages[s]);
            char *path = lab_asprintf("%s/kernel.cu", sd);
            int k = kind_of(sd), link = 0;
            size_t len;
            char *src = k == 'd' ? report_read_plain(path, &len, &link) : NULL;
            if (k == 'l' || link) {
                char *why = lab_asprintf("%s%s%s is a link: refused (plain files only)", in_ex ? "exercises/" : "",
                                 c->stages[s], k == 'l' ? "" : "/kernel.cu");
                warn_entry(who, why);
                free(why);
            } else if (src) {
                add_doc(c, who, 0, src, len, s);
            }
            free(sd);
            free(path);
            if (k)
                break;  /* exercises/NN_name wins over NN_name */
        }
    }
    free(dir);
}

/* One entry of the folder: a student's folder is taken as who, the rest
 * said (under the entry's own name). */
static void take_entry(corpus *c, const char *entry, const char *who, const char *path, int archive, int class_out)
{
    int k = kind_of(path);
    if (k == 'l') {
        warn_entry(entry, "a link: refused (plain files and folders only)");
    } else if (k == 'd') {
        char *root = class_out ? lab_asprintf("%s/kernels", path) : lab_strdup(path);
        if (!class_out || kind_of(root) == 'd')
            take_student(c, who, root);
        free(root);
    } else if (k == 'f') {
        warn_entry(entry, archive ? "an archive, skipped: make class unpacks archives; then run "
                                  "make similarity OUT=that class's OUT"
                                : "not a folder, skipped");
    }
}

/* The students of SUBMISSIONS under the names make class gives them
 * (grader/intake/names.c: an entry with a control character in its name, or two of one
 * name, stop it), or those of a class's OUT/students. */
static void take_submissions(corpus *c, const char *subs, int class_out)
{
    char *top = class_out ? lab_asprintf("%s/students", subs) : lab_strdup(subs), *why = NULL;
    named_entry *e = NULL;
    int n = 0;
    if (!class_out && kind_of(top) != 'd')
        lab_fatal(REPORT_USAGE, "cannot read %s: say SUBMISSIONS=dir, the folder make class takes", top);
    if (!class_out && (n = intake_name_entries(top, NULL, &e, &why)) < 0)
        lab_fatal(NAMES_REFUSED, "%s: %s", top, why);
    char **names = class_out ? listing(top, &n) : NULL;
    if (class_out && !names)
        lab_fatal(REPORT_USAGE, "cannot read %s: is it the OUT of make class?", top);
    for (int i = 0; i < n; i++) {
        const char *entry = class_out ? names[i] : e[i].entry, *who = class_out ? names[i] : e[i].name;
        char *path = lab_asprintf("%s/%s", top, entry);
        if (class_out && !intake_name_is_clean(who))
            warn_entry(who, "not a name make class gives: skipped");
        else
            take_entry(c, entry, who, path, !class_out && e[i].archive, class_out);
        free(path);
    }
    if (class_out)
        lab_list_free(names);
    intake_named_entries_free(e, class_out ? 0 : n);
    free(top);
}

/* Every .cu of root/rel as a kernel of stage s, named prefix + rel/file. */
static void take_folder(corpus *c, const char *root, const char *rel, const char *prefix, int s)
{
    char *full = lab_asprintf("%s/%s", root, rel);
    int n;
    char **names = listing(full, &n);
    for (int i = 0; names && i < n; i++) {
        size_t ln = strlen(names[i]);
        if (ln < 4 || strcmp(names[i] + ln - 3, ".cu"))
            continue;
        char *path = lab_asprintf("%s/%s", full, names[i]), *who = lab_asprintf("%s%s/%s", prefix, rel, names[i]);
        size_t len;
        char *src = report_read_plain(path, &len, NULL);
        if (src)
            add_doc(c, who, 1, src, len, s);
        free(path);
        free(who);
    }
    lab_list_free(names);
    free(full);
}

/* The kernels a stage's students are compared with besides each other: the
 * lab's solution, the tiers' reference kernels (references/), for the
 * reduction the ladder's rungs (research/ladder/), and known public ones
 * (grader/class/report/known/, and the instructor's own --known folder). */
static void take_lab(corpus *c, const char *lab, const char *known, int s)
{
    const char *st = c->stages[s];
    char *rel[2] = {lab_asprintf("solutions/%s", st), lab_asprintf("references/%s", st)};
    for (int d = 0; d < 2; d++) {
        take_folder(c, lab, rel[d], "lab:", s);
        free(rel[d]);
    }
    if (strstr(st, "reduction"))
        take_folder(c, lab, "research/ladder", "lab:", s);
    char *ours = lab_asprintf("%s/grader/class/report/known", lab);
    take_folder(c, ours, st, "known:", s);
    if (known)
        take_folder(c, known, st, "known:", s);
    free(ours);
}

/* ============================================================== compare */

/* By stage, then highest score first. */
static int by_stage_score(const void *x, const void *y)
{
    const sim_pair *a = x, *b = y;
    int k = strcmp(a->stage, b->stage);
    if (k)
        return k;
    if (a->score != b->score)
        return a->score < b->score ? 1 : -1;
    return strcmp(a->a->who, b->a->who) ? strcmp(a->a->who, b->a->who) : strcmp(a->b->who, b->b->who);
}

static void csv_put(FILE *f, const char *s)
{
    if (!strpbrk(s, ",\"\n\r")) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', f);
        fputc(*s == '\n' || *s == '\r' ? ' ' : *s, f);
    }
    fputc('"', f);
}

/* similarity.csv, by stage, highest first; review says whether its
 * stage's mark marks a pair (none: the stage has no mark). Returns how
 * many pairs are marked. */
static int write_csv(const char *path, const sim_pair *pairs, int npairs)
{
    FILE *f = fopen(path, "w");
    if (!f)
        lab_fatal(REPORT_FAILED, "cannot write %s", path);
    fputs("stage,student,other,score,review\n", f);
    int marked = 0;
    for (int k = 0; k < npairs; k++) {
        csv_put(f, pairs[k].stage);
        fputc(',', f);
        csv_put(f, pairs[k].a->who);
        fputc(',', f);
        csv_put(f, pairs[k].b->who);
        int reached = report_mark_reached(pairs[k].mark, pairs[k].score);
        fprintf(f, ",%.1f,%s\n", pairs[k].score, !pairs[k].mark->usable ? "none" : reached ? "yes" : "no");
        marked += reached;
    }
    if (fclose(f))
        lab_fatal(REPORT_FAILED, "cannot write %s", path);
    return marked;
}

/* Stage numbers ("03 07") into the lab's stage folders. */
static void pick_stages(corpus *c, const char *lab, const char *want)
{
    char *ex = lab_asprintf("%s/exercises", lab);
    int n;
    char **names = listing(ex, &n);
    if (!names)
        lab_fatal(REPORT_USAGE, "no %s: --lab must be the lab's instructors' copy", ex);
    for (int i = 0; i < n && c->nstages < 64; i++) {
        char *dir = lab_asprintf("%s/%s", ex, names[i]);
        int is_stage = kind_of(dir) == 'd';
        free(dir);
        if (!is_stage)
            continue;
        char num[8];
        snprintf(num, sizeof num, "%.2s", names[i]);
        if (want && !strstr(want, num) && !strstr(want, names[i]))
            continue;
        c->stages[c->nstages++] = lab_strdup(names[i]);
    }
    lab_list_free(names);
    free(ex);
    if (!c->nstages)
        lab_fatal(REPORT_USAGE, "no stage of %s matches \"%s\" (EX=\"03 07\")", lab, want ? want : "");
}

/* Stage s: fingerprints with its skeleton taken out, then every student
 * with text of their own against every other student and against each of
 * the lab's and the known kernels of the stage. */
static void compare_stage(corpus *c, const char *lab, int s)
{
    char *sk = lab_asprintf("%s/exercises/%s/kernel.cu", lab, c->stages[s]);
    size_t len = 0;
    char *base_src = report_read_plain(sk, &len, NULL);
    if (!base_src)
        lab_fatal(REPORT_USAGE, "no %s: the skeleton is the base code every file is stripped of", sk);
    base_src = compared_text(sk, base_src, &len);
    int nbase = 0;
    unsigned long long *base = report_base_hashes(base_src, len, &nbase);
    for (int i = 0; i < c->ndocs; i++)
        if (c->docs[i].stage == s)
            report_fingerprint(&c->docs[i], base, nbase);
    for (int i = 0; i < c->nstudent_docs; i++) {
        doc *a = &c->docs[i];
        if (a->stage != s)
            continue;
        if (!a->nprints) {
            c->nothing++; /* the skeleton, or too little of their own */
            continue;
        }
        c->own++;
        for (int j = i + 1; j < c->ndocs; j++) {
            doc *b = &c->docs[j];
            if (b->stage != s || !b->nprints)
                continue;
            c->pairs = lab_grow(c->pairs, (size_t)(c->npairs + 1) * sizeof *c->pairs);
            sim_pair *p = &c->pairs[c->npairs++];
            p->stage = c->stages[s];
            p->mark = &c->marks[s];
            p->a = a;
            p->b = b;
            p->score = report_similarity(a, b, &p->shared);
        }
    }
    free(base);
    free(base_src);
    free(sk);
}

typedef struct {
    const char *lab, *subs, *out, *want, *known, *marks;
    int class_out;
    double review;          /* --review's one mark, or -1                */
} options;

static options parse_options(int argc, char **argv)
{
    options o = {.review = -1};
    for (int i = 1; i < argc; i++) {
        if (i + 1 < argc && !strcmp(argv[i], "--lab"))
            o.lab = argv[++i];
        else if (i + 1 < argc && (!strcmp(argv[i], "--submissions") || !strcmp(argv[i], "--class")))
            o.class_out = !strcmp(argv[i], "--class"), o.subs = argv[++i];
        else if (i + 1 < argc && !strcmp(argv[i], "--out"))
            o.out = argv[++i];
        else if (i + 1 < argc && !strcmp(argv[i], "--known"))
            o.known = argv[++i];
        else if (i + 1 < argc && !strcmp(argv[i], "--stages"))
            o.want = argv[++i];
        else if (i + 1 < argc && !strcmp(argv[i], "--marks"))
            o.marks = argv[++i];
        else if (i + 1 < argc && !strcmp(argv[i], "--review")) {
            char *end;
            o.review = strtod(argv[++i], &end);
            if (*end || end == argv[i] || o.review < 0 || o.review > 100)
                lab_fatal(REPORT_USAGE, "--review takes a score from 0 to 100, not '%s'", argv[i]);
        }
        else
            lab_fatal(REPORT_USAGE, "usage: similarity --lab DIR (--submissions DIR | --class OUT) --out DIR "
                                "[--stages \"03 07\"] [--known DIR] [--marks FILE | --review SCORE]");
    }
    if (!o.lab || !o.subs || !o.out)
        lab_fatal(REPORT_USAGE, "say --lab, --submissions (or --class) and --out");
    return o;
}

int main(int argc, char **argv)
{
    options o = parse_options(argc, argv);
    corpus c = {0};
    pick_stages(&c, o.lab, o.want);
    char *marks = o.marks ? lab_strdup(o.marks) : lab_asprintf("%s/grader/class/report/marks.tsv", o.lab);
    c.marks = report_marks_read(marks, c.stages, c.nstages, o.review);
    take_submissions(&c, o.subs, o.class_out);
    c.nstudent_docs = c.ndocs;
    for (int s = 0; s < c.nstages; s++)
        take_lab(&c, o.lab, o.known, s);

    for (int s = 0; s < c.nstages; s++)
        compare_stage(&c, o.lab, s);
    sim_pair *pairs = c.pairs;
    int npairs = c.npairs;
    qsort(pairs, (size_t)npairs, sizeof *pairs, by_stage_score);

    char *csv = lab_asprintf("%s/similarity.csv", o.out), *html = lab_asprintf("%s/similarity.html", o.out);
    int marked = write_csv(csv, pairs, npairs);
    FILE *f = fopen(html, "w");
    if (!f)
        lab_fatal(REPORT_FAILED, "cannot write %s", html);
    char *how = lab_asprintf("%d submitted kernel.cu files with text of their own (%d more the skeleton or nearly), "
                     "compared pair by pair within each stage and with the lab's own and known public kernels: "
                     "the C preprocessor's text (macros expanded; shown below), tokens with names, layout and "
                     "empty statements forgotten, %d-token runs, winnowed as MOSS does (a window "
                     "of %d).",
                     c.own, c.nothing, SIM_K, SIM_W);
    report_sim_page(f, pairs, npairs, c.marks, c.nstages, how);
    if (fclose(f))
        lab_fatal(REPORT_FAILED, "cannot write %s", html);
    printf("similarity: %s and %s: %d pairs, %d marked for review at their stage's mark (%s; for a person to "
           "read)%s\n", csv, html, npairs, marked, o.review >= 0 ? "--review" : marks,
           warnings ? "; see the lines above for what was skipped" : "");
    return REPORT_OK;
}
