/*
 * main.c: the program behind tools/profile.sh: hardware counters of one call
 * of a kernel, in plain words, beside a reference's.
 *
 *   profile-report [--root DIR] [--brief] STAGE BINARY [REFERENCE] [-- DRIVER-ARGS...]
 *   profile-report [--root DIR] --expected STAGE BINARY [-- DRIVER-ARGS...]
 *   profile-report --metrics [base]   the metrics it asks ncu for (base: without
 *                                     the optional ones)
 *   profile-report --summary CSV      the summary of a raw page (- : standard input)
 *
 * BINARY, one of a stage's programs, runs under ncu (measure.c). REFERENCE,
 * when given, is measured the same way; without it the reference values
 * come from profile/expected.tsv, for this stage and GPU (else the first
 * GPU stored for the stage). --expected measures BINARY and stores its
 * values there instead of reporting. DIR is the lab's folder (default .).
 *
 * Environment: NCU (the ncu to use; default: ncu on PATH, else next to
 * nvcc), PROFILE_DIR (reports; default build/profile), PROFILE_EXPECTED (the
 * stored values; default DIR/profile/expected.tsv).
 *
 * Exit status: 0 the counters were shown, or they cannot be measured here
 * (no ncu, counters restricted to administrators: one line says so); 1 the
 * program failed its checks or crashed, or ncu measured nothing; 2 usage;
 * 3 no GPU. With --expected, anything short of a measurement exits 1.
 */
#include "profile.h"
#include "spawn.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static int usage(void)
{
    fprintf(stderr, "usage: tools/profile.sh [--brief] STAGE BINARY [REFERENCE] [-- DRIVER-ARGS...]\n"
                    "       tools/profile.sh --expected STAGE BINARY [-- DRIVER-ARGS...]\n");
    return 2;
}

/* ------------------------------------------------------------ finding */

/* name on PATH (spawn.h), or NULL */
static char *in_path(const char *name)
{
    char found[PATH_MAX];
    return lab_find_program(name, found) == 0 ? lab_strdup(found) : NULL;
}

/* NCU, else ncu on PATH, else next to nvcc */
static char *find_ncu(void)
{
    const char *env = getenv("NCU");
    if (env && env[0])
        return lab_strdup(env);
    char *ncu = in_path("ncu");
    if (ncu)
        return ncu;
    char *nvcc = in_path("nvcc");
    if (!nvcc)
        nvcc = lab_strdup("/usr/local/cuda/bin/nvcc");
    char *slash = strrchr(nvcc, '/');
    ncu = slash ? lab_asprintf("%.*s/ncu", (int)(slash - nvcc), nvcc) : lab_strdup("./ncu");
    free(nvcc);
    return ncu;
}

/* build/03_tiled/k32/exercise -> 03_tiled-k32-exercise */
static char *name_of(const char *path)
{
    if (!strncmp(path, "./", 2))
        path += 2;
    for (const char *p = path; (p = strstr(p, "build/")); p++)
        path = p + 6;
    if (path[0] == '/')
        path++;
    char *name = lab_strdup(path);
    for (char *p = name; *p; p++)
        if (*p == '/')
            *p = '-';
    return name;
}

/* ------------------------------------------------- profile/expected.tsv */

/* The n-th tab-separated field of line (from 0), with its length. */
static const char *tab_field(const char *line, int n, size_t *len)
{
    for (; n > 0 && line; n--)
        if ((line = strchr(line, '\t')))
            line++;
    if (!line) {
        *len = 0;
        return "";
    }
    *len = strcspn(line, "\t");
    return line;
}

/* how many tab-separated fields line has, as awk -F'\t' counts them */
static int fields(const char *line)
{
    int n = line[0] != '\0';
    for (; *line; line++)
        n += *line == '\t';
    return n;
}

static int field_is(const char *line, int n, const char *text)
{
    size_t len;
    const char *f = tab_field(line, n, &len);
    return len == strlen(text) && !strncmp(f, text, len);
}

static int field_cmp(const char *a, const char *b, int n)
{
    size_t la, lb;
    const char *fa = tab_field(a, n, &la), *fb = tab_field(b, n, &lb);
    int c = memcmp(fa, fb, la < lb ? la : lb);
    return c ? c : (la > lb) - (la < lb);
}

struct line {
    char *text;
    int at;
};

/* by stage, then GPU; else in the order they came (sort -s -k1,1 -k2,2) */
static int by_stage_gpu(const void *a, const void *b)
{
    const struct line *x = a, *y = b;
    int c = field_cmp(x->text, y->text, 0);
    if (!c)
        c = field_cmp(x->text, y->text, 1);
    return c ? c : x->at - y->at;
}

/* Store the summary t of bin for stage and gpu in expected: the lines of
 * that stage and GPU replaced, the others kept, the raw sums left out. */
static int store(const char *expected, const char *stage, const char *gpu, const struct kv *t,
                 const char *bin)
{
    int n = 0, nbody = 0;
    struct stat st;
    char **old = stat(expected, &st) == 0 && S_ISREG(st.st_mode) ? lab_file_lines(expected, &n) : NULL;
    struct line *body = lab_alloc((size_t)(n + t->n + 1) * sizeof *body);
    for (int i = 0; i < n; i++)
        if (old[i][0] != '#' && fields(old[i]) >= 4 &&
            !(field_is(old[i], 0, stage) && field_is(old[i], 1, gpu)))
            body[nbody].text = lab_strdup(old[i]), body[nbody].at = nbody, nbody++;
    static const char *const sums[] = {"_sectors", "_requests", "_wavefronts", "_inst", "_bytes"};
    for (int i = 0; i < t->n; i++) {
        int raw = 0;
        size_t klen = strlen(t->key[i]);
        for (size_t s = 0; s < sizeof sums / sizeof sums[0]; s++)
            raw |= klen >= strlen(sums[s]) && !strcmp(t->key[i] + klen - strlen(sums[s]), sums[s]);
        if (!raw)
            body[nbody].text = lab_asprintf("%s\t%s\t%s\t%s", stage, gpu, t->key[i], t->val[i]),
            body[nbody].at = nbody, nbody++;
    }
    char date[16];
    time_t now = time(NULL);
    strftime(date, sizeof date, "%Y-%m-%d", localtime(&now));
    body[nbody].text = lab_asprintf("%s\t%s\tdate\t%s", stage, gpu, date);
    body[nbody].at = nbody, nbody++;
    qsort(body, (size_t)nbody, sizeof *body, by_stage_gpu);

    char *tmp = lab_asprintf("%s.XXXXXX", expected);
    int fd = mkstemp(tmp), ok = fd >= 0;
    FILE *f = ok ? fdopen(fd, "w") : NULL;
    if (f) {
        mode_t mask = umask(0);
        umask(mask);
        fchmod(fd, 0666 & ~mask);
        if (old) {
            for (int i = 0; i < n; i++)
                if (old[i][0] == '#')
                    fprintf(f, "%s\n", old[i]);
        } else {
            fprintf(f, "# The solutions' hardware counters, for make profile where solutions/ is absent.\n"
                       "# Written by make profile-expected (tools/profile.sh --expected) on each GPU;\n"
                       "# one line per stage, GPU and key: stage, gpu, key, value.\n");
        }
        for (int i = 0; i < nbody; i++)
            fprintf(f, "%s\n", body[i].text);
        ok = !ferror(f);
        ok = fclose(f) == 0 && ok && rename(tmp, expected) == 0;
    }
    if (!ok) {
        fprintf(stderr, "error: cannot write %s: %s\n", expected, strerror(errno));
        if (fd >= 0)
            unlink(tmp);
    } else {
        printf("stored the counters of %s for %s on %s in %s\n", bin, stage, gpu, expected);
    }
    for (int i = 0; i < nbody; i++)
        free(body[i].text);
    free(body);
    free(tmp);
    lab_list_free(old);
    return ok ? 0 : 1;
}

/* The values stored for stage on gpu, else on the first GPU stored for it,
 * into r; the number of lines found. */
static int stored(const char *expected, const char *stage, const char *gpu, struct kv *r)
{
    int n, found = 0;
    char **lines = lab_file_lines(expected, &n);
    char *first = NULL;
    for (int pass = 0; pass < 2 && !found; pass++)
        for (int i = 0; i < n; i++) {
            if (lines[i][0] == '#' || !field_is(lines[i], 0, stage))
                continue;
            size_t len;
            const char *g = tab_field(lines[i], 1, &len);
            if (pass == 1 && (!first || !first[0])) {
                free(first);
                first = lab_asprintf("%.*s", (int)len, g);
            }
            if (!field_is(lines[i], 1, pass == 0 ? gpu : first))
                continue;
            size_t klen, vlen;
            const char *k = tab_field(lines[i], 2, &klen), *v = tab_field(lines[i], 3, &vlen);
            char *key = lab_asprintf("%.*s", (int)klen, k), *val = lab_asprintf("%.*s", (int)vlen, v);
            profile_kv_set(r, key, val);
            free(key), free(val);
            found++;
        }
    free(first);
    lab_list_free(lines);
    return found;
}

/* ---------------------------------------------------------------- main */

/* what --metrics and --summary print */
static int tool_modes(int argc, char **argv)
{
    if (!strcmp(argv[1], "--metrics")) {
        char *list = profile_metric_list(argc > 2 && !strcmp(argv[2], "base"));
        printf("%s\n", list);
        free(list);
        return 0;
    }
    FILE *f = argc < 3 || !strcmp(argv[2], "-") ? stdin : fopen(argv[2], "r");
    if (!f) {
        fprintf(stderr, "error: cannot read %s: %s\n", argv[2], strerror(errno));
        return 2;
    }
    struct kv t = {0};
    profile_summarize(f, &t);
    profile_kv_write(&t, stdout);
    profile_kv_free(&t);
    if (f != stdin)
        fclose(f);
    return 0;
}

/* The command line: [--root DIR] [--brief | --expected] STAGE PROGRAM
 * [REFERENCE] [-- DRIVER ARGS...]. */
struct options {
    const char *root, *stage, *bin, *ref;
    int brief, expected_mode;
    char **driver_args;
};

/* 0, or usage()'s status */
static int parse_options(int argc, char **argv, struct options *o)
{
    int i = 1;
    o->root = ".";
    if (i + 1 < argc && !strcmp(argv[i], "--root"))
        o->root = argv[i + 1], i += 2;
    if (i < argc && !strcmp(argv[i], "--brief"))
        o->brief = 1, i++;
    else if (i < argc && !strcmp(argv[i], "--expected"))
        o->expected_mode = 1, i++;
    if (argc - i < 2)
        return usage();
    o->stage = argv[i], o->bin = argv[i + 1];
    i += 2;
    if (i < argc && strcmp(argv[i], "--") != 0)
        o->ref = argv[i++];
    if (i < argc && strcmp(argv[i++], "--") != 0)
        return usage();
    if (o->ref && !o->ref[0])
        o->ref = NULL;
    if (o->expected_mode && o->ref)
        return usage();
    o->driver_args = argv + i;
    const char *programs[] = {o->bin, o->ref};
    for (int b = 0; b < 2; b++)
        if (programs[b] && access(programs[b], X_OK) != 0) {
            fprintf(stderr, "error: %s is not a program here (build it first: make)\n", programs[b]);
            return 2;
        }
    return 0;
}

/* The line that names what the student's counters stand beside: the
 * reference program measured now (its counters into *r), or the solution's
 * stored in expected.tsv for this GPU, or none. */
static char *reference_label(struct profiler *p, const struct options *o, const char *expected, const char *yours,
                             const struct kv *y, struct kv *r)
{
    const char *gpu = profile_kv_get(y, "gpu");
    if (o->ref) {
        char *name = name_of(o->ref), *label;
        if (!strcmp(name, yours)) {
            char *longer = lab_asprintf("%s-reference", name);
            free(name);
            name = longer;
        }
        if (!o->brief)
            printf("profiling the reference, %s...\n", o->ref);
        if (profile_measure(p, o->ref, name, r) == MEASURED) {
            label = lab_strdup(o->ref);
        } else {
            profile_kv_free(r);
            label = lab_asprintf("%s could not be measured (see %s/%s.log)", o->ref, p->out, name);
        }
        free(name);
        return label;
    }
    if (stored(expected, o->stage, gpu, r)) {
        size_t rlen = strlen(o->root);
        const char *shown_path = expected;
        if (!strncmp(expected, o->root, rlen) && expected[rlen] == '/')
            shown_path += rlen + 1;
        const char *ref_gpu = profile_kv_get(r, "gpu"), *ref_size = profile_kv_get(r, "size");
        return lab_asprintf("the solution, stored in %s (%s%s%s%s%s%s", shown_path, profile_kv_get(r, "date"),
                         strcmp(ref_gpu, gpu) ? ", on " : "", strcmp(ref_gpu, gpu) ? ref_gpu : "",
                         strcmp(ref_gpu, gpu) ? ": occupancy and DRAM differ between GPUs)" : ")",
                         strcmp(ref_size, profile_kv_get(y, "size")) ? ", at " : "",
                         strcmp(ref_size, profile_kv_get(y, "size")) ? ref_size : "");
    }
    return lab_asprintf("none: no solution here, and no stored values for %s (instructors: make "
                     "profile-expected)", o->stage);
}

int main(int argc, char **argv)
{
    if (argc > 1 && (!strcmp(argv[1], "--metrics") || !strcmp(argv[1], "--summary")))
        return tool_modes(argc, argv);
    struct options o = {0};
    int bad = parse_options(argc, argv, &o);
    if (bad)
        return bad;

    const char *env_out = getenv("PROFILE_DIR"), *env_expected = getenv("PROFILE_EXPECTED");
    struct profiler p = {0};
    p.out = env_out && env_out[0] ? env_out : "build/profile";
    char *expected = env_expected && env_expected[0] ? lab_strdup(env_expected)
                                                     : lab_asprintf("%s/profile/expected.tsv", o.root);
    char *ex = lab_asprintf("%.*s", (int)strcspn(o.stage, "_"), o.stage);
    p.driver_args = o.driver_args;
    p.brief = o.brief;
    if (lab_mkdirs(p.out)) {
        fprintf(stderr, "error: cannot make the folder %s: %s\n", p.out, strerror(errno));
        return 2;
    }
    char *ncu = find_ncu();
    if (access(ncu, X_OK) != 0) {
        printf("hardware counters: skipped, Nsight Compute (ncu) is not installed here; it comes with the "
               "full CUDA Toolkit (if it is installed elsewhere: make profile NCU=/path/to/ncu)\n");
        return o.expected_mode ? 1 : 0;
    }
    p.ncu = ncu;
    p.metrics = profile_metric_list(0);
    p.base_metrics = profile_metric_list(1);
    p.ncu_version = profile_ncu_version(ncu);

    /* yours */
    struct kv y = {0}, r = {0};
    char *yours = name_of(o.bin);
    if (!o.brief && !o.expected_mode)
        printf("profiling %s under Nsight Compute: its checks, then one call...\n", o.bin);
    int code = profile_measure(&p, o.bin, yours, &y);
    if (code != MEASURED) {
        profile_explain(&p, code, o.bin, yours, ex);
        return code == RESTRICTED ? o.expected_mode : code == NO_GPU ? 3 : 1;
    }
    if (o.expected_mode)
        return store(expected, o.stage, profile_kv_get(&y, "gpu"), &y, o.bin);

    /* the reference, then the report */
    char *ref_label = reference_label(&p, &o, expected, yours, &y, &r);
    char *report_file = lab_asprintf("%s/%s.ncu-rep", p.out, yours);
    if (!o.brief)
        printf("\n");
    profile_report(&y, &r, o.brief, ex, o.bin, ref_label, report_file);
    return 0;
}
