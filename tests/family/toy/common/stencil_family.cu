/*
 * stencil_family.cu: the toy stencil stage (family.h), a family in one
 * file: stencil() (stencil.h) is checked bit for bit against the kernel
 * below at several sizes, then timed against a device-to-device copy.
 */
#include <stdlib.h>

#include "family.h"
#include "stencil.h"

enum { NSETS = 4, BLOCK_REF = 256 };

/* the check's reference: one thread an output, in the contract's order */
__global__ void stencil_reference(const float *in, float *out, int n)
{
    int i = blockIdx.x * BLOCK_REF + threadIdx.x;
    if (i < n)
        out[i] = ((i > 0 ? in[i - 1] : 0.0f) + in[i]) + (i + 1 < n ? in[i + 1] : 0.0f);
}

typedef struct {
    lab_sets sets; /* first: the hooks of sets.h take the problem as its sets */
    int n;
} problem;

static const lab_set_layout LAYOUT = {"out", {"in"}, 1};

static void *problem_new(lab_dims d, int nsets, uint64_t seed, cublasHandle_t h)
{
    (void)h;
    problem *p = (problem *)calloc(1, sizeof *p);
    p->n = (int)d.rows;
    lab_sets_new(&p->sets, &LAYOUT, d, nsets, (size_t)p->n, seed ^ (uint64_t)p->n * 1000003);
    return p;
}

static void reference_output(void *ctx, int s, float *out)
{
    problem *p = (problem *)ctx;
    stencil_reference<<<(p->n + BLOCK_REF - 1) / BLOCK_REF, BLOCK_REF>>>(p->sets.in[s][0].data, out, p->n);
    CUDA_CHECK(cudaGetLastError());
}

static int judge(void *ctx, int s, lab_output_check *k)
{
    (void)s;
    lab_output_compare(k, NULL, 1, ((problem *)ctx)->n);
    k->output = "out";
    snprintf(k->ok_text, sizeof k->ok_text, "%lld elements, bit for bit", k->c.checked);
    return k->c.bad == 0;
}

static double work(lab_dims d) { return 8.0 * (double)d.rows; } /* bytes read and written */
static size_t set_bytes(lab_dims d) { return 2 * (size_t)d.rows * sizeof(float); }
static double outputs(lab_dims d) { return (double)d.rows; }

static void call_student(void *ctx, int s)
{
    problem *p = (problem *)ctx;
    stencil(p->sets.in[s][0].data, p->sets.out[s].data, p->n);
}

static void call_memcpy(void *ctx, int s)
{
    problem *p = (problem *)ctx;
    CUDA_CHECK(cudaMemcpyAsync(p->sets.out[s].data, p->sets.in[s][0].data, (size_t)p->n * sizeof(float),
                               cudaMemcpyDeviceToDevice, 0));
}

static double floor_ms(void *ctx, const lab_gpu *g)
{
    double bytes = 8.0 * ((problem *)ctx)->n;
    return g->peak_dram_gbs > 0 ? bytes / (g->peak_dram_gbs * 1e9) * 1e3 : 0.0;
}

enum { STUDENT, MEMCPY, NROWS };

static void conclude(void *ctx, const lab_timing *t, const lab_gpu *g, double floor, int plausible, lab_json *j)
{
    (void)ctx;
    (void)g;
    (void)floor;
    double pct = 100.0 * t[STUDENT].rate / t[MEMCPY].rate;
    printf("\n  your kernel: %.1f%% of the memcpy bandwidth%s\n", pct, plausible ? "" : " (this time cannot be real)");
    lab_json_number(j, "pct_of_reference", pct);
}

static const lab_kernel KERNELS[NROWS] = {
    {.name = "student", .label = "your kernel", .call = call_student},
    {.name = "memcpy", .label = "cudaMemcpy device to device", .call = call_memcpy},
};

extern const lab_family lab_family_this = {
    .name = "stencil",
    .help = "  --n N            floats of the timed problem (default 16777216)\n",
    .sizes = "1024,1,2,3,1000,4097",
    .whole_tiles = 1024,
    .intro = "checking out = the 3-point stencil of in, bit for bit:",
    .timed_size = {1 << 24, 1}, .max_n = 1LL << 28, .max_note = "",
    /* one input and one output a set, checked by the harness (sets.h) */
    .sets = NSETS, .set_bytes = set_bytes, .problem_new = problem_new, .problem_free = lab_sets_problem_free,
    .work = work, .refresh = lab_sets_refresh, .output_bytes = lab_sets_output_bytes, .check_set = lab_check_output,
    .reference_output = reference_output, .judge = judge, .kernels = KERNELS, .nkernels = NROWS,
    .reference = MEMCPY, .baseline = MEMCPY, .unit = "GB/s", .floor_ms = floor_ms, .conclude = conclude,
    .emu = {.checked = "1024,1,2,3,1000", .last = "4097", .counted = "1024", .smallest = "1", .small = "3,1000",
            .max_work = 8.0 * 2.2e6, .outputs = outputs},
};
