/*
 * args.c: the command-line options every driver shares.
 */
#include "lab.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Read one whole number >= 1 from [s, end); 0 on success. */
static int parse_count(const char *s, const char *end, long long *out)
{
    if (s == end || *s < '0' || *s > '9')
        return -1;
    long long v = 0;
    for (; s < end; s++) {
        if (*s < '0' || *s > '9')
            return -1;
        if (v > (1LL << 40))
            return -1; /* far beyond any GPU's memory; also stops overflow */
        v = v * 10 + (*s - '0');
    }
    if (v < 1)
        return -1;
    *out = v;
    return 0;
}

int lab_parse_dims(const char *text, int allow_2d, lab_dims *out, char *err,
                   size_t errlen)
{
    const char *end = text + strlen(text);
    const char *x = strchr(text, 'x');
    lab_dims d;
    if (x && allow_2d) {
        if (parse_count(text, x, &d.rows) || parse_count(x + 1, end, &d.cols)) {
            snprintf(err, errlen, "'%s' is not a size: expected ROWSxCOLS with both >= 1", text);
            return -1;
        }
    } else {
        if (parse_count(text, end, &d.rows)) {
            snprintf(err, errlen, "'%s' is not a size: expected a whole number >= 1%s",
                     text, allow_2d ? " or ROWSxCOLS" : "");
            return -1;
        }
        d.cols = allow_2d ? d.rows : 1;
    }
    *out = d;
    return 0;
}

int lab_parse_sizes(const char *list, int allow_2d, lab_dims *sizes, int *nsizes,
                    char *err, size_t errlen)
{
    char buf[512];
    if (strlen(list) >= sizeof buf) {
        snprintf(err, errlen, "--sizes list is too long");
        return -1;
    }
    strcpy(buf, list);
    *nsizes = 0;
    for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
        if (*nsizes == LAB_MAX_SIZES) {
            snprintf(err, errlen, "--sizes takes at most %d sizes", LAB_MAX_SIZES);
            return -1;
        }
        if (lab_parse_dims(tok, allow_2d, &sizes[*nsizes], err, errlen))
            return -1;
        (*nsizes)++;
    }
    if (*nsizes == 0) {
        snprintf(err, errlen, "--sizes needs at least one size");
        return -1;
    }
    return 0;
}

/* Parse a non-negative number for --budget-ms. */
static int parse_double(const char *s, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || *end || !(v >= 0))
        return -1;
    *out = v;
    return 0;
}

/* The options that take a value: 1 when opt is one. */
static int takes_value(const char *opt)
{
    static const char *const with_value[] = {"--n", "--sizes", "--seed", "--json", "--record-fd",
                                             "--progress-fd", "--budget-ms", "--baseline-ms", "--baseline-at"};
    for (size_t i = 0; i < sizeof with_value / sizeof with_value[0]; i++)
        if (!strcmp(opt, with_value[i]))
            return 1;
    return 0;
}

/* One option that takes a value, val: 0, or -1 with why in err. */
static int option_value(const char *opt, const char *val, int allow_2d, lab_args *a, char *err, size_t errlen)
{
    if (!strcmp(opt, "--n")) {
        a->have_timing = 1;
        return lab_parse_dims(val, allow_2d, &a->timing, err, errlen);
    }
    if (!strcmp(opt, "--sizes")) {
        a->have_sizes = 1;
        return lab_parse_sizes(val, allow_2d, a->sizes, &a->nsizes, err, errlen);
    }
    if (!strcmp(opt, "--seed")) {
        char *end;
        errno = 0;
        unsigned long long s = strtoull(val, &end, 0);
        if (errno || end == val || *end || *val == '-') {
            snprintf(err, errlen, "--seed '%s' is not a whole number >= 0", val);
            return -1;
        }
        a->seed = s;
        a->have_seed = 1;
    } else if (!strcmp(opt, "--json")) {
        a->json_path = val;
    } else if (!strcmp(opt, "--record-fd") || !strcmp(opt, "--progress-fd")) {
        long long fd;
        if (parse_count(val, val + strlen(val), &fd) || fd < 3 || fd > 1024) {
            snprintf(err, errlen, "%s '%s' must be a descriptor from 3 to 1024", opt, val);
            return -1;
        }
        *(!strcmp(opt, "--record-fd") ? &a->record_fd : &a->progress_fd) = (int)fd;
    } else if (!strcmp(opt, "--budget-ms")) {
        a->have_budget = 1;
        if (parse_double(val, &a->budget_ms)) {
            snprintf(err, errlen, "--budget-ms '%s' is not a number >= 0", val);
            return -1;
        }
    } else if (!strcmp(opt, "--baseline-ms")) {
        if (parse_double(val, &a->baseline_ms) || !(a->baseline_ms > 0)) {
            snprintf(err, errlen, "--baseline-ms '%s' is not a number > 0", val);
            return -1;
        }
    } else {
        a->baseline_at = val; /* --baseline-at */
    }
    return 0;
}

/* What the options say together, the environment's experiments, and the
 * seed when none was given: 0, or -1 with why in err. */
static int settle_args(lab_args *a, char *err, size_t errlen)
{
    if (a->record_fd >= 0 && a->record_fd == a->progress_fd) {
        snprintf(err, errlen, "--record-fd and --progress-fd must be different descriptors (both %d)",
                 a->record_fd);
        return -1;
    }
    if ((a->baseline_ms > 0) != (a->baseline_at != NULL)) {
        snprintf(err, errlen, "--baseline-ms and --baseline-at go together");
        return -1;
    }
    const char *rse = getenv("LAB_JUDGE_RSE");
    if (rse && *rse && (parse_double(rse, &a->judge_rse) || !(a->judge_rse > 0))) {
        snprintf(err, errlen, "LAB_JUDGE_RSE '%s' is not a number > 0 (0.01: stop at 1%%)", rse);
        return -1;
    }
    a->judge_trace = getenv("LAB_JUDGE_TRACE") != NULL;
    if (!a->have_seed) {
        /* a fresh seed each run, printed, so that any run can be repeated */
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        a->seed = (uint64_t)ts.tv_sec * 1000003ULL + (uint64_t)ts.tv_nsec / 1000;
        a->seed %= 1000000007ULL;
    }
    return 0;
}

int lab_parse_args(int argc, char **argv, int allow_2d, lab_args *a, char *err,
                   size_t errlen)
{
    memset(a, 0, sizeof *a);
    a->record_fd = -1;
    a->progress_fd = -1;
    for (int i = 1; i < argc; i++) {
        const char *opt = argv[i];
        if (takes_value(opt)) {
            if (i + 1 >= argc) {
                snprintf(err, errlen, "%s needs a value", opt);
                return -1;
            }
            if (option_value(opt, argv[++i], allow_2d, a, err, errlen))
                return -1;
        } else if (!strcmp(opt, "--help") || !strcmp(opt, "-h")) {
            a->help = 1;
        } else if (!strcmp(opt, "--check-only")) {
            a->check_only = 1;
        } else if (!strcmp(opt, "--print-policy")) {
            a->print_policy = 1;
        } else if (!strcmp(opt, "--quiet")) {
            a->quiet = 1;
        } else if (!strcmp(opt, "--profile")) {
            a->profile = 1;
        } else {
            snprintf(err, errlen, "unknown option '%s' (try --help)", opt);
            return -1;
        }
    }
    return settle_args(a, err, errlen);
}

void lab_print_usage(FILE *out, const char *prog, const char *family_help)
{
    fprintf(out,
            "usage: %s [options]\n"
            "%s"
            "  --sizes LIST     sizes checked before timing, comma-separated\n"
            "  --seed S         seed of the random inputs (default: new each run)\n"
            "  --check-only     check correctness, skip timing\n"
            "  --budget-ms MS   kernel time spent timing each kernel (default 1000;\n"
            "                   the timing policy's, common/policy.c)\n"
            "  --baseline-ms MS --baseline-at SIZE\n"
            "                   the naive baseline took MS a call at SIZE (n=4096), timed\n"
            "                   earlier in the same grade: not timed again (the grader's;\n"
            "                   matrix products only)\n"
            "  --json FILE      write the machine-readable record to FILE\n"
            "  --record-fd FD   write the record to descriptor FD (used by the grader)\n"
            "  --progress-fd FD write one line per phase to descriptor FD as it begins\n"
            "                   (check n=17, checks passed, timing ..., done; the grader's)\n"
            "  --quiet          print only the summary\n"
            "  --print-policy   print the timing policy these options give, one setting\n"
            "                   a line, and end (no GPU needed)\n"
            "  --profile        after the checks, run one call at the timed size inside\n"
            "                   cudaProfilerStart/Stop and skip timing (for make profile)\n"
            "exit status: 0 ok, 1 wrong result, 2 usage, 3 no GPU, 4 CUDA error,\n"
            "             5 out of GPU memory\n",
            prog, family_help);
}

int lab_print_asked(FILE *out, const lab_args *a, const char *prog, const char *family_help)
{
    if (a->help) {
        lab_print_usage(out, prog, family_help);
    } else if (a->print_policy) {
        lab_timing_policy p;
        lab_policy_fill(&p, a);
        lab_policy_print(out, &p);
    }
    return a->help || a->print_policy;
}
