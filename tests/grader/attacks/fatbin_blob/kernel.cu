/*
 * An attack, not a kernel: a kernel.cu with no __global__ function, whose
 * matrix product is device code the build never compiled. It holds, as a
 * constant array, PTX text of a naive C = A B (one thread per element of
 * C, bounds-checked) in a fat binary made by hand, laid out as nvcc lays
 * out the .nv_fatbin of an object (nvcc -arch=compute_75 -code=compute_75
 * --no-compress makes the same bytes from the same PTX). From a
 * constructor, as nvcc's own registration does, it hands that fat binary
 * to the CUDA runtime (__cudaRegisterFatBinary), registers the kernel
 * `blob_matmul` under the address of a host function of its own
 * (__cudaRegisterFunction) and ends the registration; matmul launches it
 * with cudaLaunchKernel. The driver compiles the PTX when the module is
 * loaded, for whatever GPU is there. Every symbol it uses is nvcc's host
 * stub's or a launch's (grader/allowed-symbols.txt): the symbol policy and
 * objcheck let it through.
 *
 * In the harness's own process (JUDGE=0) this earns the naive kernel's
 * correctness points from code nvcc never compiled (judge/README.md, "Device
 * code the build never compiled"): judge-only. Graded by the judge it must
 * score 0: the judge's launch server holds the GPU and loads only the
 * device code of the walled compile (the .nv_fatbin of the object objcheck
 * passed, which has no kernel), so `blob_matmul` is not found there and no
 * element of C is written.
 *
 *   tests/grader/gpu-fixtures.sh attacks (graded as 03_tiled by the judge:
 *   0 points, a reason naming blob_matmul)
 */
#include "matmul.h"

/* nvcc's host stub's calls into the runtime (crt/host_runtime.h), declared
 * here: this file includes nothing of the stub's. */
extern "C" {
void **__cudaRegisterFatBinary(void *fatCubin);
void __cudaRegisterFatBinaryEnd(void **fatCubinHandle);
void __cudaUnregisterFatBinary(void **fatCubinHandle);
void __cudaRegisterFunction(void **fatCubinHandle, const char *hostFun, char *deviceFun, const char *deviceName,
                            int thread_limit, uint3 *tid, uint3 *bid, dim3 *bDim, dim3 *gDim, int *wSize);
}

/* C = A B, row-major n x n, one thread per element (x: column, y: row):
 * written by hand, as the PTX that nvcc writes into a fat binary (its
 * comments and indentation dropped). */
#define BLOB_PTX \
    ".version 9.0\n" \
    ".target sm_75\n" \
    ".address_size 64\n" \
    "\n" \
    ".visible .entry blob_matmul(\n" \
    ".param .u64 blob_matmul_param_0,\n" \
    ".param .u64 blob_matmul_param_1,\n" \
    ".param .u64 blob_matmul_param_2,\n" \
    ".param .u32 blob_matmul_param_3\n" \
    ")\n" \
    "{\n" \
    ".reg .pred %p<4>;\n" \
    ".reg .f32 %f<4>;\n" \
    ".reg .b32 %r<12>;\n" \
    ".reg .b64 %rd<12>;\n" \
    "\n" \
    "ld.param.u64 %rd1, [blob_matmul_param_0];\n" \
    "ld.param.u64 %rd2, [blob_matmul_param_1];\n" \
    "ld.param.u64 %rd3, [blob_matmul_param_2];\n" \
    "ld.param.u32 %r1, [blob_matmul_param_3];\n" \
    "cvta.to.global.u64 %rd4, %rd1;\n" \
    "cvta.to.global.u64 %rd5, %rd2;\n" \
    "cvta.to.global.u64 %rd6, %rd3;\n" \
    "mov.u32 %r2, %ctaid.x;\n" \
    "mov.u32 %r3, %ntid.x;\n" \
    "mov.u32 %r4, %tid.x;\n" \
    "mad.lo.s32 %r5, %r2, %r3, %r4;\n" /* col */ \
    "mov.u32 %r2, %ctaid.y;\n" \
    "mov.u32 %r3, %ntid.y;\n" \
    "mov.u32 %r4, %tid.y;\n" \
    "mad.lo.s32 %r6, %r2, %r3, %r4;\n" /* row */ \
    "setp.ge.s32 %p1, %r5, %r1;\n" \
    "setp.ge.s32 %p2, %r6, %r1;\n" \
    "or.pred %p3, %p1, %p2;\n" \
    "@%p3 bra $L__done;\n" \
    "mov.f32 %f1, 0f00000000;\n" /* sum */ \
    "mul.lo.s32 %r7, %r6, %r1;\n" /* row n + k: A's element */ \
    "mov.u32 %r8, %r5;\n" /* k n + col: B's element */ \
    "mov.u32 %r9, 0;\n" /* k */ \
    "$L__loop:\n" \
    "setp.ge.s32 %p1, %r9, %r1;\n" \
    "@%p1 bra $L__store;\n" \
    "mul.wide.s32 %rd7, %r7, 4;\n" \
    "add.s64 %rd8, %rd4, %rd7;\n" \
    "ld.global.f32 %f2, [%rd8];\n" \
    "mul.wide.s32 %rd9, %r8, 4;\n" \
    "add.s64 %rd10, %rd5, %rd9;\n" \
    "ld.global.f32 %f3, [%rd10];\n" \
    "fma.rn.f32 %f1, %f2, %f3, %f1;\n" \
    "add.s32 %r7, %r7, 1;\n" \
    "add.s32 %r8, %r8, %r1;\n" \
    "add.s32 %r9, %r9, 1;\n" \
    "bra.uni $L__loop;\n" \
    "$L__store:\n" \
    "mul.lo.s32 %r10, %r6, %r1;\n" \
    "add.s32 %r11, %r10, %r5;\n" \
    "mul.wide.s32 %rd7, %r11, 4;\n" \
    "add.s64 %rd11, %rd6, %rd7;\n" \
    "st.global.f32 [%rd11], %f1;\n" \
    "$L__done:\n" \
    "ret;\n" \
    "\n" \
    "}\n"

/* the PTX and its NUL, padded with zeros to 8 bytes */
enum { PTX_PADDED = (sizeof BLOB_PTX + 7) / 8 * 8 };

/* A fat binary of one entry, field by field as nvcc writes it (fatbinary
 * of CUDA 13, --no-compress: by default it compresses PTX, zstd, flags
 * 0x8011): a header, then each entry's header and its payload. */
struct fat_binary {
    /* the fat binary's header: 16 bytes */
    unsigned int magic;           /* 0xba55ed50                            */
    unsigned short version;       /* 1                                     */
    unsigned short header_size;   /* 16                                    */
    unsigned long long fat_size;  /* the bytes after it: the entries       */
    /* the entry's header: 80 bytes for PTX (64 for a cubin) */
    unsigned short kind;          /* 1: PTX (2: a cubin, ELF)              */
    unsigned short entry_version; /* 0x0101                                */
    unsigned int entry_header_size;
    unsigned long long payload_size; /* the PTX padded, bytes after this header */
    unsigned int compressed_size; /* 0: not compressed                     */
    unsigned int extra_offset;    /* 64: the last 16 bytes of this header  */
    unsigned short ptx_minor;     /* .version 9.0                          */
    unsigned short ptx_major;
    unsigned int arch;            /* 75: .target sm_75                     */
    unsigned int name_offset;     /* no name                               */
    unsigned int name_size;
    unsigned long long flags;     /* 0x11: 64-bit addresses, Linux host    */
    unsigned long long reserved;
    unsigned long long uncompressed_size; /* 0: not compressed             */
    unsigned long long extra[2];  /* 72, 0 (as nvcc writes them)           */
    /* the payload: the PTX text */
    char ptx[PTX_PADDED];
};
static_assert(sizeof(struct fat_binary) == 16 + 80 + PTX_PADDED, "the layout nvcc writes, with no padding");

static const struct fat_binary blob __attribute__((aligned(8))) = {
    0xba55ed50u, 1, 16, sizeof(struct fat_binary) - 16,
    1, 0x0101, 80, PTX_PADDED,
    0, 64, 0, 9, 75,
    0, 0, 0x11,
    0, 0,
    {72, 0},
    BLOB_PTX,
};

/* nvcc's __fatDeviceText: what __cudaRegisterFatBinary is handed */
static const struct {
    int magic;                      /* 0x466243b1 */
    int version;                    /* 1          */
    const unsigned long long *data; /* the fat binary */
    void *filename_or_fatbins;      /* NULL       */
} wrapper __attribute__((aligned(8))) = {0x466243b1, 1, (const unsigned long long *)&blob, 0};

static void **handle;

/* the host address the kernel is registered under: nvcc's host stub would
 * be here (never called) */
static void blob_matmul_host(void)
{
}

static void unregister(void)
{
    __cudaUnregisterFatBinary(handle);
}

__attribute__((constructor)) static void register_blob(void)
{
    static char name[] = "blob_matmul";
    handle = __cudaRegisterFatBinary((void *)&wrapper);
    __cudaRegisterFunction(handle, (const char *)&blob_matmul_host, name, name, -1, 0, 0, 0, 0, 0);
    __cudaRegisterFatBinaryEnd(handle);
    atexit(unregister);
}

void matmul(const float *A, const float *B, float *C, int n)
{
    dim3 block(16, 16);
    dim3 grid((n + 15) / 16, (n + 15) / 16);
    void *args[] = {&A, &B, &C, &n};
    cudaLaunchKernel((const void *)&blob_matmul_host, grid, block, args, 0, 0);
}
