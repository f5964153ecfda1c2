/*
 * measure.c: one program under Nsight Compute (ncu), with --profile: its
 * checks first, then one call of the kernel between cudaProfilerStart and
 * cudaProfilerStop, the only part ncu measures (--profile-from-start off):
 * not cuBLAS, not the fills, not the baseline. And why a run gave no
 * counters, in words.
 */
#include "profile.h"
#include "spawn.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Run argv, its stdout and stderr where out and err say (stdout a pipe:
 * into *text); c_locale: LC_ALL=C, so that numbers come with a decimal
 * point. */
static void run_tool(char *const argv[], lab_io out, lab_io err, int c_locale, char **text)
{
    char *c[] = {"LC_ALL=C", NULL};
    lab_spawn s = {.argv = argv, .who = "profile", .out = out, .err = err, .env_set = c_locale ? c : NULL};
    lab_spawn_run(&s, text, 1u << 20, NULL);
}

char *profile_ncu_version(const char *ncu)
{
    char *argv[] = {(char *)ncu, "--version", NULL}, *text = NULL, *version = NULL;
    run_tool(argv, (lab_io){LAB_IO_PIPE, NULL}, (lab_io){LAB_IO_NULL, NULL}, 0, &text);
    /* the second word of the first line that says "Version" */
    for (char *save = NULL, *line = text ? strtok_r(text, "\n", &save) : NULL; line && !version;
         line = strtok_r(NULL, "\n", &save))
        if (strstr(line, "Version")) {
            char *rest = NULL, *word = strtok_r(line, " \t", &rest);
            word = word ? strtok_r(NULL, " \t", &rest) : NULL;
            version = lab_strdup(word ? word : "");
        }
    free(text);
    return version ? version : lab_strdup("");
}

/* An ncu that does not know an optional metric refuses them all. */
static int unknown_metric(const char *log)
{
    int n, found = 0;
    char **lines = lab_file_lines(log, &n);
    for (int i = 0; i < n && !found; i++) {
        for (char *p = lines[i]; *p; p++)
            *p = (char)tolower((unsigned char)*p);
        const char *m = strstr(lines[i], "metric");
        found = strstr(lines[i], "failed to find metric") ||
                (m && (strstr(m + 6, "not found") || strstr(m + 6, "not supported") ||
                       strstr(m + 6, "not available")));
    }
    lab_list_free(lines);
    return found;
}

/* ncu on bin; its output and the program's in log. */
static void run_ncu(const struct profiler *p, const char *bin, const char *base, const char *metrics,
                    const char *log, const char *json)
{
    int nargs = 0;
    while (p->driver_args[nargs])
        nargs++;
    char **argv = lab_alloc((size_t)(nargs + 16) * sizeof *argv);
    int a = 0;
    /* clocks locked to base (ncu's default, said here so that the report's
     * note holds whatever a config file says) */
    const char *fixed[] = {p->ncu, "--profile-from-start", "off", "--clock-control", "base",
                           "--metrics", metrics, "--export", base, "--force-overwrite", bin,
                           "--profile", "--json", json};
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
        argv[a++] = (char *)fixed[i];
    for (int i = 0; i < nargs; i++)
        argv[a++] = p->driver_args[i];
    argv[a] = NULL;
    run_tool(argv, (lab_io){LAB_IO_FILE, log}, (lab_io){LAB_IO_STDOUT, NULL}, 0, NULL);
    free(argv);
}

int profile_measure(const struct profiler *p, const char *bin, const char *name, struct kv *t)
{
    char *base = lab_asprintf("%s/%s", p->out, name);
    char *log = lab_asprintf("%s.log", base), *json = lab_asprintf("%s.json", base);
    char *rep = lab_asprintf("%s.ncu-rep", base), *csv = lab_asprintf("%s.csv", base);
    char *tsv = lab_asprintf("%s.tsv", base);
    jvalue *record = NULL;
    int code = MEASURED;
    unlink(log), unlink(json), unlink(rep), unlink(csv), unlink(tsv);

    const char *asked = p->metrics;
    for (;;) {
        run_ncu(p, bin, base, asked, log, json);
        if (!strcmp(asked, p->base_metrics) || profile_nonempty(rep) || !unknown_metric(log))
            break;
        /* asked again without the optional ones (the access width then
         * comes from the stage) */
        asked = p->base_metrics;
    }
    char err[256];
    record = lab_json_read(json, 0, err, sizeof err);
    double status;
    if (profile_file_has(log, "ERR_NVGPUCTRPERM"))
        code = RESTRICTED;
    else if (lab_json_number_at(record, "exit_status", &status))
        code = profile_file_has(log, "no usable CUDA GPU") ? NO_GPU : PROGRAM_FAILED;
    else if (status == 3)
        code = NO_GPU;
    else if (status != 0)
        code = PROGRAM_FAILED;
    else if (!profile_nonempty(rep))
        code = NOTHING_MEASURED;
    if (code != MEASURED)
        goto done;

    char *argv[] = {(char *)p->ncu, "--import", rep, "--csv", "--page", "raw", "--print-units", "base", NULL};
    run_tool(argv, (lab_io){LAB_IO_FILE, csv}, (lab_io){LAB_IO_APPEND, log}, 1, NULL);
    FILE *f = fopen(csv, "r");
    if (f) {
        profile_summarize(f, t);
        fclose(f);
    } else {
        profile_kv_set(t, "launches", "0");
    }
    static const char *const from_record[][2] = {{"gpu", "gpu.name"}, {"size", "profiled_size"}, {"knob", "knob"}};
    for (size_t i = 0; i < sizeof from_record / sizeof from_record[0]; i++) {
        const char *v = lab_json_string_at(record, from_record[i][1]);
        profile_kv_set(t, from_record[i][0], v ? v : "");
    }
    profile_kv_set(t, "ncu", p->ncu_version);
    f = fopen(tsv, "w");
    if (f) {
        profile_kv_write(t, f);
        fclose(f);
    }
    if (strtol(profile_kv_get(t, "launches"), NULL, 10) <= 0)
        code = NOTHING_MEASURED;
done:
    lab_json_free(record);
    free(base), free(log), free(json), free(rep), free(csv), free(tsv);
    return code;
}

/* Print the lines of path that start (or, keep 0, do not start) with one of
 * the prefixes: the first max of them (first) or the last max. */
static void quote_log(const char *path, const char *const *prefixes, int keep, int max, int first)
{
    int n, picked = 0;
    char **lines = lab_file_lines(path, &n);
    int *pick = lab_alloc((size_t)(n + 1) * sizeof *pick);
    for (int i = 0; i < n; i++) {
        int starts = 0;
        for (const char *const *p = prefixes; *p; p++)
            starts |= !strncmp(lines[i], *p, strlen(*p));
        if (starts == keep)
            pick[picked++] = i;
    }
    int from = first ? 0 : (picked > max ? picked - max : 0);
    int to = first && picked > max ? max : picked;
    for (int i = from; i < to; i++)
        printf("  %s\n", lines[pick[i]]);
    free(pick);
    lab_list_free(lines);
}

void profile_explain(const struct profiler *p, int code, const char *bin, const char *name, const char *ex)
{
    char *log = lab_asprintf("%s/%s.log", p->out, name), *json = lab_asprintf("%s/%s.json", p->out, name);
    static const char *const tool_lines[] = {"==", NULL};
    static const char *const warnings[] = {"==ERROR==", "==WARNING==", NULL};
    if (code == RESTRICTED) {
        printf("hardware counters: skipped, this machine lets only administrators read the GPU's "
               "performance counters (ERR_NVGPUCTRPERM); an administrator can allow all users (nvidia "
               "module option NVreg_RestrictProfilingToAdminUsers=0) or run ncu as root / with "
               "CAP_SYS_ADMIN\n");
    } else if (code == PROGRAM_FAILED) {
        char err[256];
        jvalue *record = lab_json_read(json, 0, err, sizeof err);
        const char *message = lab_json_string_at(record, "message");
        printf("hardware counters: nothing to profile, %s failed (%s); make it pass its checks first: "
               "make run EX=%s\n", bin, message && message[0] ? message : "it ended without a record", ex);
        lab_json_free(record);
        if (!p->brief) {
            quote_log(log, tool_lines, 0, 15, 0);
            printf("(the whole output: %s)\n", log);
        }
    } else if (code == NO_GPU) {
        printf("hardware counters: no usable CUDA GPU here; run on a machine with an NVIDIA GPU\n");
    } else if (code == NOTHING_MEASURED) {
        printf("hardware counters: ncu measured no kernel in the profiled call of %s\n", bin);
        if (!p->brief) {
            quote_log(log, warnings, 1, 5, 1);
            printf("(the whole output: %s)\n", log);
        }
    }
    free(log);
    free(json);
}
