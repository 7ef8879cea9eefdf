/* coo_kernels.cuh — COO SpMV and SpMVT bodies shared by CUDA and HIP. Each warp takes a fixed
 * range of nonzeros (balanced by construction) and reduces runs of equal rows with a segmented
 * warp scan; the first and last run of a range may continue in a neighbour, so they are handed
 * to a fix-up kernel that adds each row's pieces in range order (deterministic, no atomics). */
#ifndef ZS_COO_KERNELS_CUH
#define ZS_COO_KERNELS_CUH

#include <stdint.h>

#include "backends/cuda_hip/zs_gpu_compat.h"

/* Kernels of internal linkage: a module's units compile separately, each with its own. */
namespace {

#define ZS_COO_CHUNKS 16 /* warp-wide steps per range */
#define ZS_COO_RANGE (ZS_COO_CHUNKS * ZS_WARP_SIZE)

/* Per range: its first run (head) and last run (tail). head_row == tail_row: one run. */
template <typename T>
struct zs_coo_carry {
  int32_t *head_row, *tail_row;
  T *head_sum, *tail_sum;
};

/* INDIRECT: values are read through perm (the column-sorted index of a deterministic SpMVT). */
template <typename T, bool INDIRECT>
__global__ void zs_coo_ranges_kernel(int64_t nnz, const int32_t *row, const int32_t *col,
                                     const int32_t *perm, const T *val, const T *x, T *y, T alpha,
                                     zs_coo_carry<T> carry) {
  const int lane = threadIdx.x % ZS_WARP_SIZE;
  const int64_t w = (blockIdx.x * (int64_t)blockDim.x + threadIdx.x) / ZS_WARP_SIZE;
  const int64_t base = w * ZS_COO_RANGE;
  if (base >= nnz) return; /* whole warps leave together: base is warp-uniform */
  const int64_t end = base + ZS_COO_RANGE < nnz ? base + ZS_COO_RANGE : nnz;
  const int32_t first_row = row[base];
  int32_t run_row = -1; /* the run still open at the end of the previous step */
  T run_sum = 0;
  for (int64_t step = base; step < end; step += ZS_WARP_SIZE) {
    const int64_t k = step + lane;
    const bool valid = k < end;
    const int32_t r = valid ? row[k] : INT32_MAX;
    T v = valid ? (INDIRECT ? val[perm[k]] : val[k]) * x[col[k]] : T(0);
    /* A run carried to this step may have ended exactly at the step boundary. */
    if (lane == 0 && run_row >= 0 && r != run_row) {
      if (run_row == first_row)
        carry.head_sum[w] = run_sum;
      else
        y[run_row] += alpha * run_sum;
    }
    for (int d = 1; d < ZS_WARP_SIZE; d *= 2) {
      const T vu = zs_shfl_up(v, d);
      const int32_t ru = zs_shfl_up(r, d);
      if (lane >= d && ru == r) v += vu;
    }
    if (r == run_row) v += run_sum;
    const int last = (int)zs_popc(zs_ballot(valid)) - 1;
    const int32_t next_r = zs_shfl_down(r, 1);
    const bool run_end = valid && lane < last && next_r != r;
    if (run_end) {
      if (r == first_row)
        carry.head_sum[w] = v; /* may continue from the previous range */
      else
        y[r] += alpha * v;
    }
    run_row = zs_shfl(r, last);
    run_sum = zs_shfl(v, last);
  }
  if (lane == 0) {
    carry.head_row[w] = first_row;
    carry.tail_row[w] = run_row;
    carry.tail_sum[w] = run_sum;
  }
}

/* One thread per range: add the pieces of the rows that end in this range's head or tail. */
template <typename T>
__global__ void zs_coo_fixup_kernel(int64_t ranges, T *y, T alpha, zs_coo_carry<T> carry) {
  const int64_t w = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (w >= ranges) return;
  const int32_t head = carry.head_row[w], tail = carry.tail_row[w];
  if (head != tail) { /* the head run ends inside this range */
    T s = carry.head_sum[w];
    for (int64_t c = w - 1; c >= 0 && carry.tail_row[c] == head; c--) {
      s += carry.tail_sum[c];
      if (carry.head_row[c] != head) break; /* the row started inside range c */
    }
    y[head] += alpha * s;
  }
  if (w + 1 < ranges && carry.head_row[w + 1] == tail) return; /* continues: a later range adds */
  T s = carry.tail_sum[w];
  if (head == tail)
    for (int64_t c = w - 1; c >= 0 && carry.tail_row[c] == tail; c--) {
      s += carry.tail_sum[c];
      if (carry.head_row[c] != tail) break;
    }
  y[tail] += alpha * s;
}

/* Atomic SpMVT: y[col[k]] += alpha * val[k] * x[row[k]], one nonzero per thread. */
template <typename T>
__global__ void zs_coo_scatter_kernel(int64_t nnz, const int32_t *row, const int32_t *col,
                                      const T *val, const T *x, T *y, T alpha) {
  for (int64_t k = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; k < nnz;
       k += (int64_t)gridDim.x * blockDim.x)
    atomicAdd(&y[col[k]], alpha * val[k] * x[row[k]]);
}

}  // namespace

#endif /* ZS_COO_KERNELS_CUH */
