/*
 * summary.c: Nsight Compute's raw page made a summary of one profiled call,
 * one "key<TAB>value" a line, as
 *
 *   ncu --import R.ncu-rep --csv --page raw --print-units base
 *
 * prints it. The page is CSV: a row of column names ("ID", "Process ID", ...,
 * "Kernel Name", ..., "Block Size", "Grid Size", "Device", "CC", then one
 * column per metric), a row of units (empty under the fixed columns), then
 * one row per kernel launch. Every field is quoted; a field may hold commas
 * (template arguments, thousands separators in numbers) and doubled quotes.
 * Columns are found by name, never by position. Lines that are not CSV rows
 * (==PROF== messages, the program's own output) are skipped.
 *
 * Every launch in the page belongs to the one profiled call (a call may
 * launch several kernels): counts are summed over the launches, occupancy
 * and DRAM throughput are averaged weighted by each launch's time, and the
 * launch configuration (block, grid, registers, shared memory) is that of
 * the longest launch.
 */
#include "profile.h"

#include <stdlib.h>
#include <string.h>

/* How a metric is gathered over the launches of one call. */
enum { COUNT, RATE, LAUNCH };

/* our name, ncu's; "optional" ones are left out when this ncu does not know
 * them. The bytes the threads asked for give, per request, the access width
 * (a warp of 4-byte loads asks for 128, of float4 loads 512). */
static const struct metric {
    const char *key, *ncu;
    int how, optional;
} metrics[] = {
    {"gld_sectors", "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", COUNT, 0},
    {"gld_requests", "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", COUNT, 0},
    {"gst_sectors", "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum", COUNT, 0},
    {"gst_requests", "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum", COUNT, 0},
    {"gld_bytes", "sm__sass_data_bytes_mem_global_op_ld.sum", COUNT, 1},
    {"gst_bytes", "sm__sass_data_bytes_mem_global_op_st.sum", COUNT, 1},
    {"shld_wavefronts", "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum", COUNT, 0},
    {"shld_inst", "smsp__sass_inst_executed_op_shared_ld.sum", COUNT, 0},
    {"shld_conflicts", "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum", COUNT, 0},
    {"shst_wavefronts", "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum", COUNT, 0},
    {"shst_inst", "smsp__sass_inst_executed_op_shared_st.sum", COUNT, 0},
    {"shst_conflicts", "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum", COUNT, 0},
    {"time_ns", "gpu__time_duration.sum", COUNT, 0},
    {"occupancy", "sm__warps_active.avg.pct_of_peak_sustained_active", RATE, 0},
    {"dram", "dram__throughput.avg.pct_of_peak_sustained_elapsed", RATE, 0},
    {"theoretical", "sm__maximum_warps_per_active_cycle_pct", LAUNCH, 0},
    {"registers", "launch__registers_per_thread", LAUNCH, 0},
    {"smem_static", "launch__shared_mem_per_block_static", LAUNCH, 0},
    {"smem_dynamic", "launch__shared_mem_per_block_dynamic", LAUNCH, 0},
    {"threads", "launch__block_size", LAUNCH, 0},
    {"blocks", "launch__grid_size", LAUNCH, 0},
};
enum { NMETRICS = sizeof metrics / sizeof metrics[0] };

char *profile_metric_list(int base)
{
    size_t len = 1;
    for (int m = 0; m < NMETRICS; m++)
        len += strlen(metrics[m].ncu) + 1;
    char *text = lab_alloc(len);
    text[0] = '\0';
    for (int m = 0; m < NMETRICS; m++) {
        if (base && metrics[m].optional)
            continue;
        if (text[0])
            strcat(text, ",");
        strcat(text, metrics[m].ncu);
    }
    return text;
}

/* The fields of the last row read. A row shorter than an earlier one leaves
 * the earlier one's fields beyond its end, as awk's split into the same
 * array does; a column past every row is "". */
struct row {
    int n, cap;
    char **f;
};

static const char *field(const struct row *r, int i)
{
    return i >= 0 && i < r->cap && r->f[i] ? r->f[i] : "";
}

static void set_field(struct row *r, int i, char *text)
{
    if (i >= r->cap) {
        int cap = r->cap ? 2 * r->cap : 64;
        while (cap <= i)
            cap *= 2;
        char **f = lab_grow(r->f, (size_t)cap * sizeof *f);
        memset(f + r->cap, 0, (size_t)(cap - r->cap) * sizeof *f);
        r->f = f;
        r->cap = cap;
    }
    free(r->f[i]);
    r->f[i] = text;
}

/* Split one CSV line into r; quotes group, "" is a quote. */
static void split_csv(const char *line, struct row *r)
{
    size_t len = strlen(line), o = 0;
    char *text = lab_alloc(len + 1);
    int quoted = 0;
    r->n = 0;
    for (size_t i = 0; i <= len; i++) {
        char c = line[i];
        if (c == '\0' || (!quoted && c == ',')) {
            text[o] = '\0';
            set_field(r, r->n++, lab_strdup(text));
            o = 0;
        } else if (quoted && c == '"' && line[i + 1] == '"') {
            text[o++] = '"';
            i++;
        } else if (c == '"') {
            quoted = !quoted;
        } else {
            text[o++] = c;
        }
    }
    free(text);
}

/* The value of a metric field in base units; 0 when it is not a number
 * ("n/a"). Thousands separators are dropped. --print-units base should leave
 * no prefixed units; if ncu scaled one anyway (Ksector, Mbyte/block,
 * usecond), it is scaled back, decimal as ncu prints them. */
static int value(const char *field_text, const char *unit, double *v)
{
    size_t len = strlen(field_text), o = 0;
    char *text = lab_alloc(len + 1);
    for (size_t i = 0; i < len; i++)
        if (field_text[i] != ',')
            text[o++] = field_text[i];
    text[o] = '\0';
    /* a leading point is a number here (".5"), unlike the report's: read
     * as "0.5" */
    const char *s = text + (text[0] == '+' || text[0] == '-');
    int ok = profile_is_number(text);
    if (!ok && s[0] == '.' && s[1] >= '0' && s[1] <= '9') {
        char *zero = lab_asprintf("0%s", s);
        ok = profile_is_number(zero);
        free(zero);
    }
    if (ok)
        *v = strtod(text, NULL);
    free(text);
    if (!ok)
        return 0;
    int lower = unit[0] && unit[1] >= 'a' && unit[1] <= 'z';
    if (!strcmp(unit, "usecond") || !strcmp(unit, "us"))
        *v *= 1e3;
    else if (!strcmp(unit, "msecond") || !strcmp(unit, "ms"))
        *v *= 1e6;
    else if (!strcmp(unit, "second") || !strcmp(unit, "s"))
        *v *= 1e9;
    else if (unit[0] == 'K' && lower)
        *v *= 1e3;
    else if (unit[0] == 'M' && lower)
        *v *= 1e6;
    else if (unit[0] == 'G' && lower)
        *v *= 1e9;
    return 1;
}

/* What the launches add up to. */
struct sums {
    long launches;
    double best_time;
    char *kernel, *block, *grid;
    int seen[NMETRICS], has_total[NMETRICS];
    double total[NMETRICS], weighted[NMETRICS], weight[NMETRICS], plain[NMETRICS];
    long count[NMETRICS];
};

static int metric_index(const char *key)
{
    for (int m = 0; m < NMETRICS; m++)
        if (!strcmp(metrics[m].key, key))
            return m;
    return -1;
}

/* ncu's column of name in the header (the last one of that name), or -1 */
static int column(const struct kv *columns, const char *name)
{
    return profile_kv_has(columns, name) ? atoi(profile_kv_get(columns, name)) : -1;
}

static void add_launch(struct sums *s, const struct row *r, const struct kv *columns,
                       const struct row *units)
{
    double t = 0;
    int c = column(columns, "gpu__time_duration.sum");
    if (c < 0 || !value(field(r, c), field(units, c), &t))
        t = 0;
    int longest = ++s->launches == 1 || t > s->best_time;
    if (longest) {
        s->best_time = t;
        free(s->kernel);
        free(s->block);
        free(s->grid);
        s->kernel = lab_strdup(field(r, column(columns, "Kernel Name")));
        s->block = lab_strdup(field(r, column(columns, "Block Size")));
        s->grid = lab_strdup(field(r, column(columns, "Grid Size")));
    }
    for (int m = 0; m < NMETRICS; m++) {
        double v;
        c = column(columns, metrics[m].ncu);
        if (c < 0 || !value(field(r, c), field(units, c), &v))
            continue;
        s->seen[m] = 1;
        if (metrics[m].how == COUNT) {
            s->total[m] += v;
        } else if (metrics[m].how == RATE) {
            s->weighted[m] += v * t;
            s->weight[m] += t;
            s->plain[m] += v;
            s->count[m]++;
        } else if (longest || !s->has_total[m]) {
            s->total[m] = v;
            s->has_total[m] = 1;
        }
    }
}

/* key: the value text, tabs and newlines made spaces */
static void emit(struct kv *t, const char *key, const char *text)
{
    char *clean = lab_strdup(text);
    for (char *p = clean; *p; p++)
        if (*p == '\t' || *p == '\n')
            *p = ' ';
    profile_kv_set(t, key, clean);
    free(clean);
}

static void emitf(struct kv *t, const char *key, const char *fmt, double v)
{
    char buf[64];
    snprintf(buf, sizeof buf, fmt, v);
    emit(t, key, buf);
}

/* sectors per request, wavefronts per instruction: "none" when there were
 * no requests or instructions of that kind at all */
static void ratio(struct kv *t, const struct sums *s, const char *key, const char *num, const char *den)
{
    int a = metric_index(num), b = metric_index(den);
    if (!s->seen[a] || !s->seen[b])
        return;
    if (s->total[b] > 0)
        emitf(t, key, "%.2f", s->total[a] / s->total[b]);
    else
        emit(t, key, "none");
}

static void count_of(struct kv *t, const struct sums *s, const char *key)
{
    int m = metric_index(key);
    if (s->seen[m])
        emitf(t, key, "%.0f", s->total[m]);
}

static void finish(struct kv *t, struct sums *s)
{
    char buf[32];
    snprintf(buf, sizeof buf, "%ld", s->launches);
    emit(t, "launches", buf);
    if (s->launches == 0)
        return;
    emit(t, "kernel", s->kernel);
    int threads = metric_index("threads"), blocks = metric_index("blocks");
    if (!s->block[0] && s->seen[threads])
        emitf(t, "block", "%.0f", s->total[threads]);
    else if (s->block[0])
        emit(t, "block", s->block);
    if (!s->grid[0] && s->seen[blocks])
        emitf(t, "grid", "%.0f", s->total[blocks]);
    else if (s->grid[0])
        emit(t, "grid", s->grid);
    ratio(t, s, "gld_spr", "gld_sectors", "gld_requests");
    ratio(t, s, "gst_spr", "gst_sectors", "gst_requests");
    ratio(t, s, "shld_wpi", "shld_wavefronts", "shld_inst");
    ratio(t, s, "shst_wpi", "shst_wavefronts", "shst_inst");
    ratio(t, s, "gld_bpr", "gld_bytes", "gld_requests");
    ratio(t, s, "gst_bpr", "gst_bytes", "gst_requests");
    /* conflicts per instruction: with wavefronts per instruction, what part
     * of the wavefronts conflicts cost and what part the access width needs */
    ratio(t, s, "shld_cpi", "shld_conflicts", "shld_inst");
    ratio(t, s, "shst_cpi", "shst_conflicts", "shst_inst");
    count_of(t, s, "shld_conflicts");
    count_of(t, s, "shst_conflicts");
    for (int m = 0; m < NMETRICS; m++)
        if (metrics[m].how == RATE && s->seen[m])
            emitf(t, metrics[m].key, "%.1f",
                  s->weight[m] > 0 ? s->weighted[m] / s->weight[m] : s->plain[m] / (double)s->count[m]);
    int theo = metric_index("theoretical");
    if (s->seen[theo])
        emitf(t, "theoretical", "%.1f", s->total[theo]);
    count_of(t, s, "registers");
    int st = metric_index("smem_static"), dy = metric_index("smem_dynamic");
    if (s->seen[st] || s->seen[dy])
        emitf(t, "smem", "%.0f", s->total[st] + s->total[dy]);
    int time = metric_index("time_ns");
    if (s->seen[time])
        emitf(t, "time_us", "%.1f", s->total[time] / 1e3);
    /* the sums behind the ratios, for anyone who wants to check them */
    static const char *const sums[] = {"gld_sectors", "gld_requests", "gst_sectors", "gst_requests",
                                       "shld_wavefronts", "shld_inst", "shst_wavefronts", "shst_inst",
                                       "gld_bytes", "gst_bytes"};
    for (size_t i = 0; i < sizeof sums / sizeof sums[0]; i++)
        count_of(t, s, sums[i]);
}

void profile_summarize(FILE *f, struct kv *t)
{
    struct sums s = {0};
    struct row r = {0}, units = {0};
    struct kv columns = {0};
    int have_header = 0;
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    while ((len = getline(&line, &cap, f)) >= 0) {
        if (len > 0 && line[len - 1] == '\n')
            line[--len] = '\0';
        if (len > 0 && line[len - 1] == '\r')
            line[--len] = '\0';
        if (line[0] != '"')
            continue;
        split_csv(line, &r);
        const char *id = field(&r, 0);
        if (!have_header) {
            /* the header: where each column is */
            if (strcmp(id, "ID") != 0)
                continue;
            for (int i = 0; i < r.n; i++) {
                char at[16];
                snprintf(at, sizeof at, "%d", i);
                profile_kv_set(&columns, field(&r, i), at);
            }
            have_header = 1;
        } else if (!id[0]) {
            /* the units row has an empty ID */
            for (int i = 0; i < r.n; i++)
                set_field(&units, i, lab_strdup(field(&r, i)));
        } else if (id[strspn(id, "0123456789")] == '\0') {
            add_launch(&s, &r, &columns, &units);
        }
    }
    free(line);
    finish(t, &s);
    for (int i = 0; i < r.cap; i++)
        free(r.f[i]);
    for (int i = 0; i < units.cap; i++)
        free(units.f[i]);
    free(r.f);
    free(units.f);
    free(s.kernel);
    free(s.block);
    free(s.grid);
    profile_kv_free(&columns);
}
