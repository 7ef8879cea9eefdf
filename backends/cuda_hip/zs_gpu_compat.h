/* zs_gpu_compat.h — the one place that knows CUDA from HIP: runtime names, warp width, lane
 * masks, ballot and shuffle. Kernel bodies include only this. */
#ifndef ZS_GPU_COMPAT_H
#define ZS_GPU_COMPAT_H

#if defined(__HIPCC__)
#include <hip/hip_runtime.h>
/* gfx9 (CDNA) wavefronts are 64 lanes wide. */
#define ZS_WARP_SIZE 64
typedef unsigned long long zs_lane_mask;
#define zs_ballot(pred) __ballot(pred)
#define zs_shfl_down(v, d) __shfl_down((v), (d))
#define zs_shfl_up(v, d) __shfl_up((v), (d))
#define zs_shfl(v, l) __shfl((v), (l))
#define zs_shfl_xor(v, l) __shfl_xor((v), (l))
#define zs_popc(m) __popcll(m)
/* OR of every lane's mask, in all lanes (no reduction instruction on gfx9: a butterfly). */
__device__ __forceinline__ zs_lane_mask zs_reduce_or(zs_lane_mask v) {
  for (int d = 1; d < ZS_WARP_SIZE; d *= 2) v |= __shfl_xor(v, d);
  return v;
}
/* Order shared-memory accesses among the lanes of a wavefront (it runs in lockstep). */
#define zs_syncwarp() __builtin_amdgcn_wave_barrier()
/* Streamed matrix data, read once: a non-temporal load keeps it from pushing x out of the
 * cache. Worth it only where x is gathered at random (see zs_load_matrix). */
#define zs_load_stream(p) __builtin_nontemporal_load(p)
typedef hipError_t gpuError_t;
typedef hipStream_t gpuStream_t;
#define gpuSuccess hipSuccess
#define gpuMalloc hipMalloc
#define gpuFree hipFree
#define gpuMemcpy hipMemcpy
#define gpuMemcpyAsync hipMemcpyAsync
#define gpuMemset hipMemset
#define gpuMemcpyHostToDevice hipMemcpyHostToDevice
#define gpuMemcpyDeviceToHost hipMemcpyDeviceToHost
#define gpuMemcpyDeviceToDevice hipMemcpyDeviceToDevice
#define gpuDeviceSynchronize hipDeviceSynchronize
#define gpuGetLastError hipGetLastError
#define gpuGetErrorString hipGetErrorString
#define gpuGetDeviceCount hipGetDeviceCount
#define gpuGetDeviceProperties hipGetDeviceProperties
#define gpuDeviceProp hipDeviceProp_t
#define gpuDeviceGetPCIBusId hipDeviceGetPCIBusId
#define gpuSetDevice hipSetDevice
#define gpuFuncGetAttributes hipFuncGetAttributes
#define gpuFuncAttributes hipFuncAttributes
#define gpuFuncSetMaxDynamicShared(f, bytes) \
  hipFuncSetAttribute((const void *)(f), hipFuncAttributeMaxDynamicSharedMemorySize, (bytes))
#define gpuOccupancyMaxActiveBlocksPerMultiprocessor hipOccupancyMaxActiveBlocksPerMultiprocessor
#define ZS_SMEM_OPTIN(prop) ((prop).sharedMemPerBlock)
/* Where dynamic shared memory starts in the shared window: not known here. */
#define ZS_SMEM_RESERVED(prop) ((void)(prop), (size_t)-1)
/* AMD's LDS is not carved out of the L1 cache: nothing to prefer. */
#define gpuFuncPreferSharedPercent(f, percent) ((void)(f), (void)(percent))
#define ZS_CARVEOUT_DEFAULT (-1)
#define ZS_GPU_VENDOR "AMD"
#define ZS_GPU_BACKEND_NAME "hip"
#define gpuErrorMemoryAllocation hipErrorOutOfMemory
#define ZS_GPU_RUNTIME "HIP"
#else
#include <cuda_runtime.h>
#define ZS_WARP_SIZE 32
typedef unsigned int zs_lane_mask;
#define zs_ballot(pred) __ballot_sync(0xffffffffu, (pred))
#define zs_shfl_down(v, d) __shfl_down_sync(0xffffffffu, (v), (d))
#define zs_shfl_up(v, d) __shfl_up_sync(0xffffffffu, (v), (d))
#define zs_shfl(v, l) __shfl_sync(0xffffffffu, (v), (l))
#define zs_shfl_xor(v, l) __shfl_xor_sync(0xffffffffu, (v), (l))
#define zs_popc(m) __popc(m)
#define zs_reduce_or(m) __reduce_or_sync(0xffffffffu, (m)) /* sm_80 and later */
#define zs_syncwarp() __syncwarp()
/* Streamed matrix data, read once: an evict-first load keeps it from pushing x out of the
 * cache. Worth it only where x is gathered at random (see zs_load_matrix). */
#define zs_load_stream(p) __ldcs(p)
typedef cudaError_t gpuError_t;
typedef cudaStream_t gpuStream_t;
#define gpuSuccess cudaSuccess
#define gpuMalloc cudaMalloc
#define gpuFree cudaFree
#define gpuMemcpy cudaMemcpy
#define gpuMemcpyAsync cudaMemcpyAsync
#define gpuMemset cudaMemset
#define gpuMemcpyHostToDevice cudaMemcpyHostToDevice
#define gpuMemcpyDeviceToHost cudaMemcpyDeviceToHost
#define gpuMemcpyDeviceToDevice cudaMemcpyDeviceToDevice
#define gpuDeviceSynchronize cudaDeviceSynchronize
#define gpuGetLastError cudaGetLastError
#define gpuGetErrorString cudaGetErrorString
#define gpuGetDeviceCount cudaGetDeviceCount
#define gpuGetDeviceProperties cudaGetDeviceProperties
#define gpuDeviceProp cudaDeviceProp
#define gpuDeviceGetPCIBusId cudaDeviceGetPCIBusId
#define gpuSetDevice cudaSetDevice
#define gpuFuncGetAttributes cudaFuncGetAttributes
#define gpuFuncAttributes cudaFuncAttributes
#define gpuFuncSetMaxDynamicShared(f, bytes) \
  cudaFuncSetAttribute((f), cudaFuncAttributeMaxDynamicSharedMemorySize, (bytes))
#define gpuOccupancyMaxActiveBlocksPerMultiprocessor cudaOccupancyMaxActiveBlocksPerMultiprocessor
#define ZS_SMEM_OPTIN(prop) ((prop).sharedMemPerBlockOptin)
/* Where dynamic shared memory starts in the shared window: past the driver's reserve. */
#define ZS_SMEM_RESERVED(prop) ((size_t)(prop).reservedSharedMemPerBlock)
/* Shared memory and L1 share the SM's storage: the share of it a kernel prefers as shared. */
#define gpuFuncPreferSharedPercent(f, percent) \
  ((void)cudaFuncSetAttribute((f), cudaFuncAttributePreferredSharedMemoryCarveout, (percent)))
#define ZS_CARVEOUT_DEFAULT cudaSharedmemCarveoutDefault /* the driver's choice */
#define ZS_GPU_VENDOR "NVIDIA"
#define ZS_GPU_BACKEND_NAME "cuda"
#define gpuErrorMemoryAllocation cudaErrorMemoryAllocation
#define ZS_GPU_RUNTIME "CUDA"
#endif

/* Matrix data (values, indices) of a kernel: evict-first loads where x is gathered at random
 * (they leave the cache to x: 18 % faster on the H100's Erdős–Rényi f64), plain loads where x
 * is local (banded, stencil: plain is up to 6 % faster in f32). */
template <bool STREAM, typename T>
__device__ __forceinline__ T zs_load_matrix(const T *p) {
  if (STREAM) return zs_load_stream(p);
  return *p;
}

/* Sum over the first `width` lanes of each group of `width` (a power of two ≤ warp width);
 * lane 0 of the group ends with the total. */
template <typename T>
__device__ __forceinline__ T zs_group_sum(T v, int width) {
  for (int d = width / 2; d > 0; d /= 2) v += zs_shfl_down(v, d);
  return v;
}

#endif /* ZS_GPU_COMPAT_H */
