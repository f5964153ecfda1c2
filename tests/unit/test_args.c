/* test_args.c: sizes and options as the drivers parse them. */
#include <stdlib.h>
#include <string.h>

#include "lab.h"
#include "unit.h"

/* Parse a NULL-terminated list of words as a command line. */
static int parse(int allow_2d, lab_args *a, char *err, const char **words)
{
    char *argv[32] = {(char *)"prog"};
    int argc = 1;
    while (*words)
        argv[argc++] = (char *)*words++;
    return lab_parse_args(argc, argv, allow_2d, a, err, 256);
}

void test_args(void)
{
    char err[256];
    lab_dims d;
    CHECK(lab_parse_dims("17", 0, &d, err, sizeof err) == 0 && d.rows == 17 && d.cols == 1);
    CHECK(lab_parse_dims("17", 1, &d, err, sizeof err) == 0 && d.rows == 17 && d.cols == 17);
    CHECK(lab_parse_dims("33x65", 1, &d, err, sizeof err) == 0 && d.rows == 33 && d.cols == 65);
    CHECK(lab_parse_dims("33x65", 0, &d, err, sizeof err) == -1);
    CHECK(lab_parse_dims("0", 0, &d, err, sizeof err) == -1);
    CHECK(strstr(err, "'0' is not a size") != NULL);
    CHECK(lab_parse_dims("-3", 0, &d, err, sizeof err) == -1);
    CHECK(lab_parse_dims("12x", 1, &d, err, sizeof err) == -1);
    CHECK(lab_parse_dims("x12", 1, &d, err, sizeof err) == -1);
    CHECK(lab_parse_dims("", 0, &d, err, sizeof err) == -1);
    CHECK(lab_parse_dims("4k", 0, &d, err, sizeof err) == -1);
    CHECK(lab_parse_dims("99999999999999999999999", 0, &d, err, sizeof err) == -1);

    lab_args a;
    const char *ok[] = {"--n", "2048", "--sizes", "1,17,1025", "--seed", "42", "--check-only",
                        "--json", "out.json", "--record-fd", "3", "--budget-ms", "250", NULL};
    CHECK(parse(0, &a, err, ok) == 0);
    CHECK(a.have_timing && a.timing.rows == 2048);
    CHECK(a.nsizes == 3 && a.sizes[2].rows == 1025);
    CHECK(a.have_seed && a.seed == 42);
    CHECK(a.check_only && a.record_fd == 3 && a.budget_ms == 250.0);
    CHECK(strcmp(a.json_path, "out.json") == 0);

    const char *none[] = {NULL};
    CHECK(parse(0, &a, err, none) == 0 && !a.have_seed && a.record_fd == -1 && !a.have_budget);

    CHECK(!a.profile);
    const char *profile[] = {"--profile", "--n", "512", NULL};
    CHECK(parse(0, &a, err, profile) == 0 && a.profile && !a.check_only && a.timing.rows == 512);

    const char *unknown[] = {"--fast", NULL};
    CHECK(parse(0, &a, err, unknown) == -1 && strstr(err, "unknown option '--fast'"));
    const char *missing[] = {"--n", NULL};
    CHECK(parse(0, &a, err, missing) == -1 && strstr(err, "--n needs a value"));
    const char *stdout_fd[] = {"--record-fd", "1", NULL};
    CHECK(parse(0, &a, err, stdout_fd) == -1);
    CHECK(parse(0, &a, err, none) == 0 && a.progress_fd == -1);
    const char *progress[] = {"--record-fd", "3", "--progress-fd", "4", NULL};
    CHECK(parse(0, &a, err, progress) == 0 && a.record_fd == 3 && a.progress_fd == 4);
    const char *progress_stderr[] = {"--progress-fd", "2", NULL};
    CHECK(parse(0, &a, err, progress_stderr) == -1 && strstr(err, "--progress-fd '2' must be a descriptor"));
    const char *same_fd[] = {"--record-fd", "3", "--progress-fd", "3", NULL};
    CHECK(parse(0, &a, err, same_fd) == -1 && strstr(err, "must be different descriptors"));
    const char *neg_seed[] = {"--seed", "-5", NULL};
    CHECK(parse(0, &a, err, neg_seed) == -1);
    const char *neg_budget[] = {"--budget-ms", "-1", NULL};
    CHECK(parse(0, &a, err, neg_budget) == -1);
    const char *baseline[] = {"--baseline-ms", "421.5", "--baseline-at", "n=4096", NULL};
    CHECK(parse(0, &a, err, baseline) == 0 && a.baseline_ms == 421.5 && !strcmp(a.baseline_at, "n=4096"));
    CHECK(parse(0, &a, err, none) == 0 && a.baseline_ms == 0 && a.baseline_at == NULL);
    const char *baseline_alone[] = {"--baseline-ms", "421.5", NULL};
    CHECK(parse(0, &a, err, baseline_alone) == -1 && strstr(err, "go together"));
    const char *baseline_zero[] = {"--baseline-ms", "0", "--baseline-at", "n=4096", NULL};
    CHECK(parse(0, &a, err, baseline_zero) == -1 && strstr(err, "not a number > 0"));
    const char *bad_list[] = {"--sizes", "1,,x", NULL};
    CHECK(parse(0, &a, err, bad_list) == -1);
    const char *shape[] = {"--n", "1000x33", "--sizes", "1x1,31x33", NULL};
    CHECK(parse(1, &a, err, shape) == 0 && a.timing.cols == 33 && a.sizes[1].rows == 31);

    /* the timing's experiments come from the environment, read here only */
    setenv("LAB_JUDGE_RSE", "0.004", 1);
    setenv("LAB_JUDGE_TRACE", "1", 1);
    CHECK(parse(0, &a, err, none) == 0 && a.judge_rse == 0.004 && a.judge_trace == 1);
    setenv("LAB_JUDGE_RSE", "tight", 1);
    CHECK(parse(0, &a, err, none) == -1 && strstr(err, "LAB_JUDGE_RSE 'tight' is not a number > 0"));
    setenv("LAB_JUDGE_RSE", "", 1); /* set but empty: the policy's */
    unsetenv("LAB_JUDGE_TRACE");
    CHECK(parse(0, &a, err, none) == 0 && a.judge_rse == 0 && a.judge_trace == 0);
    unsetenv("LAB_JUDGE_RSE");

    /* the timing policy (policy.c): the defaults, then the arguments in
     * order (the rubric's, the stage line's, the command line's), the last
     * --budget-ms winning; LAB_JUDGE_RSE sets the relative standard error */
    lab_timing_policy p;
    CHECK(parse(0, &a, err, none) == 0);
    lab_policy_fill(&p, &a);
    CHECK(p.budget_ms == 1000 && p.target_rse == 0.01 && p.min_trials == 10 && p.max_batch == LAB_MAX_BATCH);
    const char *budgets[] = {"--budget-ms", "300", "--budget-ms", "50", NULL};
    CHECK(parse(0, &a, err, budgets) == 0);
    lab_policy_fill(&p, &a);
    CHECK(p.budget_ms == 50 && p.target_rse == 0.01);
    const char *no_budget[] = {"--budget-ms", "0", NULL};
    CHECK(parse(0, &a, err, no_budget) == 0);
    lab_policy_fill(&p, &a);
    CHECK(p.budget_ms == 0);
    setenv("LAB_JUDGE_RSE", "0.004", 1);
    CHECK(parse(0, &a, err, none) == 0);
    lab_policy_fill(&p, &a);
    CHECK(p.target_rse == 0.004 && p.budget_ms == 1000);
    unsetenv("LAB_JUDGE_RSE");
}
