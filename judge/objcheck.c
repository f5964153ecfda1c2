/*
 * objcheck.c: objcheck [--label TEXT] [--fatbin OUT] OBJECT
 *
 * Whether the object a kernel.cu compiled into holds only what a CUDA
 * compile produces, read from its ELF headers by this program alone (no
 * tool, no plugin, nothing the object carries is run). Every step after
 * the compile (the link, nm, objdump, the profile's tools) takes the object
 * only once this said yes.
 *
 * Why: GCC's driver hands any object holding .gnu.lto_* sections to its
 * LTO plugin, which compiles that bytecode again at link time with options
 * stored in the object (an assembler option can write a file of the
 * object's choosing; an .incbin can read one). nm and objdump read such an
 * object through the same plugin and see only what it says. So the object
 * is refused before any of them when it has a section that nvcc -c does
 * not make (a list of names, below: the host compiler's code, data,
 * unwinding and notes, and the CUDA fat binary), code outside the code's
 * sections or code that is writable, or an executable stack.
 *
 * --fatbin OUT writes the object's device code (its one .nv_fatbin
 * section, which must be exactly one fat binary as nvcc's fatbinary makes
 * it: its header's size fills the section, no relocation, no second
 * section of that name) to OUT: the only device code the judge's device
 * server loads for this kernel.cu (judge/README.md, "Device code the build
 * never compiled"). Bytes a kernel.cu's host asm appends to the section,
 * or a fat binary of its own there, make the section's size disagree with
 * the header and are refused.
 *
 * Exit status: 0 fit to link; 1 refused (one line on stderr says why,
 * beginning with the label); 2 usage or unreadable.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#if defined(__x86_64__)
#define NATIVE_MACHINE EM_X86_64
#elif defined(__aarch64__)
#define NATIVE_MACHINE EM_AARCH64
#else
#error "objcheck knows x86-64 and aarch64 objects only"
#endif

/* Sections an honest nvcc -c makes (seen in every object of the lab,
 * exercises, solutions and harness, for every architecture it builds):
 * the exact names, then the prefixes of families (.text.startup,
 * .rodata.cst8, .rela.text, ...). */
static const char *const EXACT[] = {"", ".text", ".data", ".bss", ".rodata", ".symtab", ".strtab", ".shstrtab",
                                    ".comment", ".note.GNU-stack", ".note.gnu.property", ".eh_frame",
                                    ".gcc_except_table", ".group", ".init_array", ".fini_array", ".nv_fatbin",
                                    ".nvFatBinSegment", "__nv_module_id", ".tbss", ".tdata", NULL};
static const char *const PREFIXES[] = {".text.", ".data.", ".bss.", ".rodata.", ".rela.", ".gcc_except_table.",
                                       ".init_array.", ".fini_array.", ".tbss.", ".tdata.", ".debug_", NULL};

static int known_section(const char *name)
{
    for (int i = 0; EXACT[i]; i++)
        if (!strcmp(name, EXACT[i]))
            return 1;
    for (int i = 0; PREFIXES[i]; i++)
        if (!strncmp(name, PREFIXES[i], strlen(PREFIXES[i])))
            return 1;
    return 0;
}

static int known_type(Elf64_Word type)
{
    switch (type) {
    case SHT_NULL: case SHT_PROGBITS: case SHT_NOBITS: case SHT_SYMTAB: case SHT_STRTAB: case SHT_RELA:
    case SHT_REL: case SHT_NOTE: case SHT_GROUP: case SHT_INIT_ARRAY: case SHT_FINI_ARRAY:
#ifdef SHT_X86_64_UNWIND
    case SHT_X86_64_UNWIND:
#endif
        return 1;
    default:
        return 0;
    }
}

static const char *g_label = "kernel.cu";

static int refuse(const char *what)
{
    fprintf(stderr, "%s: error: the compiled object %s: the lab links only what a CUDA compile makes "
                    "(no link-time code, no options carried in the object)\n",
            g_label, what);
    return 1;
}

/* The object's bytes, whole (objects of the lab are a few MB at most). */
static unsigned char *read_all(const char *path, size_t *size)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) || !S_ISREG(st.st_mode)) {
        if (fd >= 0)
            close(fd);
        return NULL;
    }
    unsigned char *buf = malloc((size_t)st.st_size + 1);
    size_t got = 0;
    while (buf && got < (size_t)st.st_size) {
        ssize_t n = read(fd, buf + got, (size_t)st.st_size - got);
        if (n <= 0)
            break;
        got += (size_t)n;
    }
    close(fd);
    if (!buf || got != (size_t)st.st_size) {
        free(buf);
        return NULL;
    }
    *size = got;
    return buf;
}

/* The fat binary's header (fatbinary's container): magic, version, header
 * size, then the size of what follows it. */
#define FATBIN_MAGIC 0xBA55ED50u
typedef struct {
    unsigned int magic;
    unsigned short version, header_size;
    unsigned long long fat_size;
} fatbin_header;

static const unsigned char *g_fatbin; /* the .nv_fatbin section, once checked */
static size_t g_fatbin_size;

/* The .nv_fatbin section: one, one container filling it, no relocation. */
static int check_fatbin(const Elf64_Shdr *sh, int n, const char *strtab, size_t size, const unsigned char *b)
{
    int found = -1;
    for (int i = 0; i < n; i++) {
        const char *name = strtab + sh[i].sh_name;
        if (!strcmp(name, ".rela.nv_fatbin") || !strcmp(name, ".rel.nv_fatbin"))
            return refuse("relocates its device code (.nv_fatbin)");
        if (strcmp(name, ".nv_fatbin"))
            continue;
        if (found >= 0)
            return refuse("holds two sections of device code (.nv_fatbin)");
        found = i;
    }
    if (found < 0)
        return 0; /* no device code: a launch finds nothing to run */
    const Elf64_Shdr *s = &sh[found];
    fatbin_header h;
    if (s->sh_type != SHT_PROGBITS || s->sh_offset > size || s->sh_size > size - s->sh_offset ||
        s->sh_size < sizeof h)
        return refuse("has a malformed section of device code (.nv_fatbin)");
    memcpy(&h, b + s->sh_offset, sizeof h);
    if (h.magic != FATBIN_MAGIC || h.header_size != sizeof h || h.fat_size != s->sh_size - sizeof h)
        return refuse("holds device code that is not one fat binary as nvcc makes it (.nv_fatbin)");
    g_fatbin = b + s->sh_offset;
    g_fatbin_size = s->sh_size;
    return 0;
}

/* 0 when the object is fit to link, else 1 with one line said. */
static int check(const unsigned char *b, size_t size)
{
    const Elf64_Ehdr *eh = (const Elf64_Ehdr *)b;
    if (size < sizeof *eh || memcmp(eh->e_ident, ELFMAG, SELFMAG) || eh->e_ident[EI_CLASS] != ELFCLASS64 ||
        eh->e_ident[EI_DATA] != ELFDATA2LSB)
        return refuse("is not a 64-bit ELF object");
    if (eh->e_type != ET_REL || eh->e_machine != NATIVE_MACHINE)
        return refuse("is not a relocatable object for this machine");
    /* no extended numbering: an honest object has a few dozen sections */
    if (eh->e_shnum == 0 || eh->e_shstrndx == SHN_UNDEF || eh->e_shstrndx >= eh->e_shnum ||
        eh->e_shentsize != sizeof(Elf64_Shdr) || eh->e_shoff > size ||
        (size - eh->e_shoff) / sizeof(Elf64_Shdr) < eh->e_shnum)
        return refuse("has a malformed section table");
    const Elf64_Shdr *sh = (const Elf64_Shdr *)(b + eh->e_shoff);
    const Elf64_Shdr *names = &sh[eh->e_shstrndx];
    if (names->sh_type != SHT_STRTAB || names->sh_offset > size || names->sh_size > size - names->sh_offset ||
        names->sh_size == 0 || b[names->sh_offset + names->sh_size - 1] != 0)
        return refuse("has a malformed table of section names");
    const char *strtab = (const char *)b + names->sh_offset;
    int stack_note = 0;
    for (int i = 0; i < eh->e_shnum; i++) {
        if (sh[i].sh_name >= names->sh_size)
            return refuse("has a section without a name");
        const char *name = strtab + sh[i].sh_name;
        char what[300];
        if (!known_section(name) || !known_type(sh[i].sh_type)) {
            snprintf(what, sizeof what, "holds a section a CUDA compile does not make (%.80s%s)", name,
                     !strncmp(name, ".gnu.lto", 8) ? ": GCC's link-time bytecode" : "");
            return refuse(what);
        }
        if (!strcmp(name, ".note.GNU-stack")) {
            stack_note = 1;
            if (sh[i].sh_flags & SHF_EXECINSTR)
                return refuse("asks for an executable stack");
        }
        /* code only in code's sections, never writable: a section named
         * as data but marked executable, or code marked writable, would
         * load as memory the program can write and run, which no system
         * call then makes */
        int code = !strcmp(name, ".text") || !strncmp(name, ".text.", 6);
        if ((sh[i].sh_flags & SHF_EXECINSTR) && (!code || (sh[i].sh_flags & SHF_WRITE))) {
            snprintf(what, sizeof what, "marks a section %s (%.80s)",
                     code ? "of code writable" : "that is not code executable", name);
            return refuse(what);
        }
    }
    if (!stack_note)
        return refuse("does not say its stack is not executable (.note.GNU-stack)");
    return check_fatbin(sh, eh->e_shnum, strtab, size, b);
}

/* The device code, to OUT (written whole, then renamed into place); an
 * object without device code gives an empty file. 0, or 2. */
static int write_fatbin(const char *out)
{
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s.tmp", out);
    FILE *f = fopen(tmp, "wb");
    if (!f || (g_fatbin_size && fwrite(g_fatbin, 1, g_fatbin_size, f) != g_fatbin_size) || fclose(f) ||
        rename(tmp, out)) {
        fprintf(stderr, "objcheck: cannot write %s: %s\n", out, strerror(errno ? errno : EIO));
        return 2;
    }
    return 0;
}

int main(int argc, char **argv)
{
    int i = 1;
    const char *fatbin = NULL;
    for (; i + 1 < argc && argv[i][0] == '-'; i += 2) {
        if (!strcmp(argv[i], "--label"))
            g_label = argv[i + 1];
        else if (!strcmp(argv[i], "--fatbin"))
            fatbin = argv[i + 1];
        else
            break;
    }
    if (i + 1 != argc) {
        fprintf(stderr, "usage: objcheck [--label TEXT] [--fatbin OUT] OBJECT\n");
        return 2;
    }
    size_t size = 0;
    unsigned char *b = read_all(argv[i], &size);
    if (!b) {
        fprintf(stderr, "objcheck: cannot read %s as a plain file: %s\n", argv[i], strerror(errno ? errno : EIO));
        return 2;
    }
    int rc = check(b, size);
    if (rc == 0 && fatbin)
        rc = write_fatbin(fatbin);
    free(b);
    return rc;
}
