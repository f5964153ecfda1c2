/*
 * verdicts.c: what the counters say. Each verdict is a short line (the hint
 * make grade shows) and a line of advice (make profile adds it). A value is
 * flagged when it is off its ideal and, where there is a reference, clearly
 * worse than the reference's: a kernel that matches the solution is not
 * blamed for what the solution does. A value off its ideal that the
 * reference shares is still said, as a note: no line may contradict the
 * table above it.
 */
#include "profile.h"
#include "stages.h"

#include <stdarg.h>
#include <string.h>

/* The stage's line of stages.tsv for make profile (its number ex: "06"),
 * or NULL: its solution's access widths, its advice on bank conflicts. */
static const struct stage_profile {
    const char *stage;
    int load, store;
    const char *banks;
} *profile_of(const char *ex)
{
    static const struct stage_profile lines[] = {LAB_STAGE_PROFILES};
    for (size_t i = 0; lines[i].stage; i++)
        if (!strncmp(lines[i].stage, ex, strlen(ex)) && lines[i].stage[strlen(ex)] == '_')
            return &lines[i];
    return NULL;
}

static void wrong(struct verdicts *v, const char *short_text, const char *advice)
{
    if (v->nwrong == MAX_SAYINGS)
        return;
    snprintf(v->wrong_short[v->nwrong], SAYING, "%s", short_text);
    snprintf(v->wrong_advice[v->nwrong], SAYING, "%s", advice);
    v->nwrong++;
}

/* A note is not blamed on the kernel; brief: make grade's hints show it too
 * (an explanation of the counters is for make profile's table only). */
static void note(struct verdicts *v, const char *short_text, const char *advice, int brief)
{
    if (v->nnotes == MAX_SAYINGS)
        return;
    snprintf(v->note_short[v->nnotes], SAYING, "%s", short_text);
    snprintf(v->note_advice[v->nnotes], SAYING, "%s", advice);
    v->note_brief[v->nnotes++] = brief;
}

/* What is right, one phrase at a time, for the line that says so. */
static void right(struct verdicts *v, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void right(struct verdicts *v, const char *fmt, ...)
{
    size_t used = strlen(v->rights);
    if (used && used + 2 < sizeof v->rights)
        used += (size_t)snprintf(v->rights + used, sizeof v->rights - used, ", ");
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(v->rights + used, sizeof v->rights - used, fmt, ap);
    va_end(ap);
}

/* ------------------------------------------------------ global accesses */

static const char *const global_key[2] = {"gld", "gst"};
static const char *const global_what[2] = {"loads", "stores"};

/* The ideal sectors per request follow the access width: a warp of 4-byte
 * loads asks for 128 bytes, 4 sectors of 32; of float4 loads 512 bytes, 16.
 * The width comes from ncu's bytes per request where it gave them, else
 * from the stage: the bytes its solution moves an access (stages.tsv's
 * profile lines; 4 without one). */
static int stage_width(const char *ex, int kind)
{
    const struct stage_profile *p = profile_of(ex);
    return p ? (kind == 0 ? p->load : p->store) : 4;
}

static void global_ideal(struct verdicts *v, int kind)
{
    char key[16];
    double bpr;
    snprintf(key, sizeof key, "%s_bpr", global_key[kind]);
    const char *what = global_what[kind];
    if (profile_number_of(v->y, key, &bpr) && bpr > 0) {
        double w = bpr / 32;
        v->ideal[kind] = w < 1 ? 1 : w;
        if (w == 4 || w == 8 || w == 16)
            snprintf(v->width_text[kind], sizeof v->width_text[kind], "%d-byte %s", (int)w, what);
        else
            snprintf(v->width_text[kind], sizeof v->width_text[kind], "%s of %.0f bytes a request",
                     what, bpr);
        snprintf(v->width_from[kind], sizeof v->width_from[kind], "ncu's bytes per request");
    } else {
        int w = stage_width(v->ex, kind);
        v->ideal[kind] = w;
        snprintf(v->width_text[kind], sizeof v->width_text[kind], "%d-byte %s", w, what);
        snprintf(v->width_from[kind], sizeof v->width_from[kind],
                 "stage %s's solution (ncu gave no bytes per request)", v->ex);
    }
}

void profile_ideal_shown(const struct verdicts *v, int kind, char *buf, size_t size)
{
    snprintf(buf, size, "%.3g for %s", v->ideal[kind], v->width_text[kind]);
}

/* 1 when the accesses of kind are coalesced (or there are none to judge). */
static int check_coalescing(struct verdicts *v, int kind)
{
    char key[16], ideal[128], short_text[SAYING];
    double s, ref;
    snprintf(key, sizeof key, "%s_spr", global_key[kind]);
    if (!profile_number_of(v->y, key, &s))
        return 1;
    if (s <= 1.125 * v->ideal[kind] || s <= v->ideal[kind] + 0.5)
        return 1;
    profile_ideal_shown(v, kind, ideal, sizeof ideal);
    snprintf(short_text, sizeof short_text,
             "global %s: %.1f sectors per request (ideal %s): the %s are not coalesced",
             global_what[kind], s, ideal, kind == 0 ? "reads" : "writes");
    const char *advice = "the 32 threads of a warp touch scattered addresses, so one request needs "
                         "many 32-byte sectors; let neighbouring threads (threadIdx.x) touch "
                         "neighbouring elements";
    if (profile_number_of(v->r, key, &ref) && s <= 1.1 * ref + 0.5) {
        strncat(short_text, ", as in the reference", sizeof short_text - strlen(short_text) - 1);
        note(v, short_text, advice, 1);
    } else {
        wrong(v, short_text, advice);
    }
    return 0;
}

/* ------------------------------------------------------------ shared memory */

/* Judged by wavefronts per instruction: ~1 is conflict-free, ~32 is 32-way.
 * A wide access needs several wavefronts without any conflict (a float4
 * read of a warp: 4), so the part of the wavefronts ncu counts as conflicts
 * is told apart from the part the width needs; ncu's raw conflict count is
 * not 0 for conflict-free code on some GPUs, and is never the verdict alone. */
struct banks {
    double wpi;    /* wavefronts per instruction */
    double base;   /* the part the width needs */
    double cost;   /* the part conflicts cost */
    double degree; /* wpi / base: 1 conflict-free, n for n-way */
};

/* 0 when t has no wavefronts per instruction of kind ("shld", "shst") */
static int bank_degree(const struct kv *t, const char *kind, struct banks *b)
{
    char key[32];
    double cpi, c, i;
    snprintf(key, sizeof key, "%s_wpi", kind);
    if (!profile_number_of(t, key, &b->wpi))
        return 0;
    snprintf(key, sizeof key, "%s_cpi", kind);
    int have_cpi = profile_number_of(t, key, &cpi);
    char ckey[32], ikey[32];
    snprintf(ckey, sizeof ckey, "%s_conflicts", kind);
    snprintf(ikey, sizeof ikey, "%s_inst", kind);
    if (!have_cpi && profile_number_of(t, ckey, &c) && profile_number_of(t, ikey, &i) && i > 0) {
        cpi = c / i;
        have_cpi = 1;
    }
    double extra = have_cpi ? cpi : b->wpi - 1;
    if (extra > b->wpi - 1)
        extra = b->wpi - 1;
    if (extra < 0)
        extra = 0;
    b->base = b->wpi - extra;
    b->cost = extra;
    /* no wavefronts at all (0 per instruction): nothing to conflict */
    b->degree = b->base > 0 ? b->wpi / b->base : 1;
    return 1;
}

/* The fix for bank conflicts: the stage's own (stages.tsv's profile line),
 * or the general one. */
static const char *bank_fix(const char *ex)
{
    const struct stage_profile *p = profile_of(ex);
    if (p && p->banks[0])
        return p->banks;
    return "pad each row of the shared array by one float or change which thread touches "
           "which element (stage 05 shows how)";
}

/* 1 when the shared accesses of kind (0 loads, 1 stores) are free of bank
 * conflicts. */
static int check_banks(struct verdicts *v, int kind)
{
    const char *name = kind == 0 ? "shld" : "shst", *what = global_what[kind];
    struct banks y, r;
    char key[32], counted[64] = "n/a", short_text[SAYING], advice[SAYING];
    double c;
    if (!bank_degree(v->y, name, &y))
        return 1;
    snprintf(key, sizeof key, "%s_conflicts", name);
    int have_c = profile_number_of(v->y, key, &c);
    if (have_c)
        profile_grouped(counted, sizeof counted, c);
    if (y.degree < 1.5) {
        if (y.base >= 1.5) {
            snprintf(short_text, sizeof short_text,
                     "shared %s: %.1f wavefronts per instruction, none from bank conflicts", what, y.wpi);
            snprintf(advice, sizeof advice,
                     "wide accesses (float2, float4) need several wavefronts each without any "
                     "conflict; the %s conflicts ncu counted cost %.2f wavefronts per instruction",
                     counted, y.cost);
            note(v, short_text, advice, 0);
        } else if (have_c && c > 0 && y.wpi > 1.05) {
            snprintf(short_text, sizeof short_text,
                     "shared %s: %.2f wavefronts per instruction: conflict-free in effect", what, y.wpi);
            snprintf(advice, sizeof advice,
                     "the %s conflicts ncu counts cost %.2f wavefronts per instruction, where an "
                     "n-way conflict costs n - 1: about 1 wavefront per instruction is conflict-free",
                     counted, y.cost);
            note(v, short_text, advice, 0);
        }
        return 1;
    }
    int n = (int)(y.degree + 0.5);
    if (n > 32)
        n = 32; /* a warp has 32 threads: at most 32-way */
    char ideal[64] = "1";
    if (y.base >= 1.5)
        snprintf(ideal, sizeof ideal, "%.0f for their width", y.base);
    char extra[96] = "";
    if (have_c)
        snprintf(extra, sizeof extra, " (ncu counted %s conflicts)", counted);
    snprintf(advice, sizeof advice,
             "threads of a warp reach different words of the same bank, so each access is split "
             "%d ways%s", n, extra);
    int shared = v->have_ref && bank_degree(v->r, name, &r) && y.degree <= 1.1 * r.degree + 0.1;
    snprintf(short_text, sizeof short_text,
             "%d-way bank conflicts on shared %s (%.1f wavefronts per instruction, ideal %s)%s: %s",
             n, what, y.wpi, ideal, shared ? ", as in the reference" : "", bank_fix(v->ex));
    if (shared)
        note(v, short_text, advice, 1);
    else
        wrong(v, short_text, advice);
    return 0;
}

/* ------------------------------------------------- occupancy and DRAM */

static void check_occupancy(struct verdicts *v)
{
    double s, ref, theo;
    char short_text[SAYING];
    if (!profile_number_of(v->y, "occupancy", &s))
        return;
    if (profile_number_of(v->r, "occupancy", &ref)) {
        if (s < 0.7 * ref) {
            v->occupancy_flagged = 1;
            snprintf(short_text, sizeof short_text,
                     "achieved occupancy %.0f%% (reference %.0f%%): fewer warps in flight to hide "
                     "memory latency", s, ref);
            wrong(v, short_text,
                  "compare the block size, registers per thread and shared memory per block with "
                  "the reference's (rows above), and check that the grid has enough blocks");
        }
    } else if (profile_number_of(v->y, "theoretical", &theo) && s < 0.6 * theo) {
        v->occupancy_flagged = 1;
        snprintf(short_text, sizeof short_text,
                 "achieved occupancy %.0f%% of a possible %.0f%%: few warps in flight to hide "
                 "memory latency", s, theo);
        wrong(v, short_text, "the grid may have too few blocks to fill the GPU, or blocks finish unevenly");
    }
}

static void check_dram(struct verdicts *v)
{
    double s, ref;
    char short_text[SAYING];
    if (profile_number_of(v->y, "dram", &s) && profile_number_of(v->r, "dram", &ref) && ref >= 40 && s < 0.7 * ref) {
        snprintf(short_text, sizeof short_text,
                 "DRAM throughput %.0f%% of peak (reference %.0f%%): memory is moved more slowly "
                 "than it could be", s, ref);
        wrong(v, short_text,
              "for a memory-bound kernel this is the time lost; the rows above say why "
              "(coalescing, bank conflicts, occupancy)");
    }
}

/* What is right, in one line: only what the counters show. */
static void what_is_right(struct verdicts *v)
{
    double occ, ref;
    int ld = profile_is_number(profile_kv_get(v->y, "gld_spr")), st = profile_is_number(profile_kv_get(v->y, "gst_spr"));
    /* no global accesses measured: nothing to say of them */
    if (!ld && !st)
        ;
    else if (v->coalesced[0] && v->coalesced[1])
        right(v, "global accesses coalesced");
    else if (v->coalesced[0] && ld)
        right(v, "global loads coalesced");
    else if (v->coalesced[1] && st)
        right(v, "global stores coalesced");
    ld = profile_is_number(profile_kv_get(v->y, "shld_wpi"));
    st = profile_is_number(profile_kv_get(v->y, "shst_wpi"));
    if (ld || st) {
        if (v->conflict_free[0] && v->conflict_free[1])
            right(v, "no shared-memory bank conflicts");
        else if (v->conflict_free[0] && ld)
            right(v, "no bank conflicts on shared loads");
        else if (v->conflict_free[1] && st)
            right(v, "no bank conflicts on shared stores");
    }
    if (profile_number_of(v->y, "occupancy", &occ) && !v->occupancy_flagged) {
        if (profile_number_of(v->r, "occupancy", &ref))
            right(v, "occupancy %.0f%% (reference %.0f%%)", occ, ref);
        else
            right(v, "occupancy %.0f%%", occ);
    }
}

void profile_judge(struct verdicts *v, const struct kv *y, const struct kv *r, const char *ex)
{
    double launches;
    memset(v, 0, sizeof *v);
    v->y = y;
    v->r = r;
    v->ex = ex;
    v->have_ref = profile_number_of(r, "launches", &launches) && launches > 0;
    for (int kind = 0; kind < 2; kind++)
        global_ideal(v, kind);
    for (int kind = 0; kind < 2; kind++)
        v->coalesced[kind] = check_coalescing(v, kind);
    for (int kind = 0; kind < 2; kind++)
        v->conflict_free[kind] = check_banks(v, kind);
    check_occupancy(v);
    check_dram(v);
    what_is_right(v);
}
