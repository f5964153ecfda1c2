/*
 * intake.h: the one intake (grader/intake/): every way a submission
 * comes into the lab goes through it: make grade GRADE_SRC= (GPU and
 * CPU), make explain KERNEL=, make class and CHECK=1, make similarity,
 * the Gradescope bundle. Kept in the student release (make grade
 * GRADE_SRC= and make explain KERNEL= need it there).
 *
 *   names.c      an entry's name into the student's, checked once
 *                (names.h)
 *   submission.c a submission's kernel.cu files, out of a folder, an
 *                archive (checked member by member first) or a file alone,
 *                copied as plain files (submission.h)
 *   helpers.c    text, files, and the archivers run through common/spawn.c
 *   take.c       build/grader/take, the intake as a program (the grade's
 *                GRADE_SRC= on the CPU, make explain KERNEL=, Gradescope)
 *
 * Plain C and POSIX; the programs it runs are tar and unzip (and the
 * decompressors tar starts), inside the build's wall (helpers.c).
 */
#ifndef INTAKE_H
#define INTAKE_H

#include "util.h"

#include <stddef.h>

/* The lines of text, without their newlines (free with intake_words_free). */
char **intake_lines(const char *text, int *count);
void intake_words_free(char **w);
/* The fields of a CSV line (RFC 4180 quotes; it ends at a newline),
 * NULL-terminated (free with intake_words_free), count in *n; NULL when a
 * quote is left open. */
char **intake_csv_fields(const char *line, int *n);
/* The first line of text, without the newline (new string). */
char *intake_first_line(const char *text);
/* rm -rf, without following links. */
void intake_remove_tree(const char *path);
/* lstat: 1 when path is there (a link too), and what it is. */
int intake_exists(const char *path);
int intake_is_dir(const char *path);       /* follows links */
int intake_is_link(const char *path);

/* An archiver run (tar, unzip): stdin from /dev/null, stdout captured
 * into *out (a new string, NULL: dropped), stderr to err_path (NULL:
 * dropped; "-": with stdout). With archive (the submission's bytes it
 * reads), inside the build's wall beside this program
 * (build/confine/confine), which lets it write dest alone (NULL: nothing);
 * plainly where there is no build/confine/confine. Returns its exit status
 * (the wall's: 124 past its time limit, 126 cannot confine), 127 when it
 * could not start; *truncated set when it printed more than 32 MiB. */
int intake_run_archiver(char *const argv[], const char *archive, const char *dest, char **out, const char *err_path,
                        int *truncated);
/* A program's stdout, run as intake_run_archiver runs it (archive: inside
 * the wall, reading it), stderr dropped; NULL when it failed. */
char *intake_output_of(char *const argv[], const char *archive);

#endif /* INTAKE_H */
