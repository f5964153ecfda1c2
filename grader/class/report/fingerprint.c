/*
 * fingerprint.c: the fingerprints of a kernel, as MOSS makes them
 * (Schleimer, Wilkerson and Aiken, "Winnowing", SIGMOD 2003): a hash of
 * every run of SIM_K tokens (tokens.c: names and layout forgotten), then in
 * every window of SIM_W hashes in a row the smallest one is kept. Any match
 * of SIM_K + SIM_W - 1 tokens or more between two files is then sure to
 * share a fingerprint, and a file keeps about 2 / (SIM_W + 1) of its
 * hashes. The skeleton's own k-grams are base code: taken out of every
 * file first, so that what every student was given matches no one.
 */
#include "report.h"

#include <stdlib.h>
#include <string.h>

/* The hashes of every k-gram of the tokens (count ntok - SIM_K + 1). */
static unsigned long long *kgram_hashes(const token *t, int ntok, int *n)
{
    *n = ntok >= SIM_K ? ntok - SIM_K + 1 : 0;
    unsigned long long *h = lab_alloc((size_t)(*n + 1) * sizeof *h);
    for (int i = 0; i < *n; i++) {
        unsigned long long x = 1469598103934665603ull;
        for (int j = 0; j < SIM_K; j++)
            x = (x ^ t[i + j].kind) * 1099511628211ull;
        h[i] = x ^ (x >> 29);
    }
    return h;
}

static int by_value(const void *a, const void *b)
{
    unsigned long long x = *(const unsigned long long *)a, y = *(const unsigned long long *)b;
    return x < y ? -1 : x > y;
}

static int by_hash(const void *a, const void *b)
{
    const kgram *x = a, *y = b;
    return x->hash < y->hash ? -1 : x->hash > y->hash ? 1 : (x->pos > y->pos) - (x->pos < y->pos);
}

static int in_sorted(const unsigned long long *v, int n, unsigned long long h)
{
    return n > 0 && bsearch(&h, v, (size_t)n, sizeof *v, by_value) != NULL;
}

unsigned long long *report_base_hashes(const char *src, size_t len, int *n)
{
    token *t;
    int ntok = report_tokenize(src, len, &t);
    unsigned long long *h = kgram_hashes(t, ntok, n);
    free(t);
    qsort(h, (size_t)*n, sizeof *h, by_value);
    return h;
}

void report_fingerprint(doc *d, const unsigned long long *base, int nbase)
{
    d->ntok = report_tokenize(d->src, d->len, &d->tok);
    int n;
    unsigned long long *h = kgram_hashes(d->tok, d->ntok, &n);
    d->all = lab_alloc((size_t)(n + 1) * sizeof *d->all);
    d->prints = lab_alloc((size_t)(n + 1) * sizeof *d->prints);
    d->nall = d->nprints = 0;
    for (int i = 0; i < n; i++)
        if (!in_sorted(base, nbase, h[i]))
            d->all[d->nall++] = (kgram){h[i], (unsigned)i};
    /* winnowing over the hashes in file order, the base's included (they
     * are dropped after the choice, so that a student's own text next to
     * the skeleton's is chosen as it would be anywhere) */
    int last = -1;
    for (int start = 0; start + SIM_W <= n || (start == 0 && n > 0); start++) {
        int end = start + SIM_W < n ? start + SIM_W : n, best = start;
        for (int i = start; i < end; i++)
            if (h[i] <= h[best])   /* the rightmost smallest, as MOSS does */
                best = i;
        if (best != last && !in_sorted(base, nbase, h[best]))
            d->prints[d->nprints++] = h[best];
        last = best;
        if (end == n)
            break;
    }
    free(h);
    qsort(d->all, (size_t)d->nall, sizeof *d->all, by_hash);
    qsort(d->prints, (size_t)d->nprints, sizeof *d->prints, by_value);
    int k = 0;
    for (int i = 0; i < d->nprints; i++)
        if (!k || d->prints[k - 1] != d->prints[i])
            d->prints[k++] = d->prints[i];
    d->nprints = k;
}

double report_similarity(const doc *a, const doc *b, int *shared)
{
    int i = 0, j = 0, same = 0;
    while (i < a->nprints && j < b->nprints) {
        if (a->prints[i] == b->prints[j]) {
            same++;
            i++;
            j++;
        } else if (a->prints[i] < b->prints[j]) {
            i++;
        } else {
            j++;
        }
    }
    if (shared)
        *shared = same;
    int small = a->nprints < b->nprints ? a->nprints : b->nprints;
    return small ? 100.0 * same / small : 0;
}

void report_mark_shared(const doc *a, const doc *b, unsigned char *marks)
{
    memset(marks, 0, (size_t)a->ntok + 1);
    for (int i = 0, j = 0; i < a->nall && j < b->nall;) {
        if (a->all[i].hash < b->all[j].hash) {
            i++;
        } else if (a->all[i].hash > b->all[j].hash) {
            j++;
        } else {
            unsigned long long h = a->all[i].hash;
            for (; i < a->nall && a->all[i].hash == h; i++)
                memset(marks + a->all[i].pos, 1, SIM_K);
            while (j < b->nall && b->all[j].hash == h)
                j++;
        }
    }
}
