/*
 * serve.h: the device server's side of a runner's CUDA calls (serve.cu),
 * for its loop with the judge (server.cu; forward.h).
 */
#ifndef LAB_SERVE_H
#define LAB_SERVE_H

#include <cuda_runtime.h>
#include <stdint.h>

#include "forward.h"

/* The walled compile's device code, read whole from LAB_FWD_SERVER_FATBIN
 * (none: the echo runner's, or a kernel.cu without device code). */
cudaError_t lab_serve_load_device_code(void);

/* The judge's buffer id, opened from its IPC handle (bytes long); closed. */
cudaError_t lab_serve_map(int id, const unsigned char *handle, uint64_t bytes);
cudaError_t lab_serve_unmap(int id);
/* Where buffer id's byte offset lies in this context: 0, or -1 (not mapped). */
int lab_serve_pointer(int id, int64_t offset, uint64_t *at);

/* Serve the runner until it says `until` (HELLO_DONE, CALLS_DONE); its
 * payload into text. A runner that is gone ends the server
 * (LAB_FWD_RUNNER_GONE): the judge reads why from waitpid. */
void lab_serve(uint32_t until, char *text, size_t len);

/* The first error of this request's launches and memsets (the server's
 * loop resets it for each request). */
extern cudaError_t lab_serve_first_error;

/* LAB_JUDGE_TRACE: when lab_serve read its first message, and the time
 * spent inside launches since in_launches was last set to 0 (us). */
typedef struct {
    int on;
    double first_message, in_launches;
} lab_serve_trace;
extern lab_serve_trace lab_serve_times;

#endif /* LAB_SERVE_H */
