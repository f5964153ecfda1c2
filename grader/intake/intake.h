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
 *   helpers.c    the archivers, run through common/spawn.c
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
