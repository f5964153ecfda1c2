/*
 * json-check.c: is a file JSON, as the lab's own reader takes it
 * (common/jsonread.c), with the members Gradescope's results.json needs?
 *
 *   build/gradescope/json-check FILE [KEY...]
 *
 * Each KEY must be a member of the top object. Prints one line saying what
 * is wrong; exit status 0 valid, 1 not, 2 usage.
 */
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: json-check FILE [KEY...]\n");
        return 2;
    }
    char err[256];
    jvalue *v = lab_json_read(argv[1], 64u << 20, err, sizeof err);
    if (!v) {
        printf("%s: %s\n", argv[1], err);
        return 1;
    }
    int bad = 0;
    for (int i = 2; i < argc; i++)
        if (!lab_json_get(v, argv[i])) {
            printf("%s: no member \"%s\"\n", argv[1], argv[i]);
            bad = 1;
        }
    lab_json_free(v);
    return bad;
}
