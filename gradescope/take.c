/*
 * take.c: build/gradescope/take SUBMISSION INTO STAGE...: the Gradescope
 * bundle's intake (run_autograder calls it), with make class's own rules
 * (grader/class/submission.c): each stage's kernel.cu of SUBMISSION (a
 * folder, or its only folder; a macOS zip's __MACOSX/ passed over; a
 * kernel.cu alone where the bundle has one stage) copied into
 * INTO/<stage>/kernel.cu. Prints the stages taken on one line.
 * Exit status: 0 some taken, 3 refused (one line: why), 4 none there (one
 * line: the layout wanted), 2 usage.
 */
#include "submission.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

int main(int argc, char **argv)
{
    if (argc < 4 || argc - 3 > MAX_SUBMISSION_STAGES) {
        fprintf(stderr, "usage: take SUBMISSION INTO STAGE...\n");
        return 2;
    }
    submission_stages st = {argv + 3, argc - 3};
    char *why = NULL, *unpacked = NULL;
    if (asprintf(&unpacked, "%s.unpacked", argv[2]) < 0)
        return 1;
    int n = take_kernels(argv[1], &st, unpacked, argv[2], &why);
    free(unpacked);
    if (n < 0) {
        printf("%s\n", why);
        return 3;
    }
    if (n == 0) {
        printf("no kernel.cu of a stage was found: submit exercises/NN_name/kernel.cu or NN_name/kernel.cu "
               "(e.g. exercises/%s/kernel.cu)%s\n", st.names[0], st.n == 1 ? ", or kernel.cu alone" : "");
        return 4;
    }
    const char *sep = "";
    for (int s = 0; s < st.n; s++) {
        char *k = NULL;
        struct stat sb;
        if (asprintf(&k, "%s/%s/kernel.cu", argv[2], st.names[s]) >= 0 && !stat(k, &sb)) {
            printf("%s%s", sep, st.names[s]);
            sep = " ";
        }
        free(k);
    }
    printf("\n");
    return 0;
}
