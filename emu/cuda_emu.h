/*
 * cuda_emu.h: the CUDA C a kernel.cu of this lab uses, for the host
 * compiler (emu/README.md). Force-included into every emulated .cu after
 * emu/rewrite.c has turned its launches into calls:
 *
 *   g++ -x c++ -include emu/cuda_emu.h -Iemu/include build/.../kernel.emu.cc
 *
 * A kernel's threads are fibers of the emulator's runtime (emu/runtime.cc):
 * threadIdx and the other built-ins are the running fiber's; a barrier or a
 * warp collective switches to the next fiber. Blocks run one after another.
 */
#ifndef LAB_CUDA_EMU_H
#define LAB_CUDA_EMU_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <tuple>
#include <type_traits>
#include <utility>

/* the harness's grid-stride kernels in one block: here a thread costs a
 * switch, and a block's threads run one after another anyway (common/gpu.h) */
#define LAB_GRID_STRIDE_BLOCKS 1

/* ------------------------------------------------ qualifiers, as nothing */
#define __global__
#define __device__
#define __host__
#define __constant__
#define __managed__
#define __forceinline__ inline __attribute__((always_inline))
#define __noinline__ __attribute__((noinline))
#define __launch_bounds__(...)
#define __restrict__ __restrict
#define __align__(n) __attribute__((aligned(n)))
#define __cudart_builtin__
/* One copy of a __shared__ array serves every block (blocks run one after
 * another); emu/rewrite.c drops a `static` written beside it and names the
 * array to the runtime, which poisons it at each block's start. */
#define __shared__ static __attribute__((aligned(16)))

/* --------------------------------------------------------- vector types */
struct uint3 { unsigned int x, y, z; };
struct dim3 {
    unsigned int x, y, z;
    constexpr dim3(unsigned int x_ = 1, unsigned int y_ = 1, unsigned int z_ = 1) : x(x_), y(y_), z(z_) {}
    constexpr dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}
    constexpr operator uint3() const { return uint3{x, y, z}; }
};
/* A vector load or store must be aligned to its size, or the GPU stops the
 * kernel: its copies say where they read and write (check.cc), since the
 * compiler may split them into scalar accesses. */
void lab_emu_vector_access(const void *p, size_t align, int write, const void *pc);
#define LAB_EMU_VEC(N, A, T, FIELDS, PARAMS, INIT, COPY) \
    struct __attribute__((aligned(A))) N { T FIELDS; \
        N() = default; \
        constexpr N(PARAMS) : INIT {} \
        __attribute__((noinline, no_sanitize_thread)) N(const N &o) \
            { lab_emu_vector_access(&o, A, 0, __builtin_return_address(0)); COPY } \
        __attribute__((noinline, no_sanitize_thread)) N &operator=(const N &o) \
            { lab_emu_vector_access(&o, A, 0, __builtin_return_address(0)); \
              lab_emu_vector_access(this, A, 1, __builtin_return_address(0)); COPY return *this; } };
#define LAB_EMU_V2(T, N, A) LAB_EMU_VEC(N##2, A, T, x LAB_EMU_C y, T x_ LAB_EMU_C T y_, x(x_) LAB_EMU_C y(y_), \
                                        x = o.x; y = o.y;) \
    static inline N##2 make_##N##2(T x, T y) { return N##2(x, y); }
#define LAB_EMU_V4(T, N, A) LAB_EMU_VEC(N##4, A, T, x LAB_EMU_C y LAB_EMU_C z LAB_EMU_C w, \
                                        T x_ LAB_EMU_C T y_ LAB_EMU_C T z_ LAB_EMU_C T w_, \
                                        x(x_) LAB_EMU_C y(y_) LAB_EMU_C z(z_) LAB_EMU_C w(w_), \
                                        x = o.x; y = o.y; z = o.z; w = o.w;) \
    static inline N##4 make_##N##4(T x, T y, T z, T w) { return N##4(x, y, z, w); }
#define LAB_EMU_C ,
LAB_EMU_V2(float, float, 8)
LAB_EMU_V4(float, float, 16)
LAB_EMU_V2(int, int, 8)
LAB_EMU_V4(int, int, 16)
LAB_EMU_V2(unsigned int, uint, 8)
LAB_EMU_V4(unsigned int, uint, 16)
LAB_EMU_V2(double, double, 16)
#undef LAB_EMU_C
static inline uint3 make_uint3(unsigned x, unsigned y, unsigned z) { return uint3{x, y, z}; }
struct float3 { float x, y, z; };
static inline float3 make_float3(float x, float y, float z) { float3 v = {x, y, z}; return v; }

/* ------------------------------------------------ the running thread */
struct lab_emu_thread {
    uint3 thread_idx;
    unsigned int tid, lane, warp; /* linear id in the block, lane, warp */
    const void *exits[8];         /* where its last functions returned */
    unsigned nexits;              /* (for "returned at line ...")      */
};
extern lab_emu_thread *lab_emu_self;
extern uint3 lab_emu_block_idx;
extern dim3 lab_emu_block_dim, lab_emu_grid_dim;
#define threadIdx (lab_emu_self->thread_idx)
#define blockIdx lab_emu_block_idx
#define blockDim lab_emu_block_dim
#define gridDim lab_emu_grid_dim
static constexpr int warpSize = 32;

/* ------------------------------------------------------------ barriers */
enum lab_emu_barrier_kind { LAB_EMU_SYNC, LAB_EMU_COUNT, LAB_EMU_AND, LAB_EMU_OR };
int lab_emu_syncthreads(int kind, int predicate, const char *file, int line);
#define __syncthreads() ((void)lab_emu_syncthreads(LAB_EMU_SYNC, 0, __FILE__, __LINE__))
#define __syncthreads_count(p) lab_emu_syncthreads(LAB_EMU_COUNT, (p) != 0, __FILE__, __LINE__)
#define __syncthreads_and(p) lab_emu_syncthreads(LAB_EMU_AND, (p) != 0, __FILE__, __LINE__)
#define __syncthreads_or(p) lab_emu_syncthreads(LAB_EMU_OR, (p) != 0, __FILE__, __LINE__)

/* Warp collectives: every lane of mask meets the others there. */
enum lab_emu_warp_op { LAB_EMU_SYNCWARP, LAB_EMU_SHFL, LAB_EMU_SHFL_UP, LAB_EMU_SHFL_DOWN, LAB_EMU_SHFL_XOR,
                       LAB_EMU_ALL, LAB_EMU_ANY, LAB_EMU_BALLOT };
unsigned long long lab_emu_warp(int op, unsigned mask, unsigned long long value, int arg, int width,
                                const char *file, int line);
unsigned lab_emu_activemask(void);
#define __syncwarp(...) ((void)lab_emu_warp(LAB_EMU_SYNCWARP, lab_emu_mask_or_all(__VA_ARGS__), 0, 0, 32, __FILE__, __LINE__))
static inline unsigned lab_emu_mask_or_all(unsigned m = 0xffffffffu) { return m; }
#define __all_sync(m, p) ((int)lab_emu_warp(LAB_EMU_ALL, (m), (p) != 0, 0, 32, __FILE__, __LINE__))
#define __any_sync(m, p) ((int)lab_emu_warp(LAB_EMU_ANY, (m), (p) != 0, 0, 32, __FILE__, __LINE__))
#define __ballot_sync(m, p) ((unsigned)lab_emu_warp(LAB_EMU_BALLOT, (m), (p) != 0, 0, 32, __FILE__, __LINE__))
#define __activemask() lab_emu_activemask()

template <typename T> static inline T lab_emu_shfl(int op, unsigned mask, T v, int arg, int width, const char *f, int l)
{
    static_assert(sizeof(T) <= 8, "a shuffle moves at most 8 bytes");
    unsigned long long bits = 0;
    memcpy(&bits, &v, sizeof v);
    bits = lab_emu_warp(op, mask, bits, arg, width, f, l);
    memcpy(&v, &bits, sizeof v);
    return v;
}
#define __shfl_sync(m, v, s, ...) lab_emu_shfl(LAB_EMU_SHFL, (m), (v), (s), lab_emu_width(__VA_ARGS__), __FILE__, __LINE__)
#define __shfl_up_sync(m, v, d, ...) lab_emu_shfl(LAB_EMU_SHFL_UP, (m), (v), (d), lab_emu_width(__VA_ARGS__), __FILE__, __LINE__)
#define __shfl_down_sync(m, v, d, ...) lab_emu_shfl(LAB_EMU_SHFL_DOWN, (m), (v), (d), lab_emu_width(__VA_ARGS__), __FILE__, __LINE__)
#define __shfl_xor_sync(m, v, x, ...) lab_emu_shfl(LAB_EMU_SHFL_XOR, (m), (v), (x), lab_emu_width(__VA_ARGS__), __FILE__, __LINE__)
static inline int lab_emu_width(int w = 32) { return w; }

/* --------------------------------------------------------------- atomics */
/* Fibers switch only at barriers, so a read-modify-write is atomic as it
 * is; the runtime still checks its address (lab_emu_atomic_access), and
 * the race watch sees it: two atomics on one word are no race, an atomic
 * and a plain access may be. */
void lab_emu_atomic_access(const void *p, size_t bytes, const void *pc);
#define LAB_EMU_ATOMIC(name, expr) \
    template <typename T, typename U> __attribute__((no_sanitize_thread, noinline)) \
    static T name(T *p, U v_) { lab_emu_atomic_access(p, sizeof *p, __builtin_return_address(0)); \
        T v = (T)v_; T old = *p; *p = (expr); return old; }
LAB_EMU_ATOMIC(atomicAdd, old + v)
LAB_EMU_ATOMIC(atomicSub, old - v)
LAB_EMU_ATOMIC(atomicExch, v)
LAB_EMU_ATOMIC(atomicMax, old > v ? old : v)
LAB_EMU_ATOMIC(atomicMin, old < v ? old : v)
LAB_EMU_ATOMIC(atomicAnd, old & v)
LAB_EMU_ATOMIC(atomicOr, old | v)
LAB_EMU_ATOMIC(atomicXor, old ^ v)
LAB_EMU_ATOMIC(atomicInc, old >= v ? 0 : old + 1)
LAB_EMU_ATOMIC(atomicDec, (old == 0 || old > v) ? v : old - 1)
template <typename T> __attribute__((no_sanitize_thread, noinline)) static T atomicCAS(T *p, T cmp, T v)
{
    lab_emu_atomic_access(p, sizeof *p, __builtin_return_address(0));
    T old = *p;
    if (old == cmp)
        *p = v;
    return old;
}
#define atomicAdd_block atomicAdd
#define atomicAdd_system atomicAdd

/* ------------------------------------------------------------ intrinsics */
/* cache-hinted loads and stores: plain ones, written out where they are
 * called, so that a message (and make explain) names the line of kernel.cu */
#define __ldg(p) (static_cast<std::remove_cv_t<std::remove_reference_t<decltype(*(p))>>>(*(p)))
#define __ldcg(p) __ldg(p)
#define __ldcs(p) __ldg(p)
#define __ldlu(p) __ldg(p)
#define __stcg(p, v) ((void)(*(p) = (v)))
#define __stcs(p, v) ((void)(*(p) = (v)))
/* a fence publishes what the block did so far to the blocks after it that
 * do an atomic (the race watch's last-block pattern, emu/races.cc); within
 * a block only __syncthreads() orders */
void lab_emu_fence(void);
static inline void __threadfence(void) { lab_emu_fence(); }
static inline void __threadfence_block(void) {}
static inline void __threadfence_system(void) { lab_emu_fence(); }
#define LAB_EMU_BITS(name, From, To) static inline To name(From x) { To y; memcpy(&y, &x, sizeof y); return y; }
LAB_EMU_BITS(__float_as_uint, float, unsigned int)
LAB_EMU_BITS(__float_as_int, float, int)
LAB_EMU_BITS(__uint_as_float, unsigned int, float)
LAB_EMU_BITS(__int_as_float, int, float)
LAB_EMU_BITS(__double_as_longlong, double, long long)
LAB_EMU_BITS(__longlong_as_double, long long, double)
static inline float __fmaf_rn(float a, float b, float c) { return fmaf(a, b, c); }
static inline float __fadd_rn(float a, float b) { return a + b; }
static inline float __fmul_rn(float a, float b) { return a * b; }
static inline float __fsub_rn(float a, float b) { return a - b; }
static inline float __fdiv_rn(float a, float b) { return a / b; }
static inline float __fdividef(float a, float b) { return a / b; }
static inline float __frcp_rn(float a) { return 1.0f / a; }
static inline float __fsqrt_rn(float a) { return sqrtf(a); }
static inline double __dadd_rn(double a, double b) { return a + b; }
static inline double __fma_rn(double a, double b, double c) { return fma(a, b, c); }
static inline float __saturatef(float x) { return x < 0.0f ? 0.0f : x > 1.0f ? 1.0f : x; }
static inline float rsqrtf(float x) { return 1.0f / sqrtf(x); }
static inline int __float2int_rn(float x) { return (int)nearbyintf(x); }
static inline int __float2int_rz(float x) { return (int)x; }
static inline int __float2int_rd(float x) { return (int)floorf(x); }
static inline int __float2int_ru(float x) { return (int)ceilf(x); }
static inline float __int2float_rn(int x) { return (float)x; }
static inline int __popc(unsigned x) { return __builtin_popcount(x); }
static inline int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
static inline int __clz(int x) { return x ? __builtin_clz((unsigned)x) : 32; }
static inline int __ffs(int x) { return __builtin_ffs(x); }
static inline unsigned __brev(unsigned x)
{
    unsigned r = 0;
    for (int i = 0; i < 32; i++, x >>= 1)
        r = (r << 1) | (x & 1u);
    return r;
}
static inline int __mul24(int a, int b) { return a * b; }
static inline int __umul24(unsigned a, unsigned b) { return (int)(a * b); }
static inline int __mulhi(int a, int b) { return (int)(((long long)a * b) >> 32); }
static inline long long clock64(void) { return __builtin_ia32_rdtsc(); }
/* CUDA's min and max of two numbers of one type */
#define LAB_EMU_MINMAX(T) static inline T min(T a, T b) { return a < b ? a : b; } \
    static inline T max(T a, T b) { return a > b ? a : b; }
LAB_EMU_MINMAX(int)
LAB_EMU_MINMAX(unsigned int)
LAB_EMU_MINMAX(long long)
LAB_EMU_MINMAX(unsigned long long)
LAB_EMU_MINMAX(long)
LAB_EMU_MINMAX(unsigned long)
LAB_EMU_MINMAX(float)
LAB_EMU_MINMAX(double)

/* ------------------------------------------------------------- launches */
/* What emu/rewrite.c makes of `k<<<grid, block, shared, stream>>>(args)`:
 *   lab_emu_launch(k, __FILE__, __LINE__, grid, block, shared, stream)
 *       (lab_emu_params(k)(args))
 * lab_emu_params(k) is a function with k's parameters: the arguments are
 * converted once, as a call of k converts them (NULL to a pointer), and
 * every thread gets a copy. */
typedef struct CUstream_st *cudaStream_t;
void lab_emu_run(void (*body)(void *), void *ctx, dim3 grid, dim3 block, size_t shared, const char *file, int line);
extern unsigned char lab_emu_dynamic_shared[];

template <typename... P> struct lab_emu_pack {
    static std::tuple<P...> make(P... p) { return std::tuple<P...>(p...); }
};
template <typename... P> static inline auto lab_emu_params(void (*)(P...)) { return &lab_emu_pack<P...>::make; }

template <typename F> struct lab_emu_launcher {
    F *kernel;
    dim3 grid, block;
    size_t shared;
    const char *file;
    int line;
    template <typename T> void operator()(const T &args) const
    {
        auto call = [k = kernel, &args]() { std::apply(k, args); };
        using C = decltype(call);
        lab_emu_run([](void *c) { (*static_cast<C *>(c))(); }, &call, grid, block, shared, file, line);
    }
};
template <typename F>
static inline lab_emu_launcher<F> lab_emu_launch(F *kernel, const char *file, int line, dim3 grid, dim3 block,
                                                 size_t shared = 0, cudaStream_t stream = 0)
{
    (void)stream; /* one stream: every launch runs at once, in order */
    return lab_emu_launcher<F>{kernel, grid, block, shared, file, line};
}

/* What emu/rewrite.c makes of a __shared__ array's declaration: its name,
 * given to the runtime once, for the messages. */
void lab_emu_name_shared(const void *p, size_t bytes, size_t elem, const char *name, int rank, const size_t *dims);
struct lab_emu_shared_name {
    template <typename T> lab_emu_shared_name(T *p, const char *name)
    {
        using E = typename std::remove_all_extents<T>::type;
        size_t dims[4] = {std::extent<T, 0>::value, std::extent<T, 1>::value, std::extent<T, 2>::value,
                          std::extent<T, 3>::value};
        lab_emu_name_shared(p, sizeof(T), sizeof(E), name, (int)std::rank<T>::value, dims);
    }
};

/* What the emulator cannot run: one line naming it, exit 4. */
[[noreturn]] void lab_emu_refuse(const char *what, const char *file, int line);

#include "cuda_api_emu.h"

#endif /* LAB_CUDA_EMU_H */
