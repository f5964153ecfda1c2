/*
 * submission.h: a submission's kernel.cu files taken out of it
 * (submission.c), the one rule for every door: make class (grader/class/intake.c),
 * make grade GRADE_SRC= (grader/build.c, on the CPU take.c), make explain
 * KERNEL= and the Gradescope bundle (take.c).
 */
#ifndef SUBMISSION_H
#define SUBMISSION_H

/* Size limits of a submission: an archive, all it unpacks to, one kernel.cu. */
#define MAX_ARCHIVE_BYTES (20ll << 20)
#define MAX_UNPACKED_BYTES (64ll << 20)
#define MAX_MEMBERS 10000
#define MAX_KERNEL_BYTES (1ll << 20)
/* how deep a submission's only folder may nest in another */
#define MAX_NESTING 32
#define MAX_SUBMISSION_STAGES 64

/* The stages a submission may hold (their folders' names). */
typedef struct {
    char *const *names;
    int n;
} submission_stages;

/* Each stage's kernel.cu of src (a folder, or an archive unpacked into the
 * folder unpacked, removed after), as exercises/<stage>/kernel.cu or
 * <stage>/kernel.cu under src or its only folder (OS litter passed over),
 * or, where there is one stage, a kernel.cu alone; copied into
 * into/<stage>/kernel.cu (a copy that is already the same left as it is;
 * the other stages' removed). Plain files of their own in plain folders
 * only, each at most MAX_KERNEL_BYTES. Returns how many (0: none), or -1
 * with why (a new string; into is then removed). */
int intake_take_kernels(const char *src, const submission_stages *st, const char *unpacked, const char *into, char **why);

/* The file itself (a plain file of its own, not a link, at most
 * MAX_KERNEL_BYTES), as stage's kernel.cu in into/<stage>/kernel.cu, as
 * take_kernels copies one: 1, or -1 with why (a new string). */
int intake_take_kernel_file(const char *file, const char *stage, const char *into, char **why);

#endif /* SUBMISSION_H */
