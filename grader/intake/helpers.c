/*
 * helpers.c: the intake's one way to run an archiver (common/spawn.c);
 * text, files and memory are the helper library's (common/util.h).
 * An archiver reading a submission's archive runs inside the build's wall
 * (build/confine/confine --build): it reads the archive, writes the folder
 * it unpacks to, and nothing else.
 */
#include "intake.h"
#include "spawn.h"
#include "walled.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* The decompressors tar may start for a compressed archive. */
static const char *const DECOMPRESSORS[] = {"gzip", "bzip2", "xz", "zstd", "lzip", "lzma", "lzop"};

char *intake_output_of(char *const argv[], const char *archive)
{
    char *text = NULL;
    if (intake_run_archiver(argv, archive, NULL, &text, NULL, NULL) != 0) {
        free(text);
        return NULL;
    }
    return text;
}

int intake_run_archiver(char *const argv[], const char *archive, const char *dest, char **out, const char *err_path,
                        int *truncated)
{
    enum { N = sizeof DECOMPRESSORS / sizeof DECOMPRESSORS[0] };
    static char found[N][PATH_MAX];
    static const char *exec[N + 1]; /* those found here, NULL-ended */
    static int looked;
    for (int k = 0, n = 0; !looked && k < N; k++)
        if (lab_find_program(DECOMPRESSORS[k], found[n]) == 0) {
            exec[n] = found[n];
            n++;
        }
    looked = 1;
    const lab_wall w = {"the submission's archive", NULL, exec, archive, dest, 60, 1024, 64};
    char **walled = archive ? lab_walled_argv(&w, argv) : NULL;
    lab_spawn s = {.argv = walled ? walled : argv,
                   .who = "intake",
                   .in = {LAB_IO_NULL, NULL},
                   .out = {out ? LAB_IO_PIPE : LAB_IO_NULL, NULL},
                   .err = {!err_path ? LAB_IO_NULL : strcmp(err_path, "-") ? LAB_IO_FILE : LAB_IO_STDOUT, err_path}};
    int cut = 0;
    int status = lab_spawn_run(&s, out, 32u << 20, &cut);
    free(walled);
    if (out && !*out)
        *out = lab_strdup("");
    if (truncated)
        *truncated = cut;
    return status;
}
