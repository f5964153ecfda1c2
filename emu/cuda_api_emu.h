/*
 * cuda_api_emu.h: the CUDA runtime and cuBLAS calls of the lab, for the
 * CPU emulation (emu/api.cc defines them): every runtime call
 * grader/allowed-symbols.txt lets a kernel.cu make, and those the harness
 * makes. cuBLAS here is the checks' reference: products and sums in double
 * (exact for the lab's inputs), rounded once to float.
 */
#ifndef LAB_CUDA_API_EMU_H
#define LAB_CUDA_API_EMU_H

#include <stddef.h>

enum cudaError_t {
    cudaSuccess = 0,
    cudaErrorInvalidValue = 1,
    cudaErrorMemoryAllocation = 2,
    cudaErrorInvalidConfiguration = 9,
    cudaErrorInvalidDevicePointer = 17,
    cudaErrorInsufficientDriver = 35,
    cudaErrorNoDevice = 100,
    cudaErrorInvalidDeviceFunction = 98,
    cudaErrorNotSupported = 801,
    cudaErrorIllegalAddress = 700,
    cudaErrorLaunchOutOfResources = 701,
    cudaErrorMisalignedAddress = 716,
    cudaErrorLaunchFailure = 719,
};
typedef enum cudaError_t cudaError;

enum cudaMemcpyKind { cudaMemcpyHostToHost, cudaMemcpyHostToDevice, cudaMemcpyDeviceToHost,
                      cudaMemcpyDeviceToDevice, cudaMemcpyDefault };
enum cudaDeviceAttr { cudaDevAttrMaxThreadsPerBlock = 1, cudaDevAttrMaxSharedMemoryPerBlock = 8,
                      cudaDevAttrWarpSize = 10, cudaDevAttrClockRate = 13, cudaDevAttrMultiProcessorCount = 16,
                      cudaDevAttrMemoryClockRate = 36, cudaDevAttrGlobalMemoryBusWidth = 37,
                      cudaDevAttrL2CacheSize = 38, cudaDevAttrMaxThreadsPerMultiProcessor = 39,
                      cudaDevAttrComputeCapabilityMajor = 75, cudaDevAttrComputeCapabilityMinor = 76,
                      cudaDevAttrMaxSharedMemoryPerBlockOptin = 97 };
enum cudaFuncAttribute { cudaFuncAttributeMaxDynamicSharedMemorySize = 8,
                         cudaFuncAttributePreferredSharedMemoryCarveout = 9 };
enum cudaFuncCache { cudaFuncCachePreferNone, cudaFuncCachePreferShared, cudaFuncCachePreferL1,
                     cudaFuncCachePreferEqual };

struct cudaDeviceProp {
    char name[256];
    size_t totalGlobalMem, sharedMemPerBlock, sharedMemPerBlockOptin, sharedMemPerMultiprocessor;
    int regsPerBlock, warpSize, maxThreadsPerBlock, maxThreadsDim[3], maxGridSize[3];
    int clockRate, major, minor, multiProcessorCount, maxThreadsPerMultiProcessor;
    int memoryClockRate, memoryBusWidth, l2CacheSize, maxBlocksPerMultiProcessor;
};
struct cudaFuncAttributes {
    size_t sharedSizeBytes, constSizeBytes, localSizeBytes;
    int maxThreadsPerBlock, numRegs, ptxVersion, binaryVersion, maxDynamicSharedSizeBytes;
};
typedef struct CUevent_st *cudaEvent_t; /* (the names CUDA gives them) */

cudaError_t cudaGetLastError(void);
cudaError_t cudaPeekAtLastError(void);
const char *cudaGetErrorString(cudaError_t e);
const char *cudaGetErrorName(cudaError_t e);
cudaError_t cudaGetDevice(int *d);
cudaError_t cudaSetDevice(int d);
cudaError_t cudaGetDeviceCount(int *n);
cudaError_t cudaGetDeviceProperties(cudaDeviceProp *p, int d);
cudaError_t cudaDeviceGetAttribute(int *v, cudaDeviceAttr a, int d);
cudaError_t cudaDeviceSynchronize(void);
cudaError_t cudaMalloc(void **p, size_t bytes);
template <typename T> static inline cudaError_t cudaMalloc(T **p, size_t bytes) { return cudaMalloc((void **)p, bytes); }
cudaError_t cudaFree(void *p);
cudaError_t cudaMemGetInfo(size_t *free_bytes, size_t *total);
cudaError_t cudaMemcpy(void *dst, const void *src, size_t bytes, cudaMemcpyKind k);
cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t bytes, cudaMemcpyKind k, cudaStream_t s = 0);
cudaError_t cudaMemset(void *p, int v, size_t bytes);
cudaError_t cudaMemsetAsync(void *p, int v, size_t bytes, cudaStream_t s = 0);
cudaError_t cudaEventCreate(cudaEvent_t *e);
cudaError_t cudaEventDestroy(cudaEvent_t e);
cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t s = 0);
cudaError_t cudaEventSynchronize(cudaEvent_t e);
cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t a, cudaEvent_t b);
cudaError_t cudaProfilerStart(void);
cudaError_t cudaProfilerStop(void);
cudaError_t lab_emu_func_attributes(cudaFuncAttributes *a);
template <typename F> static inline cudaError_t cudaFuncGetAttributes(cudaFuncAttributes *a, F *) { return lab_emu_func_attributes(a); }
template <typename F> static inline cudaError_t cudaFuncSetAttribute(F *, cudaFuncAttribute, int) { return cudaSuccess; }
template <typename F> static inline cudaError_t cudaFuncSetCacheConfig(F *, cudaFuncCache) { return cudaSuccess; }
cudaError_t lab_emu_occupancy(int *blocks, int threads, size_t shared);
template <typename F>
static inline cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int *n, F *, int threads, size_t shared)
{
    return lab_emu_occupancy(n, threads, shared);
}
template <typename F>
static inline cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int *n, F *, int threads,
                                                                                size_t shared, unsigned)
{
    return lab_emu_occupancy(n, threads, shared);
}
template <typename F>
static inline cudaError_t cudaOccupancyMaxPotentialBlockSize(int *grid, int *block, F *, size_t = 0, int = 0)
{
    *block = 256;
    return lab_emu_occupancy(grid, 256, 0);
}
/* a launch by pointer and an array of untyped arguments: the emulator
 * cannot know their types */
#define cudaLaunchKernel(...) (lab_emu_refuse("cudaLaunchKernel (launch with <<<...>>>)", __FILE__, __LINE__), cudaSuccess)
#define cudaLaunchCooperativeKernel(...) (lab_emu_refuse("cudaLaunchCooperativeKernel", __FILE__, __LINE__), cudaSuccess)
#define cudaLaunchKernelExC(...) (lab_emu_refuse("cudaLaunchKernelExC", __FILE__, __LINE__), cudaSuccess)

/* ----------------------------------------------------------------- cuBLAS */
typedef struct lab_emu_cublas *cublasHandle_t;
enum cublasStatus_t { CUBLAS_STATUS_SUCCESS = 0, CUBLAS_STATUS_NOT_INITIALIZED = 1, CUBLAS_STATUS_ALLOC_FAILED = 3,
                      CUBLAS_STATUS_INVALID_VALUE = 7 };
enum cublasOperation_t { CUBLAS_OP_N = 0, CUBLAS_OP_T = 1 };
enum cublasMath_t { CUBLAS_DEFAULT_MATH = 0, CUBLAS_TF32_TENSOR_OP_MATH = 3 };
enum cublasPointerMode_t { CUBLAS_POINTER_MODE_HOST = 0, CUBLAS_POINTER_MODE_DEVICE = 1 };
cublasStatus_t cublasCreate(cublasHandle_t *h);
cublasStatus_t cublasDestroy(cublasHandle_t h);
cublasStatus_t cublasSetMathMode(cublasHandle_t h, cublasMath_t m);
cublasStatus_t cublasSetPointerMode(cublasHandle_t h, cublasPointerMode_t m);
const char *cublasGetStatusString(cublasStatus_t s);
cublasStatus_t cublasSgemm(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k,
                           const float *alpha, const float *A, int lda, const float *B, int ldb, const float *beta,
                           float *C, int ldc);
cublasStatus_t cublasSgeam(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m, int n,
                           const float *alpha, const float *A, int lda, const float *beta, const float *B, int ldb,
                           float *C, int ldc);
cublasStatus_t cublasSasum(cublasHandle_t h, int n, const float *x, int incx, float *result);

#endif /* LAB_CUDA_API_EMU_H */
