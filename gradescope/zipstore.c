/*
 * zipstore.c: a zip file of a folder, its files stored as they are (no
 * compression), for make gradescope: Gradescope takes the autograder as a
 * zip, and zip(1) is not always installed; this is the whole format the
 * bundle needs (PKWARE APPNOTE: local headers, a central directory, its
 * end record), with the files' Unix modes kept so that run_autograder
 * stays executable.
 *
 *   build/gradescope/zipstore OUT.zip DIR
 *
 * Every plain file and folder under DIR, sorted by name, with paths
 * relative to DIR; a link or another kind of file stops it. Exit status 0,
 * 1 when a file cannot be read or written, 2 usage.
 */
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#define MAX_ENTRIES 65535u

typedef struct {
    char *name;        /* relative to DIR; folders end with '/' */
    uint32_t crc, size, offset;
    uint16_t time, date;
    uint32_t mode;
} entry;

static entry *entries;
static unsigned nentries;
static FILE *out;
static const char *out_path;

static void die(const char *what, const char *path)
{
    fprintf(stderr, "zipstore: %s: %s%s%s\n", path, what, errno ? ": " : "", errno ? strerror(errno) : "");
    if (out)
        remove(out_path);
    exit(1);
}

static uint32_t crc_table[256];
static void crc_init(void)
{
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = i;
        for (int k = 0; k < 8; k++)
            c = c & 1 ? 0xEDB88320u ^ (c >> 1) : c >> 1;
        crc_table[i] = c;
    }
}

/* Little-endian numbers, as the format has them. */
static void put16(uint16_t v)
{
    fputc(v & 0xff, out);
    fputc(v >> 8, out);
}
static void put32(uint32_t v)
{
    put16(v & 0xffff);
    put16(v >> 16);
}

/* What a local header and a central directory record share: from the
 * version needed to the name's length. */
static void put_common(const entry *e)
{
    put16(10);                       /* version needed: 1.0 */
    put16(0x0800);                   /* names are UTF-8 */
    put16(0);                        /* stored */
    put16(e->time);
    put16(e->date);
    put32(e->crc);
    put32(e->size);
    put32(e->size);
    put16((uint16_t)strlen(e->name));
}

/* A local header, then the file's bytes (read twice: its CRC first). */
static void add(const char *root, const char *rel, const struct stat *st)
{
    if (nentries == MAX_ENTRIES)
        die("more files than a zip without its 64-bit extension holds", root);
    if (st->st_size > 0x7fffffffL)
        die("a file of 2 GiB or more", rel);
    entry *e = &entries[nentries++];
    int dir = S_ISDIR(st->st_mode);
    if (asprintf(&e->name, "%s%s", rel, dir ? "/" : "") < 0)
        die("out of memory", rel);
    struct tm tm;
    localtime_r(&st->st_mtime, &tm);
    if (tm.tm_year < 80)
        tm = (struct tm){.tm_year = 80, .tm_mday = 1};
    e->time = (uint16_t)(tm.tm_hour << 11 | tm.tm_min << 5 | tm.tm_sec / 2);
    e->date = (uint16_t)((tm.tm_year - 80) << 9 | (tm.tm_mon + 1) << 5 | tm.tm_mday);
    e->mode = (uint32_t)st->st_mode;
    e->size = dir ? 0 : (uint32_t)st->st_size;
    e->offset = (uint32_t)ftell(out);
    char *path = NULL;
    if (asprintf(&path, "%s/%s", root, rel) < 0)
        die("out of memory", rel);
    uint32_t crc = 0xffffffffu;
    unsigned char buf[65536];
    size_t n;
    FILE *in = dir ? NULL : fopen(path, "rb");
    if (!dir && !in)
        die("cannot read", path);
    while (in && (n = fread(buf, 1, sizeof buf, in)) > 0)
        for (size_t i = 0; i < n; i++)
            crc = crc_table[(crc ^ buf[i]) & 0xff] ^ (crc >> 8);
    e->crc = crc ^ 0xffffffffu;
    put32(0x04034b50);
    put_common(e);
    put16(0);
    fputs(e->name, out);
    if (in) {
        rewind(in);
        uint32_t copied = 0;
        while ((n = fread(buf, 1, sizeof buf, in)) > 0) {
            fwrite(buf, 1, n, out);
            copied += (uint32_t)n;
        }
        if (ferror(in) || copied != e->size)
            die("changed while it was read", path);
        fclose(in);
    }
    free(path);
}

static int visible(const struct dirent *d)
{
    return strcmp(d->d_name, ".") && strcmp(d->d_name, "..");
}

/* The folder root/rel (rel "" for root itself), depth first, sorted. */
static void walk(const char *root, const char *rel)
{
    char *dir = NULL;
    if (asprintf(&dir, "%s%s%s", root, *rel ? "/" : "", rel) < 0)
        die("out of memory", root);
    struct dirent **list;
    int n = scandir(dir, &list, visible, alphasort);
    if (n < 0)
        die("cannot list", dir);
    for (int i = 0; i < n; i++) {
        char *sub = NULL, *path = NULL;
        if (asprintf(&sub, "%s%s%s", rel, *rel ? "/" : "", list[i]->d_name) < 0 ||
            asprintf(&path, "%s/%s", root, sub) < 0)
            die("out of memory", dir);
        struct stat st;
        if (lstat(path, &st))
            die("cannot stat", path);
        if (S_ISDIR(st.st_mode)) {
            add(root, sub, &st);
            walk(root, sub);
        } else if (S_ISREG(st.st_mode)) {
            add(root, sub, &st);
        } else {
            errno = 0;
            die("not a plain file or folder (a link?): the bundle holds copies only", path);
        }
        free(sub);
        free(path);
        free(list[i]);
    }
    free(list);
    free(dir);
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: zipstore OUT.zip DIR\n");
        return 2;
    }
    crc_init();
    entries = calloc(MAX_ENTRIES, sizeof *entries);
    out_path = argv[1];
    out = fopen(out_path, "wb");
    if (!entries || !out)
        die("cannot write", out_path);
    walk(argv[2], "");
    uint32_t start = (uint32_t)ftell(out);
    for (unsigned i = 0; i < nentries; i++) {
        const entry *e = &entries[i];
        put32(0x02014b50);
        put16(3 << 8 | 30);          /* made by: Unix, 3.0 */
        put_common(e);
        put16(0);
        put16(0);
        put16(0);
        put16(0);
        put32(e->mode << 16 | (S_ISDIR(e->mode) ? 0x10 : 0));
        put32(e->offset);
        fputs(e->name, out);
    }
    uint32_t size = (uint32_t)ftell(out) - start;
    put32(0x06054b50);
    put16(0);
    put16(0);
    put16((uint16_t)nentries);
    put16((uint16_t)nentries);
    put32(size);
    put32(start);
    put16(0);
    errno = 0;
    if (ferror(out) | fclose(out)) {
        out = NULL;
        die("cannot write", out_path);
    }
    return 0;
}
