/*
 * confinement.c: whether the graded programs run inside build/confine/confine
 * (confine/confine.h), and the command line that puts them there.
 *
 * Decided once per grading run: build/confine/confine --probe sets every
 * layer up in a throw-away process and says whether it worked. Where it did
 * not (no user namespaces, no Landlock, a container that forbids them), make
 * grade says so in one line and grades unconfined: a student grading their
 * own work loses nothing. A class run asks for confinement
 * (--require-confinement) and stops instead, unless the instructor said
 * --unconfined; the reports record which it was.
 */
#include "grader.h"
#include "grading.h"

#include <libgen.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void confinement_setup(confinement *c, const char *lab, int unconfined)
{
    memset(c, 0, sizeof *c);
    if (unconfined) {
        snprintf(c->why, sizeof c->why, "not confined: turned off (--unconfined, UNCONFINED=1)");
        return;
    }
    snprintf(c->program, sizeof c->program, "%s/build/confine/confine", lab);
    if (access(c->program, X_OK)) {
        snprintf(c->why, sizeof c->why, "not confined: %s is missing (make build/confine/confine)", c->program);
        return;
    }
    char *argv[] = {c->program, "--probe", NULL};
    run_result r;
    run_program(argv, -1, 30, 4096, &r);
    char line[sizeof c->why] = "";
    if (r.tail)
        text_clean(r.tail, strcspn(r.tail, "\n"), line, sizeof line);
    c->on = r.exited && r.status == 0 && !strncmp(line, "confined: ", 10);
    snprintf(c->why, sizeof c->why, "%s", line[0] ? line : "not confined: the probe said nothing");
    run_result_free(&r);
    /* the CUDA Toolkit's libraries (cuBLAS) wherever it is installed: under
     * /usr and /opt confine allows them anyway; a cluster's /sw/cuda not */
    const char *nvcc = getenv("NVCC") && *getenv("NVCC") ? getenv("NVCC") : "nvcc";
    char found[PATH_MAX];
    if (find_program(nvcc, found, sizeof found) == 0) {
        char *bin = dirname(found);
        snprintf(c->toolkit, sizeof c->toolkit, "%s", dirname(bin));
    }
}

int confinement_wrap(const confinement *c, const char *binary, char **argv, int max, char *buf, size_t len)
{
    int a = 0;
    if (!c || !c->on)
        return 0;
    /* the program reads its own folder (the stage's build folder), nothing else of the lab */
    snprintf(buf, len, "%s", binary);
    char *dir = dirname(buf);
    argv[a++] = (char *)c->program;
    argv[a++] = "--read";
    argv[a++] = dir;
    if (c->toolkit[0]) {
        argv[a++] = "--read";
        argv[a++] = (char *)c->toolkit;
    }
    argv[a++] = "--";
    return a < max ? a : 0;
}
