/*
 * names.h: the one place a submission's name enters the lab (names.c).
 * make class (grader/class/) and make similarity (grader/class/report/)
 * both list SUBMISSIONS with it, so that a student has one name in the
 * class's folder, in gradebook.csv and in similarity.csv.
 *
 * Plain C and POSIX with the helper library (common/util.h), no helpers
 * of either program: both link it.
 */
#ifndef NAMES_H
#define NAMES_H

#include <stddef.h>

/* The exit status of a program that stops on SUBMISSIONS' names: an entry
 * whose name holds a control character, or two entries of one student. */
enum { NAMES_REFUSED = 6 };

/* One entry of SUBMISSIONS: as the folder has it, and the student's name. */
typedef struct {
    char *entry;
    char *name;
    int archive;            /* its name ends as an archive's does        */
} named_entry;

/* The entries of dir, OS litter and dot files left out (and skip, a real
 * path, where it lies in dir: make class's OUT), each with its student's
 * name (a Gradescope export's submission_NNN folders: the name its
 * submission_metadata.yml gives the folder's first submitter), sorted by
 * name. Returns how many, or -1 with why in *why (a new
 * string): dir cannot be read, an entry's name holds a control character
 * (newline, tab ...: each shown escaped), or two entries make one name
 * (both named). */
int intake_name_entries(const char *dir, const char *skip, named_entry **out, char **why);
void intake_named_entries_free(named_entry *e, int n);

/* What a Gradescope export's submission_metadata.yml in dir says of its
 * folder entry: the first submitter's name, SID and email, and when the
 * submission was made (:created_at:, as written). New strings, NULL where
 * it says nothing. */
typedef struct {
    char *name, *sid, *email, *created_at;
} export_facts;
/* 0, or -1 (all NULL) where dir holds no export that names entry. */
int intake_export_facts_of(const char *dir, const char *entry, export_facts *out);
void intake_export_facts_free(export_facts *f);

/* The student's name of an entry: its archive extension taken off, any
 * byte but letters, digits, . _ - turned into _, and an s before a name
 * that begins with neither a letter nor a digit (new string). */
char *intake_student_name(const char *entry);
/* 1 when name is one that student_name gives (a folder, a row, a CSV
 * field as it is), so that a list read back can be trusted. */
int intake_name_is_clean(const char *name);
/* 1 when a name ends as an archive's does (.tar.gz, .zip ...). */
int intake_is_archive_name(const char *name);
/* 1 for what an operating system leaves in a folder or an archive
 * (__MACOSX, .DS_Store, ._*, Thumbs.db, desktop.ini), never a student's. */
int intake_is_os_litter(const char *name);

#endif /* NAMES_H */
