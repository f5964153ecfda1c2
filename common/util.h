/*
 * util.h: the helper library every host program of the lab links
 * (build/common/libhost.a): the grader, the class tools, the profiler's
 * report and the Gradescope checks.
 *
 *   util.c      memory that never comes back NULL, formatted strings,
 *               UTF-8, and lab_fatal, the one way a host program ends on
 *               an error (lab_warn: the same line, and it goes on)
 *   jsonread.c  a strict JSON reader for the drivers' records (untrusted
 *               input); the writer is lab.h's lab_json
 *   text.c      a text's lines, words and CSV fields, its first and last
 *               line, a string that grows (lab_appendf)
 *   files.c     a file's text, mkdir -p, rm -rf, what is at a path, whether
 *               a program is on PATH
 *
 * Plain C and POSIX; every name starts with lab_ (tests/layout/names.sh).
 */
#ifndef LAB_UTIL_H
#define LAB_UTIL_H

#include <stddef.h>
#include <stdio.h>

/* =================================================== memory: util.c */

/* The exit status of a host program that ran out of memory. */
enum { LAB_OUT_OF_MEMORY = 1 };

/* "PROGRAM: message" on stderr (stdout flushed first), then exit(status):
 * each program gives its statuses their meanings in its header. */
_Noreturn void lab_fatal(int status, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* "PROGRAM: message" on stderr, and the program goes on. */
void lab_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void *lab_alloc(size_t n);            /* zeroed */
void *lab_grow(void *p, size_t n);    /* realloc */
char *lab_strdup(const char *s);
/* printf into a new string */
char *lab_asprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The length of the valid UTF-8 sequence at p (at most n bytes: no overlong
 * form, no surrogate, nothing past U+10FFFF), or 0. */
size_t lab_utf8_len(const unsigned char *p, size_t n);

/* ============================================= JSON reader: jsonread.c */

typedef enum { J_NULL, J_BOOL, J_NUMBER, J_STRING, J_ARRAY, J_OBJECT } jtype;

typedef struct jvalue jvalue;
struct jvalue {
    jtype type;
    int boolean;
    double number;
    char *string;    /* J_STRING: UTF-8, NUL-terminated, no NUL inside; 
                        J_NUMBER: its text as written                   */
    int count;       /* J_ARRAY, J_OBJECT: members                       */
    char **keys;     /* J_OBJECT: the member names                       */
    jvalue **items;  /* J_ARRAY, J_OBJECT: the members                   */
};

/* Limits that keep a hostile record from exhausting its reader. */
#define LAB_JSON_MAX_DEPTH 64
#define LAB_JSON_MAX_VALUES 100000

/* Parse len bytes of JSON (one value, surrounded by whitespace only).
 * Returns NULL with a one-line reason in err when the text is not JSON or is
 * beyond the limits. Duplicate keys in an object are refused. */
jvalue *lab_json_parse(const char *text, size_t len, char *err, size_t errlen);
void lab_json_free(jvalue *v);
/* Member key of an object, or NULL (also when v is not an object). */
const jvalue *lab_json_get(const jvalue *v, const char *key);
/* Follow a dotted path: "timing.pct_of_reference", "checks.0.ok". */
const jvalue *lab_json_path(const jvalue *v, const char *path);
/* The string at path, or NULL when absent or not a string. */
const char *lab_json_string_at(const jvalue *v, const char *path);
/* The number at path into *out; 0 when it is there and finite, -1 if not. */
int lab_json_number_at(const jvalue *v, const char *path, double *out);
/* 1 for true, 0 for false, -1 when absent or not a boolean. */
int lab_json_bool_at(const jvalue *v, const char *path);
/* The file at path (its first max bytes; 0: all of it) parsed; NULL with
 * the reason in err ("cannot read it", "not JSON: ..."). */
jvalue *lab_json_read(const char *path, size_t max, char *err, size_t errlen);

/* ====================================================== text: text.c */

/* Every list below is NULL-terminated, its count in *count (may be NULL),
 * and freed with lab_list_free (NULL: nothing). */
void lab_list_free(char **list);
/* The lines of text (NULL: none), without their newlines. */
char **lab_lines(const char *text, int *count);
/* The lines of a file; NULL (count 0) when it cannot be read. */
char **lab_file_lines(const char *path, int *count);
/* The words of text, split on blanks (space, tab, newline). */
char **lab_words(const char *text, int *count);
/* The fields of a CSV line (RFC 4180 quotes; it ends at a newline); NULL
 * when a quote is left open. */
char **lab_csv_fields(const char *line, int *count);
/* The first line of text, without the newline (new string; "" for NULL). */
char *lab_first_line(const char *text);
/* The last non-empty line of text that does not start with skip (NULL:
 * any), without the newline (new string). */
char *lab_last_line(const char *text, const char *skip);
/* *text (a new string or NULL, freed here) with more printed after it;
 * lab_join puts sep between the two when *list is not empty. */
void lab_appendf(char **text, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void lab_join(char **list, const char *sep, const char *word);

/* ==================================================== files: files.c */

/* The text of a file (its first max bytes; 0: all of it), NUL-terminated;
 * NULL when it cannot be read. The caller frees it. */
char *lab_read_file(const char *path, size_t max);
/* A file written whole through PATH.tmp and a rename (0, or -1; the .tmp
 * is removed on failure). */
int lab_write_atomic(const char *path, const char *text);
/* mkdir -p: 0, or -1 with errno set (ENOTDIR: path is there, no folder). */
int lab_mkdirs(const char *path);
/* rm -rf, without following links. */
void lab_remove_tree(const char *path);
/* lstat: 1 when path is there (a link too), and what it is. */
int lab_exists(const char *path);
int lab_is_dir(const char *path);       /* follows links */
int lab_is_link(const char *path);
/* 1 when an executable named name is on PATH (or name is a path to one). */
int lab_have_program(const char *name);

#endif /* LAB_UTIL_H */
