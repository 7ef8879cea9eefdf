/* csr_split.cuh — the nonzero-split CSR SpMV (shared by CUDA and HIP): every thread block takes
 * a tile of ZS_BLOCK_THREADS x ITEMS items of the walk over rows + nonzeros (split_plan.h), every
 * thread ITEMS consecutive items, summed in registers with no shuffle per nonzero: power-law rows
 * cost the same per item as short ones, an empty row one item. Rows crossing a thread's end are
 * completed by one segmented scan per block; rows crossing a tile's end by zs_split_spans_kernel,
 * or (FUSED) by the tile that adds their last piece, in tile order either way (no float atomics:
 * the same bits every run). */
#ifndef ZS_CSR_SPLIT_CUH
#define ZS_CSR_SPLIT_CUH

#include <limits.h>

#include "backends/cuda_hip/csr_kernels.cuh"
#include "backends/cuda_hip/split_plan.h"
#include "backends/cuda_hip/zs_gpu_compat.h"

namespace {

/* Segmented sums: (flag, value) pairs where a flag starts a new segment; a earlier, b later. */
template <typename T>
__device__ __forceinline__ void zs_seg_combine(bool &fb, T &vb, bool fa, T va) {
  if (!fb) vb = va + vb;
  fb = fb || fa;
}

/* Segmented scan over the block: shuffles inside each warp, then the warps' totals through
 * shared memory, added in warp order (a fixed tree: the same bits every run). Gives my exclusive
 * value (f_ex, v_ex) and my inclusive value v_in. */
template <typename T>
__device__ __forceinline__ void zs_split_scan(bool f, T v, bool &f_ex, T &v_ex, T &v_in,
                                              int *warp_f, T *warp_v) {
  const int lane = threadIdx.x % ZS_WARP_SIZE, warp = threadIdx.x / ZS_WARP_SIZE;
  for (int d = 1; d < ZS_WARP_SIZE; d *= 2) {
    const T vu = zs_shfl_up(v, d);
    const int fu = zs_shfl_up((int)f, d);
    if (lane >= d) zs_seg_combine(f, v, fu != 0, vu);
  }
  if (lane == ZS_WARP_SIZE - 1) warp_f[warp] = f, warp_v[warp] = v;
  T vp = zs_shfl_up(v, 1); /* the thread before me in the warp */
  bool fp = zs_shfl_up((int)f, 1) != 0;
  __syncthreads();
  bool fw = false; /* the warps before mine */
  T vw = 0;
  for (int w = 0; w < warp; w++) {
    bool fb = warp_f[w] != 0;
    T vb = warp_v[w];
    zs_seg_combine(fb, vb, fw, vw);
    fw = fb, vw = vb;
  }
  if (lane == 0) {
    fp = fw, vp = vw;
  } else {
    zs_seg_combine(fp, vp, fw, vw);
  }
  f_ex = fp, v_ex = vp;
  zs_seg_combine(f, v, fw, vw);
  v_in = v;
}

/* A product's slot in shared memory: one slot skipped every 128 bytes, so that threads walking
 * ITEMS apart (a power of two) read different banks. */
#define ZS_SPLIT_PAD_BYTES 128
template <typename T>
__device__ __forceinline__ int zs_split_at(int j) {
  return j + j / (ZS_SPLIT_PAD_BYTES / (int)sizeof(T));
}

/* A span's pieces in tile order: y[row] = alpha (carry[first] + ... + head[last]) + beta y[row].
 * P: const T * or, for pieces other blocks wrote in the same launch, const volatile T *. */
template <typename T, typename P>
__device__ __forceinline__ void zs_split_add_span(const zs_split_span &sp, P carry, P head, T *y,
                                                  T alpha, T beta) {
  T t = 0;
  for (int c = sp.first; c < sp.last; c++) t += carry[c];
  zs_put_row(y, sp.row, t + head[sp.last], alpha, beta);
}

/* FUSED: this tile's pieces are written (and fenced); count them in. The tile that brings a
 * span's last piece adds the span up and sets its counter back to 0 for the next product. */
template <typename T>
__device__ __forceinline__ void zs_split_count_in(const zs_split_links &l,
                                                  const zs_split_span *spans, unsigned *counters,
                                                  const T *carry, const T *head, T *y, T alpha,
                                                  T beta) {
  const int32_t mine[2] = {l.head, l.tail};
  for (int q = 0; q < 2; q++) {
    if (mine[q] < 0) continue;
    const zs_split_span sp = spans[mine[q]];
    if (atomicAdd(&counters[mine[q]], 1u) != (unsigned)(sp.last - sp.first)) continue;
    __threadfence();
    /* other blocks' writes: not through L1 */
    zs_split_add_span<T, const volatile T *>(sp, carry, head, y, alpha, beta);
    counters[mine[q]] = 0;
  }
}

/* Blocks per multiprocessor the registers must allow (32 a thread at most on the H100: the
 * fused kernel would take 40, and 6 blocks instead of 8). */
#define ZS_SPLIT_MIN_BLOCKS 8

/* One tile per block. ptr: the row offsets (I: int32 or int64); coords: the tiles' first items;
 * carry[t]: the tile's sum of its last (open) row; head[t]: a spanning first row's piece.
 * FUSED: links, spans and counters finish the spans (else zs_split_spans_kernel does). */
template <typename T, typename I, int ITEMS, bool STREAM, bool FUSED>
__global__ void __launch_bounds__(ZS_BLOCK_THREADS, ZS_SPLIT_MIN_BLOCKS)
    zs_csr_split_kernel(const zs_split_coord *coords, const I *ptr, const int32_t *idx,
                        const T *val, const T *__restrict__ x, T *y, T *carry, T *head,
                        const zs_split_links *links, const zs_split_span *spans, unsigned *counters,
                        T alpha, T beta) {
  constexpr int TILE = ZS_BLOCK_THREADS * ITEMS;
  /* products (padded: see zs_split_at), then the row ends: rows + nnz <= TILE */
  __shared__ T buf[TILE + TILE / (ZS_SPLIT_PAD_BYTES / sizeof(T)) + 2];
  __shared__ int warp_f[ZS_BLOCK_THREADS / ZS_WARP_SIZE];
  __shared__ T warp_v[ZS_BLOCK_THREADS / ZS_WARP_SIZE];
  const zs_split_coord c0 = coords[blockIdx.x], c1 = coords[blockIdx.x + 1];
  const int n_rows = c1.row - c0.row, n_nnz = (int)(c1.k - c0.k), items = n_rows + n_nnz;
  T *prod = buf;
  int32_t *ends = (int32_t *)(buf + zs_split_at<T>(n_nnz) + 1);
#pragma unroll
  for (int it = 0; it < ITEMS; it++) {
    const int j = (int)threadIdx.x + it * ZS_BLOCK_THREADS;
    if (j < n_nnz)
      prod[zs_split_at<T>(j)] = zs_load_matrix<STREAM>(&val[c0.k + j]) *
                                __ldg(&x[zs_load_matrix<STREAM>(&idx[c0.k + j])]);
  }
  for (int i = threadIdx.x; i < n_rows; i += ZS_BLOCK_THREADS)
    ends[i] = (int32_t)((int64_t)ptr[c0.row + 1 + i] - c0.k);
  if (threadIdx.x == 0) ends[n_rows] = INT_MAX; /* the open row ends past the tile */
  __syncthreads();

  /* my first item: merge-path search of diagonal d in the tile */
  const int d = (int)threadIdx.x * ITEMS;
  /* no items (the end of the last tile): an empty walk */
  int i = d < items ? zs_split_search(ends, n_rows, n_nnz, d) : n_rows, j = d - i;
  int end_i = ends[i];
  T sum = 0, first = 0;
  int first_row = -1; /* the first row I end, relative to the tile */
#pragma unroll
  for (int it = 0; it < ITEMS; it++) {
    if (d + it < items) {
      if (j < end_i) {
        sum += prod[zs_split_at<T>(j)];
        j++;
      } else {
        if (first_row < 0)
          first = sum, first_row = i;
        else
          zs_put_row(y, (int64_t)c0.row + i, sum, alpha, beta);
        sum = 0;
        i++;
        end_i = ends[i];
      }
    }
  }
  /* the rows that cross my start: the sums of the threads before me back to one that ended a row */
  bool f_ex;
  T v_ex, v_in;
  zs_split_scan(first_row >= 0, sum, f_ex, v_ex, v_in, warp_f, warp_v);
  if (first_row >= 0) {
    const T s = v_ex + first;
    if (!f_ex && (c0.flags & ZS_SPLIT_HEAD_SPAN)) {
      head[blockIdx.x] = s; /* started in an earlier tile */
      if (FUSED) __threadfence();
    } else {
      zs_put_row(y, (int64_t)c0.row + first_row, s, alpha, beta);
    }
  }
  if (threadIdx.x == ZS_BLOCK_THREADS - 1) {
    carry[blockIdx.x] = v_in;
    if (FUSED) __threadfence(); /* the pieces are visible before the counts say so */
  }
  if (!FUSED) return;
  __syncthreads();
  if (threadIdx.x == 0)
    zs_split_count_in(links[blockIdx.x], spans, counters, carry, head, y, alpha, beta);
}

/* Rows over several tiles: their pieces in tile order. */
template <typename T>
__global__ void zs_split_spans_kernel(const zs_split_span *spans, int64_t n, const T *carry,
                                      const T *head, T *y, T alpha, T beta) {
  const int64_t s = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (s >= n) return;
  zs_split_add_span<T, const T *>(spans[s], carry, head, y, alpha, beta);
}

}  // namespace

#endif /* ZS_CSR_SPLIT_CUH */
