/* bench_vendor.h — the one place of the GPU bench that knows CUDA from HIP: the runtime, the
 * vendor sparse library and what each has. The bench is written against CUDA and cuSPARSE's
 * generic API; for HIP the same names map to the HIP runtime and hipSPARSE, whose generic SpMV
 * mirrors cuSPARSE's (CSR ALG1/ALG2, COO ALG1, SpMV_preprocess) but has no sliced ELL. */
#ifndef ZS_BENCH_VENDOR_H
#define ZS_BENCH_VENDOR_H

#if defined(__HIPCC__)
#include <hip/hip_runtime.h>
#include <hipsparse/hipsparse.h>

#define ZB_BACKEND "hip"
#define ZB_VENDOR "hipsparse"      /* library column of the vendor's results */
#define ZB_VENDOR_NAME "hipSPARSE" /* in texts */
#define ZB_VENDOR_SHORT "hipSP"    /* in table headers */
#define ZB_RUNTIME_NAME "HIP"
#define ZB_HAVE_SELL 0
#define ZB_HAVE_PREPROCESS 1
/* hipsparseGetVersion: major * 100000 + minor * 100 + patch */
#define ZB_VERSION_MAJOR(v) ((v) / 100000)
#define ZB_VERSION_MINOR(v) ((v) / 100 % 1000)
#define ZB_VERSION_PATCH(v) ((v) % 100)
#define ZB_BUILD_NOTE                                                                              \
  "This build (zs-bench-hip): zsparse's hip backend beside hipSPARSE; where the text below says\n" \
  "cuda and cuSPARSE read hip and hipSPARSE. hipSPARSE has no sliced ELL: no SELL-32 lines.\n\n"

#define cudaDeviceProp hipDeviceProp_t
#define cudaDeviceSynchronize hipDeviceSynchronize
#define cudaError_t hipError_t
#define cudaErrorInvalidValue hipErrorInvalidValue
#define cudaErrorMemoryAllocation hipErrorOutOfMemory
#define cudaEventCreate hipEventCreate
#define cudaEventDestroy hipEventDestroy
#define cudaEventElapsedTime hipEventElapsedTime
#define cudaEventRecord hipEventRecord
#define cudaEventSynchronize hipEventSynchronize
#define cudaEvent_t hipEvent_t
#define cudaFree hipFree
#define cudaGetDeviceCount hipGetDeviceCount
#define cudaGetDeviceProperties hipGetDeviceProperties
#define cudaGetErrorName hipGetErrorName
#define cudaGetErrorString hipGetErrorString
#define cudaGetLastError hipGetLastError
#define cudaMalloc hipMalloc
#define cudaMemGetInfo hipMemGetInfo
#define cudaMemcpy hipMemcpy
#define cudaMemcpyDeviceToHost hipMemcpyDeviceToHost
#define cudaMemcpyHostToDevice hipMemcpyHostToDevice
#define cudaMemset hipMemset
#define cudaRuntimeGetVersion hipRuntimeGetVersion
#define cudaSetDevice hipSetDevice
#define cudaSuccess hipSuccess
#define cudaDataType hipDataType
#define CUDA_R_32F HIP_R_32F
#define CUDA_R_64F HIP_R_64F

#define cusparseCreate hipsparseCreate
#define cusparseCreateCoo hipsparseCreateCoo
#define cusparseCreateCsr hipsparseCreateCsr
#define cusparseCreateDnVec hipsparseCreateDnVec
#define cusparseDestroy hipsparseDestroy
#define cusparseDestroyDnVec hipsparseDestroyDnVec
#define cusparseDestroySpMat hipsparseDestroySpMat
#define cusparseDnVecDescr_t hipsparseDnVecDescr_t
#define cusparseGetVersion hipsparseGetVersion
#define cusparseHandle_t hipsparseHandle_t
#define cusparseIndexBase_t hipsparseIndexBase_t
#define cusparseIndexType_t hipsparseIndexType_t
#define cusparseOperation_t hipsparseOperation_t
#define cusparseSpMV hipsparseSpMV
#define cusparseSpMVAlg_t hipsparseSpMVAlg_t
#define cusparseSpMV_bufferSize hipsparseSpMV_bufferSize
#define cusparseSpMV_preprocess hipsparseSpMV_preprocess
#define cusparseSpMatDescr_t hipsparseSpMatDescr_t
#define cusparseStatus_t hipsparseStatus_t
#define CUSPARSE_INDEX_32I HIPSPARSE_INDEX_32I
#define CUSPARSE_INDEX_BASE_ZERO HIPSPARSE_INDEX_BASE_ZERO
#define CUSPARSE_OPERATION_NON_TRANSPOSE HIPSPARSE_OPERATION_NON_TRANSPOSE
#define CUSPARSE_OPERATION_TRANSPOSE HIPSPARSE_OPERATION_TRANSPOSE
#define CUSPARSE_SPMV_COO_ALG1 HIPSPARSE_SPMV_COO_ALG1
#define CUSPARSE_SPMV_CSR_ALG1 HIPSPARSE_SPMV_CSR_ALG1
#define CUSPARSE_SPMV_CSR_ALG2 HIPSPARSE_SPMV_CSR_ALG2
#define CUSPARSE_STATUS_NOT_SUPPORTED HIPSPARSE_STATUS_NOT_SUPPORTED
#define CUSPARSE_STATUS_SUCCESS HIPSPARSE_STATUS_SUCCESS

/* hipSPARSE 5.x has no error strings: the status number names it. */
static inline const char *zb_sparse_status_name(hipsparseStatus_t s) {
  static thread_local char b[32];
  snprintf(b, sizeof b, "hipsparseStatus %d", (int)s);
  return b;
}
#define zb_sparse_status_text(s) "see hipsparse.h"

#else
#include <cuda_runtime.h>
#include <cusparse.h>

#define ZB_BACKEND "cuda"
#define ZB_VENDOR "cusparse"
#define ZB_VENDOR_NAME "cuSPARSE"
#define ZB_VENDOR_SHORT "cuSP"
#define ZB_RUNTIME_NAME "CUDA"
#define ZB_HAVE_SELL 1
/* cusparseGetVersion: major * 1000 + minor * 100 + patch */
#define ZB_VERSION_MAJOR(v) ((v) / 1000)
#define ZB_VERSION_MINOR(v) ((v) % 1000 / 100)
#define ZB_VERSION_PATCH(v) ((v) % 100)
#define ZB_BUILD_NOTE ""
#if defined(CUSPARSE_VERSION) && CUSPARSE_VERSION >= 12400
#define ZB_HAVE_PREPROCESS 1
#else
#define ZB_HAVE_PREPROCESS 0
#endif
#define zb_sparse_status_name(s) cusparseGetErrorName(s)
#define zb_sparse_status_text(s) cusparseGetErrorString(s)
#endif

#endif
