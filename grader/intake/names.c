/*
 * names.c: a submission's entry name into the student's name, checked
 * once, where SUBMISSIONS is listed (names.h). An entry's name is the
 * instructor's download's, so it can hold anything a file name can: one
 * with a control character is refused, never written into a list of
 * NAME<TAB>ENTRY lines or turned into a folder's name. A Gradescope
 * export's folders (submission_NNN) are named by its metadata instead,
 * which also gives a folder's SID, email and time (export_facts_of: class
 * grading's roster and deadline, grader/class/late.c).
 */
#include "names.h"
#include "util.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char *const archive_ext[] = {".tar.gz", ".tgz", ".tar.xz", ".txz", ".tar.bz2", ".tbz2", ".tar", ".zip"};

static int ends_with(const char *s, const char *end)
{
    size_t n = strlen(s), e = strlen(end);
    return n >= e && !strcmp(s + n - e, end);
}

static int is_name_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' ||
           c == '-';
}

int intake_is_archive_name(const char *name)
{
    for (size_t i = 0; i < sizeof archive_ext / sizeof *archive_ext; i++)
        if (ends_with(name, archive_ext[i]))
            return 1;
    return 0;
}

int intake_is_os_litter(const char *name)
{
    return !strcmp(name, "__MACOSX") || !strcmp(name, ".DS_Store") || !strncmp(name, "._", 2) ||
           !strcmp(name, "Thumbs.db") || !strcmp(name, "desktop.ini");
}

char *intake_student_name(const char *entry)
{
    char *n = lab_strdup(entry);
    /* each extension taken off in turn, as the list orders them */
    for (size_t i = 0; i < sizeof archive_ext / sizeof *archive_ext; i++)
        if (ends_with(n, archive_ext[i]))
            n[strlen(n) - strlen(archive_ext[i])] = 0;
    for (char *p = n; *p; p++)
        if (!is_name_char(*p))
            *p = '_';
    if (!n[0] || n[0] == '.' || n[0] == '_' || n[0] == '-') {
        char *s = lab_asprintf("s%s", n);
        free(n);
        n = s;
    }
    return n;
}

int intake_name_is_clean(const char *name)
{
    if (!name[0] || name[0] == '.' || name[0] == '_' || name[0] == '-')
        return 0;
    for (const char *p = name; *p; p++)
        if (!is_name_char(*p))
            return 0;
    return 1;
}

/* The entry as a message shows it: in quotes, a control character as \n,
 * \t, \r or \xHH (new string). */
static char *shown(const char *entry)
{
    char *s = lab_alloc(4 * strlen(entry) + 3), *p = s;
    *p++ = '\'';
    for (const unsigned char *c = (const unsigned char *)entry; *c; c++) {
        if (*c == '\n' || *c == '\t' || *c == '\r')
            p += sprintf(p, "\\%c", *c == '\n' ? 'n' : *c == '\t' ? 't' : 'r');
        else if (*c < 0x20 || *c == 0x7f)
            p += sprintf(p, "\\x%02x", *c);
        else
            *p++ = (char)*c;
    }
    *p++ = '\'';
    *p = 0;
    return s;
}

static int has_control(const char *s)
{
    for (const unsigned char *c = (const unsigned char *)s; *c; c++)
        if (*c < 0x20 || *c == 0x7f)
            return 1;
    return 0;
}

/* why, with one more sentence (its old text freed). */
static void add_why(char **why, char *more)
{
    char *all = *why ? lab_asprintf("%s; %s", *why, more) : lab_asprintf("%s", more);
    free(*why);
    free(more);
    *why = all;
}

static int by_name(const void *a, const void *b)
{
    const named_entry *x = a, *y = b;
    int c = strcmp(x->name, y->name);
    return c ? c : strcmp(x->entry, y->entry);
}

/* Two entries or more of one name: one sentence naming them all. */
static void add_clashes(const named_entry *e, int n, char **why)
{
    for (int i = 0; i + 1 < n; i++) {
        if (strcmp(e[i].name, e[i + 1].name))
            continue;
        char *all = lab_asprintf("these entries are all student '%s':", e[i].name);
        int j = i;
        for (; j < n && !strcmp(e[j].name, e[i].name); j++) {
            char *s = shown(e[j].entry), *more = lab_asprintf("%s %s", all, s);
            free(s);
            free(all);
            all = more;
        }
        add_why(why, lab_asprintf("%s (rename or remove one)", all));
        free(all);
        i = j - 1;
    }
}

/* ================================================= a Gradescope export */
/* Gradescope's "Export Submissions": a folder submission_NNN per student
 * and submission_metadata.yml, where each folder's key holds its
 * :submitters:, each with a :name:, :sid: and :email: (the first
 * submitter's are taken), and the submission's :created_at:. */
#define EXPORT_METADATA "submission_metadata.yml"
#define MAX_METADATA_BYTES (8l << 20)

typedef struct {
    char *key;
    export_facts facts;
} export_folder;

typedef struct {
    export_folder *f;
    int n;
} export_names;

/* The value after field (":name:") on a line (quotes taken off), or NULL. */
static char *field_value(const char *line, const char *field)
{
    while (*line == ' ' || *line == '-')
        line++;
    size_t k = strlen(field);
    if (strncmp(line, field, k))
        return NULL;
    line += k;
    while (*line == ' ')
        line++;
    size_t n = strlen(line);
    while (n && (line[n - 1] == ' ' || line[n - 1] == '\r'))
        n--;
    if (n >= 2 && (line[0] == '\'' || line[0] == '"') && line[n - 1] == line[0]) {
        line++;
        n -= 2;
    }
    return n ? memcpy(lab_alloc(n + 1), line, n) : NULL;
}

/* A line of a folder's part of the metadata: each field's first value. */
static void read_fact(const char *line, export_facts *f)
{
    static const char *const field[] = {":name:", ":sid:", ":email:", ":created_at:"};
    char **to[] = {&f->name, &f->sid, &f->email, &f->created_at};
    for (int i = 0; i < 4; i++) {
        char *value = *to[i] ? NULL : field_value(line, field[i]);
        if (value)
            *to[i] = value;
    }
}

/* dir/submission_metadata.yml's folders and what it says of each. */
static void read_export(const char *dir, export_names *x)
{
    char *path = lab_asprintf("%s/%s", dir, EXPORT_METADATA);
    FILE *f = fopen(path, "r");
    free(path);
    char *line = NULL;
    size_t cap = 0;
    long read_so_far = 0;
    for (ssize_t len; f && read_so_far < MAX_METADATA_BYTES && (len = getline(&line, &cap, f)) > 0;) {
        read_so_far += len;
        line[strcspn(line, "\n")] = 0;
        if (line[0] && line[0] != ' ' && line[0] != '-' && line[strlen(line) - 1] == ':') {
            line[strlen(line) - 1] = 0;
            x->f = lab_grow(x->f, (size_t)(x->n + 1) * sizeof *x->f);
            x->f[x->n++] = (export_folder){lab_strdup(line), {0}};
        } else if (x->n) {
            read_fact(line, &x->f[x->n - 1].facts);
        }
    }
    free(line);
    if (f)
        fclose(f);
}

/* The metadata's folder of that name that names its submitter, or -1. */
static int export_folder_of(const export_names *x, const char *entry)
{
    for (int i = 0; i < x->n; i++)
        if (!strcmp(x->f[i].key, entry) && x->f[i].facts.name)
            return i;
    return -1;
}

/* The student's name of an entry: from the export's metadata where it
 * names the entry, else from the entry's own name (new string). */
static char *entry_student(const export_names *x, const char *entry)
{
    int i = export_folder_of(x, entry);
    return intake_student_name(i >= 0 ? x->f[i].facts.name : entry);
}

void intake_export_facts_free(export_facts *f)
{
    free(f->name);
    free(f->sid);
    free(f->email);
    free(f->created_at);
    *f = (export_facts){0};
}

static void export_free(export_names *x)
{
    for (int i = 0; i < x->n; i++) {
        free(x->f[i].key);
        intake_export_facts_free(&x->f[i].facts);
    }
    free(x->f);
}

int intake_export_facts_of(const char *dir, const char *entry, export_facts *out)
{
    export_names x = {0};
    read_export(dir, &x);
    int i = export_folder_of(&x, entry);
    *out = (export_facts){0};
    if (i >= 0) {
        *out = x.f[i].facts;
        x.f[i].facts = (export_facts){0};
    }
    export_free(&x);
    return i >= 0 ? 0 : -1;
}

/* ==================================================== a folder's entries */
int intake_name_entries(const char *dir, const char *skip, named_entry **out, char **why)
{
    *out = NULL;
    *why = NULL;
    DIR *d = opendir(dir);
    if (!d) {
        *why = lab_asprintf("cannot read %s", dir);
        return -1;
    }
    named_entry *e = NULL;
    int n = 0;
    export_names x = {0};
    read_export(dir, &x);
    for (struct dirent *de; (de = readdir(d));) {
        if (de->d_name[0] == '.' || intake_is_os_litter(de->d_name) || (x.n && !strcmp(de->d_name, EXPORT_METADATA)))
            continue;
        char *path = lab_asprintf("%s/%s", dir, de->d_name), *real = skip ? realpath(path, NULL) : NULL;
        int skipped = real && !strcmp(real, skip);
        free(real);
        free(path);
        if (skipped)
            continue;
        if (has_control(de->d_name)) {
            char *s = shown(de->d_name);
            add_why(why, lab_asprintf("the entry %s has a control character (newline, tab ...) in its name: rename it", s));
            free(s);
            continue;
        }
        e = lab_grow(e, (size_t)(n + 1) * sizeof *e);
        e[n].entry = lab_strdup(de->d_name);
        e[n].name = entry_student(&x, de->d_name);
        e[n++].archive = intake_is_archive_name(de->d_name);
    }
    closedir(d);
    export_free(&x);
    qsort(e, (size_t)n, sizeof *e, by_name);
    add_clashes(e, n, why);
    if (*why) {
        intake_named_entries_free(e, n);
        return -1;
    }
    *out = e;
    return n;
}

void intake_named_entries_free(named_entry *e, int n)
{
    for (int i = 0; i < n; i++) {
        free(e[i].entry);
        free(e[i].name);
    }
    free(e);
}
