/*
 * confinement.c: whether the graded programs run inside build/confine/confine
 * (judge/confine.h), and the command line that puts them there.
 *
 * Decided once per grading run: build/confine/confine --probe sets every
 * layer up in a throw-away process and says whether it worked; then, where
 * there is a GPU, build/confine/cuda-probe --files does what a runner does,
 * unconfined (it is the lab's own program), and lists the files the GPU
 * driver loaded into it: build/confine/driver-files, the only files beyond
 * a runner's own libraries that a confined run may read (so no library it
 * is not linked with, cuBLAS among them, can be loaded at run time). Then
 * the probe runs confined with that list (a context, an allocation, a
 * kernel), so that a GPU driver needing what the confinement forbids is
 * found once, here, and not as every stage failing. Where it did
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

/* Run the CUDA probe (confined, with the driver's files, when confine is
 * not NULL): 1 when it says the GPU works; its line in line. */
static int cuda_works(const char *probe, const char *confine, const char *files, char *line, size_t len)
{
    char *argv_confined[] = {(char *)confine, "--read-list", (char *)files, "--", (char *)probe, NULL};
    char *argv_plain[] = {(char *)probe, NULL};
    run_result r;
    grader_run_program(confine ? argv_confined : argv_plain, -1, 120, 4096, &r);
    line[0] = 0;
    if (r.tail)
        grader_text_clean(r.tail, strcspn(r.tail, "\n"), line, len);
    int ok = r.exited && r.status == 0;
    grader_run_result_free(&r);
    return ok;
}

/* The files the GPU driver loads into a runner, as the probe found them,
 * into path: 0, or -1 with the probe's complaint in why. */
static int list_driver_files(const char *probe, const char *path, char *why, size_t len)
{
    char *argv[] = {(char *)probe, "--files", NULL};
    run_result r;
    grader_run_program(argv, -1, 120, 256u << 10, &r);
    int ok = r.exited && r.status == 0 && r.tail && r.tail[0] == '/' && lab_write_atomic(path, r.tail) == 0;
    if (!ok)
        snprintf(why, len, "cannot list the GPU driver's files (%s --files): %s", probe,
                 r.tail && r.tail[0] ? r.tail : "it said nothing");
    grader_run_result_free(&r);
    return ok ? 0 : -1;
}

void grader_confinement_setup(confinement *c, const char *lab, int unconfined, int gpu_here, int probed)
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
    grader_run_program(argv, -1, 30, 4096, &r);
    char line[sizeof c->why] = "";
    if (r.tail)
        grader_text_clean(r.tail, strcspn(r.tail, "\n"), line, sizeof line);
    c->on = r.exited && r.status == 0 && !strncmp(line, "confined: ", 10);
    snprintf(c->why, sizeof c->why, "%s", line[0] ? line : "not confined: the probe said nothing");
    grader_run_result_free(&r);
    /* the GPU must work inside it too: where a driver needs what the
     * confinement forbids, every run would fail, so say so instead */
    char probe[4096], confined_line[256], plain_line[256];
    snprintf(probe, sizeof probe, "%s/build/confine/cuda-probe", lab);
    snprintf(c->files, sizeof c->files, "%s/build/confine/driver-files", lab);
    if (!c->on || !gpu_here || access(probe, X_OK)) {
        c->files[0] = 0;
        return;
    }
    if (list_driver_files(probe, c->files, c->why, sizeof c->why)) {
        c->on = 0;
        c->files[0] = 0;
        return;
    }
    if (!probed && !cuda_works(probe, c->program, c->files, confined_line, sizeof confined_line) &&
        cuda_works(probe, NULL, NULL, plain_line, sizeof plain_line)) {
        c->on = 0;
        snprintf(c->why, sizeof c->why,
                 "not confined: the GPU works here, but not inside the confinement (%s): the driver may "
                 "need a file it did not map (research/diagnose/cuda-in-confine.sh finds which)",
                 confined_line[0] ? confined_line : "the probe said nothing");
    }
}

int grader_judge_can_share(const char *lab, char *line, size_t len)
{
    char probe[4096];
    snprintf(probe, sizeof probe, "%s/build/confine/cuda-probe", lab);
    if (access(probe, X_OK)) {
        snprintf(line, len, "%s is missing", probe);
        return 0;
    }
    char *argv[] = {probe, "--ipc", NULL};
    run_result r;
    grader_run_program(argv, -1, 120, 4096, &r);
    line[0] = 0;
    if (r.tail)
        grader_text_clean(r.tail, strcspn(r.tail, "\n"), line, len);
    int ok = r.exited && r.status == 0;
    if (!line[0])
        snprintf(line, len, "the probe said nothing");
    grader_run_result_free(&r);
    return ok;
}

int grader_confinement_wrap(const confinement *c, char **argv, int max)
{
    int a = 0;
    if (!c || !c->on)
        return 0;
    /* the program reads itself, its libraries and the driver's files:
     * nothing of the lab, no other library */
    argv[a++] = (char *)c->program;
    if (c->files[0]) {
        argv[a++] = "--read-list";
        argv[a++] = (char *)c->files;
    }
    argv[a++] = "--";
    return a < max ? a : 0;
}
