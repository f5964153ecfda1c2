/*
 * submission.h: a submission's kernel.cu files taken out of it
 * (submission.c), the one rule for make class (intake.c) and the
 * Gradescope bundle (gradescope/take.c).
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
 * into/<stage>/kernel.cu. Plain files in plain folders only, each at most
 * MAX_KERNEL_BYTES. Returns how many (0: none), or -1 with why (a new
 * string; into is then removed). */
int take_kernels(const char *src, const submission_stages *st, const char *unpacked, const char *into, char **why);

#endif /* SUBMISSION_H */
