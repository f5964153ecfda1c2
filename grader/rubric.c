/*
 * rubric.c: the table of stages, the rubric and the reference kernel of
 * each speed tier. What is about one stage is in stages.tsv (its header
 * explains the format to instructors), compiled in as build/stages.h; the
 * rubric is its rubric lines, then grader/rubric.tsv (the settings, the
 * margins and each GPU's calibrated thresholds).
 */
#include "grader.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Split line at tabs (a run of tabs is one separator) into at most max
 * fields; the last field takes the rest of the line. Returns the count. */
static int split_tabs(char *line, char **field, int max)
{
    int n = 0;
    char *p = line;
    while (*p && n < max) {
        while (*p == '\t')
            p++;
        if (!*p)
            break;
        field[n++] = p;
        if (n == max)
            break;
        p += strcspn(p, "\t");
        if (*p)
            *p++ = 0;
    }
    return n;
}

/* Strip the newline (and a carriage return) from a line read by getline. */
static void chomp(char *line)
{
    size_t n = strlen(line);
    while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
        line[--n] = 0;
}

static int copy_name(char *dst, const char *src)
{
    if (strlen(src) >= NAME_LEN)
        return -1;
    strcpy(dst, src);
    return 0;
}

/* The table is compiled in: build/stages.h, made from stages.tsv by
 * tools/stages-gen.awk (the Makefile rebuilds the grader when it changes). */
#include "stages.h"

int grader_stages_all(stage_info *out, int max)
{
    static const struct {
        const char *dir, *family, *knob, *sweep, *lesson;
    } table[] = {LAB_STAGE_TABLE};
    int n = 0;
    for (size_t i = 0; i < sizeof table / sizeof table[0] && n < max; i++, n++) {
        snprintf(out[n].dir, sizeof out[n].dir, "%s", table[i].dir);
        snprintf(out[n].family, sizeof out[n].family, "%s", table[i].family);
        snprintf(out[n].lesson, sizeof out[n].lesson, "%s", table[i].lesson);
    }
    return n;
}

/* ====================================================== tier references */

int grader_references_read(const char *lab, tier_reference *out, int max, char *err, size_t errlen)
{
    static const struct {
        const char *stage, *tier, *source, *flags, *kernel;
    } table[] = {LAB_STAGE_REFERENCES};
    int n = 0;
    for (size_t i = 0; table[i].stage; i++) {
        /* a student release has neither solutions/ nor references/ */
        char path[PATH_MAX];
        snprintf(path, sizeof path, "%s/%ss/%s/kernel.cu", lab, table[i].source, table[i].stage);
        if (access(path, R_OK))
            continue;
        tier_reference *r = &out[n];
        if (n == max || copy_name(r->stage, table[i].stage) || copy_name(r->tier, table[i].tier) ||
            strlen(table[i].flags) >= sizeof r->flags) {
            snprintf(err, errlen, "stages.tsv: too many reference lines, or a name or flags too long");
            return -1;
        }
        snprintf(r->source, sizeof r->source, "%s", table[i].source);
        snprintf(r->flags, sizeof r->flags, "%s", table[i].flags);
        snprintf(r->kernel, sizeof r->kernel, "%s", table[i].kernel);
        n++;
    }
    return n;
}

const tier_reference *grader_reference_find(const tier_reference *r, int n, const char *stage, const char *tier)
{
    for (int i = 0; i < n; i++)
        if (!strcmp(r[i].stage, stage) && !strcmp(r[i].tier, tier))
            return &r[i];
    return NULL;
}

/* ================================================================ rubric */

static stage_rubric *stage_entry(rubric *r, const char *stage, int create)
{
    for (int i = 0; i < r->nstages; i++)
        if (!strcmp(r->stages[i].stage, stage))
            return &r->stages[i];
    if (!create || r->nstages == MAX_STAGES || strlen(stage) >= NAME_LEN)
        return NULL;
    stage_rubric *s = &r->stages[r->nstages++];
    memset(s, 0, sizeof *s);
    strcpy(s->stage, stage);
    s->correct_points = -1; /* from the setting, once the file is read */
    return s;
}

static tier *tier_entry(stage_rubric *s, const char *name)
{
    for (int i = 0; i < s->ntiers; i++)
        if (!strcmp(s->tiers[i].name, name))
            return &s->tiers[i];
    return NULL;
}

static int parse_number(const char *s, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || *end)
        return -1;
    *out = v;
    return 0;
}

static int parse_points(const char *s, int *out)
{
    double v;
    if (parse_number(s, &v) || v < 0 || v > 1000 || v != (int)v)
        return -1;
    *out = (int)v;
    return 0;
}

/* Set err to "path:line: message" and return -1. */
static int bad_line(char *err, size_t errlen, const char *path, int lineno, const char *fmt, ...)
{
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    snprintf(err, errlen, "%s:%d: %s", path, lineno, msg);
    return -1;
}

/* The lines of the rubric, each already split into fields f[0 .. n-1]
 * (f[0] its kind); 0, or -1 with "path:line: why" in err. */

/* setting NAME VALUE */
static int setting_line(rubric *r, char **f, int n, const char *path, int lineno, char *err, size_t errlen)
{
    if (n < 3)
        return bad_line(err, errlen, path, lineno, "setting needs a name and a value");
    if (!strcmp(f[1], "limit_s") || !strcmp(f[1], "sanitize_limit_s")) {
        double v;
        if (parse_number(f[2], &v) || v <= 0)
            return bad_line(err, errlen, path, lineno, "%s must be a number of seconds > 0", f[1]);
        *(!strcmp(f[1], "limit_s") ? &r->limit_s : &r->sanitize_limit_s) = v;
    } else if (!strcmp(f[1], "correct_points")) {
        if (parse_points(f[2], &r->correct_points))
            return bad_line(err, errlen, path, lineno, "correct_points must be a whole number");
    } else if (!strcmp(f[1], "args") || !strcmp(f[1], "sanitize_args")) {
        char *dst = !strcmp(f[1], "args") ? r->args : r->sanitize_args;
        if (strlen(f[2]) >= sizeof r->args)
            return bad_line(err, errlen, path, lineno, "%s is too long", f[1]);
        strcpy(dst, f[2]);
    } else {
        return bad_line(err, errlen, path, lineno, "unknown setting '%s'", f[1]);
    }
    return 0;
}

/* margin TIER FACTOR [STAGE] */
static int margin_line(rubric *r, char **f, int n, const char *path, int lineno, char *err, size_t errlen)
{
    double v;
    if (n < 3 || parse_number(f[2], &v) || v <= 0)
        return bad_line(err, errlen, path, lineno, "margin needs a tier name and a factor > 0");
    if (r->nmargins == MAX_MARGINS || copy_name(r->margin_tier[r->nmargins], f[1]) ||
        copy_name(r->margin_stage[r->nmargins], n > 3 ? f[3] : ""))
        return bad_line(err, errlen, path, lineno, "too many margins");
    r->margin[r->nmargins++] = v;
    return 0;
}

/* stage (or points) STAGE POINTS [LIMIT_S|-] [ARGS] */
static int stage_line(stage_rubric *s, char **f, int n, const char *path, int lineno, char *err, size_t errlen)
{
    if (n < 3 || parse_points(f[2], &s->correct_points))
        return bad_line(err, errlen, path, lineno, "stage needs its points for correctness (a whole number)");
    if (n >= 4 && strcmp(f[3], "-") && (parse_number(f[3], &s->limit_s) || s->limit_s <= 0))
        return bad_line(err, errlen, path, lineno, "the time limit must be seconds > 0 or -");
    if (n >= 5) {
        if (strlen(f[4]) >= sizeof s->args)
            return bad_line(err, errlen, path, lineno, "arguments too long");
        strcpy(s->args, f[4]);
    }
    return 0;
}

/* tier STAGE NAME POINTS FIELD >=|<= UNIT ADVICE */
static int tier_line(stage_rubric *s, char **f, int n, const char *path, int lineno, char *err, size_t errlen)
{
    if (n < 8)
        return bad_line(err, errlen, path, lineno, "tier needs: stage, name, points, field, >= or <=, unit, advice");
    if (tier_entry(s, f[2]))
        return bad_line(err, errlen, path, lineno, "tier %s of %s is defined twice", f[2], f[1]);
    if (s->ntiers == MAX_TIERS)
        return bad_line(err, errlen, path, lineno, "at most %d tiers per stage", MAX_TIERS);
    tier *t = &s->tiers[s->ntiers];
    memset(t, 0, sizeof *t);
    if (copy_name(t->name, f[2]) || copy_name(t->field, f[4]))
        return bad_line(err, errlen, path, lineno, "name too long");
    if (parse_points(f[3], &t->points))
        return bad_line(err, errlen, path, lineno, "points must be a whole number");
    if (strcmp(f[5], ">=") && strcmp(f[5], "<="))
        return bad_line(err, errlen, path, lineno, "the comparison must be >= or <=");
    t->at_most = !strcmp(f[5], "<=");
    snprintf(t->unit, sizeof t->unit, "%s", strcmp(f[6], "-") ? f[6] : "");
    snprintf(t->advice, sizeof t->advice, "%s", f[7]);
    s->ntiers++;
    return 0;
}

/* threshold STAGE TIER GPU VALUE: a later line for the same GPU wins
 * (calibration appends) */
static int threshold_line(stage_rubric *s, char **f, int n, const char *path, int lineno, char *err, size_t errlen)
{
    if (n < 5)
        return bad_line(err, errlen, path, lineno, "threshold needs: stage, tier, GPU, value");
    tier *t = tier_entry(s, f[2]);
    if (!t)
        return bad_line(err, errlen, path, lineno, "threshold for tier '%s' of %s, which has no tier line above it", f[2], f[1]);
    double v;
    if (parse_number(f[4], &v))
        return bad_line(err, errlen, path, lineno, "'%s' is not a number", f[4]);
    threshold *th = NULL;
    for (int i = 0; i < t->nth; i++)
        if (!strcmp(t->th[i].gpu, f[3]))
            th = &t->th[i];
    if (!th) {
        if (t->nth == MAX_THRESHOLDS)
            return bad_line(err, errlen, path, lineno, "too many GPUs for one tier");
        th = &t->th[t->nth++];
        if (copy_name(th->gpu, f[3]))
            return bad_line(err, errlen, path, lineno, "GPU name too long");
    }
    th->value = v;
    return 0;
}

/* One line of the rubric, to the function for its kind. */
static int rubric_line(rubric *r, char **f, int n, const char *path, int lineno, char *err, size_t errlen)
{
    const char *kind = f[0];
    if (!strcmp(kind, "setting"))
        return setting_line(r, f, n, path, lineno, err, errlen);
    if (!strcmp(kind, "margin"))
        return margin_line(r, f, n, path, lineno, err, errlen);
    if (n < 2)
        return bad_line(err, errlen, path, lineno, "'%s' needs a stage", kind);
    stage_rubric *s = stage_entry(r, f[1], 1);
    if (!s)
        return bad_line(err, errlen, path, lineno, "too many stages, or a stage name too long");
    if (!strcmp(kind, "stage") || !strcmp(kind, "points"))
        return stage_line(s, f, n, path, lineno, err, errlen);
    if (!strcmp(kind, "bonus")) {
        s->bonus = 1;
        return 0;
    }
    if (!strcmp(kind, "barriers")) {
        s->barriers = 1;
        return 0;
    }
    if (!strcmp(kind, "tier"))
        return tier_line(s, f, n, path, lineno, err, errlen);
    if (!strcmp(kind, "threshold"))
        return threshold_line(s, f, n, path, lineno, err, errlen);
    return bad_line(err, errlen, path, lineno, "unknown line kind '%s'", kind);
}

int grader_rubric_read(const char *path, rubric *r, char *err, size_t errlen)
{
    memset(r, 0, sizeof *r);
    snprintf(r->path, sizeof r->path, "%s", path);
    r->limit_s = 60;
    r->sanitize_limit_s = 300;
    r->correct_points = 6;
    strcpy(r->sanitize_args, "--check-only --sizes 17,100 --n 128");
    /* first the rubric's lines of stages.tsv (build/stages.h), then the file */
    static const struct {
        int line;
        const char *text;
    } table[] = {LAB_STAGE_RUBRIC};
    for (size_t i = 0; table[i].text; i++) {
        char copy[2048];
        char *field[8] = {0};
        snprintf(copy, sizeof copy, "%s", table[i].text);
        if (rubric_line(r, field, split_tabs(copy, field, 8), "stages.tsv", table[i].line, err, errlen))
            return -1;
    }
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(err, errlen, "cannot read the rubric %s: %s", path, strerror(errno));
        return -1;
    }
    char *line = NULL;
    size_t cap = 0;
    int lineno = 0, rc = 0;
    while (rc == 0 && getline(&line, &cap, f) > 0) {
        lineno++;
        chomp(line);
        if (line[0] == '#' || line[strspn(line, " \t")] == 0)
            continue;
        char *field[8] = {0};
        int n = split_tabs(line, field, 8);
        if (n > 0)
            rc = rubric_line(r, field, n, path, lineno, err, errlen);
    }
    free(line);
    fclose(f);
    for (int i = 0; i < r->nstages; i++)
        if (r->stages[i].correct_points < 0)
            r->stages[i].correct_points = r->correct_points;
    return rc;
}

const stage_rubric *grader_rubric_stage(const rubric *r, const char *stage)
{
    for (int i = 0; i < r->nstages; i++)
        if (!strcmp(r->stages[i].stage, stage))
            return &r->stages[i];
    return NULL;
}

int grader_rubric_threshold(const tier *t, const char *gpu, double *value, int *is_default)
{
    const threshold *fallback = NULL;
    for (int i = 0; i < t->nth; i++) {
        if (gpu && !strcmp(t->th[i].gpu, gpu)) {
            *value = t->th[i].value;
            *is_default = 0;
            return 0;
        }
        if (!strcmp(t->th[i].gpu, "default"))
            fallback = &t->th[i];
    }
    if (!fallback)
        return -1;
    *value = fallback->value;
    *is_default = 1;
    return 0;
}

double grader_rubric_margin(const rubric *r, const char *stage, const char *tier_name)
{
    double any = 0;
    for (int i = 0; i < r->nmargins; i++)
        if (!strcmp(r->margin_tier[i], tier_name)) {
            if (!strcmp(r->margin_stage[i], stage))
                return r->margin[i];
            if (!r->margin_stage[i][0])
                any = r->margin[i];
        }
    return any;
}

/* ========================================================= calibration */

/* 1 when line is a threshold row of gpu for one of the new thresholds, or
 * the comment that an earlier calibration for gpu wrote above its rows. */
static int replaced(const char *line, const char *gpu, const new_threshold *t, int n)
{
    char marker[NAME_LEN + 32];
    snprintf(marker, sizeof marker, "# calibrated for %s:", gpu);
    if (!strncmp(line, marker, strlen(marker)))
        return 1;
    char copy[1024];
    snprintf(copy, sizeof copy, "%s", line);
    chomp(copy);
    char *f[5];
    if (split_tabs(copy, f, 5) < 5 || strcmp(f[0], "threshold") || strcmp(f[3], gpu))
        return 0;
    for (int i = 0; i < n; i++)
        if (!strcmp(f[1], t[i].stage) && !strcmp(f[2], t[i].tier))
            return 1;
    return 0;
}

int grader_rubric_write_thresholds(const char *path, const char *gpu, const new_threshold *t,
                            int n, const char *comment, char *err, size_t errlen)
{
    FILE *in = fopen(path, "r");
    if (!in) {
        snprintf(err, errlen, "cannot read %s: %s", path, strerror(errno));
        return -1;
    }
    char tmp[600];
    snprintf(tmp, sizeof tmp, "%s.new", path);
    FILE *out = fopen(tmp, "w");
    if (!out) {
        snprintf(err, errlen, "cannot write %s: %s", tmp, strerror(errno));
        fclose(in);
        return -1;
    }
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    int last_blank = 0;
    while ((len = getline(&line, &cap, in)) > 0) {
        if (replaced(line, gpu, t, n))
            continue;
        fwrite(line, 1, (size_t)len, out);
        last_blank = line[0] == '\n';
        if (line[len - 1] != '\n')
            fputc('\n', out);
    }
    free(line);
    fclose(in);
    if (!last_blank)
        fputc('\n', out);
    fprintf(out, "# calibrated for %s: %s\n", gpu, comment);
    for (int i = 0; i < n; i++)
        fprintf(out, "threshold\t%s\t%s\t%s\t%.3g\n", t[i].stage, t[i].tier, gpu, t[i].value);
    if (fclose(out) || rename(tmp, path)) {
        snprintf(err, errlen, "cannot replace %s: %s", path, strerror(errno));
        return -1;
    }
    return 0;
}
