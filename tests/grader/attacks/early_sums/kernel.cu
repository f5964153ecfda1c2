/*
 * An attack, not a kernel: stage 07's sums, done before the clock starts.
 *
 * The judge makes each timed input, poisons its output (NaN) and only then
 * starts its clock. The runner has every buffer mapped all along, so a
 * thread of its own (started from reduce(); libc's functions found in
 * memory, the driver's through dlsym, a stream of its own) watches the
 * outputs of the timed calls, read by the copy engine: when one turns NaN,
 * its input is complete, and the thread sums it at once, in double. A timed call whose sum is ready
 * then only waits as long as reading the input at 80% of the GPU's peak
 * bandwidth would take (a faster time would be flagged as impossible) and
 * writes the sum. The kernel of its own, for calls whose sum is not ready,
 * is correct and slow on purpose (32 blocks): alone it earns the
 * correctness points and no speed tier.
 *
 * With LAB_ATTACK_OFF defined, only that slow kernel runs: what this file
 * earns on its own, which the attack must not exceed once no timed input
 * exists before the clock starts (tests/grader/gpu-fixtures.sh, attacks).
 */
#include <elf.h>
#include <link.h>
#include <stdint.h>

#include "reduce.h"

/* ------------------------------------------------- the kernel of its own */
#define SLOW_BLOCKS 32
#define THREADS 256

/* the sum of v over the block, in double, left in thread 0 */
static __device__ double block_total(double v)
{
    __shared__ double part[THREADS];
    part[threadIdx.x] = v;
    __syncthreads();
    for (int s = THREADS / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s)
            part[threadIdx.x] += part[threadIdx.x + s];
        __syncthreads();
    }
    return part[0];
}

__global__ void slow_partials(const float *in, int n, double *partial)
{
    double v = 0;
    for (int i = blockIdx.x * THREADS + threadIdx.x; i < n; i += gridDim.x * THREADS)
        v += in[i];
    v = block_total(v);
    if (threadIdx.x == 0)
        partial[blockIdx.x] = v;
}

__global__ void slow_finish(const double *partial, float *out)
{
    double v = block_total(threadIdx.x < SLOW_BLOCKS ? partial[threadIdx.x] : 0.0);
    if (threadIdx.x == 0)
        *out = (float)v;
}

static void own_reduce(const float *in, float *out, int n, float *scratch)
{
    double *partial = (double *)scratch; /* 256-byte aligned, room for 32 doubles */
    slow_partials<<<SLOW_BLOCKS, THREADS>>>(in, n, partial);
    slow_finish<<<1, THREADS>>>(partial, out);
}

#ifdef LAB_ATTACK_OFF
void reduce(const float *in, float *out, int n, float *scratch) { own_reduce(in, out, n, scratch); }
#else
/* ---------------------------------------------------------- the attack */
enum { MAX_SLOTS = 64, WATCHED_N = 1 << 24 };
/* a slot's state: its output written by a call (CALLED), seen written
 * (ARMED), seen NaN again and being summed (SUMMING), summed (READY) */
enum { CALLED, ARMED, SUMMING, READY, GONE /* freed: watched no more */ };

static struct slot {
    const float *in;
    float *out;
    int n;
    int state, gen; /* gen: the calls made on it, so that a sum started before a call is not used after it */
} slots[MAX_SLOTS];
static int nslots;
static __device__ double early[MAX_SLOTS];

/* libc's function `name`, by its dynamic symbol table: the library is found
 * from an address inside it (the constructor's caller) */
static void *in_libc(const void *inside, const char *name)
{
    const unsigned char *base = (const unsigned char *)((uintptr_t)inside & ~(uintptr_t)4095);
    while (base[0] != 0x7f || base[1] != 'E' || base[2] != 'L' || base[3] != 'F')
        base -= 4096;
    const ElfW(Ehdr) *e = (const ElfW(Ehdr) *)base;
    const ElfW(Dyn) *d = NULL;
    for (int i = 0; i < e->e_phnum && !d; i++) {
        const ElfW(Phdr) *p = (const ElfW(Phdr) *)(base + e->e_phoff) + i;
        if (p->p_type == PT_DYNAMIC)
            d = (const ElfW(Dyn) *)(base + p->p_vaddr);
    }
    const ElfW(Sym) *syms = NULL;
    const char *names = NULL;
    for (; d && d->d_tag != DT_NULL; d++) {
        const unsigned char *at = (uintptr_t)d->d_un.d_ptr < (uintptr_t)base ? base + d->d_un.d_ptr
                                                                             : (const unsigned char *)d->d_un.d_ptr;
        if (d->d_tag == DT_SYMTAB)
            syms = (const ElfW(Sym) *)at;
        else if (d->d_tag == DT_STRTAB)
            names = (const char *)at;
    }
    for (const ElfW(Sym) *s = syms; s && (const char *)s < names; s++) {
        const char *a = names + s->st_name, *b = name;
        while (*a && *a == *b)
            a++, b++;
        if (s->st_name && s->st_value && *a == *b)
            return (void *)(base + s->st_value);
    }
    return NULL;
}

static void *(*lc_dlopen)(const char *, int);
static void *(*lc_dlsym)(void *, const char *);
static int (*lc_thread)(void *, const void *, void *(*)(void *), void *);
static int (*lc_usleep)(unsigned);
__attribute__((constructor)) static void find_libc(void)
{
    const void *libc = __builtin_return_address(0);
    lc_dlopen = (void *(*)(const char *, int))in_libc(libc, "dlopen");
    lc_dlsym = (void *(*)(void *, const char *))in_libc(libc, "dlsym");
    lc_thread = (int (*)(void *, const void *, void *(*)(void *), void *))in_libc(libc, "pthread_create");
    lc_usleep = (int (*)(unsigned))in_libc(libc, "usleep");
}

/* the driver's functions, from the libcuda.so the runtime has loaded */
static int (*cu_ctx_get)(void **);
static int (*cu_ctx_set)(void *);
static int (*cu_stream_create)(void **, unsigned);
static int (*cu_stream_sync)(void *);
static int (*cu_range)(void **, size_t *, const void *);
static int (*cu_host_alloc)(void **, size_t);
static int (*cu_copy_to_host)(void *, const void *, size_t, void *);
static void *ctx;
static long long wait_ns; /* 4n bytes at 80% of the peak bandwidth, for n = WATCHED_N */

__global__ void early_sum(const float *in, int n, int slot)
{
    double v = 0;
    const float4 *in4 = (const float4 *)in;
    for (int i = blockIdx.x * THREADS + threadIdx.x; i < n / 4; i += gridDim.x * THREADS) {
        float4 q = in4[i];
        v += (double)q.x + q.y + q.z + q.w;
    }
    for (int i = n / 4 * 4 + blockIdx.x * THREADS + threadIdx.x; i < n; i += gridDim.x * THREADS)
        v += in[i];
    v = block_total(v);
    if (threadIdx.x == 0)
        atomicAdd(&early[slot], v);
}

__global__ void zero_early(int slot) { early[slot] = 0; }

/* the timed call: as long as an honest read of the input would be, then the sum */
__global__ void late_answer(float *out, int slot, long long ns)
{
    unsigned long long t0, t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
    do
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    while (t - t0 < (unsigned long long)ns);
    *out = (float)early[slot];
}

/* The watcher: each output the timed calls wrote, seen written and then
 * NaN again, means a fresh input, complete: sum it now. */
static void *watch(void *)
{
    void *stream = 0;
    float *seen = 0; /* pinned: the copies into it are asynchronous, one wait a round */
    if (cu_ctx_set(ctx) || cu_stream_create(&stream, 1 /* non-blocking */) ||
        cu_host_alloc((void **)&seen, MAX_SLOTS * sizeof *seen))
        return 0;
    for (;; lc_usleep(20)) {
        int n = __atomic_load_n(&nslots, __ATOMIC_ACQUIRE), gen[MAX_SLOTS], summing = 0;
        /* each output read by the copy engine, which leaves the SMs (and
         * the judge's own work between batches) undisturbed; an output
         * freed since (the harness's own process frees its buffers when its
         * timing ends) is read no more: reading freed memory would end the
         * process */
        for (int s = 0; s < n; s++) {
            void *base;
            size_t size;
            seen[s] = 0;
            if (cu_range(&base, &size, slots[s].out))
                __atomic_store_n(&slots[s].state, GONE, __ATOMIC_RELEASE);
            else if (__atomic_load_n(&slots[s].state, __ATOMIC_ACQUIRE) != GONE &&
                     cu_copy_to_host(&seen[s], slots[s].out, sizeof *seen, stream))
                return 0;
        }
        if (cu_stream_sync(stream))
            return 0;
        for (int s = 0; s < n; s++) {
            struct slot *q = &slots[s];
            int state = __atomic_load_n(&q->state, __ATOMIC_ACQUIRE);
            gen[s] = __atomic_load_n(&q->gen, __ATOMIC_ACQUIRE);
            if (state == CALLED && seen[s] == seen[s])
                __atomic_compare_exchange_n(&q->state, &state, ARMED, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
            else if (state == ARMED && seen[s] != seen[s] &&
                     __atomic_compare_exchange_n(&q->state, &state, SUMMING, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
                zero_early<<<1, 1, 0, (cudaStream_t)stream>>>(s);
                early_sum<<<1024, THREADS, 0, (cudaStream_t)stream>>>(q->in, q->n, s);
                summing = 1;
            } else {
                gen[s] = -1;
            }
        }
        if (!summing)
            continue;
        if (cu_stream_sync(stream))
            return 0;
        for (int s = 0; s < n; s++) {
            int state = SUMMING;
            if (gen[s] >= 0 && __atomic_load_n(&slots[s].gen, __ATOMIC_ACQUIRE) == gen[s])
                __atomic_compare_exchange_n(&slots[s].state, &state, READY, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
        }
    }
}

/* Once, from the first call (the runtime's context exists by then): the
 * driver's functions, the time to wait, and the watcher. */
static int start_watching(void)
{
    /* RTLD_LAZY | RTLD_NOLOAD: the one already loaded */
    void *cuda = lc_dlopen && lc_dlsym && lc_thread && lc_usleep ? lc_dlopen("libcuda.so.1", 1 | 4) : 0;
    if (!cuda)
        return -1;
    *(void **)&cu_ctx_get = lc_dlsym(cuda, "cuCtxGetCurrent");
    *(void **)&cu_ctx_set = lc_dlsym(cuda, "cuCtxSetCurrent");
    *(void **)&cu_stream_create = lc_dlsym(cuda, "cuStreamCreate");
    *(void **)&cu_stream_sync = lc_dlsym(cuda, "cuStreamSynchronize");
    *(void **)&cu_range = lc_dlsym(cuda, "cuMemGetAddressRange_v2");
    *(void **)&cu_host_alloc = lc_dlsym(cuda, "cuMemAllocHost_v2");
    *(void **)&cu_copy_to_host = lc_dlsym(cuda, "cuMemcpyDtoHAsync_v2");
    int khz = 0, bits = 0;
    if (!cu_ctx_get || !cu_ctx_set || !cu_stream_create || !cu_stream_sync || !cu_range || !cu_host_alloc || !cu_copy_to_host ||
        cu_ctx_get(&ctx) || !ctx || cudaDeviceGetAttribute(&khz, cudaDevAttrMemoryClockRate, 0) != cudaSuccess ||
        cudaDeviceGetAttribute(&bits, cudaDevAttrGlobalMemoryBusWidth, 0) != cudaSuccess || !khz || !bits)
        return -1;
    double peak = 2.0 * khz * 1e3 * bits / 8; /* bytes per second */
    wait_ns = (long long)(4.0 * WATCHED_N / (0.8 * peak) * 1e9);
    static unsigned long thread; /* pthread_t */
    return lc_thread(&thread, 0, watch, 0);
}

void reduce(const float *in, float *out, int n, float *scratch)
{
    static int started = 0, ok = 0;
    if (!started) {
        started = 1;
        ok = start_watching() == 0;
    }
    struct slot *q = 0;
    for (int s = 0; s < __atomic_load_n(&nslots, __ATOMIC_ACQUIRE); s++)
        if (slots[s].in == in && slots[s].out == out && slots[s].n == n &&
            __atomic_load_n(&slots[s].state, __ATOMIC_ACQUIRE) != GONE)
            q = &slots[s];
    if (!q && ok && n >= WATCHED_N && nslots < MAX_SLOTS) {
        q = &slots[nslots];
        q->in = in, q->out = out, q->n = n, q->state = CALLED;
        __atomic_store_n(&nslots, nslots + 1, __ATOMIC_RELEASE);
        q = 0; /* its first call is its own */
    }
    if (q) {
        /* a sum under way (begun before the clock) is waited for, a few ms at most */
        for (int i = 0; i < 500 && __atomic_load_n(&q->state, __ATOMIC_ACQUIRE) == SUMMING; i++)
            lc_usleep(10);
        int state = __atomic_load_n(&q->state, __ATOMIC_ACQUIRE);
        __atomic_add_fetch(&q->gen, 1, __ATOMIC_ACQ_REL);
        __atomic_store_n(&q->state, CALLED, __ATOMIC_RELEASE);
        if (state == READY) {
            late_answer<<<1, 1>>>(out, (int)(q - slots), (long long)(wait_ns * ((double)n / WATCHED_N)));
            return;
        }
    }
    own_reduce(in, out, n, scratch);
}
#endif
