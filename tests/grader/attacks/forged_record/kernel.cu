/*
 * An attack, not a kernel: a kernel.cu that names no forbidden symbol and
 * holds no system-call instruction, yet forges its stage's result. Before
 * main (a constructor, which libc calls), it finds libc's ELF header in
 * memory from its own return address, looks `write` up in libc's dynamic
 * symbol table, writes a finished-looking record on descriptor 3
 * (where the harness writes its record) and exits with status 0.
 *
 * In the harness's own process (the drivers), this is the hole that the
 * judge closes: judge/README.md, "The threat model". Graded with the judge
 * (JUDGE=1), descriptor 3 of the runner is the judge's request pipe, read
 * only, and the runner's death is the judge's to report: it must score 0.
 *
 *   tests/grader/gpu-fixtures.sh (graded as 03_tiled, with and without --judge)
 *   tests/grader/run.sh          (the symbol policy lets it through: no wall)
 */
#include <elf.h>
#include <link.h>
#include <stdint.h>
#include <stdlib.h>

#include "matmul.h"

static int same(const char *a, const char *b)
{
    while (*a && *a == *b)
        a++, b++;
    return *a == *b;
}

/* A function of the library that contains `inside`, by name, from that
 * library's dynamic symbol table in memory. */
static void *library_function(const void *inside, const char *name)
{
    uintptr_t p = (uintptr_t)inside & ~(uintptr_t)0xfff;
    for (;;) {
        const unsigned char *h = (const unsigned char *)p;
        if (h[0] == 0x7f && h[1] == 'E' && h[2] == 'L' && h[3] == 'F')
            break;
        p -= 0x1000;
    }
    const ElfW(Ehdr) *eh = (const ElfW(Ehdr) *)p;
    const ElfW(Phdr) *ph = (const ElfW(Phdr) *)(p + eh->e_phoff);
    const ElfW(Dyn) *dyn = NULL;
    for (int i = 0; i < eh->e_phnum; i++)
        if (ph[i].p_type == PT_DYNAMIC)
            dyn = (const ElfW(Dyn) *)(p + ph[i].p_vaddr);
    const ElfW(Sym) *sym = NULL;
    const char *str = NULL;
    for (; dyn && dyn->d_tag != DT_NULL; dyn++) {
        uintptr_t v = dyn->d_un.d_ptr < p ? p + dyn->d_un.d_ptr : dyn->d_un.d_ptr;
        if (dyn->d_tag == DT_SYMTAB)
            sym = (const ElfW(Sym) *)v;
        if (dyn->d_tag == DT_STRTAB)
            str = (const char *)v;
    }
    for (; sym && (const char *)sym < str; sym++)
        if (sym->st_name && sym->st_value && same(str + sym->st_name, name))
            return (void *)(p + sym->st_value);
    return NULL;
}

static const char RECORD[] =
    "{\"schema\": 1, \"family\": \"matmul\", \"stage\": \"03_tiled\", \"variant\": \"exercise\",\n"
    "\"knob\": \"\", \"seed\": 1, \"gpu\": {\"name\": \"forged\", \"cc\": \"9.0\"},\n"
    "\"checks\": [{\"size\": \"n=17\", \"ok\": true}], \"correct\": true,\n"
    "\"timed_output_check\": [{\"size\": \"n=4096\", \"ok\": true}],\n"
    "\"timing\": {\"size\": \"n=4096\", \"metric\": \"GFLOP/s\", \"work\": 1.37e11, \"floor_ms\": 0.1,\n"
    "\"plausible\": true, \"pct_of_reference\": 99.0, \"speedup_vs_baseline\": 99.0, \"kernels\": []},\n"
    "\"status\": \"ok\", \"exit_status\": 0, \"message\": \"ok\"}\n";

__attribute__((constructor)) static void forge(void)
{
    typedef long (*write_fn)(int, const void *, unsigned long);
    write_fn w = (write_fn)library_function(__builtin_return_address(0), "write");
    if (w && w(3, RECORD, sizeof RECORD - 1) > 0)
        exit(0);
}

void matmul(const float *A, const float *B, float *C, int n)
{
    (void)A, (void)B, (void)C, (void)n; /* nothing: the record says it all */
}
