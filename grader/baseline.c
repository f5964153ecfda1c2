/*
 * baseline.c: a baseline timed by one stage of a grade, handed to the later
 * stages of its family (grader/README.md, "The naive baseline, timed once a
 * grade"): what a record offers, and the words that hand it on.
 */
#include "grader.h"
#include "grading.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* A baseline the record offers to the next stages of its family: timed in
 * this run (not itself handed on), at the record's timing size, in a run
 * that ended well. */
void grader_offer_baseline(stage_result *s, const jvalue *rec, int status)
{
    const char *size = lab_json_string_at(rec, "timing.size");
    const jvalue *kernels = lab_json_path(rec, "timing.kernels");
    if (status != 0 || lab_json_bool_at(rec, "timing.baseline_reusable") != 1 || lab_json_path(rec, "timing.baseline_from") ||
        !size || strlen(size) >= sizeof s->baseline_at || !kernels || kernels->type != J_ARRAY)
        return;
    for (int i = 0; i < kernels->count; i++) {
        const char *name = lab_json_string_at(kernels->items[i], "name");
        double ms, reps;
        if (name && !strcmp(name, "baseline") && lab_json_number_at(kernels->items[i], "median_ms", &ms) == 0 &&
            lab_json_number_at(kernels->items[i], "reps", &reps) == 0 && reps > 0 && ms > 0) {
            s->baseline_ms = ms;
            snprintf(s->baseline_at, sizeof s->baseline_at, "%s", size);
        }
    }
}

static const extra_args *reuse_kept(extra_args *x, const target *this_one);

/* The words that hand a baseline to a stage's driver. */
static const extra_args *hand_on(extra_args *x, double ms, const char *at)
{
    snprintf(x->ms, sizeof x->ms, "%.9g", ms);
    snprintf(x->at, sizeof x->at, "%s", at);
    x->argv[0] = "--baseline-ms";
    x->argv[1] = x->ms;
    x->argv[2] = "--baseline-at";
    x->argv[3] = x->at;
    x->argv[4] = NULL;
    return x;
}

/* The last stage before this one, of the same family, whose record offered
 * its baseline (measured there, not itself reused). The time is the
 * judge's (or the events') in this grade, seconds earlier, on this GPU;
 * the driver uses it only at the same size. */
const extra_args *grader_reuse_baseline(extra_args *x, const stage_result *earlier, int n, const target *t,
                                 const target *this_one)
{
    for (int i = n - 1; i >= 0; i--) {
        if (strcmp(t[i].family, this_one->family) || !(earlier[i].baseline_ms > 0))
            continue;
        return hand_on(x, earlier[i].baseline_ms, earlier[i].baseline_at);
    }
    return reuse_kept(x, this_one);
}

/* ============================================ kept between grades (class) */

/* Baselines an earlier grade on this GPU timed (--baselines FILE). A class
 * worker grades its students one after another on one GPU: the naive
 * matrix product's baseline (about 0.4 s a call on an H100) is the same
 * for all of them, so the first student's grade times it and the later
 * ones reuse it, as the later stages of one grade do. The grader writes the
 * file itself, outside every confinement; a student's code never runs
 * while it is read or written. */
enum { MAX_KEPT = 8 };
static struct {
    char family[NAME_LEN], gpu[NAME_LEN], at[32];
    double ms;
} kept[MAX_KEPT];
static int nkept;

/* gpu "" (testing the grader: no nvidia-smi name) takes the file's lines
 * as they are. */
void grader_kept_load(const char *path, const char *gpu)
{
    nkept = 0;
    FILE *f = path ? fopen(path, "r") : NULL;
    if (!f)
        return;
    char line[512];
    while (nkept < MAX_KEPT && fgets(line, sizeof line, f)) {
        char family[NAME_LEN], name[NAME_LEN], at[32];
        double ms;
        if (sscanf(line, "%63[^\t\n]\t%63[^\t\n]\t%lf\t%31[^\t\n]", family, name, &ms, at) != 4 ||
            !(ms > 0 && ms < 1e6) || (gpu[0] && strcmp(name, gpu)))
            continue;
        snprintf(kept[nkept].family, sizeof kept[nkept].family, "%s", family);
        snprintf(kept[nkept].gpu, sizeof kept[nkept].gpu, "%s", name);
        snprintf(kept[nkept].at, sizeof kept[nkept].at, "%s", at);
        kept[nkept++].ms = ms;
    }
    fclose(f);
}

static int kept_find(const char *family)
{
    for (int k = 0; k < nkept; k++)
        if (!strcmp(kept[k].family, family))
            return k;
    return -1;
}

static const extra_args *reuse_kept(extra_args *x, const target *this_one)
{
    int k = kept_find(this_one->family);
    if (k < 0)
        return NULL;
    return hand_on(x, kept[k].ms, kept[k].at);
}

void grader_kept_save(const char *path, const stage_result *res, int n, const target *t)
{
    char lines[MAX_KEPT][256];
    int add = 0;
    for (int i = 0; i < n && add < MAX_KEPT; i++) {
        if (!(res[i].baseline_ms > 0) || !res[i].gpu[0] || kept_find(t[i].family) >= 0 ||
            strpbrk(t[i].family, "\t\n") || strpbrk(res[i].gpu, "\t\n"))
            continue;
        int dup = 0;
        for (int j = 0; j < i; j++)
            dup |= res[j].baseline_ms > 0 && !strcmp(t[j].family, t[i].family);
        if (!dup)
            snprintf(lines[add++], sizeof lines[0], "%s\t%s\t%.9g\t%s\n", t[i].family, res[i].gpu,
                     res[i].baseline_ms, res[i].baseline_at);
    }
    if (!add || !path)
        return;
    /* the lines it had, then the new ones, into a new file renamed over it */
    char tmp[PATH_MAX];
    snprintf(tmp, sizeof tmp, "%s.%d", path, (int)getpid());
    FILE *out = fopen(tmp, "w");
    if (!out) {
        fprintf(stderr, "grade: cannot write %s: the baselines are not kept\n", tmp);
        return;
    }
    FILE *in = fopen(path, "r");
    char line[512];
    while (in && fgets(line, sizeof line, in))
        fputs(line, out);
    if (in)
        fclose(in);
    for (int k = 0; k < add; k++)
        fputs(lines[k], out);
    if (fclose(out) || rename(tmp, path)) {
        fprintf(stderr, "grade: cannot write %s: the baselines are not kept\n", path);
        unlink(tmp);
    }
}
