/*
 * flush.cu: the L2 flushes of the timed batches (flush.h; l2_flush.h has
 * the flush itself, timing.cu the batches): the flushed buffer and its
 * twin, the flushes run here or queued for a runner (backend.h), their sums
 * verified after a runner's batch; the canary, one flush timed here; and
 * what a flush costs more after a call that wrote its output.
 * judge/README.md, "The judge", says why.
 */
#include "backend.h"
#include "flush.h"
#include "gpu.h"
#include "l2_flush.h"

#include <stdlib.h>
#include <string.h>

/* The flushes' buffer (random words, shared with the runners), its twin
 * that no runner maps (the same words: what the sums are verified on, so
 * that a runner that rewrote the shared one to make its sums predictable
 * is caught), the sums as the batch's flushes left them (shared), and as
 * the judge computes them on the twin (not shared). */
static lab_buffer g_flush, g_twin, g_sums;
static unsigned long long *g_want;
static size_t g_flush_words; /* 16-byte words */

void lab_l2_setup(void)
{
    if (g_flush.data)
        return;
    int l2 = 0;
    CUDA_CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0));
    size_t bytes = 2 * (size_t)l2 > (32u << 20) ? 2 * (size_t)l2 : (32u << 20);
    g_flush_words = bytes / 16;
    uint64_t seed = lab_fresh_seed();
    lab_buffer_new(&g_flush, g_flush_words * 4);
    lab_buffer_fill(&g_flush, seed);
    lab_buffer_new(&g_twin, g_flush_words * 4);
    lab_buffer_fill(&g_twin, seed);
    lab_buffer_new(&g_sums, 2 * LAB_MAX_BATCH); /* LAB_MAX_BATCH 8-byte sums */
    CUDA_CHECK(cudaMalloc(&g_want, LAB_MAX_BATCH * sizeof *g_want));
}

static unsigned long long *flush_sums(void) { return (unsigned long long *)g_sums.data; }

void lab_l2_clear_sums(void)
{
    CUDA_CHECK(cudaMemset(flush_sums(), 0, LAB_MAX_BATCH * sizeof(unsigned long long)));
}

/* Flush k of a batch: here, or queued for a runner (side, backend.h). */
void lab_l2_flush(int side, int k, uint64_t salt)
{
    unsigned long long *sum = flush_sums() + k;
    if (side != LAB_HERE) {
        lab_backend_queue_flush(side, g_flush.data, sum, g_flush_words, salt);
        return;
    }
    lab_flush_l2<<<LAB_FLUSH_BLOCKS, LAB_FLUSH_THREADS>>>((const uint4 *)g_flush.data, g_flush_words, salt, sum);
    CUDA_CHECK(cudaGetLastError());
}

/* After a runner's batch: every flush the runner was asked for gave the sum
 * the judge computes itself on the twin, or the run ends. */
void lab_l2_verify(const uint64_t *salt, int count, int side)
{
    unsigned long long *sums = flush_sums(), got[LAB_MAX_BATCH], want[LAB_MAX_BATCH];
    CUDA_CHECK(cudaMemcpy(got, sums, count * sizeof *sums, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemset(g_want, 0, LAB_MAX_BATCH * sizeof *g_want));
    for (int k = 0; k < count; k++)
        lab_flush_l2<<<LAB_FLUSH_BLOCKS, LAB_FLUSH_THREADS>>>((const uint4 *)g_twin.data, g_flush_words, salt[k],
                                                              g_want + k);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaMemcpy(want, g_want, count * sizeof *g_want, cudaMemcpyDeviceToHost));
    for (int k = 0; k < count; k++)
        if (got[k] != want[k]) {
            if (side == LAB_STUDENT)
                lab_die(LAB_EXIT_WRONG, "the cache flush the judge asked your kernel's process to run before a "
                                        "timed call (%d of %d in a batch) was skipped or changed: the timing of "
                                        "your calls cannot be trusted", k + 1, count);
            lab_die(LAB_EXIT_CUDA_ERROR, "the echo runner's cache flush gave a wrong sum (a harness bug)");
        }
}

/* The write-back (LAB_JUDGE_WRITEBACK=0 leaves it in): events stop when a
 * call's last store reaches L2, but in a batch the flush after a call must
 * first write the call's dirty lines back to memory, on the judge's clock.
 * What that costs after writing `bytes` is measured here once, by events:
 * a flush after a kernel that wrote that much (at most the flush buffer's
 * size), less a flush after a no-op. Every call of a batch but the last
 * has one such flush after it. Measured on an H100 (MEASUREMENTS.md): it
 * brings every scored ratio within 2.3% of the events', from 3.4%. */
__global__ void write_zeros(float4 *p, size_t count)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < count; i += (size_t)gridDim.x * blockDim.x)
        p[i] = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
}

double lab_l2_writeback_ms(size_t bytes)
{
    static size_t known_bytes = (size_t)-1;
    static double known_ms;
    const char *on = getenv("LAB_JUDGE_WRITEBACK");
    if ((on && !strcmp(on, "0")) || bytes < (1u << 20)) /* a megabyte: under a microsecond */
        return 0;
    if (bytes == known_bytes)
        return known_ms;
    size_t words = bytes / 16 < g_flush_words ? bytes / 16 : g_flush_words;
    static float4 *scratch;
    if (!scratch)
        CUDA_CHECK(cudaMalloc(&scratch, g_flush_words * 16));
    static cudaEvent_t w0, w1;
    if (!w0) {
        CUDA_CHECK(cudaEventCreate(&w0));
        CUDA_CHECK(cudaEventCreate(&w1));
    }
    enum { TRIES = 7 };
    double d[TRIES];
    for (int i = 0; i < TRIES; i++) {
        float after[2];
        for (int wrote = 0; wrote < 2; wrote++) {
            lab_l2_flush(0, 0, lab_fresh_seed());
            if (wrote)
                write_zeros<<<LAB_FLUSH_BLOCKS, LAB_FLUSH_THREADS>>>(scratch, words);
            else
                lab_noop_here();
            CUDA_CHECK(cudaEventRecord(w0));
            lab_l2_flush(0, 0, lab_fresh_seed());
            CUDA_CHECK(cudaEventRecord(w1));
            CUDA_CHECK(cudaEventSynchronize(w1));
            CUDA_CHECK(cudaEventElapsedTime(&after[wrote], w0, w1));
        }
        d[i] = after[1] - after[0];
    }
    lab_stats st;
    lab_stats_compute(d, TRIES, &st);
    known_bytes = bytes;
    known_ms = st.median > 0 ? st.median : 0;
    return known_ms;
}

/* A canary: one flush here, by events. Between the student's batches its
 * runner is idle; a flush then slower than with no process of the student
 * alive means GPU work of that process outside its calls (which would also
 * slow the empty batches through the echo runner, and so flatter its
 * times). Where in the idle time a canary falls is drawn at random. */
double lab_l2_canary_ms(void)
{
    static cudaEvent_t c0, c1;
    if (!c0) {
        CUDA_CHECK(cudaEventCreate(&c0));
        CUDA_CHECK(cudaEventCreate(&c1));
    }
    CUDA_CHECK(cudaEventRecord(c0));
    lab_l2_flush(0, 0, lab_fresh_seed());
    CUDA_CHECK(cudaEventRecord(c1));
    CUDA_CHECK(cudaEventSynchronize(c1));
    float ms = 0;
    CUDA_CHECK(cudaEventElapsedTime(&ms, c0, c1));
    return ms;
}
