/*
 * walled.h: a program the lab starts on a student's bytes, run inside the
 * build's wall (build/confine/confine --build: judge/confine.h) by a host
 * program of the lab that lives in build/<folder>/: the intake's archivers
 * on a submission's archive, similarity's preprocessor on a kernel.cu.
 * The wall lets it run its program and those named, read what is named,
 * write one folder, under limits of time, memory and file size; where the
 * machine cannot confine, it runs plainly (as the user nobody when started
 * as root: confine --or-unconfined).
 */
#ifndef LAB_WALLED_H
#define LAB_WALLED_H

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    const char *label;       /* what the wall's own lines name               */
    const char *paths;       /* a --paths file under build/ (tools and the   */
                             /* folders they read: wall/compile.paths), NULL */
    const char *const *exec; /* more programs it may start (NULL-ended), NULL */
    const char *read;        /* a file or folder it reads, or NULL           */
    const char *write;       /* the one folder it writes, or NULL            */
    int seconds, memory_mb, file_mb;
} lab_wall;

/* argv inside the wall: a new array for lab_spawn (one block: free() it),
 * or NULL where there is no build/confine/confine beside the running
 * program's folder, or no paths file named: then the caller runs argv
 * plainly. */
char **lab_walled_argv(const lab_wall *w, char *const argv[]);

#ifdef __cplusplus
}
#endif

#endif /* LAB_WALLED_H */
