/*
 * confinement.c: whether the graded programs run inside build/confine/confine
 * (confine/confine.h), and the command line that puts them there.
 *
 * Decided once per grading run: build/confine/confine --probe sets every
 * layer up in a throw-away process and says whether it worked; then, where
 * there is a GPU, build/confine/cuda-probe runs confined (a context, an
 * allocation, a kernel), so that a GPU driver needing what the confinement
 * forbids is found once, here, and not as every stage failing. Where it did
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

/* Run the CUDA probe (confined when confine is not NULL): 1 when it says the
 * GPU works; its line in line. */
static int cuda_works(const char *probe, const char *confine, const char *toolkit, char *line, size_t len)
{
    char folder[4096];
    snprintf(folder, sizeof folder, "%s", probe);
    char *argv_confined[] = {(char *)confine, "--read", dirname(folder), "--read", (char *)toolkit, "--",
                             (char *)probe, NULL};
    if (!toolkit[0])
        argv_confined[3] = "--", argv_confined[4] = (char *)probe, argv_confined[5] = NULL;
    char *argv_plain[] = {(char *)probe, NULL};
    run_result r;
    run_program(confine ? argv_confined : argv_plain, -1, 120, 4096, &r);
    line[0] = 0;
    if (r.tail)
        text_clean(r.tail, strcspn(r.tail, "\n"), line, len);
    int ok = r.exited && r.status == 0;
    run_result_free(&r);
    return ok;
}

void confinement_setup(confinement *c, const char *lab, int unconfined, int gpu_here)
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
    /* the GPU must work inside it too: where a driver needs what the
     * confinement forbids, every run would fail, so say so instead */
    char probe[4096], confined_line[256], plain_line[256];
    snprintf(probe, sizeof probe, "%s/build/confine/cuda-probe", lab);
    if (c->on && gpu_here && access(probe, X_OK) == 0 &&
        !cuda_works(probe, c->program, c->toolkit, confined_line, sizeof confined_line) &&
        cuda_works(probe, NULL, c->toolkit, plain_line, sizeof plain_line)) {
        c->on = 0;
        snprintf(c->why, sizeof c->why, "not confined: the GPU works here, but not inside the confinement (%s)",
                 confined_line[0] ? confined_line : "the probe said nothing");
    }
}

int judge_can_share(const char *lab, char *line, size_t len)
{
    char probe[4096];
    snprintf(probe, sizeof probe, "%s/build/confine/cuda-probe", lab);
    if (access(probe, X_OK)) {
        snprintf(line, len, "%s is missing", probe);
        return 0;
    }
    char *argv[] = {probe, "--ipc", NULL};
    run_result r;
    run_program(argv, -1, 120, 4096, &r);
    line[0] = 0;
    if (r.tail)
        text_clean(r.tail, strcspn(r.tail, "\n"), line, len);
    int ok = r.exited && r.status == 0;
    if (!line[0])
        snprintf(line, len, "the probe said nothing");
    run_result_free(&r);
    return ok;
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
