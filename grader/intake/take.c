/*
 * take.c: build/grader/take, the intake as a program (submission.c's
 * rules), for the doors that are shell: make grade GRADE_SRC= on the CPU
 * (emu/grade.sh), make explain KERNEL= (emu/emu.mk), the Gradescope
 * bundle (run_autograder).
 *
 *   take SUBMISSION INTO STAGE...   each stage's kernel.cu of SUBMISSION
 *                                   (a folder, its only folder, an
 *                                   archive; OS litter passed over; a
 *                                   kernel.cu alone where there is one
 *                                   stage) into INTO/<stage>/kernel.cu
 *   take --file FILE INTO STAGE     the file itself as STAGE's kernel.cu
 *
 * Prints the stages taken on one line. Exit status: 0 some taken, 3
 * refused (one line: why), 4 none there (one line: the layout wanted),
 * 2 usage.
 */
#include "submission.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

enum { TAKE_OK = 0, TAKE_USAGE = 2, TAKE_REFUSED = 3, TAKE_NONE = 4 };

/* The stages of st that INTO now holds, on one line. */
static void print_taken(const char *into, const submission_stages *st)
{
    const char *sep = "";
    for (int s = 0; s < st->n; s++) {
        char *k = NULL;
        struct stat sb;
        if (asprintf(&k, "%s/%s/kernel.cu", into, st->names[s]) >= 0 && !stat(k, &sb)) {
            printf("%s%s", sep, st->names[s]);
            sep = " ";
        }
        free(k);
    }
    printf("\n");
}

int main(int argc, char **argv)
{
    int file = argc > 1 && !strcmp(argv[1], "--file");
    if (argc < 4 + file || argc - 3 - file > MAX_SUBMISSION_STAGES || (file && argc != 5)) {
        fprintf(stderr, "usage: take SUBMISSION INTO STAGE...\n       take --file FILE INTO STAGE\n");
        return TAKE_USAGE;
    }
    const char *src = argv[1 + file], *into = argv[2 + file];
    submission_stages st = {argv + 3 + file, argc - 3 - file};
    char *why = NULL, *unpacked = NULL;
    if (asprintf(&unpacked, "%s.unpacked", into) < 0)
        return 1;
    int n = file ? intake_take_kernel_file(src, st.names[0], into, &why) : intake_take_kernels(src, &st, unpacked, into, &why);
    free(unpacked);
    if (n < 0) {
        printf("%s\n", why);
        return TAKE_REFUSED;
    }
    if (n == 0) {
        printf("no kernel.cu of a stage was found: submit exercises/NN_name/kernel.cu or NN_name/kernel.cu "
               "(e.g. exercises/%s/kernel.cu)%s\n", st.names[0], st.n == 1 ? ", or kernel.cu alone" : "");
        return TAKE_NONE;
    }
    print_taken(into, &st);
    return TAKE_OK;
}
