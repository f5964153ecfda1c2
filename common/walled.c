/*
 * walled.c: argv inside the build's wall (walled.h).
 */
#include "walled.h"
#include "util.h"

#include <limits.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* The build folder of the running program (build/<folder>/program), found
 * once; "" where it cannot be read. */
static const char *build_dir(void)
{
    static char dir[PATH_MAX];
    static int looked;
    if (!looked++) {
        ssize_t n = readlink("/proc/self/exe", dir, sizeof dir - 1);
        dir[n > 0 ? n : 0] = 0;
        for (int up = 0; up < 2; up++) {
            char *slash = strrchr(dir, '/');
            if (slash)
                *slash = 0;
            else
                dir[0] = 0;
        }
    }
    return dir;
}

char **lab_walled_argv(const lab_wall *w, char *const argv[])
{
    enum { TEXT = 3 * 16 + 2 * PATH_MAX };
    int nargs = 0, nexec = 0;
    while (argv[nargs])
        nargs++;
    while (w->exec && w->exec[nexec])
        nexec++;
    const size_t slots = 20 + 2 * (size_t)nexec + (size_t)nargs;
    char **out = lab_alloc(slots * sizeof *out + TEXT);
    char *text = (char *)(out + slots), *confine = text, *paths = text + PATH_MAX, *nums = text + 2 * PATH_MAX;
    snprintf(confine, PATH_MAX, "%s/confine/confine", build_dir());
    snprintf(paths, PATH_MAX, "%s/%s", build_dir(), w->paths ? w->paths : "");
    if (!build_dir()[0] || access(confine, X_OK) || (w->paths && access(paths, R_OK))) {
        free(out);
        return NULL;
    }
    snprintf(nums, 16, "%d", w->seconds);
    snprintf(nums + 16, 16, "%d", w->memory_mb);
    snprintf(nums + 32, 16, "%d", w->file_mb);
    int n = 0;
    const char *head[] = {confine, "--build", "--or-unconfined", "--label", w->label, "--time-limit", nums,
                          "--memory-mb", nums + 16, "--file-mb", nums + 32};
    for (size_t i = 0; i < sizeof head / sizeof head[0]; i++)
        out[n++] = (char *)head[i];
    const char *pairs[][2] = {{"--paths", w->paths ? paths : NULL}, {"--read", w->read}, {"--write", w->write}};
    for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++)
        if (pairs[i][1]) {
            out[n++] = (char *)pairs[i][0];
            out[n++] = (char *)pairs[i][1];
        }
    for (int i = 0; i < nexec; i++) {
        out[n++] = "--exec";
        out[n++] = (char *)w->exec[i];
    }
    out[n++] = "--";
    for (int i = 0; i < nargs; i++)
        out[n++] = argv[i];
    out[n] = NULL;
    return out;
}
