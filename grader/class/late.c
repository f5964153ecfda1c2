/*
 * late.c: when each submission came, and what the deadline makes of it.
 * A submission's time is recorded when it is taken in
 * (OUT/students/NAME/submission.tsv): a Gradescope export's :created_at:
 * (grader/intake/names.c reads its metadata), else the entry's own
 * modification time as it lies in SUBMISSIONS (an archive's, or the
 * newest file's of a folder). TIMES, a CSV file of "name or folder, time"
 * that the instructor gives (kept as OUT/times.csv), wins over both.
 * DEADLINE and LATE_PENALTY (points off for each day late, a day begun
 * counting whole) are kept in OUT/late.conf; a roster's extra days move a
 * student's own deadline.
 */
#include "class.h"
#include "grader.h"
#include "names.h"

#include <ctype.h>
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#define DAY 86400

static const char *const times_heads[] = {"name", "student", "folder", NULL};

/* ================================================================ times */
/* n digits at *s into *v, *s moved past them: 0, or -1. */
static int digits(const char **s, int n, int *v)
{
    *v = 0;
    for (int i = 0; i < n; i++, (*s)++) {
        if (!isdigit((unsigned char)**s))
            return -1;
        *v = *v * 10 + (**s - '0');
    }
    return 0;
}

/* A zone after a time: Z, UTC, +HH, +HHMM or +HH:MM, into *off seconds
 * east (*zoned set), *s moved past it: 0, or -1. */
static int zone(const char **s, long *off, int *zoned)
{
    *off = 0;
    *zoned = 1;
    if (**s == 'Z') {
        (*s)++;
    } else if (!strncmp(*s, "UTC", 3)) {
        *s += 3;
    } else if (**s == '+' || **s == '-') {
        int sign = **s == '-' ? -1 : 1, h, m = 0;
        (*s)++;
        if (digits(s, 2, &h) || (**s == ':' && (++*s, digits(s, 2, &m))) ||
            (isdigit((unsigned char)**s) && digits(s, 2, &m)) || h > 14 || m > 59)
            return -1;
        *off = sign * (h * 3600L + m * 60L);
    } else {
        *zoned = 0;
    }
    return 0;
}

/* A time as DEADLINE, TIMES and Gradescope write it: 0, or -1. */
static int parse_time(const char *text, long long *t)
{
    const char *s = text;
    int y, mo, d, h, mi, sec = 0, zoned;
    long off;
    while (*s == ' ')
        s++;
    if (digits(&s, 4, &y) || *s++ != '-' || digits(&s, 2, &mo) || *s++ != '-' || digits(&s, 2, &d) ||
        (*s != ' ' && *s != 'T') || (s++, digits(&s, 2, &h)) || *s++ != ':' || digits(&s, 2, &mi))
        return -1;
    if (*s == ':' && (s++, digits(&s, 2, &sec)))
        return -1;
    if (*s == '.')
        for (s++; isdigit((unsigned char)*s);)
            s++;
    while (*s == ' ')
        s++;
    if (zone(&s, &off, &zoned))
        return -1;
    while (*s == ' ')
        s++;
    if (*s || mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || sec > 60)
        return -1;
    struct tm tm = {.tm_year = y - 1900, .tm_mon = mo - 1, .tm_mday = d, .tm_hour = h, .tm_min = mi,
                    .tm_sec = sec, .tm_isdst = -1};
    time_t at = zoned ? timegm(&tm) - off : mktime(&tm);
    /* a day the month lacks (02-30) comes back as another month's */
    if (at == (time_t)-1 || tm.tm_mday != d)
        return -1;
    *t = (long long)at;
    return 0;
}

char *class_time_text(long long t)
{
    time_t at = (time_t)t;
    struct tm tm;
    char text[64];
    if (!localtime_r(&at, &tm) || !strftime(text, sizeof text, "%Y-%m-%d %H:%M:%S %z", &tm))
        return lab_asprintf("%lld", t);
    return lab_strdup(text);
}

int class_days_late(const late_policy *p, long long sent, int extra_days)
{
    if (!p->has_deadline || sent < 0)
        return 0;
    long long after = sent - (p->deadline + (long long)extra_days * DAY);
    return after > 0 ? (int)((after + DAY - 1) / DAY) : 0;
}

/* ==================================================== what was sent */
/* The newest modification time of the plain files in a folder (links
 * not followed, an operating system's litter passed over), or -1. */
static long long newest_file(const char *dir, int depth)
{
    DIR *d = depth > 32 ? NULL : opendir(dir);
    long long newest = -1;
    for (struct dirent *e; d && (e = readdir(d));) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") || intake_is_os_litter(e->d_name))
            continue;
        char *path = lab_asprintf("%s/%s", dir, e->d_name);
        struct stat st;
        long long t = -1;
        if (!lstat(path, &st) && S_ISDIR(st.st_mode))
            t = newest_file(path, depth + 1);
        else if (S_ISREG(st.st_mode))
            t = (long long)st.st_mtime;
        if (t > newest)
            newest = t;
        free(path);
    }
    if (d)
        closedir(d);
    return newest;
}

/* Text for a line of submission.tsv: tabs and control characters blanked. */
static char *field_text(const char *s)
{
    char *v = lab_strdup(s ? s : "");
    for (char *c = v; *c; c++)
        if (iscntrl((unsigned char)*c))
            *c = ' ';
    return v;
}

void class_record_sent(const char *submissions, int student)
{
    const char *entry = cls.entries[student];
    char *src = lab_asprintf("%s/%s", submissions, entry);
    export_facts x;
    long long t = -1;
    const char *from = "unknown";
    struct stat st;
    if (intake_export_facts_of(submissions, entry, &x) == 0 && x.created_at && parse_time(x.created_at, &t) == 0) {
        from = "Gradescope's submission_metadata.yml";
    } else if (lab_is_dir(src)) {
        t = newest_file(src, 0);
        from = "the newest file of the folder";
    } else if (!stat(src, &st)) {
        t = (long long)st.st_mtime;
        from = "the archive's modification time";
    }
    char *sid = field_text(x.sid), *email = field_text(x.email);
    char *text = lab_asprintf("time\t%lld\nfrom\t%s\nsid\t%s\nemail\t%s\n", t, t < 0 ? "unknown" : from, sid, email);
    char *path = lab_asprintf("%s/students/%s/submission.tsv", cls.out, cls.names[student]);
    if (lab_write_atomic(path, text))
        lab_warn("cannot write %s: this submission's time will be unknown", path);
    free(path);
    free(text);
    free(email);
    free(sid);
    intake_export_facts_free(&x);
    free(src);
}

void class_sent_read(const char *name, sent_facts *f)
{
    char *path = lab_asprintf("%s/students/%s/submission.tsv", cls.out, name);
    char *text = lab_read_file(path, 1 << 16);
    free(path);
    *f = (sent_facts){.time = -1};
    char **to[] = {&f->from, &f->sid, &f->email};
    const char *key[] = {"from\t", "sid\t", "email\t"};
    int n;
    char **line = lab_lines(text, &n);
    for (int i = 0; i < n; i++) {
        if (!strncmp(line[i], "time\t", 5))
            f->time = strtoll(line[i] + 5, NULL, 10);
        for (int k = 0; k < 3; k++)
            if (!*to[k] && !strncmp(line[i], key[k], strlen(key[k])))
                *to[k] = lab_strdup(line[i] + strlen(key[k]));
    }
    lab_list_free(line);
    free(text);
    for (int k = 0; k < 3; k++)
        if (!*to[k])
            *to[k] = lab_strdup("");
}

void class_sent_free(sent_facts *f)
{
    free(f->from);
    free(f->sid);
    free(f->email);
}

/* ====================================================== the policy */
/* TIMES at path: its rows and their times; -1 with why. */
static int times_read(const char *path, csv_row **rows, long long **at, char **why)
{
    int n = class_csv_file(path, times_heads, rows, why);
    *at = NULL;
    if (n < 0)
        return -1;
    *at = lab_grow(NULL, (size_t)(n + 1) * sizeof **at);
    for (int i = 0; i < n && !*why; i++) {
        const csv_row *r = &(*rows)[i];
        if (r->n != 2 || !*r->f[0])
            *why = lab_asprintf("%s line %d has %d field%s, not: name or folder, time", path, r->line, r->n,
                       r->n == 1 ? "" : "s");
        else if (parse_time(r->f[1], &(*at)[i]))
            *why = lab_asprintf("%s line %d: '%s' is not a time such as 2026-11-20 23:59 or 2026-11-20T23:59:00-08:00", path,
                       r->line, r->f[1]);
    }
    if (*why) {
        class_csv_rows_free(*rows, n);
        free(*at);
        *rows = NULL;
        *at = NULL;
        return -1;
    }
    return n;
}

/* OUT/late.conf's value of key (new string), or NULL. */
static char *late_conf(const char *key)
{
    char *path = lab_asprintf("%s/late.conf", cls.out), *text = lab_read_file(path, 1 << 16), *v = NULL;
    free(path);
    int n;
    char **line = lab_lines(text, &n);
    size_t k = strlen(key);
    for (int i = 0; i < n && !v; i++)
        if (!strncmp(line[i], key, k) && line[i][k] == '=')
            v = lab_strdup(line[i] + k + 1);
    lab_list_free(line);
    free(text);
    return v;
}

/* A penalty: a number of points, 0 or more; -1 when it is none. */
static double penalty_of(const char *text)
{
    char *end;
    double v = text && *text ? strtod(text, &end) : -1;
    return v >= 0 && isfinite(v) && !*end ? v : -1;
}

/* TIMES checked and kept as OUT/times.csv. */
static void times_keep(const char *times)
{
    csv_row *rows;
    long long *at;
    char *why = NULL;
    int n = times_read(times, &rows, &at, &why);
    if (n < 0)
        lab_fatal(CLASS_BAD_TERM, "TIMES %s; fix it and run again", why);
    class_csv_rows_free(rows, n);
    free(at);
    char *kept = class_keep_given(times, "times.csv");
    class_say("times: %d submissions' times from %s (kept as %s; they win over the files' own)", n, times, kept);
    free(kept);
}

void class_late_keep(const char *times, const char *deadline, const char *penalty)
{
    long long t;
    if (deadline && parse_time(deadline, &t))
        lab_fatal(CLASS_BAD_TERM, "DEADLINE '%s' is not a time: give a date and a time, e.g. "
                   "DEADLINE=\"2026-11-20 23:59\" (this machine's zone) or 2026-11-20T23:59:00-08:00", deadline);
    if (penalty && penalty_of(penalty) < 0)
        lab_fatal(CLASS_BAD_TERM, "LATE_PENALTY is the points taken off for each day late, a number 0 or more, "
                   "not '%s'", penalty);
    char *was = late_conf("deadline_given"), *was_penalty = late_conf("late_penalty");
    if (penalty && !deadline && !was)
        lab_fatal(CLASS_BAD_TERM, "LATE_PENALTY=%s needs a DEADLINE to count days late from", penalty);
    if (times)
        times_keep(times);
    if (deadline || penalty) {
        const char *given = deadline ? deadline : was;
        const char *points = penalty ? penalty : was_penalty ? was_penalty : "0";
        parse_time(given, &t);
        char *text = lab_asprintf("deadline=%lld\ndeadline_given=%s\nlate_penalty=%s\n", t, given, points);
        char *path = lab_asprintf("%s/late.conf", cls.out), *shown = class_time_text(t);
        if (lab_write_atomic(path, text))
            lab_fatal(CLASS_FAILED, "cannot write %s", path);
        class_say("deadline: %s, %s points off for each day late (kept in %s)", shown, points, path);
        free(shown);
        free(path);
        free(text);
    }
    free(was);
    free(was_penalty);
}

void class_late_load(late_policy *p)
{
    *p = (late_policy){0};
    char *deadline = late_conf("deadline"), *penalty = late_conf("late_penalty");
    p->deadline_given = late_conf("deadline_given");
    if (deadline && p->deadline_given) {
        p->has_deadline = 1;
        p->deadline = strtoll(deadline, NULL, 10);
        p->penalty = penalty_of(penalty) > 0 ? penalty_of(penalty) : 0;
    }
    free(deadline);
    free(penalty);
    char *kept = lab_asprintf("%s/times.csv", cls.out), *why = NULL;
    if (lab_exists(kept) && (p->ntimes = times_read(kept, &p->times, &p->times_at, &why)) < 0)
        lab_fatal(CLASS_BAD_TERM, "the class's TIMES %s; give make class TIMES= again", why);
    free(kept);
}

void class_late_free(late_policy *p)
{
    class_csv_rows_free(p->times, p->ntimes);
    free(p->times_at);
    free(p->deadline_given);
}
