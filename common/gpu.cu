/*
 * gpu.cu: the CUDA side of the harness (see gpu.h).
 */
#include "backend.h"
#include "fdio.h"
#include "gpu.h"

#include <cuda_profiler_api.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* ========================================================= errors and exit */

/* The run in progress, so that lab_die can still write a record. */
static lab_record *g_record;
static const lab_args *g_args;

void lab_die(int status, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fflush(stdout);
    fprintf(stderr, "error: %s\n", msg);
    if (g_record)
        lab_record_end(g_record, status, msg);
    exit(status);
}

void lab_progress(const char *fmt, ...)
{
    char line[256];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof line - 1, fmt, ap);
    va_end(ap);
    if (n >= 0)
        lab_phase("%s", line);
    if (n < 0 || !g_args || g_args->progress_fd < 0)
        return;
    if (n > (int)sizeof line - 2)
        n = (int)sizeof line - 2;
    line[n++] = '\n';
    /* one write of a short line to a pipe is atomic; a failure is ignored:
     * progress is a courtesy, the record is what counts */
    ssize_t ignored = write(g_args->progress_fd, line, (size_t)n);
    (void)ignored;
}

/* The timing size as the checks label it: "n=4096", or "8192x4096". */
void lab_timing_size_text(char *out, size_t len)
{
    const lab_dims *d = &g_args->timing;
    if (d->cols > 1)
        snprintf(out, len, "%lldx%lld", d->rows, d->cols);
    else
        snprintf(out, len, "n=%lld", d->rows);
}

void lab_cuda_check(cudaError_t err, const char *text, const char *file, int line)
{
    if (err == cudaSuccess)
        return;
    int status = LAB_EXIT_CUDA_ERROR;
    if (err == cudaErrorMemoryAllocation)
        status = LAB_EXIT_NO_MEMORY;
    else if (err == cudaErrorNoDevice || err == cudaErrorInsufficientDriver)
        status = LAB_EXIT_NO_GPU;
    lab_die(status, "%s failed at %s:%d: %s (%s)", text, file, line,
            cudaGetErrorName(err), cudaGetErrorString(err));
}

void lab_cublas_check(cublasStatus_t st, const char *text, const char *file, int line)
{
    if (st == CUBLAS_STATUS_SUCCESS)
        return;
    lab_die(st == CUBLAS_STATUS_ALLOC_FAILED ? LAB_EXIT_NO_MEMORY : LAB_EXIT_CUDA_ERROR,
            "%s failed at %s:%d: %s", text, file, line, cublasGetStatusString(st));
}

void lab_student_sync(const char *what)
{
    /* the student's calls may run in a runner: send them, wait for "done" */
    lab_backend_send(lab_backend_student_side(), what, 0);
    /* a bad launch configuration shows at once; a fault inside the kernel
     * shows at the next synchronization, and poisons the whole context */
    cudaError_t err = cudaGetLastError();
    if (err == cudaSuccess)
        err = cudaDeviceSynchronize();
    if (err == cudaSuccess)
        return;
    lab_student_error(err, what);
}

void lab_student_error(cudaError_t err, const char *what)
{
    /* a check's label is its size; the timed calls are at the timing size */
    char size[64] = "", where[128] = "";
    lab_dims d;
    if (lab_call_dims(what, &d) == 0) {
        snprintf(size, sizeof size, "%s", what);
    } else if (g_args) {
        lab_timing_size_text(size, sizeof size);
        snprintf(where, sizeof where, " (%s)", size);
    }
    char hint[640] = "";
    if (lab_launch_hint(cudaGetErrorName(err), size, hint + 1, sizeof hint - 1))
        hint[0] = ' ';
    lab_die(LAB_EXIT_CUDA_ERROR, "your kernel failed in %s%s: %s (%s).%s", what, where,
            cudaGetErrorName(err), cudaGetErrorString(err), hint);
}

/* ================================================================= device */

/* FP32 lanes per SM by compute capability; an overestimate is harmless,
 * since the peak is only used to flag times that cannot be real. */
static int fp32_lanes_per_sm(int major, int minor)
{
    if (major == 7 || (major == 8 && minor == 0))
        return 64;
    return 128;
}

void lab_gpu_open(lab_gpu *g)
{
    int count = 0;
    cudaError_t err = cudaGetDeviceCount(&count);
    /* without the NVIDIA kernel driver, the runtime finds no libcuda and
     * calls the driver "insufficient": say what is missing instead */
    if (err == cudaErrorInsufficientDriver && access("/proc/driver/nvidia/version", F_OK) != 0)
        lab_die(LAB_EXIT_NO_GPU, "no usable CUDA GPU here: this machine runs no NVIDIA driver (no "
                "/proc/driver/nvidia); run on a machine with an NVIDIA GPU (from a Slurm login node, make run "
                "and make grade go to a GPU node through srun where the lab knows the cluster: tools/gpu-run.sh)");
    if (err != cudaSuccess || count == 0)
        lab_die(LAB_EXIT_NO_GPU, "no usable CUDA GPU here (%s); run on a machine with an NVIDIA GPU and its driver",
                err != cudaSuccess ? cudaGetErrorString(err) : "no device found");
    cudaDeviceProp p;
    CUDA_CHECK(cudaGetDeviceProperties(&p, 0));
    int clock_khz = 0, mem_khz = 0, bus_bits = 0, l2 = 0;
    CUDA_CHECK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, 0));
    CUDA_CHECK(cudaDeviceGetAttribute(&mem_khz, cudaDevAttrMemoryClockRate, 0));
    CUDA_CHECK(cudaDeviceGetAttribute(&bus_bits, cudaDevAttrGlobalMemoryBusWidth, 0));
    CUDA_CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0));
    memset(g, 0, sizeof *g);
    snprintf(g->name, sizeof g->name, "%s", p.name);
    g->cc_major = p.major;
    g->cc_minor = p.minor;
    g->sms = p.multiProcessorCount;
    g->sm_clock_ghz = clock_khz / 1e6;
    /* double data rate: two transfers per memory clock */
    g->peak_dram_gbs = 2.0 * mem_khz * 1e3 * (bus_bits / 8.0) / 1e9;
    g->peak_fp32_gflops = (double)g->sms * fp32_lanes_per_sm(p.major, p.minor) * 2.0 * g->sm_clock_ghz;
    g->l2_bytes = (size_t)l2;
    g->mem_bytes = p.totalGlobalMem;
}

cublasHandle_t lab_cublas_strict(void)
{
    cublasHandle_t h;
    CUBLAS_CHECK(cublasCreate(&h));
    /* plain FP32 arithmetic: no TF32 tensor cores, no reduced precision */
    CUBLAS_CHECK(cublasSetMathMode(h, CUBLAS_DEFAULT_MATH));
    return h;
}

/* ================================================================ buffers */

/* Grid-stride fill with one 32-bit pattern. */
static __global__ void fill_bits(uint32_t *p, size_t n, uint32_t bits)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        p[i] = bits;
}

static __global__ void fill_uniform(float *p, size_t n, uint64_t seed, int absolute)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        float v = lab_uniform(seed, i);
        p[i] = absolute ? fabsf(v) : v;
    }
}

static __global__ void count_changed(const float *p, size_t n, uint64_t seed, int absolute,
                                     unsigned long long *changed)
{
    unsigned long long mine = 0;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        float v = lab_uniform(seed, i);
        if (absolute)
            v = fabsf(v);
        mine += __float_as_uint(p[i]) != __float_as_uint(v);
    }
    if (mine)
        atomicAdd(changed, mine);
}

static const int FILL_BLOCKS = LAB_GRID_STRIDE_BLOCKS, FILL_THREADS = 256;

int lab_sets_that_fit(int want, size_t bytes_per_set)
{
    size_t free_bytes = 0, total = 0;
    if (bytes_per_set == 0 || cudaMemGetInfo(&free_bytes, &total) != cudaSuccess)
        return want;
    size_t fit = free_bytes / 2 / bytes_per_set;
    return fit >= (size_t)want ? want : fit < 1 ? 1 : (int)fit;
}

int lab_buffers_exact(void)
{
    static int exact = -1;
    if (exact < 0) {
        const char *v = getenv("LAB_EXACT_BUFFERS");
        exact = v && *v && strcmp(v, "0");
    }
    return exact;
}

void lab_buffer_new(lab_buffer *b, size_t count)
{
    size_t total = lab_buffer_alloc_bytes(count) / sizeof(float);
    CUDA_CHECK(cudaMalloc(&b->base, total * sizeof(float)));
    b->data = b->base + lab_buffer_guard_floats();
    b->count = count;
    lab_backend_register(b);
    fill_bits<<<FILL_BLOCKS, FILL_THREADS>>>((uint32_t *)b->base, total, LAB_GUARD_BITS);
    CUDA_CHECK(cudaGetLastError());
    lab_buffer_poison(b);
}

void lab_buffer_free(lab_buffer *b)
{
    lab_backend_forget(b);
    CUDA_CHECK(cudaFree(b->base));
    memset(b, 0, sizeof *b);
}

void lab_buffer_poison(lab_buffer *b)
{
    fill_bits<<<FILL_BLOCKS, FILL_THREADS>>>((uint32_t *)b->data, b->count, LAB_POISON_BITS);
    CUDA_CHECK(cudaGetLastError());
}

void lab_buffer_fill(lab_buffer *b, uint64_t seed)
{
    fill_uniform<<<FILL_BLOCKS, FILL_THREADS>>>(b->data, b->count, seed, 0);
    CUDA_CHECK(cudaGetLastError());
}

void lab_buffer_fill_abs(lab_buffer *b, uint64_t seed)
{
    fill_uniform<<<FILL_BLOCKS, FILL_THREADS>>>(b->data, b->count, seed, 1);
    CUDA_CHECK(cudaGetLastError());
}

long long lab_buffer_changed(const lab_buffer *b, uint64_t seed, int absolute)
{
    static unsigned long long *counter;
    if (!counter)
        CUDA_CHECK(cudaMalloc(&counter, sizeof *counter));
    unsigned long long changed = 0;
    CUDA_CHECK(cudaMemset(counter, 0, sizeof *counter));
    count_changed<<<FILL_BLOCKS, FILL_THREADS>>>(b->data, b->count, seed, absolute, counter);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaMemcpy(&changed, counter, sizeof changed, cudaMemcpyDeviceToHost));
    return (long long)changed;
}

int lab_buffer_guards_ok(const lab_buffer *b, const char *name, FILE *log)
{
    static float zone[LAB_GUARD_FLOATS];
    if (lab_buffers_exact())
        return 1; /* no zones: compute-sanitizer's memcheck watches the bounds */
    CUDA_CHECK(cudaMemcpy(zone, b->base, sizeof zone, cudaMemcpyDeviceToHost));
    long long before = lab_guard_first_bad(zone, LAB_GUARD_FLOATS);
    CUDA_CHECK(cudaMemcpy(zone, b->data + b->count, sizeof zone, cudaMemcpyDeviceToHost));
    long long after = lab_guard_first_bad(zone, LAB_GUARD_FLOATS);
    if (before >= 0 && log)
        /* the first changed float of the zone is the farthest write before data */
        fprintf(log, "    a thread wrote before the start of %s (as far as %lld floats before it)\n",
                name, (long long)LAB_GUARD_FLOATS - before);
    if (after >= 0 && log)
        fprintf(log, "    a thread wrote past the end of %s (%lld floats after its last element)\n",
                name, after + 1);
    return before < 0 && after < 0;
}

float *lab_to_host(const float *dev, size_t count)
{
    float *h = (float *)malloc(count * sizeof(float));
    if (!h)
        lab_die(LAB_EXIT_NO_MEMORY, "out of host memory copying %zu floats", count);
    CUDA_CHECK(cudaMemcpy(h, dev, count * sizeof(float), cudaMemcpyDeviceToHost));
    return h;
}

float *lab_buffer_to_host(const lab_buffer *b) { return lab_to_host(b->data, b->count); }

/* ================================================================ profile */

int lab_profile_call(lab_record *r, lab_call_fn fn, lab_prepare_fn prepare, void *ctx)
{
    /* 1D families parse --n with one dimension (cols 1); 2D ones keep both */
    char size[64];
    lab_timing_size_text(size, sizeof size);
    lab_progress("profile %s", size);
    printf("\nprofiling one call at %s: only this call is inside the profiler's range\n", size);
    if (prepare)
        prepare(ctx, 0);
    /* the fills, checks and references must be over before the range opens */
    CUDA_CHECK(cudaDeviceSynchronize());
    const int side = lab_backend_student_side();
    if (side == LAB_HERE) {
        CUDA_CHECK(cudaProfilerStart());
        fn(ctx, 0);
        lab_student_sync("the profiled call");
        CUDA_CHECK(cudaProfilerStop());
    } else {
        /* the call runs in a runner, which opens and closes the range */
        fn(ctx, 0);
        lab_backend_send(side, "the profiled call", 1);
    }
    lab_json_string(&r->j, "profiled_size", size);
    lab_record_end(r, LAB_EXIT_OK, "profiled one call (--profile)");
    return LAB_EXIT_OK;
}

/* ================================================================= record */

void lab_record_begin(lab_record *r, const char *family, const lab_args *a, const lab_gpu *g)
{
    r->mem = open_memstream(&r->text, &r->len);
    if (!r->mem)
        lab_die(LAB_EXIT_NO_MEMORY, "cannot allocate the record");
    g_record = r;
    g_args = a;
    lab_backend_family(family);
    lab_json_start(&r->j, r->mem);
    lab_json_int(&r->j, "schema", 1);
    lab_json_string(&r->j, "family", family);
    lab_json_string(&r->j, "stage", lab_stage);
    lab_json_string(&r->j, "variant", lab_variant);
    lab_json_string(&r->j, "knob", lab_knob);
    lab_json_int(&r->j, "seed", (long long)a->seed);
    lab_json_object(&r->j, "gpu");
    lab_json_string(&r->j, "name", g->name);
    char cc[16];
    snprintf(cc, sizeof cc, "%d.%d", g->cc_major, g->cc_minor);
    lab_json_string(&r->j, "cc", cc);
    lab_json_int(&r->j, "sms", g->sms);
    lab_json_number(&r->j, "sm_clock_ghz", g->sm_clock_ghz);
    lab_json_number(&r->j, "peak_dram_gbs", g->peak_dram_gbs);
    lab_json_number(&r->j, "peak_fp32_gflops", g->peak_fp32_gflops);
    lab_json_int(&r->j, "l2_bytes", (long long)g->l2_bytes);
    lab_json_end(&r->j);
}

void lab_record_timing(lab_record *r, const lab_timing *t)
{
    lab_json *j = &r->j;
    lab_json_object(j, NULL);
    lab_json_string(j, "name", t->name);
    lab_json_string(j, "label", t->label);
    lab_json_number(j, "median_ms", t->st.median);
    lab_json_number(j, "p25_ms", t->st.p25);
    lab_json_number(j, "p75_ms", t->st.p75);
    lab_json_number(j, "min_ms", t->st.min);
    lab_json_number(j, "max_ms", t->st.max);
    lab_json_number(j, "rse", t->st.rse);
    lab_json_int(j, "reps", t->st.reps);
    lab_json_number(j, "rate", t->rate);
    lab_json_end(j);
}

void lab_record_check_begin(lab_record *r, const char *size, int ok, const lab_compare *c)
{
    lab_json *j = &r->j;
    lab_json_object(j, NULL);
    lab_json_string(j, "size", size);
    lab_json_bool(j, "ok", ok);
    lab_json_int(j, "elements", c->checked);
    lab_json_int(j, "wrong", c->bad);
    lab_json_int(j, "never_written", c->never_written);
    lab_json_int(j, "nan", c->nan);
}

void lab_record_timing_begin(lab_record *r, const char *size, const char *metric, double work,
                             double floor_ms, int plausible, const char *disturbed)
{
    lab_json *j = &r->j;
    lab_json_object(j, "timing");
    lab_json_string(j, "size", size);
    lab_json_string(j, "metric", metric);
    lab_json_number(j, "work", work);
    lab_json_number(j, "floor_ms", floor_ms);
    lab_json_bool(j, "plausible", plausible);
    if (disturbed[0])
        lab_json_string(j, "disturbed", disturbed);
}

void lab_record_timing_end(lab_record *r, const lab_timing *rows, int nrows)
{
    lab_json_array(&r->j, "kernels");
    for (int i = 0; i < nrows; i++)
        lab_record_timing(r, &rows[i]);
    lab_json_end(&r->j); /* kernels */
    lab_json_end(&r->j); /* timing */
}

void lab_record_end(lab_record *r, int status, const char *message)
{
    g_record = NULL; /* a failure from here on must not recurse */
    lab_progress("done");
    while (r->j.depth > 0)
        lab_json_end(&r->j);
    const char *names[] = {"ok", "wrong", "usage", "no_gpu", "cuda_error", "no_memory"};
    lab_json_string(&r->j, "status",
                    status >= 0 && status <= LAB_EXIT_NO_MEMORY ? names[status] : "unknown");
    lab_json_int(&r->j, "exit_status", status);
    lab_json_string(&r->j, "message", message ? message : "");
    lab_json_finish(&r->j);
    fclose(r->mem);
    if (g_args && g_args->json_path) {
        FILE *f = fopen(g_args->json_path, "w");
        if (f) {
            fwrite(r->text, 1, r->len, f);
            fclose(f);
        } else {
            fprintf(stderr, "warning: cannot write the record to %s\n", g_args->json_path);
        }
    }
    if (g_args && g_args->record_fd >= 0)
        lab_write_all(g_args->record_fd, r->text, r->len);
    free(r->text);
}

/* =================================================================== table */

void lab_print_timings(const lab_timing *rows, int nrows, const char *unit,
                       const lab_timing *reference, const lab_timing *baseline)
{
    printf("\n  %-34s %10s %19s %10s %8s %9s\n", "kernel", "median ms", "p25-p75 ms", unit,
           reference ? "% of ref" : "", baseline ? "speedup" : "");
    for (int i = 0; i < nrows; i++) {
        const lab_timing *t = &rows[i];
        char spread[40], pct[16] = "", speedup[16] = "";
        snprintf(spread, sizeof spread, "%.4g-%.4g", t->st.p25, t->st.p75);
        if (reference && reference->rate > 0)
            snprintf(pct, sizeof pct, "%.1f%%", 100.0 * t->rate / reference->rate);
        if (baseline && t->st.median > 0)
            snprintf(speedup, sizeof speedup, "%.2fx", baseline->st.median / t->st.median);
        printf("  %-34s %10.4g %19s %10.1f %8s %9s\n", t->label, t->st.median, spread, t->rate,
               pct, speedup);
    }
    if (reference)
        printf("  (%% of ref: rate over %s's, measured in this run; speedup: time of %s over this one)\n",
               reference->label, baseline ? baseline->label : "-");
}

/* ================================================================== start */

void lab_start(int argc, char **argv, int allow_2d, const char *family_help, lab_args *a, lab_gpu *g)
{
    /* strict FP32 everywhere: this must be set before cuBLAS first loads */
    setenv("NVIDIA_TF32_OVERRIDE", "0", 1);
    lab_backend_take_args(&argc, argv);
    char err[256];
    if (lab_parse_args(argc, argv, allow_2d, a, err, sizeof err)) {
        fprintf(stderr, "error: %s\n", err);
        exit(LAB_EXIT_USAGE);
    }
    if (lab_print_asked(stdout, a, argv[0], family_help))
        exit(LAB_EXIT_OK);
    /* stdout may be a pipe to the grader: flush every line so that nothing
     * is lost if the kernel under test ends the process (once: a worker) */
    static int line_buffered;
    if (!line_buffered++)
        setvbuf(stdout, NULL, _IOLBF, 0);
    /* the descriptors must be open before CUDA opens its own: a closed one
     * could be taken by the driver's device files and written into */
    const int fds[] = {a->record_fd, a->progress_fd};
    const char *names[] = {"--record-fd", "--progress-fd"};
    for (int i = 0; i < 2; i++)
        if (fds[i] >= 0 && fcntl(fds[i], F_GETFD) < 0) {
            fprintf(stderr, "error: %s %d: descriptor %d is not open (give it one, e.g. %d>file)\n",
                    names[i], fds[i], fds[i], fds[i]);
            exit(LAB_EXIT_USAGE);
        }
    g_args = a;
    lab_backend_spawn();
    lab_gpu_open(g);
}
