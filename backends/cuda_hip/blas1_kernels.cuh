/* blas1_kernels.cuh — fill, axpby and a deterministic dot product (fixed grid, fixed-order
 * reduction of the block partials) shared by CUDA and HIP. */
#ifndef ZS_BLAS1_KERNELS_CUH
#define ZS_BLAS1_KERNELS_CUH

#include "backends/cuda_hip/zs_gpu_compat.h"

/* Kernels of internal linkage: a module's units compile separately, each with its own. */
namespace {

#define ZS_DOT_BLOCKS 1024
#define ZS_DOT_THREADS 256

template <typename T>
__global__ void zs_fill_kernel(int64_t n, T value, T *x) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
       i += (int64_t)gridDim.x * blockDim.x)
    x[i] = value;
}

template <typename T>
__global__ void zs_axpby_kernel(int64_t n, T alpha, const T *x, T beta, T *y) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
       i += (int64_t)gridDim.x * blockDim.x)
    y[i] = beta == T(0) ? alpha * x[i] : alpha * x[i] + beta * y[i];
}

/* Sum over a block of ZS_DOT_THREADS in a fixed tree order; thread 0 gets the total. */
__device__ __forceinline__ double zs_block_tree_sum(double v) {
  __shared__ double s[ZS_DOT_THREADS];
  s[threadIdx.x] = v;
  __syncthreads();
  for (int d = ZS_DOT_THREADS / 2; d > 0; d /= 2) {
    if ((int)threadIdx.x < d) s[threadIdx.x] += s[threadIdx.x + d];
    __syncthreads();
  }
  return s[0];
}

/* Launched with exactly ZS_DOT_BLOCKS x ZS_DOT_THREADS: the partition is fixed, so the result
 * does not depend on scheduling. */
template <typename T>
__global__ void zs_dot_partial_kernel(int64_t n, const T *x, const T *y, double *partials) {
  double s = 0;
  for (int64_t i = blockIdx.x * (int64_t)ZS_DOT_THREADS + threadIdx.x; i < n;
       i += (int64_t)ZS_DOT_BLOCKS * ZS_DOT_THREADS)
    s += (double)x[i] * (double)y[i];
  s = zs_block_tree_sum(s);
  if (threadIdx.x == 0) partials[blockIdx.x] = s;
}

__global__ void zs_dot_final_kernel(const double *partials, double *out) {
  double s = 0;
  for (int i = threadIdx.x; i < ZS_DOT_BLOCKS; i += ZS_DOT_THREADS) s += partials[i];
  s = zs_block_tree_sum(s);
  if (threadIdx.x == 0) *out = s;
}

/* BiCG's residual update in one pass (zsb_fused_blas1): r -= alpha q, s -= alpha t (negalpha =
 * -alpha, the same expressions as zs_axpby_kernel), with the block partials of r.s and r.r in
 * partials[0 ..) and partials[ZS_DOT_BLOCKS ..). Same fixed launch as the dot. */
template <typename T>
__global__ void zs_residual_update_kernel(int64_t n, T negalpha, const T *q, T *r, const T *t, T *s,
                                          double *partials) {
  double rs = 0, rr = 0;
  for (int64_t i = blockIdx.x * (int64_t)ZS_DOT_THREADS + threadIdx.x; i < n;
       i += (int64_t)ZS_DOT_BLOCKS * ZS_DOT_THREADS) {
    const T ri = negalpha * q[i] + r[i], si = negalpha * t[i] + s[i];
    r[i] = ri, s[i] = si;
    rs += (double)ri * (double)si, rr += (double)ri * (double)ri;
  }
  rs = zs_block_tree_sum(rs);
  __syncthreads(); /* the tree's shared array is used again */
  rr = zs_block_tree_sum(rr);
  if (threadIdx.x == 0) partials[blockIdx.x] = rs, partials[ZS_DOT_BLOCKS + blockIdx.x] = rr;
}

/* BiCG's direction update in one pass: x += alpha p, then p = z + beta p, pt = zt + beta pt. */
template <typename T>
__global__ void zs_direction_update_kernel(int64_t n, T alpha, T *p, T *x, T beta, const T *z,
                                           const T *zt, T *pt) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
       i += (int64_t)gridDim.x * blockDim.x) {
    const T pi = p[i];
    x[i] = alpha * pi + x[i];
    p[i] = z[i] + beta * pi;
    pt[i] = zt[i] + beta * pt[i];
  }
}

}  // namespace

#endif /* ZS_BLAS1_KERNELS_CUH */
