/*
 * gpu.h: the CUDA side of the harness, shared by every family.
 *
 * Checked CUDA and cuBLAS calls, the device description, guarded and poisoned
 * buffers, timing in batches on the host clock with L2 flushing (timing.cu),
 * and the record every run writes.
 */
#ifndef LAB_GPU_H
#define LAB_GPU_H

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include "lab.h"
#include "measure.h"

/* Check a CUDA runtime call made by the harness; on failure print the call's
 * own text, file and line, and end the process with a status that says why. */
#define CUDA_CHECK(call) lab_cuda_check((call), #call, __FILE__, __LINE__)
#define CUBLAS_CHECK(call) lab_cublas_check((call), #call, __FILE__, __LINE__)

void lab_cuda_check(cudaError_t err, const char *text, const char *file, int line);
void lab_cublas_check(cublasStatus_t st, const char *text, const char *file, int line);

/* End the run: print the message, write a record that says why, exit. */
void lab_die(int status, const char *fmt, ...) __attribute__((noreturn, format(printf, 2, 3)));

/* One line on the --progress-fd descriptor as a phase begins ("check n=17",
 * "checks passed", "timing n=4096 your kernel", "done"), written with one
 * write(2) so that it reaches the grader even if the process is killed the
 * moment after. Nothing happens without --progress-fd. lab_time announces
 * each timed kernel and lab_record_end says "done"; the harness announces each
 * check and "checks passed". */
void lab_progress(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The timing size as the checks label it: "n=4096", or "8192x4096". */
void lab_timing_size_text(char *out, size_t len);

/* The grid of the harness's own grid-stride kernels (fills, copies, exact
 * sums): enough blocks to fill a GPU. The CPU emulation runs a block's
 * threads one after another, each thread a switch, where one block does the
 * same work for a small fraction of the switches: emu/cuda_emu.h sets 1. */
#ifndef LAB_GRID_STRIDE_BLOCKS
#define LAB_GRID_STRIDE_BLOCKS 1024
#endif

/* ----------------------------------------------------------------- device */

typedef struct {
    char name[256];
    int cc_major, cc_minor;
    int sms;
    double sm_clock_ghz;
    double peak_dram_gbs;     /* from the memory clock and bus width          */
    double peak_fp32_gflops;  /* SMs x FP32 lanes x 2 x clock                 */
    size_t l2_bytes;
    size_t mem_bytes;
} lab_gpu;

/* Open device 0 and describe it; with no usable GPU, print one line naming
 * the cause and exit LAB_EXIT_NO_GPU. */
void lab_gpu_open(lab_gpu *g);

/* ---------------------------------------------------------------- buffers */

/* A device array with a guard zone on each side. The kernel sees data; the
 * zones hold LAB_GUARD_BITS, so a write before or past the array is seen. */
#define LAB_GUARD_FLOATS 16384
typedef struct lab_buffer {
    float *base;  /* what cudaMalloc returned                            */
    float *data;  /* base + the guard zone: what the kernel is given     */
    size_t count; /* elements in data                                    */
} lab_buffer;

/* What a buffer of count elements allocates: its guard zones included,
 * rounded up to 2 MiB. A buffer may be shared with a runner by CUDA IPC,
 * and the CUDA driver may place small allocations side by side in one
 * block of 2 MiB, all of which an IPC handle then shares: rounded up, a
 * shared buffer is a block of its own, and the judge's private memory (its
 * counters of wrong outputs, the exact sums) is never in a runner's reach
 * (judge/README.md, "The judge"). The rest past the back guard zone holds
 * guard bits too. */
#define LAB_SHARE_BYTES ((size_t)2 << 20)
/* Under compute-sanitizer (make run SANITIZE=1 sets LAB_EXACT_BUFFERS=1 in
 * the environment) each buffer is allocated with exactly its size: no
 * guard zones, no rounding, so that memcheck sees a read or write past its
 * end, which would land inside the allocation otherwise. The guard checks
 * then pass by themselves: memcheck does their job. */
int lab_buffers_exact(void);
static inline size_t lab_buffer_guard_floats(void)
{
    return lab_buffers_exact() ? 0 : LAB_GUARD_FLOATS;
}
static inline size_t lab_buffer_alloc_bytes(size_t count)
{
    if (lab_buffers_exact())
        return (count ? count : 1) * sizeof(float);
    size_t bytes = (count + 2 * (size_t)LAB_GUARD_FLOATS) * sizeof(float);
    return (bytes + LAB_SHARE_BYTES - 1) / LAB_SHARE_BYTES * LAB_SHARE_BYTES;
}
void lab_buffer_new(lab_buffer *b, size_t count);
/* How many input sets of bytes_per_set to time over: want, or as many as
 * fit in half of the GPU's free memory (at least 1), for GPUs with less
 * memory than the many sets of a batch need. */
int lab_sets_that_fit(int want, size_t bytes_per_set);
void lab_buffer_free(lab_buffer *b);
/* Fill data with LAB_POISON_BITS (a NaN), so unwritten outputs show. */
void lab_buffer_poison(lab_buffer *b);
/* Fill data with lab_uniform(seed, i). */
void lab_buffer_fill(lab_buffer *b, uint64_t seed);
/* Fill data with |lab_uniform(seed, i)|: non-negative inputs. */
void lab_buffer_fill_abs(lab_buffer *b, uint64_t seed);
/* Elements of data that differ from what lab_buffer_fill(seed) wrote. */
long long lab_buffer_changed(const lab_buffer *b, uint64_t seed, int absolute);
/* 1 when both guard zones are intact; otherwise say where and return 0. */
int lab_buffer_guards_ok(const lab_buffer *b, const char *name, FILE *log);
/* Copy data to a new host array (free() it). */
float *lab_buffer_to_host(const lab_buffer *b);
/* count floats of device memory at dev, copied to new host memory (free() it) */
float *lab_to_host(const float *dev, size_t count);

/* ---------------------------------------------------------- student calls */

/* After a call into kernel.cu: catch launch errors and errors of the kernel
 * itself (which are sticky: the process cannot go on), naming the call.
 * Where the calls run in a runner (backend.h): send them and wait for it. */
void lab_student_sync(const char *what);
/* The kernel failed with err in `what`: say why, with a hint, and end. */
void lab_student_error(cudaError_t err, const char *what);

/* --------------------------------------------------------------- timing */

/* Time one kernel (timing.cu): warm-up calls, then batches of calls
 * rotating over nsets input sets, each call preceded by prepare and an L2
 * flush, until the policy is satisfied. The measurement m holds its state
 * (measure.h): a baseline's statistics are in t when it returns; the
 * student's wait in m until lab_measure_settle. */
void lab_time(lab_measure *m, lab_timing *t, const lab_timed *k, void *ctx, int nsets,
              const lab_timing_policy *policy);
/* What settling needs of the GPU: the runner stopped, canaries and the
 * write-back measured here (lab_measure_begin's third argument). */
extern const lab_measure_gpu lab_measure_on_gpu;

/* Milliseconds on a monotonic clock. */
double lab_now_ms(void);
/* 64 bits nobody could know in advance (getrandom): a batch's inputs
 * and the elements its checks sample. */
uint64_t lab_fresh_seed(void);


/* A cuBLAS handle in strict FP32: TF32 and other reduced-precision modes off. */
cublasHandle_t lab_cublas_strict(void);

/* ----------------------------------------------------------------- record */

/* The record is built in memory and written, when the run ends, to the
 * --json file and the --record-fd descriptor (never to stdout, which the
 * kernel under test can also print to). */
typedef struct {
    lab_json j;
    char *text;
    size_t len;
    FILE *mem;
} lab_record;

/* Start the record with what every family shares; remembers args and gpu so
 * that lab_die can write a record too. */
void lab_record_begin(lab_record *r, const char *family, const lab_args *a,
                      const lab_gpu *g);
/* One timed kernel as a JSON object inside the current array. */
void lab_record_timing(lab_record *r, const lab_timing *t);
/* One check of the kernel's output as a JSON object inside the current array:
 * the fields every family shares. The object stays open for the family's
 * own fields; close it with lab_json_end. */
void lab_record_check_begin(lab_record *r, const char *size, int ok, const lab_compare *c);
/* Open the record's "timing" object with the fields every family shares;
 * the family adds its ratios, then lab_record_timing_end adds the kernels
 * and closes it. disturbed: lab_measure_disturbed's, recorded unless "". */
void lab_record_timing_begin(lab_record *r, const char *size, const char *metric, double work,
                             double floor_ms, int plausible, const char *disturbed);
void lab_record_timing_end(lab_record *r, const lab_timing *rows, int nrows);
/* Close the record with the final status and write it out. */
void lab_record_end(lab_record *r, int status, const char *message);

/* --profile (make profile): one call of fn on input set 0, at the timed
 * size, between cudaProfilerStart and cudaProfilerStop, so that
 * `ncu --profile-from-start off` measures that call and nothing else (not the
 * fills, the checks, cuBLAS or the baseline). prepare (may be NULL) runs
 * before it, outside the range. Adds "profiled_size" to the record, ends
 * it, and returns LAB_EXIT_OK. The harness calls it once the checks have
 * passed and its timing problem is built, before any lab_time:
 *     if (a.profile)
 *         return lab_profile_call(&rec, call_student, prepare, &ctx); */
int lab_profile_call(lab_record *r, lab_call_fn fn, lab_prepare_fn prepare, void *ctx);

/* Print the timing table every family shares: one row per kernel with time,
 * spread, rate, and ratios to the reference and the baseline. */
void lab_print_timings(const lab_timing *rows, int nrows, const char *unit,
                       const lab_timing *reference, const lab_timing *baseline);

/* Shared start of every program: parse args (exit 2 on error), print help,
 * open the GPU. */
void lab_start(int argc, char **argv, int allow_2d, const char *family_help,
               lab_args *a, lab_gpu *g);

#endif /* LAB_GPU_H */
