/*
 * flush.cu: the L2 flush of the timed batches (flush.h; l2_flush.h has
 * the flush itself, timing.cu the batches): the flushed buffer, private to
 * this process, and the flush, always run here, never by a runner; the
 * canary, one flush timed here; and what the next call pays for the
 * write-back of a call's output.
 * judge/README.md, "The judge", says why.
 */
#include "backend.h"
#include "flush.h"
#include "gpu.h"
#include "l2_flush.h"

#include <stdlib.h>
#include <string.h>

/* The flushed buffer: random words, private to this process. It is not a
 * lab_buffer, so no runner can ever map it (judge/README.md, "The judge":
 * the judge flushes, a runner only calls). */
static uint4 *g_flush;
static unsigned long long *g_sum; /* what the flushes add up: kept, so that no read is optimized away */
static size_t g_flush_words;      /* 16-byte words */

static __global__ void fill_words(uint4 *p, size_t count, uint64_t seed)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < count; i += (size_t)gridDim.x * blockDim.x) {
        uint64_t a = lab_mix64(seed ^ (2 * i)), b = lab_mix64(seed ^ (2 * i + 1));
        p[i] = make_uint4((unsigned)a, (unsigned)(a >> 32), (unsigned)b, (unsigned)(b >> 32));
    }
}

void lab_l2_setup(const lab_timing_policy *p)
{
    if (g_flush)
        return;
    int l2 = 0;
    CUDA_CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0));
    const size_t least = (size_t)p->l2_flush_min_mib << 20;
    size_t bytes = p->l2_flush_l2s * (size_t)l2 > least ? p->l2_flush_l2s * (size_t)l2 : least;
    g_flush_words = bytes / 16;
    CUDA_CHECK(cudaMalloc(&g_flush, g_flush_words * 16));
    CUDA_CHECK(cudaMalloc(&g_sum, sizeof *g_sum));
    fill_words<<<LAB_FLUSH_BLOCKS, LAB_FLUSH_THREADS>>>(g_flush, g_flush_words, lab_fresh_seed());
    CUDA_CHECK(cudaGetLastError());
}

/* One flush, here, on this process's stream. */
void lab_l2_flush(void)
{
    lab_flush_l2<<<LAB_FLUSH_BLOCKS, LAB_FLUSH_THREADS>>>(g_flush, g_flush_words, lab_fresh_seed(), g_sum);
    CUDA_CHECK(cudaGetLastError());
}

/* The write-back (LAB_JUDGE_WRITEBACK=0 leaves it in): events stop when a
 * call's last store reaches L2, but in a batch the next call must first
 * write the previous call's dirty lines back to memory, on the clock. What
 * that costs after writing `bytes` is measured here once, by events: a
 * copy of that many bytes (at most the flush buffer's size: the timed
 * kernels that write much, the transposes and the copies, stream so) after
 * a kernel that wrote that much, less the same copy after a no-op. Every
 * call of a batch but the last has a call after it. (Why a copy and not
 * a flush: MEASUREMENTS.md, "The write-back taken off a call".) */
static __global__ void write_zeros(float4 *p, size_t count)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < count; i += (size_t)gridDim.x * blockDim.x)
        p[i] = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
}

static __global__ void copy_words(const uint4 *from, uint4 *to, size_t count)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < count; i += (size_t)gridDim.x * blockDim.x)
        to[i] = from[i];
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
    static uint4 *to;
    if (!scratch) {
        CUDA_CHECK(cudaMalloc(&scratch, g_flush_words * 16));
        CUDA_CHECK(cudaMalloc(&to, g_flush_words * 16));
    }
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
            lab_l2_flush();
            if (wrote)
                write_zeros<<<LAB_FLUSH_BLOCKS, LAB_FLUSH_THREADS>>>(scratch, words);
            else
                lab_noop_here();
            CUDA_CHECK(cudaEventRecord(w0));
            copy_words<<<LAB_FLUSH_BLOCKS, LAB_FLUSH_THREADS>>>(g_flush, to, words);
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
 * times). Where in the idle time a canary falls is drawn at random. The
 * timed flush comes after an untimed one, so that it never pays for the
 * write-back of what the batch before it left dirty in L2, which the
 * reference, with no process of the student alive, never pays
 * (MEASUREMENTS.md, "The canaries"). */
double lab_l2_canary_ms(void)
{
    static cudaEvent_t c0, c1;
    if (!c0) {
        CUDA_CHECK(cudaEventCreate(&c0));
        CUDA_CHECK(cudaEventCreate(&c1));
    }
    lab_l2_flush();
    CUDA_CHECK(cudaEventRecord(c0));
    lab_l2_flush();
    CUDA_CHECK(cudaEventRecord(c1));
    CUDA_CHECK(cudaEventSynchronize(c1));
    float ms = 0;
    CUDA_CHECK(cudaEventElapsedTime(&ms, c0, c1));
    return ms;
}
