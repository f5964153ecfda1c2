/*
 * forward.h: the runner and the device server (judge/README.md, "Device
 * code the build never compiled").
 *
 * The student's host code runs in the runner, a process that has no GPU:
 * it is linked without the CUDA runtime, with judge/forward_runtime.c in
 * its place, and confined without the GPU's devices or the driver's files.
 * Every CUDA call it makes (a launch by kernel name, a memset, a query) is
 * a message to the device server (judge/server.cu), the lab's own program,
 * which holds the GPU context, the judge's buffers and, of device code,
 * only the fat binary that build/confine/objcheck took from the walled
 * compile's object. So device code that nvcc never compiled from the
 * student's source has nowhere to run: a fat binary registered from a byte
 * array names kernels the server's library does not have.
 *
 * Messages: a header, then at most LAB_FWD_MAX_PAYLOAD bytes, on two
 * pipes. The server writes on the runner's LAB_FWD_RUNNER_IN (its own
 * LAB_FWD_SERVER_TO), reads on LAB_FWD_SERVER_FROM (the runner's
 * LAB_FWD_RUNNER_OUT). The server believes nothing of a message but its
 * size: every index, count and length is checked before it is used.
 */
#ifndef LAB_FORWARD_H
#define LAB_FORWARD_H

#include <stdint.h>

#include "remote.h"

#ifdef __cplusplus
extern "C" {
#endif

#define LAB_FWD_MAGIC 0x4c616232u /* "Lab2" */
#define LAB_FWD_RUNNER_IN 3       /* the runner's descriptors */
#define LAB_FWD_RUNNER_OUT 4
#define LAB_FWD_SERVER_FROM 5     /* the server's, beside the judge's 3 and 4 */
#define LAB_FWD_SERVER_TO 6
#define LAB_FWD_SERVER_FATBIN 7   /* the walled compile's device code, read once */
#define LAB_FWD_MAX_PAYLOAD 8192
#define LAB_FWD_MAX_PARAMS 64     /* a kernel's parameters */
#define LAB_FWD_MAX_PARAM_BYTES 4096
#define LAB_FWD_MAX_ATTRS 8       /* a cudaLaunchKernelExC's attributes */
#define LAB_FWD_MAX_NAME 1024     /* a kernel's (mangled) name */
#define LAB_FWD_RUNNER_GONE 3     /* the server's exit status when its runner
                                   * is gone: the runner's fate is the one told */

enum lab_fwd_op {
    /* the server to the runner */
    LAB_FWD_HELLO = 1, /* start-up is over: answer HELLO_DONE             */
    LAB_FWD_CALLS,     /* lab_fwd_calls: run them, then CALLS_DONE         */
    LAB_FWD_QUIT,
    LAB_FWD_REPLY,     /* the answer to a query: lab_fwd_reply             */
    /* the runner to the server, with no answer */
    LAB_FWD_HELLO_DONE = 16, /* payload: the family's name                 */
    LAB_FWD_CALLS_DONE,      /* payload: int32 0, or the first cudaError_t
                              * of the calls found in the runner          */
    LAB_FWD_LAUNCH,          /* lab_fwd_launch, then the parameters' bytes */
    LAB_FWD_NOOP,            /* the server's own empty kernel (the echo)   */
    LAB_FWD_MEMSET,          /* lab_fwd_memset                             */
    /* the runner to the server, answered with a REPLY */
    LAB_FWD_KERNEL = 32,     /* payload: a name; reply: lab_fwd_kernel     */
    LAB_FWD_FUNC_SET_ATTR,   /* lab_fwd_func: kernel, attribute, value     */
    LAB_FWD_FUNC_CACHE,      /* lab_fwd_func: kernel, configuration        */
    LAB_FWD_FUNC_ATTRS,      /* lab_fwd_func; reply: cudaFuncAttributes     */
    LAB_FWD_OCCUPANCY,       /* lab_fwd_func: kernel, block, bytes, flags  */
    LAB_FWD_OCC_SMEM,        /* lab_fwd_func: kernel, blocks, block size   */
    LAB_FWD_OCC_CLUSTER,     /* lab_fwd_launch (no parameters); reply: int */
    LAB_FWD_DEVICE_PROPS,    /* reply: cudaDeviceProp                      */
    LAB_FWD_DEVICE_ATTR,     /* lab_fwd_func: value = the attribute        */
    LAB_FWD_LAST_ERROR,      /* lab_fwd_func: value 1 peek; reply: status  */
    LAB_FWD_ERROR_TEXT       /* lab_fwd_func: value = the error, value2 1: its name */
};

typedef struct {
    uint32_t magic, op, len, reserved;
} lab_fwd_header;

/* LAB_FWD_CALLS: the judge's calls, their pointers resolved in the
 * server's context (the runner cannot use them but to pass them on). */
typedef struct {
    lab_remote_call call;
    uint64_t ptr[LAB_REMOTE_MAX_ARGS];
} lab_fwd_call;
typedef struct {
    int32_t count, reserved;
    lab_fwd_call calls[LAB_REMOTE_MAX_CALLS];
} lab_fwd_calls;

/* A launch, by the server's kernel number (LAB_FWD_KERNEL's answer). */
enum { LAB_FWD_LAUNCH_PLAIN, LAB_FWD_LAUNCH_COOPERATIVE, LAB_FWD_LAUNCH_EX };
typedef struct {
    int32_t kind, kernel;
    uint32_t grid[3], block[3];
    uint64_t shared;
    int32_t nattrs, param_bytes; /* then nattrs cudaLaunchAttribute, then the parameters */
} lab_fwd_launch;

typedef struct {
    uint64_t ptr, count;
    int32_t value, reserved;
} lab_fwd_memset;

/* A query about a kernel (or the device, kernel -1). */
typedef struct {
    int32_t kernel, attr;
    int64_t value, value2;
    uint64_t bytes;
} lab_fwd_func;

/* LAB_FWD_KERNEL's answer: the kernel's number and its parameters' sizes. */
typedef struct {
    int32_t kernel, nparams;
    uint32_t size[LAB_FWD_MAX_PARAMS];
} lab_fwd_kernel;

/* A REPLY: a cudaError_t, then what was asked for. */
typedef struct {
    int32_t status, reserved;
    int64_t value;
} lab_fwd_reply;

/* The runner's side: the error a call left in the runner (a launch of a
 * kernel the server does not have, say) and not yet asked for, cleared. */
int lab_fwd_take_error(void);
/* ... and its queue: a message for the server, sent at the next flush
 * (or when the queue is full). */
void lab_fwd_queue(uint32_t op, const void *a, uint32_t alen, const void *b, uint32_t blen);
void lab_fwd_flush(void);

/* One message: 0, or -1 (end of input, a bad header, too long). */
int lab_fwd_send(int fd, uint32_t op, const void *payload, uint32_t len);
int lab_fwd_send2(int fd, uint32_t op, const void *a, uint32_t alen, const void *b, uint32_t blen);
int lab_fwd_read(int fd, lab_fwd_header *h, void *payload);

#ifdef __cplusplus
}
#endif

#endif /* LAB_FORWARD_H */
