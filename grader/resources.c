/*
 * resources.c: for a correct stage that missed a speed tier, what the
 * compiler gave its kernels beside what it gave the tier's reference
 * kernel: registers a thread (so how many warps an SM's registers hold),
 * local memory a thread (spills), shared memory a block. A kernel at 65%
 * of cuBLAS that spills, or holds fewer warps, learns it here; one that
 * does neither learns that the difference is elsewhere, and where to look.
 *
 * What runs: `cuobjdump --dump-resource-usage OBJECT` on the student's
 * object, the compiled kernel.cu the policy reads too. cuobjdump reads the
 * object's device code as data (an ELF inside the fatbin) and runs
 * nothing in it, like nm and objdump in policy.c; it is found on PATH or
 * beside $NVCC. The reference's figures are a table made by the same
 * command on the reference kernels' objects (grader/resources.tsv, make
 * resources-expected), so that a student release, without the
 * references, has them.
 */
#include "resources.h"
#include "spawn.h"

#include <ctype.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_ENTRIES 64

typedef struct {
    char arch[16];
    char name[NAME_LEN];
    int registers, local_bytes, spill_bytes, shared_bytes;
} entry;

/* sm_90 -> 90; anything else -> -1 */
static int arch_number(const char *arch)
{
    return strncmp(arch, "sm_", 3) || !isdigit((unsigned char)arch[3]) ? -1 : atoi(arch + 3);
}

/* The name a person reads: _Z15matmul_warptileILb1EEvPKfS1_Pfi -> matmul_warptile */
static void short_name(const char *mangled, char *out, size_t len)
{
    /* _Z, or _ZL for a kernel of internal linkage (static __global__) */
    const int at = !strncmp(mangled, "_ZL", 3) ? 3 : 2;
    if (!strncmp(mangled, "_Z", 2) && isdigit((unsigned char)mangled[at])) {
        char *end;
        long n = strtol(mangled + at, &end, 10);
        if (n > 0 && (size_t)n <= strlen(end)) {
            snprintf(out, len, "%.*s", (int)(n < (long)len ? n : (long)len - 1), end);
            return;
        }
    }
    snprintf(out, len, "%s", mangled);
}

/* The number after `key` in line (REG:219, "Used 219 registers"): 0 if absent. */
static int number_after(const char *line, const char *key)
{
    const char *p = strstr(line, key);
    return p ? atoi(p + strlen(key)) : 0;
}

/* The number before `key` in line ("664 bytes stack frame"): 0 if absent. */
static int number_before(const char *line, const char *key)
{
    const char *p = strstr(line, key);
    if (!p)
        return 0;
    while (p > line && p[-1] == ' ')
        p--;
    while (p > line && isdigit((unsigned char)p[-1]))
        p--;
    return atoi(p);
}

/* Two formats, told apart line by line; the entries of one architecture summed up at the end. */
int grader_resources_parse(const char *text, const char *want, resource_use *u)
{
    static entry e[MAX_ENTRIES];
    int n = 0;
    char arch[16] = "", name[NAME_LEN] = "";
    memset(u, 0, sizeof *u);
    for (const char *line = text; line && *line;) {
        size_t len = strcspn(line, "\n");
        char l[1024];
        snprintf(l, sizeof l, "%.*s", (int)(len < sizeof l ? len : sizeof l - 1), line);
        line += len + (line[len] == '\n');
        const char *p;
        if ((p = strstr(l, "arch = sm_"))) {                                  /* cuobjdump */
            snprintf(arch, sizeof arch, "%.15s", p + 7);
        } else if (!strncmp(l, " Function ", 10) && l[strlen(l) - 1] == ':') { /* cuobjdump */
            snprintf(name, sizeof name, "%.*s", (int)(strlen(l) - 11), l + 10);
        } else if (strstr(l, "REG:") && name[0] && n < MAX_ENTRIES) {          /* cuobjdump */
            e[n] = (entry){.registers = number_after(l, "REG:"),
                           .local_bytes = number_after(l, "STACK:") + number_after(l, " LOCAL:"),
                           .spill_bytes = -1, .shared_bytes = number_after(l, "SHARED:")};
            snprintf(e[n].arch, sizeof e[n].arch, "%s", arch);
            snprintf(e[n].name, sizeof e[n].name, "%s", name);
            n++;
            name[0] = 0;
        } else if ((p = strstr(l, "Compiling entry function '")) && n < MAX_ENTRIES) { /* ptxas -v */
            p += 26;
            const char *q = strchr(p, '\'');
            const char *a = q ? strstr(q, "for 'sm_") : NULL;
            if (!q || !a)
                continue;
            e[n] = (entry){.spill_bytes = 0};
            snprintf(e[n].name, sizeof e[n].name, "%.*s", (int)(q - p), p);
            snprintf(e[n].arch, sizeof e[n].arch, "%.*s", (int)strcspn(a + 5, "'"), a + 5);
            n++;
        } else if (n && e[n - 1].spill_bytes >= 0 && strstr(l, "bytes stack frame")) { /* ptxas -v */
            e[n - 1].local_bytes = number_before(l, "bytes stack frame");
            e[n - 1].spill_bytes = number_before(l, "bytes spill stores") + number_before(l, "bytes spill loads");
        } else if (n && e[n - 1].spill_bytes >= 0 && strstr(l, "Used ") && strstr(l, " registers")) {
            e[n - 1].registers = number_after(l, "Used ");
            e[n - 1].shared_bytes = number_before(l, "bytes smem");
        }
    }
    int best = -1;
    for (int i = 0; i < n; i++)
        if (!want || !strcmp(e[i].arch, want))
            best = arch_number(e[i].arch) > best ? arch_number(e[i].arch) : best;
    if (best < 0)
        return -1;
    u->spill_bytes = -1;
    u->overlap = -1;
    for (int i = 0; i < n; i++) {
        if (arch_number(e[i].arch) != best)
            continue;
        if (!u->kernels++ || e[i].registers > u->registers)
            short_name(e[i].name, u->kernel, sizeof u->kernel);
        snprintf(u->arch, sizeof u->arch, "%s", e[i].arch);
        u->registers = e[i].registers > u->registers ? e[i].registers : u->registers;
        u->local_bytes = e[i].local_bytes > u->local_bytes ? e[i].local_bytes : u->local_bytes;
        u->spill_bytes = e[i].spill_bytes > u->spill_bytes ? e[i].spill_bytes : u->spill_bytes;
        u->shared_bytes = e[i].shared_bytes > u->shared_bytes ? e[i].shared_bytes : u->shared_bytes;
    }
    return 0;
}

/* The opcode of a line of cuobjdump -sass ("LDG" of "@!P1 LDG.E R7, ..."),
 * or "" for a line that is not an instruction. */
static void opcode(const char *line, char *out, size_t len)
{
    out[0] = 0;
    const char *p = line + strspn(line, " \t"); /* the address comes first, hex in a comment */
    size_t hex = strncmp(p, "/*", 2) ? 0 : strspn(p + 2, "0123456789abcdef");
    if (!hex || strncmp(p + 2 + hex, "*/", 2))
        return;
    p += 4 + hex;
    p += strspn(p, " \t");
    if (*p == '@')
        p += strcspn(p, " \t"), p += strspn(p, " \t");
    size_t n = strcspn(p, ". \t;");
    snprintf(out, len, "%.*s", (int)(n < len ? n : len - 1), p);
}

/* Count FFMA from the first LDG of a run to the STS that follows it (resources.h). */
int grader_resources_overlap(const char *sass, const char *want)
{
    int most = -1, loading = 0, fmas = 0, mine = !want;
    for (const char *line = sass; line && *line;) {
        size_t len = strcspn(line, "\n");
        char l[512], op[32];
        snprintf(l, sizeof l, "%.*s", (int)(len < sizeof l ? len : sizeof l - 1), line);
        line += len + (line[len] == '\n');
        const char *a = strstr(l, "arch = sm_");
        if (a && want)
            mine = !strcmp(a + 7, want);
        opcode(l, op, sizeof op);
        if (!mine)
            continue;
        if (!strcmp(op, "LDGSTS"))
            return -1; /* copies global to shared memory by itself (cp.async) */
        if (!strcmp(op, "LDG") && !loading)
            loading = 1, fmas = 0;
        else if (loading && !strcmp(op, "FFMA"))
            fmas++;
        else if (loading && !strcmp(op, "STS")) {
            most = fmas > most ? fmas : most;
            loading = 0;
        }
    }
    return most;
}

/* Registers are given a warp 8 a thread at a time: 217 take 224 (resources.h). */
int grader_resources_warps(int registers)
{
    int per_warp = (registers < 1 ? 8 : (registers + 7) / 8 * 8) * 32;
    int warps = 65536 / per_warp;
    return warps > 64 ? 64 : warps;
}

/* The first row of the table for the stage, tier and architecture. */
int grader_resources_expected(const char *table, const char *stage, const char *tier, const char *arch,
                       resource_use *u)
{
    char *text = lab_read_file(table, 1u << 20);
    int found = -1;
    for (char *line = text; line && *line && found; line += strcspn(line, "\n") + (line[strcspn(line, "\n")] != 0)) {
        char st[NAME_LEN], ti[NAME_LEN], ar[16], kernel[NAME_LEN];
        int reg, local, shared, overlap;
        if (*line == '#' ||
            sscanf(line, "%127s %127s %15s %127s %d %d %d %d", st, ti, ar, kernel, &reg, &local, &shared,
                   &overlap) != 8 ||
            strcmp(st, stage) || strcmp(ti, tier) || (arch && strcmp(ar, arch)))
            continue;
        *u = (resource_use){.kernels = 1, .registers = reg, .local_bytes = local, .spill_bytes = -1,
                            .shared_bytes = shared, .overlap = overlap};
        snprintf(u->arch, sizeof u->arch, "%s", ar);
        snprintf(u->kernel, sizeof u->kernel, "%s", kernel);
        found = 0;
    }
    free(text);
    return found;
}

/* "no local memory" or "96 bytes of local memory a thread (spilled ...)" */
static void local_text(char *out, size_t len, const resource_use *u)
{
    if (!u->local_bytes)
        snprintf(out, len, "no local memory");
    else if (u->spill_bytes > 0)
        snprintf(out, len, "%d bytes of local memory a thread (%d bytes of spill stores and loads)",
                 u->local_bytes, u->spill_bytes);
    else
        snprintf(out, len, "%d bytes of local memory a thread", u->local_bytes);
}

/* The figures side by side, then the one conclusion that fits first. */
void grader_resources_sentence(char *out, size_t len, const char *stage, const resource_use *s, const resource_use *r)
{
    char sl[128], rl[128];
    int ex = (int)strspn(stage, "0123456789");
    local_text(sl, sizeof sl, s);
    local_text(rl, sizeof rl, r);
    int sw = grader_resources_warps(s->registers), rw = grader_resources_warps(r->registers);
    snprintf(out, len, "The compiler gave your %s (%s) %d registers a thread, %s and %d bytes of shared "
             "memory a block: an SM's registers hold %d warps at most (%d block%s of 256 threads). The tier's "
             "reference kernel: %d registers, %s, %d bytes of shared memory, %d warps. ",
             s->kernel, s->arch, s->registers, sl, s->shared_bytes, sw, sw / 8, sw / 8 == 1 ? "" : "s", r->registers,
             rl, r->shared_bytes, rw);
    int waits = r->overlap >= 64 && s->overlap >= 0 && s->overlap * 10 < r->overlap;
    if (waits)
        grader_appendf(out, len, "Between loading a tile from global memory and storing it into shared memory "
                "your kernel does %d multiply-adds, so every load is waited for at once (the reference "
                "does %d there): issue the next tile's loads before this tile's multiply-adds and store "
                "them after. ", s->overlap, r->overlap);
    if (s->local_bytes > r->local_bytes)
        grader_appendf(out, len, "Your kernel keeps values in local memory, which is device memory behind the "
                "caches, where the reference keeps them in registers: index register arrays only with "
                "constants (#pragma unroll the loops over them), and do not ask __launch_bounds__ for "
                "more blocks an SM than its registers allow (`make ptxas EX=%.*s` shows the spills).", ex, stage);
    else if (sw / 8 < rw / 8) /* in whole blocks of 8 warps, as the lab's kernels have */
        grader_appendf(out, len, "With fewer warps an SM has less other work while a warp waits: fewer live "
                "values a thread (or fewer elements a thread) would let it hold more.");
    else if (!waits)
        grader_appendf(out, len, "Your kernel fits as well as the reference does, so the difference is in what "
                "it does with them: how its shared-memory reads and stores meet the banks, how many "
                "instructions it issues for each multiply-add: compare `make profile EX=%.*s` with the "
                "solution's.", ex, stage);
}

/* cuobjdump on PATH, or beside $NVCC (or nvcc): the toolkit's bin/. */
int grader_resources_find_cuobjdump(char *out, size_t len)
{
    (void)len; /* out holds PATH_MAX bytes */
    if (lab_find_program("cuobjdump", out) == 0)
        return 0;
    const char *nvcc = getenv("NVCC") && *getenv("NVCC") ? getenv("NVCC") : "nvcc";
    char nvcc_path[PATH_MAX], beside[PATH_MAX + 16];
    if (lab_find_program(nvcc, nvcc_path))
        return -1;
    char *slash = strrchr(nvcc_path, '/');
    if (!slash)
        return -1;
    snprintf(beside, sizeof beside, "%.*s/cuobjdump", (int)(slash - nvcc_path), nvcc_path);
    return lab_find_program(beside, out);
}

/* One cuobjdump call, with a time limit and a cap on what is kept. */
char *grader_resources_dump(const char *tool, const char *option, const char *object)
{
    char t[PATH_MAX], o[32], obj[PATH_MAX];
    snprintf(t, sizeof t, "%s", tool);
    snprintf(o, sizeof o, "%s", option);
    snprintf(obj, sizeof obj, "%s", object);
    char *argv[] = {t, o, obj, NULL};
    run_result r;
    grader_run_program(argv, -1, 60, 16u << 20, &r);
    char *text = r.started && r.exited && r.status == 0 && r.output_bytes <= (16u << 20) ? r.tail : NULL;
    if (text)
        r.tail = NULL;
    grader_run_result_free(&r);
    return text;
}

/* Only where it can compare: a row of the table, cuobjdump, a kernel in the object. */
void grader_explain_resources(stage_result *s, const target *t, const char *lab)
{
    const char *missed = NULL;
    for (int i = 0; i < s->ntiers && !missed; i++)
        if (s->tiers[i].graded && s->tiers[i].have_value && s->tiers[i].points < s->tiers[i].max)
            missed = s->tiers[i].name;
    if (!s->correct || s->flagged || !missed || !t->object[0])
        return;
    char table[PATH_MAX], tool[PATH_MAX];
    snprintf(table, sizeof table, "%s/grader/resources.tsv", lab);
    resource_use mine, ref;
    if (grader_resources_expected(table, s->stage, missed, NULL, &ref))
        return; /* the table has no row of this stage's tier */
    if (grader_resources_find_cuobjdump(tool, sizeof tool)) {
        grader_appendf(s->note, sizeof s->note, "%scuobjdump is not here (it comes with the CUDA Toolkit): no "
                "report of your kernel's registers", s->note[0] ? "; " : "");
        return;
    }
    char *text = grader_resources_dump(tool, "--dump-resource-usage", t->object);
    int ok = text && grader_resources_parse(text, NULL, &mine) == 0;
    free(text);
    if (!ok || grader_resources_expected(table, s->stage, missed, mine.arch, &ref))
        return; /* no table row for this architecture: nothing to compare with */
    /* the machine code needs nvdisasm, beside cuobjdump in the toolkit */
    text = grader_resources_dump(tool, "-sass", t->object);
    mine.overlap = text ? grader_resources_overlap(text, mine.arch) : -1;
    free(text);
    char sentence[REASON_LEN];
    grader_resources_sentence(sentence, sizeof sentence, s->stage, &mine, &ref);
    grader_score_add_advice(s, "%s", sentence);
}
