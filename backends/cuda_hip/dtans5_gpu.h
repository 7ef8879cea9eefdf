/* dtans5_gpu.h — CSR-dtANS version 5 (template rows) on the GPU modules: its operator lives in a
 * unit of its own (dtans5_gpu.cuh, compiled by backends/cuda/cuda_dtans5.cu and
 * backends/hip/hip_dtans5.cpp); the dtans operator (dtans_gpu.cuh) routes version 5 blobs here. */
#ifndef ZS_DTANS5_GPU_H
#define ZS_DTANS5_GPU_H

#include "backends/cuda_hip/gpu_common.cuh"

namespace zs_gpu {

/* An operator for a version 5 view (validated before), for the context whose device is dev;
 * options as the dtans operator reads them (transpose=atomic|deterministic). ZS_ERR_UNSUPPORTED
 * for offsets the kernel keeps in 32 bits, ZS_ERR_OUT_OF_MEMORY, a device error. */
zs_status dtans5_gpu_create(const gpu_device *dev, void **state, const zsb_encoded_view *v,
                            const char *options);
void dtans5_gpu_destroy(void *state);
zs_status dtans5_gpu_apply(void *state, zs_op which, double alpha, const void *x, double beta,
                           void *y);
/* zs_spmv_pair in one pass with transpose=atomic; ZS_ERR_UNSUPPORTED otherwise. */
zs_status dtans5_gpu_pair(void *state, double alpha, const void *x, double beta, void *y,
                          double alpha_t, const void *w, double beta_t, void *z);

} /* namespace zs_gpu */

#endif
