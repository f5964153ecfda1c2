/*
 * libraries.c: the shared libraries a program is linked with (see confine.h).
 *
 * A confined run may read the files its program needs to start and nothing
 * else of the machine's libraries: not cuBLAS, not cuFFT, not a copy of
 * either in some Python wheel. Which files those are is derived here from
 * the program itself, as the dynamic loader would find them, without
 * running the loader on it (the program is untrusted; `ldd` would run its
 * loader):
 *
 *   - DT_NEEDED of the program, then of each library found, to the end;
 *   - each name looked up as glibc's loader does: a name with a slash as
 *     it is; else DT_RPATH (when there is no DT_RUNPATH), LD_LIBRARY_PATH,
 *     DT_RUNPATH ($ORIGIN expanded), /etc/ld.so.cache, then the default
 *     folders; a candidate of another ELF class or machine is passed over,
 *     as the loader passes it over.
 *
 * What the GPU driver loads with dlopen (libcuda.so.1 and the libraries it
 * loads in turn) is no DT_NEEDED of anything: the grader learns those files
 * from a trusted CUDA program (build/confine/cuda-probe --files) and hands
 * them over with --read-list.
 */
#include "confine.h"

#include <elf.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* Add one path; -1 when the list is full. */
static int list_add(confine_list *list, const char *path)
{
    if (list->n == CONFINE_MAX_FILES)
        return -1;
    list->path[list->n] = strdup(path);
    return list->path[list->n] ? (list->n++, 0) : -1;
}

/* One ELF file's dynamic section, read (never mapped executable). */
typedef struct {
    char needed[64][256];
    int nneeded;
    char rpath[1024], runpath[1024];
    int machine;
} elf_deps;

static int read_at(int fd, void *buf, size_t len, uint64_t off)
{
    return pread(fd, buf, len, (off_t)off) == (ssize_t)len ? 0 : -1;
}

/* The file offset of a virtual address, through the PT_LOAD headers. */
static int64_t offset_of(const Elf64_Phdr *ph, int n, uint64_t vaddr)
{
    for (int i = 0; i < n; i++)
        if (ph[i].p_type == PT_LOAD && vaddr >= ph[i].p_vaddr && vaddr < ph[i].p_vaddr + ph[i].p_filesz)
            return (int64_t)(vaddr - ph[i].p_vaddr + ph[i].p_offset);
    return -1;
}

/* A string of the dynamic string table at strtab + off into out. */
static void read_string(int fd, int64_t strtab, uint64_t off, char *out, size_t len)
{
    ssize_t got = pread(fd, out, len - 1, (off_t)(strtab + (int64_t)off));
    out[got > 0 ? got : 0] = 0;
    out[strnlen(out, len - 1)] = 0;
}

/* 0 and the dependencies of a 64-bit ELF file; -1 when it is not one. */
static int read_deps(const char *path, elf_deps *d)
{
    memset(d, 0, sizeof *d);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    Elf64_Ehdr eh;
    Elf64_Phdr ph[64];
    int rc = -1;
    if (read_at(fd, &eh, sizeof eh, 0) || memcmp(eh.e_ident, ELFMAG, SELFMAG) ||
        eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_phentsize != sizeof(Elf64_Phdr) || eh.e_phnum > 64 ||
        read_at(fd, ph, sizeof ph[0] * eh.e_phnum, eh.e_phoff))
        goto done;
    d->machine = eh.e_machine;
    rc = 0;
    for (int i = 0; i < eh.e_phnum; i++) {
        if (ph[i].p_type != PT_DYNAMIC)
            continue;
        size_t count = ph[i].p_filesz / sizeof(Elf64_Dyn);
        if (count > 4096)
            count = 4096;
        Elf64_Dyn *dyn = calloc(count ? count : 1, sizeof *dyn);
        if (!dyn || read_at(fd, dyn, count * sizeof *dyn, ph[i].p_offset)) {
            free(dyn);
            break;
        }
        int64_t strtab = -1;
        for (size_t k = 0; k < count && dyn[k].d_tag != DT_NULL; k++)
            if (dyn[k].d_tag == DT_STRTAB)
                strtab = offset_of(ph, eh.e_phnum, dyn[k].d_un.d_ptr);
        for (size_t k = 0; strtab >= 0 && k < count && dyn[k].d_tag != DT_NULL; k++) {
            uint64_t v = dyn[k].d_un.d_val;
            if (dyn[k].d_tag == DT_NEEDED && d->nneeded < 64)
                read_string(fd, strtab, v, d->needed[d->nneeded++], sizeof d->needed[0]);
            else if (dyn[k].d_tag == DT_RPATH)
                read_string(fd, strtab, v, d->rpath, sizeof d->rpath);
            else if (dyn[k].d_tag == DT_RUNPATH)
                read_string(fd, strtab, v, d->runpath, sizeof d->runpath);
        }
        free(dyn);
        break;
    }
done:
    close(fd);
    return rc;
}

/* ----------------------------------------------------------- ld.so.cache */

static char *g_cache;   /* /etc/ld.so.cache's new-format part */
static size_t g_cache_len;

static void load_cache(void)
{
    static int loaded;
    if (loaded++)
        return;
    int fd = open("/etc/ld.so.cache", O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) || st.st_size < 48) {
        if (fd >= 0)
            close(fd);
        return;
    }
    char *map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (map == MAP_FAILED)
        return;
    /* "glibc-ld.so.cache1.1", at the start or after the old format's part */
    static const char magic[] = "glibc-ld.so.cache1.1";
    char *at = memmem(map, (size_t)st.st_size, magic, sizeof magic - 1);
    if (at) {
        g_cache = at;
        g_cache_len = (size_t)st.st_size - (size_t)(at - map);
    }
}

/* The cache's paths for name, in its order, each tried with try(). */
static int cache_lookup(const char *name, int (*try)(const char *, void *), void *arg)
{
    load_cache();
    if (!g_cache || g_cache_len < 48)
        return -1;
    uint32_t nlibs;
    memcpy(&nlibs, g_cache + 20, 4);
    const size_t header = 48, entry = 24;
    if (nlibs > (g_cache_len - header) / entry)
        return -1;
    for (uint32_t i = 0; i < nlibs; i++) {
        const char *e = g_cache + header + (size_t)i * entry;
        uint32_t key, value;
        memcpy(&key, e + 4, 4);
        memcpy(&value, e + 8, 4);
        if (key >= g_cache_len || value >= g_cache_len)
            continue;
        const char *k = g_cache + key, *v = g_cache + value;
        if (!memchr(k, 0, g_cache_len - key) || !memchr(v, 0, g_cache_len - value))
            continue;
        if (!strcmp(k, name) && try(v, arg) == 0)
            return 0;
    }
    return -1;
}

/* --------------------------------------------------------------- the walk */

static int listed(const confine_list *list, const char *path)
{
    for (int i = 0; i < list->n; i++)
        if (!strcmp(list->path[i], path))
            return 1;
    return 0;
}


typedef struct {
    confine_list *out;
    int machine;
    int added;   /* files added to out by this lookup */
    int every;   /* add every candidate that fits (the cache's variants) */
} lookup;

/* A candidate file for a library: when it exists and is an ELF of our
 * machine, it is added to the list; 0 then, unless every candidate is
 * wanted (the cache may list one name in several glibc-hwcaps folders, and
 * the loader picks one of them by the processor). */
static int try_candidate(const char *path, void *arg)
{
    lookup *l = arg;
    elf_deps d;
    char real[PATH_MAX];
    if (!realpath(path, real) || read_deps(real, &d) || d.machine != l->machine)
        return -1;
    if (!listed(l->out, real) && list_add(l->out, real))
        return -1;
    l->added++;
    return l->every ? -1 : 0;
}

/* Try name in each folder of a colon-separated list ($ORIGIN: origin). */
static int search_list(const char *list, const char *origin, const char *name, lookup *l)
{
    for (const char *p = list; p && *p;) {
        size_t n = strcspn(p, ":;");
        char folder[PATH_MAX], candidate[PATH_MAX + 256];
        if (n >= 7 && !strncmp(p, "$ORIGIN", 7))
            snprintf(folder, sizeof folder, "%s%.*s", origin, (int)(n - 7), p + 7);
        else if (n >= 9 && !strncmp(p, "${ORIGIN}", 9))
            snprintf(folder, sizeof folder, "%s%.*s", origin, (int)(n - 9), p + 9);
        else
            snprintf(folder, sizeof folder, "%.*s", (int)n, p);
        snprintf(candidate, sizeof candidate, "%s/%s", folder[0] ? folder : ".", name);
        if (n && try_candidate(candidate, l) == 0)
            return 0;
        p += n + (p[n] != 0);
    }
    return -1;
}

static const char DEFAULT_FOLDERS[] =
#if defined(__x86_64__)
    "/lib/x86_64-linux-gnu:/usr/lib/x86_64-linux-gnu:"
#elif defined(__aarch64__)
    "/lib/aarch64-linux-gnu:/usr/lib/aarch64-linux-gnu:"
#endif
    "/lib64:/usr/lib64:/lib:/usr/lib";

static int resolve(const char *name, const elf_deps *by, const char *origin, lookup *l)
{
    if (strchr(name, '/'))
        return try_candidate(name, l);
    if (!by->runpath[0] && search_list(by->rpath, origin, name, l) == 0)
        return 0;
    if (search_list(getenv("LD_LIBRARY_PATH"), origin, name, l) == 0)
        return 0;
    if (search_list(by->runpath, origin, name, l) == 0)
        return 0;
    l->every = 1;
    cache_lookup(name, try_candidate, l);
    l->every = 0;
    if (l->added)
        return 0;
    return search_list(DEFAULT_FOLDERS, origin, name, l);
}

int judge_confine_libraries(const char *program, confine_list *out)
{
    char real[PATH_MAX];
    elf_deps first;
    if (!realpath(program, real) || read_deps(real, &first))
        return -1;
    int start = out->n, missing = 0;
    if (!listed(out, real) && list_add(out, real))
        return -1;
    /* breadth first over the files added from start on */
    for (int i = start; i < out->n; i++) {
        elf_deps d;
        if (read_deps(out->path[i], &d))
            continue;
        char origin[PATH_MAX];
        snprintf(origin, sizeof origin, "%s", out->path[i]);
        char *slash = strrchr(origin, '/');
        if (slash)
            *slash = 0;
        for (int k = 0; k < d.nneeded; k++) {
            lookup l = {out, d.machine, 0, 0};
            if (resolve(d.needed[k], &d, origin, &l) && !l.added)
                missing++; /* the loader will say which, when it runs */
        }
    }
    return missing;
}

int judge_confine_list_read(confine_list *list, const char *file)
{
    FILE *f = fopen(file, "r");
    if (!f)
        return -1;
    char line[PATH_MAX];
    int rc = 0;
    while (!rc && fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = 0;
        if (line[0] == '/' && !listed(list, line))
            rc = list_add(list, line);
    }
    fclose(f);
    return rc;
}

void judge_confine_interpreter(const char *program, char *out, size_t len)
{
    out[0] = 0;
    int fd = open(program, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return;
    Elf64_Ehdr eh;
    ssize_t got = pread(fd, &eh, sizeof eh, 0);
    if (got >= 2 && ((char *)&eh)[0] == '#' && ((char *)&eh)[1] == '!') {
        char *line = (char *)&eh + 2;
        ((char *)&eh)[got < (ssize_t)sizeof eh ? got : (ssize_t)sizeof eh - 1] = 0;
        line += strspn(line, " \t");
        size_t n = strcspn(line, " \t\n");
        snprintf(out, len, "%.*s", (int)n, line);
    } else if (got == (ssize_t)sizeof eh && !memcmp(eh.e_ident, ELFMAG, SELFMAG) &&
               eh.e_ident[EI_CLASS] == ELFCLASS64) {
        for (int i = 0; i < eh.e_phnum; i++) {
            Elf64_Phdr ph;
            if (pread(fd, &ph, sizeof ph, (off_t)(eh.e_phoff + (Elf64_Off)i * eh.e_phentsize)) != sizeof ph)
                break;
            if (ph.p_type == PT_INTERP && ph.p_filesz > 1 && ph.p_filesz < len) {
                if (pread(fd, out, ph.p_filesz, (off_t)ph.p_offset) != (ssize_t)ph.p_filesz)
                    out[0] = 0;
                else
                    out[ph.p_filesz - 1] = 0;
                break;
            }
        }
    }
    close(fd);
}
