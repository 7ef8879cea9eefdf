/* csr_kernels.cuh — CSR SpMV and SpMVT bodies shared by CUDA and HIP. Work is cut into row
 * blocks of at most ZS_BLOCK_NNZ nonzeros (built on the host, see row_blocks.h), so a block's
 * cost follows its nonzeros, not its row count; rows longer than a block are split into chunks
 * whose partial sums a second kernel adds in a fixed order. */
#ifndef ZS_CSR_KERNELS_CUH
#define ZS_CSR_KERNELS_CUH

#include "backends/cuda_hip/row_blocks.h"
#include "backends/cuda_hip/zs_gpu_compat.h"

/* Products of a block are staged in shared memory so rows of any length reduce from there
 * with lanes matched to the row length. */
template <typename T, bool INDIRECT>
__device__ __forceinline__ void zs_stage_products(const zs_row_block &b, const int32_t *idx,
                                                  const int32_t *perm, const T *val,
                                                  const T *x, T *prod) {
  const int n = (int)(b.nnz_end - b.nnz_begin);
#pragma unroll
  for (int i = 0; i < ZS_BLOCK_ITEMS; i++) {
    const int j = (int)threadIdx.x + i * ZS_BLOCK_THREADS;
    if (j < n) {
      const int64_t k = b.nnz_begin + j;
      const T v = INDIRECT ? val[perm[k]] : val[k];
      prod[j] = v * x[idx[k]];
    }
  }
}

/* Sum prod[0, n) over the whole block; thread 0 gets the result. */
template <typename T>
__device__ __forceinline__ T zs_block_sum(const T *prod, int n, T *scratch) {
  T s = 0;
  for (int j = threadIdx.x; j < n; j += ZS_BLOCK_THREADS) s += prod[j];
  s = zs_group_sum(s, ZS_WARP_SIZE);
  const int warp = threadIdx.x / ZS_WARP_SIZE, lane = threadIdx.x % ZS_WARP_SIZE;
  if (lane == 0) scratch[warp] = s;
  __syncthreads();
  T total = 0;
  if (threadIdx.x == 0)
    for (int w = 0; w < ZS_BLOCK_THREADS / ZS_WARP_SIZE; w++) total += scratch[w];
  return total;
}

/* y[r] = alpha * sum_k val[k] * x[idx[k]] + beta * y[r] for the rows of each block.
 * INDIRECT: values are read through perm (the transposed index of a deterministic SpMVT). */
template <typename T, bool INDIRECT>
__global__ void __launch_bounds__(ZS_BLOCK_THREADS)
    zs_csr_rows_kernel(const zs_row_block *blocks, const int64_t *ptr, const int32_t *idx,
                       const int32_t *perm, const T *val, const T *x, T *y, T *partials,
                       T alpha, T beta) {
  __shared__ T prod[ZS_BLOCK_NNZ];
  __shared__ T scratch[ZS_BLOCK_THREADS / ZS_WARP_SIZE];
  const zs_row_block b = blocks[blockIdx.x];
  zs_stage_products<T, INDIRECT>(b, idx, perm, val, x, prod);
  __syncthreads();
  if (b.partial >= 0) {
    const T s = zs_block_sum(prod, (int)(b.nnz_end - b.nnz_begin), scratch);
    if (threadIdx.x == 0) partials[b.partial] = s;
    return;
  }
  const int rows = b.row_end - b.row_begin;
  /* Lanes per row: as many as the block has to spare, a power of two up to a warp. */
  int lanes = 1;
  while (lanes < ZS_WARP_SIZE && lanes * 2 * rows <= ZS_BLOCK_THREADS) lanes *= 2;
  const int group = threadIdx.x / lanes, lane = threadIdx.x % lanes;
  const int groups = ZS_BLOCK_THREADS / lanes;
  /* Every lane runs the same number of iterations: the shuffles need the whole warp. */
  for (int r0 = 0; r0 < rows; r0 += groups) {
    const int r = r0 + group;
    T s = 0;
    if (r < rows) {
      const int row = b.row_begin + r;
      const int begin = (int)(ptr[row] - b.nnz_begin), end = (int)(ptr[row + 1] - b.nnz_begin);
      for (int j = begin + lane; j < end; j += lanes) s += prod[j];
    }
    s = zs_group_sum(s, lanes);
    if (r < rows && lane == 0) {
      const int row = b.row_begin + r;
      y[row] = beta == T(0) ? alpha * s : alpha * s + beta * y[row];
    }
  }
}

/* Rows split over several blocks: add their partial sums in chunk order (deterministic). */
template <typename T>
__global__ void zs_long_rows_kernel(const zs_long_row *rows, int n, const T *partials, T *y,
                                    T alpha, T beta) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const zs_long_row lr = rows[i];
  T s = 0;
  for (int c = 0; c < lr.chunks; c++) s += partials[lr.first_partial + c];
  y[lr.row] = beta == T(0) ? alpha * s : alpha * s + beta * y[lr.row];
}

/* y = beta * y (beta = 0 writes zeros, ignoring NaN in y). */
template <typename T>
__global__ void zs_scale_kernel(int64_t n, T beta, T *y) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
       i += (int64_t)gridDim.x * blockDim.x)
    y[i] = beta == T(0) ? T(0) : beta * y[i];
}

/* Atomic SpMVT from the row blocks: y[idx[k]] += alpha * x[row] * val[k]; y was scaled before.
 * Columns near the block's rows (the diagonal band of stencil, banded and FEM matrices) are
 * first summed in a shared-memory window, so each such column costs one global atomic per
 * block instead of one per nonzero; other columns go straight to y. */
#define ZS_WINDOW_MARGIN 256
#define ZS_WINDOW (ZS_BLOCK_MAX_ROWS + 2 * ZS_WINDOW_MARGIN)

template <typename T>
__device__ __forceinline__ void zs_scatter(T *window, int64_t window_begin, T *y, int32_t col,
                                           T p) {
  const int64_t o = (int64_t)col - window_begin;
  if (o >= 0 && o < ZS_WINDOW)
    atomicAdd(&window[o], p);
  else
    atomicAdd(&y[col], p);
}

template <typename T>
__global__ void __launch_bounds__(ZS_BLOCK_THREADS)
    zs_csr_scatter_kernel(const zs_row_block *blocks, const int64_t *ptr, const int32_t *idx,
                          const T *val, const T *x, T *y, int64_t cols, T alpha) {
  const zs_row_block b = blocks[blockIdx.x];
  if (b.partial >= 0) {
    const T xr = alpha * x[b.row_begin];
    for (int64_t k = b.nnz_begin + threadIdx.x; k < b.nnz_end; k += ZS_BLOCK_THREADS)
      atomicAdd(&y[idx[k]], val[k] * xr);
    return;
  }
  __shared__ T window[ZS_WINDOW];
  const int64_t window_begin = (int64_t)b.row_begin - ZS_WINDOW_MARGIN;
  for (int i = threadIdx.x; i < ZS_WINDOW; i += ZS_BLOCK_THREADS) window[i] = T(0);
  __syncthreads();
  const int rows = b.row_end - b.row_begin;
  int lanes = 1;
  while (lanes < ZS_WARP_SIZE && lanes * 2 * rows <= ZS_BLOCK_THREADS) lanes *= 2;
  const int group = threadIdx.x / lanes, lane = threadIdx.x % lanes;
  for (int r = group; r < rows; r += ZS_BLOCK_THREADS / lanes) {
    const int row = b.row_begin + r;
    const T xr = alpha * x[row];
    for (int64_t k = ptr[row] + lane; k < ptr[row + 1]; k += lanes)
      zs_scatter(window, window_begin, y, idx[k], val[k] * xr);
  }
  __syncthreads();
  for (int i = threadIdx.x; i < ZS_WINDOW; i += ZS_BLOCK_THREADS) {
    const int64_t c = window_begin + i;
    /* Untouched slots hold exact zeros; skipping them (and true zero sums) changes nothing. */
    if (window[i] != T(0) && c >= 0 && c < cols) atomicAdd(&y[c], window[i]);
  }
}

#endif /* ZS_CSR_KERNELS_CUH */
