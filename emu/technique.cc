/*
 * technique.cc: whether the stage's technique is there (emu/README.md, "The
 * technique"), from the counts explain.cc makes of the counted launch and
 * the stage's technique lines of stages.tsv (build/stages.h), in one
 * sentence: "padding missing: each read of tile at kernel.cu:51 takes 32
 * wavefronts (ideal 1)". main.cc puts it into a correct kernel's record,
 * and the launcher's verdict shows it (grader/launched.c). The measures a
 * technique line may name (sectors, wavefronts, global_per_madd,
 * loads_per_madd, stores_per_output, rung): emu/README.md's table.
 *
 * Counts of addresses, not times: what they cannot see (registers that
 * spill, the caches, what a barrier costs) MEASUREMENTS.md has measured
 * against the GPU's tiers (2026-11-29, "The technique on the CPU").
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "family.h"
#include "gpu.h"
#include "emu.h"
#include "stages.h"

struct technique_line {
    const char *stage, *name, *measure, *op;
    double limit;
    const char *with;
};
static const technique_line g_lines[] = {LAB_STAGE_TECHNIQUES};

/* The counted launch in the measures' terms. */
struct launch_counts {
    lab_emu_row rows[LAB_EMU_MAX_SITES];
    int n;
    const lab_emu_row *worst[2]; /* [shared]: the line farthest over its ideal */
    double over[2];              /* its units over its ideal */
    double loaded[2], stored;    /* floats loaded from [shared] memory; stored to global memory */
    double shared_lanes, shared_instructions;
    int float4_loads;            /* a global load of 16 bytes a lane */
    double madds, outputs, threads;
};

/* The multiply-adds and output elements of the counted call, from its
 * size as main.cc's wrapper of the contract function names it ("n=256",
 * "256x256"), by the family's own measures (lab_family.emu). */
static void work_of(const char *size, launch_counts *c)
{
    const lab_family *F = &lab_family_this;
    const char *dims = strchr(size, '=') ? strchr(size, '=') + 1 : size;
    lab_dims d;
    char err[128];
    if (lab_parse_dims(dims, F->allow_2d, &d, err, sizeof err) || !F->emu.outputs)
        lab_die(LAB_EXIT_USAGE, "the technique: '%s' is no size of the family '%s', or its emu.outputs "
                      "is missing (common/%s_family.cu)", size, F->name, F->name);
    c->madds = F->emu.madds ? F->emu.madds(d) : 0;
    c->outputs = F->emu.outputs(d);
}

static void count(launch_counts *c)
{
    const lab_emu_explained_launch &x = lab_emu_explained;
    memset(c, 0, sizeof *c);
    c->n = lab_emu_explain_rows(c->rows);
    for (int i = 0; i < c->n; i++) {
        const lab_emu_row *r = &c->rows[i];
        double floats = (double)r->lanes * (double)r->size / 4;
        if (r->write && !r->shared)
            c->stored += floats;
        else if (!r->write)
            c->loaded[r->shared] += floats;
        if (r->shared) {
            c->shared_lanes += (double)r->lanes;
            c->shared_instructions += (double)r->requests;
        }
        c->float4_loads |= !r->shared && !r->write && r->size == 16;
        double over = r->ideal ? (double)r->units / (double)r->ideal : 0;
        if (over > c->over[r->shared]) {
            c->over[r->shared] = over;
            c->worst[r->shared] = r;
        }
    }
    c->threads = (double)x.grid.x * x.grid.y * x.grid.z * x.block.x * x.block.y * x.block.z;
    work_of(x.size, c);
}

/* The measure's value; 0 and *known 0 for a name this file does not know. */
static double value_of(const char *measure, const launch_counts *c, int *known)
{
    *known = 1;
    if (!strcmp(measure, "sectors"))
        return c->over[0];
    if (!strcmp(measure, "wavefronts"))
        return c->over[1];
    if (!strcmp(measure, "global_per_madd"))
        return c->madds ? c->loaded[0] / c->madds : 0;
    if (!strcmp(measure, "loads_per_madd"))
        return c->madds ? (c->loaded[0] + c->loaded[1]) / c->madds : 0;
    if (!strcmp(measure, "stores_per_output"))
        return c->outputs ? c->stored / c->outputs : 0;
    if (!strcmp(measure, "rung"))
        return c->threads ? c->loaded[0] / c->threads : 0;
    *known = 0;
    return 0;
}

/* "" or "s" after a count as %.3g shows it */
static const char *plural(double v)
{
    char text[32];
    snprintf(text, sizeof text, "%.3g", v);
    return strcmp(text, "1") ? "s" : "";
}

/* The reduction's rung (handouts/07_reduction.md), from its tree in shared
 * memory and the elements a thread reads. */
static void rung_words(const launch_counts *c, double per_thread, double limit, char *out, size_t len)
{
    const lab_emu_row *w = c->worst[1];
    double lanes = c->shared_instructions ? c->shared_lanes / c->shared_instructions : 32;
    if (per_thread >= limit)
        snprintf(out, len, "a grid-stride loop%s (rung 6 of handouts/07_reduction.md)",
                 c->float4_loads ? " of float4 loads" : "");
    else if (w && c->over[1] > 1.5)
        snprintf(out, len, "the tree's strided index, %.3g wavefronts a %s of %s at %s (ideal %.3g; rung 2 of "
                 "handouts/07_reduction.md)", (double)w->units / (double)w->requests, w->write ? "write" : "read",
                 w->name, lab_emu_short_place(w->where), (double)w->ideal / (double)w->requests);
    else if (lanes < 16)
        snprintf(out, len, "the tree interleaved and divergent, %.2g of a warp's 32 lanes a shared access "
                 "(rung 1 of handouts/07_reduction.md)", lanes);
    else if (per_thread < 1.5)
        snprintf(out, len, "sequential addressing, one element a thread (rung 3 of handouts/07_reduction.md)");
    else
        snprintf(out, len, "the first add during the load (rung 4 or 5 of handouts/07_reduction.md)");
}

/* The worst line of one memory: "each read of tile at kernel.cu:51 takes
 * 32 wavefronts (ideal 1)", or, when the technique is there, the worst. */
static void worst_words(const launch_counts *c, int shared, int there, char *out, size_t len)
{
    const lab_emu_row *w = c->worst[shared];
    if (!w) {
        snprintf(out, len, "no %s memory accesses", shared ? "shared" : "global");
        return;
    }
    double per = (double)w->units / (double)w->requests, ideal = (double)w->ideal / (double)w->requests;
    const char *unit = *plural(per) ? (shared ? "wavefronts" : "sectors") : (shared ? "wavefront" : "sector");
    if (there)
        snprintf(out, len, "at worst %.3g %s a %s (ideal %.3g)", per, unit,
                 shared ? "shared access" : "global request", ideal);
    else
        snprintf(out, len, "each %s %s at %s %s %.3g %s%s (ideal %.3g)",
                 shared ? (w->write ? "write of" : "read of") : (w->write ? "store to" : "load of"), w->name,
                 lab_emu_short_place(w->where), shared ? "takes" : "touches", per, unit, shared ? "" : " a request",
                 ideal);
}

/* What the measure counted, in words. */
static void words(const technique_line *t, const launch_counts *c, double v, int there, char *out, size_t len)
{
    char rung[256];
    if (!strcmp(t->measure, "sectors") || !strcmp(t->measure, "wavefronts"))
        worst_words(c, !strcmp(t->measure, "wavefronts"), there, out, len);
    else if (!strcmp(t->measure, "global_per_madd"))
        snprintf(out, len, "each multiply-add loads %.3g floats from global memory", v);
    else if (!strcmp(t->measure, "loads_per_madd"))
        snprintf(out, len, "each multiply-add loads %.3g floats from global and shared memory", v);
    else if (!strcmp(t->measure, "stores_per_output"))
        snprintf(out, len, "each element of the output is stored %.3g time%s", v, plural(v));
    else {
        rung_words(c, v, t->limit, rung, sizeof rung);
        snprintf(out, len, "each thread reads %.3g element%s of the input: %s", v, plural(v), rung);
    }
}

int lab_emu_technique(char *said, size_t len, int *present)
{
    if (!lab_emu_explained.done)
        return 0;
    static launch_counts c;
    count(&c);
    char names[256] = "", details[768] = "";
    size_t nused = 0, dused = 0;
    int lines = 0;
    for (const technique_line *t = g_lines; t->stage; t++) {
        if (strcmp(t->stage, lab_stage))
            continue;
        int known;
        double v = value_of(t->measure, &c, &known);
        if (!known) {
            fprintf(stderr, "stages.tsv: a technique line of %s names '%s', which emu/technique.cc does not count\n",
                    t->stage, t->measure);
            return 0;
        }
        int there = !strcmp(t->op, ">=") ? v >= t->limit : v <= t->limit;
        char detail[512];
        words(t, &c, v, there, detail, sizeof detail);
        if (!there) {
            snprintf(said, len, "%s missing: %s%s%s", t->name, detail, t->with[0] ? "; with it, " : "", t->with);
            *present = 0;
            return 1;
        }
        if (nused < sizeof names)
            nused += snprintf(names + nused, sizeof names - nused, "%s%s", lines ? " and " : "", t->name);
        if (dused < sizeof details)
            dused += snprintf(details + dused, sizeof details - dused, "%s%s", lines ? "; " : "", detail);
        lines++;
    }
    if (!lines)
        return 0;
    snprintf(said, len, "%s present: %s", names, details);
    *present = 1;
    return 1;
}
