/* csr_kernels.cuh — CSR SpMV and SpMVT bodies shared by CUDA and HIP. Work is cut into row
 * blocks of at most 256 x ITEMS nonzeros (built on the host, see row_blocks.h), so a block's
 * cost follows its nonzeros, not its row count; rows longer than a block are split into chunks
 * whose partial sums a second kernel adds in a fixed order. */
#ifndef ZS_CSR_KERNELS_CUH
#define ZS_CSR_KERNELS_CUH

#include "backends/cuda_hip/row_blocks.h"
#include "backends/cuda_hip/zs_gpu_compat.h"

/* Kernels of internal linkage: a module's units compile separately, each with its own. */
namespace {

/* Stage a block's products val[k] * x[idx[k]] in shared memory: one guarded loop, which keeps
 * registers (and so occupancy) low, what streaming rows need. */
template <typename T, int ITEMS, bool STREAM>
__device__ __forceinline__ void zs_stage_products(const zs_row_block &b, const int32_t *idx,
                                                  const T *val, const T *x, T *prod) {
  const int n = (int)(b.nnz_end - b.nnz_begin);
#pragma unroll
  for (int i = 0; i < ITEMS; i++) {
    const int j = (int)threadIdx.x + i * ZS_BLOCK_THREADS;
    if (j < n)
      prod[j] = zs_load_matrix<STREAM>(&val[b.nnz_begin + j]) *
                x[zs_load_matrix<STREAM>(&idx[b.nnz_begin + j])];
  }
}

/* dst[p] = src[perm[p]]: a deterministic SpMVT's values put in column order once. */
template <typename T>
__global__ void zs_permute_kernel(int64_t n, const int32_t *__restrict__ perm,
                                  const T *__restrict__ src, T *__restrict__ dst) {
  for (int64_t p = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; p < n;
       p += (int64_t)gridDim.x * blockDim.x)
    dst[p] = src[perm[p]];
}

/* Row offsets of a block relative to its first nonzero. Loaded into registers before the
 * products are staged (so the loads overlap) and stored to shared memory after, so the
 * reduction after the barrier starts without another trip to memory. */
#define ZS_OFFSETS_PER_THREAD ((ZS_BLOCK_MAX_ROWS + ZS_BLOCK_THREADS) / ZS_BLOCK_THREADS)

template <typename I>
__device__ __forceinline__ void zs_fetch_offsets(const zs_row_block &b, const I *ptr,
                                                 I (&o)[ZS_OFFSETS_PER_THREAD]) {
  const int rows = b.row_end - b.row_begin;
#pragma unroll
  for (int q = 0; q < ZS_OFFSETS_PER_THREAD; q++) {
    const int r = (int)threadIdx.x + q * ZS_BLOCK_THREADS;
    if (r <= rows) o[q] = ptr[b.row_begin + r];
  }
}

template <typename I>
__device__ __forceinline__ void zs_store_offsets(const zs_row_block &b,
                                                 const I (&o)[ZS_OFFSETS_PER_THREAD],
                                                 int32_t *offs) {
  const int rows = b.row_end - b.row_begin;
#pragma unroll
  for (int q = 0; q < ZS_OFFSETS_PER_THREAD; q++) {
    const int r = (int)threadIdx.x + q * ZS_BLOCK_THREADS;
    if (r <= rows) offs[r] = (int32_t)((int64_t)o[q] - b.nnz_begin);
  }
}

/* Lanes per row: as many as the block has to spare, a power of two up to a warp. */
__device__ __forceinline__ int zs_lanes_per_row(int rows) {
  int lanes = 1;
  while (lanes < ZS_WARP_SIZE && lanes * 2 * rows <= ZS_BLOCK_THREADS) lanes *= 2;
  return lanes;
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

/* y[row] = alpha s + beta y[row] (beta = 0 ignores y, NaN included). */
template <typename T>
__device__ __forceinline__ void zs_put_row(T *y, int64_t row, T s, T alpha, T beta) {
  y[row] = beta == T(0) ? alpha * s : alpha * s + beta * y[row];
}

/* A chunk of a long row (thread 0, its sum s): the sum goes to the partials. With counters
 * (long_rows=fused), the chunk that finishes last adds the row's partials in chunk order, as
 * zs_long_rows_kernel does (the same bits), and writes y: no second kernel. Each counter counts
 * the chunks done and is set back to 0 for the next product. */
template <typename T>
__device__ __forceinline__ void zs_finish_chunk(const zs_row_block &b, T s, T *partials,
                                                const zs_long_row *long_rows, unsigned *counters,
                                                T *y, T alpha, T beta) {
  partials[b.partial] = s;
  if (!counters) return;
  __threadfence(); /* the partial is visible before the count says so */
  const zs_long_row lr = long_rows[b.long_row];
  if (atomicAdd(&counters[b.long_row], 1u) != (unsigned)lr.chunks - 1) return;
  __threadfence();
  const volatile T *p = partials + lr.first_partial; /* other blocks' writes: not from L1 */
  T t = 0;
  for (int c = 0; c < lr.chunks; c++) t += p[c];
  zs_put_row(y, lr.row, t, alpha, beta);
  counters[b.long_row] = 0;
}

/* Rows of a block summed by groups of lanes, a power of two sized to the block's mean row
 * length; offs: the row offsets in shared memory, or NULL to read them from ptr. */
template <typename T, typename I>
__device__ __forceinline__ void zs_lane_rows(const zs_row_block &b, const I *ptr,
                                             const int32_t *offs, const T *prod, T *y, T alpha,
                                             T beta) {
  const int rows = b.row_end - b.row_begin;
  const int lanes = zs_lanes_per_row(rows);
  const int group = threadIdx.x / lanes, lane = threadIdx.x % lanes;
  const int groups = ZS_BLOCK_THREADS / lanes;
  /* Every lane runs the same number of iterations: the shuffles need the whole warp. */
  for (int r0 = 0; r0 < rows; r0 += groups) {
    const int r = r0 + group;
    T s = 0;
    if (r < rows) {
      const int row = b.row_begin + r;
      const int begin = offs ? offs[r] : (int)((int64_t)ptr[row] - b.nnz_begin);
      const int end = offs ? offs[r + 1] : (int)((int64_t)ptr[row + 1] - b.nnz_begin);
      for (int j = begin + lane; j < end; j += lanes) s += prod[j];
    }
    s = zs_group_sum(s, lanes);
    if (r < rows && lane == 0) zs_put_row(y, (int64_t)b.row_begin + r, s, alpha, beta);
  }
}

/* Rows of a block of short rows summed thread by thread (reduce=threads): each thread adds its
 * own ITEMS consecutive products row by row, so every thread does the same work whatever the
 * row lengths (power-law rows leave no lane idle). A row that goes on past a thread's range
 * leaves its piece as the thread's carry; the thread where the row ends adds the carries of the
 * threads before it that the row spans, nearest first (a fixed order: deterministic). Rows of
 * at most ZS_BLOCK_LONG_ROW nonzeros span at most that many threads' carries. */
template <typename T, int ITEMS>
__device__ __forceinline__ void zs_thread_rows(const zs_row_block &b, const int32_t *offs,
                                               const T *prod, T *carry, int32_t *carry_row, T *y,
                                               T alpha, T beta) {
  const int rows = b.row_end - b.row_begin, n = (int)(b.nnz_end - b.nnz_begin);
  const int lo = (int)threadIdx.x * ITEMS, hi = lo + ITEMS < n ? lo + ITEMS : n;
  T head = 0, tail = 0;
  int head_row = -1, tail_row = -1;
  if (lo < hi) {
    /* the last row that starts at or before lo: the non-empty row holding lo */
    int r = 0;
    for (int top = rows - 1; r < top;) {
      const int m = (r + top + 1) / 2;
      if (offs[m] <= lo)
        r = m;
      else
        top = m - 1;
    }
    bool continued = offs[r] < lo; /* its sum needs the carries of earlier threads */
    for (int j = lo; j < hi;) {
      const int end = offs[r + 1], stop = end < hi ? end : hi;
      T s = 0;
      for (; j < stop; j++) s += prod[j];
      if (stop < end) {
        tail = s, tail_row = r;
        break;
      }
      if (continued)
        head = s, head_row = r;
      else
        zs_put_row(y, (int64_t)b.row_begin + r, s, alpha, beta);
      continued = false;
      for (r++; r < rows && offs[r + 1] == offs[r]; r++) {
      }
    }
  }
  carry[threadIdx.x] = tail, carry_row[threadIdx.x] = tail_row;
  __syncthreads();
  if (head_row >= 0) {
    T s = head;
    for (int u = (int)threadIdx.x - 1; u >= 0 && carry_row[u] == head_row; u--) s += carry[u];
    zs_put_row(y, (int64_t)b.row_begin + head_row, s, alpha, beta);
  }
  for (int r = threadIdx.x; r < rows; r += ZS_BLOCK_THREADS) /* empty rows */
    if (offs[r] == offs[r + 1]) zs_put_row(y, (int64_t)b.row_begin + r, T(0), alpha, beta);
}

/* y[r] = alpha * sum_k val[k] * x[idx[k]] + beta * y[r] for the rows of each block. I is the
 * type of the row offsets (int32 while nnz < 2^31: fewer bytes than the format's int64).
 * THREADS: blocks of short rows reduce thread by thread (zs_thread_rows), else by lanes. */
template <typename T, typename I, int ITEMS, bool STREAM, bool THREADS>
__global__ void __launch_bounds__(ZS_BLOCK_THREADS)
    zs_csr_rows_kernel(const zs_row_block *blocks, const I *ptr, const int32_t *idx, const T *val,
                       const T *x, T *y, T *partials, const zs_long_row *long_rows,
                       unsigned *counters, T alpha, T beta) {
  /* f64: the block's row offsets are copied to shared memory before the products are staged;
   * f32 reads them after the barrier: each the faster of the two on the H100's stencils
   * (docs/performance.md, "CSR and COO"). The thread reduction searches them: shared. */
  constexpr bool PREFETCH = sizeof(T) == 8 || THREADS;
  __shared__ T prod[ZS_BLOCK_THREADS * ITEMS];
  __shared__ int32_t offs[PREFETCH ? ZS_BLOCK_MAX_ROWS + 1 : 1];
  __shared__ T scratch[THREADS ? ZS_BLOCK_THREADS : ZS_BLOCK_THREADS / ZS_WARP_SIZE];
  __shared__ int32_t carry_row[THREADS ? ZS_BLOCK_THREADS : 1];
  const zs_row_block b = blocks[blockIdx.x];
  const int n = (int)(b.nnz_end - b.nnz_begin);
  if (PREFETCH && b.partial < 0)
    for (int r = threadIdx.x; r <= b.row_end - b.row_begin; r += ZS_BLOCK_THREADS)
      offs[r] = (int32_t)((int64_t)ptr[b.row_begin + r] - b.nnz_begin);
  zs_stage_products<T, ITEMS, STREAM>(b, idx, val, x, prod);
  __syncthreads();
  if (b.partial >= 0) {
    const T s = zs_block_sum(prod, n, scratch);
    if (threadIdx.x == 0) zs_finish_chunk(b, s, partials, long_rows, counters, y, alpha, beta);
    return;
  }
  if (THREADS && n <= ZS_BLOCK_LONG_ROW * (b.row_end - b.row_begin)) /* short rows only */
    zs_thread_rows<T, ITEMS>(b, offs, prod, scratch, carry_row, y, alpha, beta);
  else
    zs_lane_rows<T, I>(b, ptr, PREFETCH ? offs : NULL, prod, y, alpha, beta);
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
  zs_put_row(y, lr.row, s, alpha, beta);
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

template <typename T, typename I, int ITEMS, bool STREAM>
__global__ void __launch_bounds__(ZS_BLOCK_THREADS)
    zs_csr_scatter_kernel(const zs_row_block *blocks, const I *ptr, const int32_t *idx,
                          const T *val, const T *x, T *y, int64_t cols, T alpha) {
  __shared__ T window[ZS_WINDOW];
  __shared__ T vals[ZS_BLOCK_THREADS * ITEMS];
  __shared__ int32_t col[ZS_BLOCK_THREADS * ITEMS];
  __shared__ int32_t offs[ZS_BLOCK_MAX_ROWS + 1];
  const zs_row_block b = blocks[blockIdx.x];
  const int n = (int)(b.nnz_end - b.nnz_begin);
  if (b.partial >= 0) { /* a chunk of one long row */
    const T xr = alpha * x[b.row_begin];
    for (int64_t k = b.nnz_begin + threadIdx.x; k < b.nnz_end; k += ZS_BLOCK_THREADS)
      atomicAdd(&y[idx[k]], val[k] * xr);
    return;
  }
  /* Coalesced loads of the block's nonzeros into shared memory ... */
  I o[ZS_OFFSETS_PER_THREAD];
  zs_fetch_offsets(b, ptr, o);
#pragma unroll
  for (int i = 0; i < ITEMS; i++) {
    const int j = (int)threadIdx.x + i * ZS_BLOCK_THREADS;
    if (j < n) {
      vals[j] = zs_load_matrix<STREAM>(&val[b.nnz_begin + j]);
      col[j] = zs_load_matrix<STREAM>(&idx[b.nnz_begin + j]);
    }
  }
  zs_store_offsets(b, o, offs);
  const int64_t window_begin = (int64_t)b.row_begin - ZS_WINDOW_MARGIN;
  for (int i = threadIdx.x; i < ZS_WINDOW; i += ZS_BLOCK_THREADS) window[i] = T(0);
  __syncthreads();
  /* ... then updates in row order: neighbouring lanes take neighbouring rows, so on banded
   * matrices a warp's atomics hit neighbouring columns. */
  const int rows = b.row_end - b.row_begin;
  const int lanes = zs_lanes_per_row(rows);
  const int group = threadIdx.x / lanes, lane = threadIdx.x % lanes;
  for (int r = group; r < rows; r += ZS_BLOCK_THREADS / lanes) {
    const T xr = alpha * x[b.row_begin + r];
    for (int j = offs[r] + lane; j < offs[r + 1]; j += lanes)
      zs_scatter(window, window_begin, y, col[j], vals[j] * xr);
  }
  __syncthreads();
  for (int i = threadIdx.x; i < ZS_WINDOW; i += ZS_BLOCK_THREADS) {
    const int64_t c = window_begin + i;
    /* Untouched slots hold exact zeros; skipping them (and true zero sums) changes nothing. */
    if (window[i] != T(0) && c >= 0 && c < cols) atomicAdd(&y[c], window[i]);
  }
}

}  // namespace

#endif /* ZS_CSR_KERNELS_CUH */
