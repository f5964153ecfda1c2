/*
 * stream_ops.h: the two stream memory operations of the judge's GPU clock
 * (LAB_JUDGE_CLOCK=gpu, timing.cu and runner.cu): wait on the GPU until a
 * 32-bit word in device memory reaches a value, and write one. They belong
 * to the driver API; they are looked up through the runtime, so that no
 * program links libcuda itself.
 */
#ifndef LAB_STREAM_OPS_H
#define LAB_STREAM_OPS_H

#include <cuda.h>
#include <cuda_runtime.h>

typedef CUresult (*lab_stream_value_fn)(CUstream, CUdeviceptr, cuuint32_t, unsigned int);

/* Both functions, or -1 where the driver offers them not. */
static inline int lab_stream_ops(lab_stream_value_fn *wait_value, lab_stream_value_fn *write_value)
{
    static lab_stream_value_fn wait_fn, write_fn;
    static int tried, ok;
    if (!tried) {
        tried = 1;
        cudaDriverEntryPointQueryResult a = cudaDriverEntryPointSymbolNotFound, b = a;
        ok = cudaGetDriverEntryPointByVersion("cuStreamWaitValue32", (void **)&wait_fn, 12000, cudaEnableDefault,
                                              &a) == cudaSuccess &&
             cudaGetDriverEntryPointByVersion("cuStreamWriteValue32", (void **)&write_fn, 12000, cudaEnableDefault,
                                              &b) == cudaSuccess &&
             a == cudaDriverEntryPointSuccess && b == cudaDriverEntryPointSuccess && wait_fn && write_fn;
    }
    *wait_value = wait_fn;
    *write_value = write_fn;
    return ok ? 0 : -1;
}

#endif /* LAB_STREAM_OPS_H */
