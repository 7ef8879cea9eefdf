/* csr_split.cuh — the nonzero-split CSR SpMV (shared by CUDA and HIP): every thread block takes
 * a tile of ZS_BLOCK_THREADS x ITEMS items of the walk over rows + nonzeros (split_plan.h), every
 * thread ITEMS consecutive items, summed in registers with no shuffle per nonzero: power-law rows
 * cost the same per item as short ones, an empty row one item. Rows crossing a thread's end are
 * completed by one segmented scan per block; rows crossing a tile's end by the tile that ends
 * them (zs_split_span_sum), or where that is not compiled by zs_split_spans_kernel, in tile order
 * either way (no float atomics: the same bits every run). */
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

/* Blocks per multiprocessor the registers must allow (32 a thread at most on the H100). */
#define ZS_SPLIT_MIN_BLOCKS 8

/* How a tile's matrix data reaches shared memory (experimental.split_stage; bits, both by
 * default in f32, EARLY alone in f64: csr_choose):
 * VECTOR  each thread loads 4 consecutive nonzeros' indices and values with 16-byte loads
 *         (a quarter of the load instructions; the gathers stay one per nonzero);
 * EARLY   the tile's row ends are loaded into registers before the products, so their latency
 *         overlaps the matrix loads instead of following the gathers. */
#define ZS_SPLIT_VECTOR 1
#define ZS_SPLIT_EARLY 2

/* The threads' 16-byte groups of a tile's nonzeros held in registers (VECTOR): group v =
 * threadIdx.x + m ZS_BLOCK_THREADS for m < ZS_SPLIT_GROUPS; a tile whose nonzeros reach one group
 * further (misaligned start) stages that one without registers. */
#define ZS_SPLIT_GROUPS(ITEMS) ((ITEMS) >= 4 ? (ITEMS) / 4 : 1)

/* The 16-byte groups a tile's nonzeros [c0.k, c0.k + n_nnz) touch, from c0.k rounded down to a
 * multiple of 4. */
__device__ __forceinline__ int zs_split_group_count(const zs_split_coord &c0, int n_nnz) {
  return ((int)(c0.k & 3) + n_nnz + 3) / 4;
}

/* A 16-byte vector of matrix data (HIP: a plain load; its non-temporal builtin takes scalars). */
template <bool STREAM, typename V>
__device__ __forceinline__ V zs_split_vec(const V *p) {
#if defined(__HIPCC__)
  return *p;
#else
  return zs_load_matrix<STREAM>(p);
#endif
}

/* 4 consecutive values from a 16-byte-aligned address (f64: two 16-byte loads). */
template <bool STREAM>
__device__ __forceinline__ void zs_split_load4(const float *p, float (&v)[4]) {
  const float4 q = zs_split_vec<STREAM>((const float4 *)p);
  v[0] = q.x, v[1] = q.y, v[2] = q.z, v[3] = q.w;
}
template <bool STREAM>
__device__ __forceinline__ void zs_split_load4(const double *p, double (&v)[4]) {
  const double2 a = zs_split_vec<STREAM>((const double2 *)p);
  const double2 b = zs_split_vec<STREAM>((const double2 *)p + 1);
  v[0] = a.x, v[1] = a.y, v[2] = b.x, v[3] = b.y;
}
template <bool STREAM>
__device__ __forceinline__ void zs_split_load4(const int32_t *p, int32_t (&v)[4]) {
  const int4 q = zs_split_vec<STREAM>((const int4 *)p);
  v[0] = q.x, v[1] = q.y, v[2] = q.z, v[3] = q.w;
}

/* One 16-byte group of a tile (nonzeros [c0.k, c1.k)): nonzeros base + 4 v .. + 3, base the
 * tile's first nonzero rounded down to a multiple of 4. Whole groups inside [0, c1.k) are read
 * with vector loads (the part before c0.k belongs to the previous tile but lies in the arrays);
 * the tile's last, partial group nonzero by nonzero. */
template <typename T, bool STREAM>
__device__ __forceinline__ void zs_split_load_group(const zs_split_coord &c0,
                                                    const zs_split_coord &c1, int v,
                                                    const int32_t *idx, const T *val,
                                                    int32_t (&ci)[4], T (&cv)[4]) {
  const int64_t q = (c0.k & ~(int64_t)3) + 4 * (int64_t)v;
  if (q + 4 <= c1.k) {
    zs_split_load4<STREAM>(idx + q, ci);
    zs_split_load4<STREAM>(val + q, cv);
    return;
  }
#pragma unroll
  for (int e = 0; e < 4; e++) {
    ci[e] = 0, cv[e] = 0;
    if (q + e >= c0.k && q + e < c1.k)
      ci[e] = zs_load_matrix<STREAM>(&idx[q + e]), cv[e] = zs_load_matrix<STREAM>(&val[q + e]);
  }
}

/* A group's products into the tile's shared products (nonzero j of the tile at zs_split_at(j)). */
template <typename T>
__device__ __forceinline__ void zs_split_put_group(const zs_split_coord &c0, int n_nnz, int v,
                                                   const int32_t (&ci)[4], const T (&cv)[4],
                                                   const T *__restrict__ x, T *prod) {
  const int j0 = 4 * v - (int)(c0.k & 3);
#pragma unroll
  for (int e = 0; e < 4; e++)
    if (j0 + e >= 0 && j0 + e < n_nnz) prod[zs_split_at<T>(j0 + e)] = cv[e] * __ldg(&x[ci[e]]);
}

/* A tile's loads held in registers between their issue and their use (VECTOR, EARLY). */
template <typename T, typename I, int ITEMS>
struct zs_split_regs {
  int32_t ci[ZS_SPLIT_GROUPS(ITEMS)][4];
  T cv[ZS_SPLIT_GROUPS(ITEMS)][4];
  I end[ITEMS]; /* row ends threadIdx.x + q ZS_BLOCK_THREADS (at most a tile's items) */
};

/* Issue the loads of a tile into registers (the parts STAGE says; no waiting on them). */
template <typename T, typename I, int ITEMS, bool STREAM, int STAGE>
__device__ __forceinline__ void zs_split_fetch(const zs_split_coord &c0, const zs_split_coord &c1,
                                               const I *ptr, const int32_t *idx, const T *val,
                                               zs_split_regs<T, I, ITEMS> &r) {
  if (STAGE & ZS_SPLIT_EARLY) {
    const int n_rows = c1.row - c0.row;
#pragma unroll
    for (int q = 0; q < ITEMS; q++) {
      const int i = (int)threadIdx.x + q * ZS_BLOCK_THREADS;
      if (i < n_rows) r.end[q] = ptr[c0.row + 1 + i];
    }
  }
  if (STAGE & ZS_SPLIT_VECTOR) {
    const int groups = zs_split_group_count(c0, (int)(c1.k - c0.k));
#pragma unroll
    for (int m = 0; m < ZS_SPLIT_GROUPS(ITEMS); m++) {
      const int v = (int)threadIdx.x + m * ZS_BLOCK_THREADS;
      if (v < groups) zs_split_load_group<T, STREAM>(c0, c1, v, idx, val, r.ci[m], r.cv[m]);
    }
  }
}

/* A tile's products and row ends into shared memory (buf: see zs_csr_split_kernel), from the
 * registers where fetched, else loaded here. */
template <typename T, typename I, int ITEMS, bool STREAM, int STAGE>
__device__ __forceinline__ void zs_split_stage(const zs_split_coord &c0, const zs_split_coord &c1,
                                               const I *ptr, const int32_t *idx, const T *val,
                                               const T *__restrict__ x,
                                               const zs_split_regs<T, I, ITEMS> &r, T *buf) {
  const int n_rows = c1.row - c0.row, n_nnz = (int)(c1.k - c0.k);
  T *prod = buf;
  int32_t *ends = (int32_t *)(buf + zs_split_at<T>(n_nnz) + 1);
  if (STAGE & ZS_SPLIT_VECTOR) {
    const int groups = zs_split_group_count(c0, n_nnz);
#pragma unroll
    for (int m = 0; m < ZS_SPLIT_GROUPS(ITEMS); m++) {
      const int v = (int)threadIdx.x + m * ZS_BLOCK_THREADS;
      if (v < groups) zs_split_put_group(c0, n_nnz, v, r.ci[m], r.cv[m], x, prod);
    }
    /* the group past the registers' (a tile of nonzeros only, not aligned) */
    for (int v = (int)threadIdx.x + ZS_SPLIT_GROUPS(ITEMS) * ZS_BLOCK_THREADS; v < groups;
         v += ZS_BLOCK_THREADS) {
      int32_t ci[4];
      T cv[4];
      zs_split_load_group<T, STREAM>(c0, c1, v, idx, val, ci, cv);
      zs_split_put_group(c0, n_nnz, v, ci, cv, x, prod);
    }
  } else {
#pragma unroll
    for (int it = 0; it < ITEMS; it++) {
      const int j = (int)threadIdx.x + it * ZS_BLOCK_THREADS;
      if (j < n_nnz)
        prod[zs_split_at<T>(j)] = zs_load_matrix<STREAM>(&val[c0.k + j]) *
                                  __ldg(&x[zs_load_matrix<STREAM>(&idx[c0.k + j])]);
    }
  }
  if (STAGE & ZS_SPLIT_EARLY) {
#pragma unroll
    for (int q = 0; q < ITEMS; q++) {
      const int i = (int)threadIdx.x + q * ZS_BLOCK_THREADS;
      if (i < n_rows) ends[i] = (int32_t)((int64_t)r.end[q] - c0.k);
    }
  } else {
    for (int i = threadIdx.x; i < n_rows; i += ZS_BLOCK_THREADS)
      ends[i] = (int32_t)((int64_t)ptr[c0.row + 1 + i] - c0.k);
  }
  if (threadIdx.x == 0) ends[n_rows] = INT_MAX; /* the open row ends past the tile */
}

/* The tiles' hand-over without a second kernel (experimental.split_spans=wait): a tile
 * publishes its carry in ZS_SPLIT_WORDS(T) words of ready[], each 32 bits of the value beside
 * the call's epoch (new each call), so that a reader that sees the epoch in every word holds the
 * whole value: no fence, no flag apart from the data. A tile waits only on lower tiles, which
 * the device starts first. */
#define ZS_SPLIT_WORDS 2 /* 64-bit words a tile's carry may need (f64: two) */
struct zs_split_sync {
  unsigned long long *ready; /* ZS_SPLIT_WORDS per tile */
  unsigned epoch;
};

template <typename T>
__device__ __forceinline__ void zs_split_publish(zs_split_sync sync, int64_t tile, T v) {
  static_assert(sizeof(T) <= 4 * ZS_SPLIT_WORDS && sizeof(T) % 4 == 0, "carry of 32-bit words");
  unsigned bits[sizeof(T) / 4];
  memcpy(bits, &v, sizeof v);
  volatile unsigned long long *w = sync.ready + tile * ZS_SPLIT_WORDS;
#pragma unroll
  for (int k = 0; k < (int)(sizeof(T) / 4); k++)
    w[k] = (unsigned long long)sync.epoch << 32 | bits[k];
}

template <typename T>
__device__ __forceinline__ T zs_split_collect(zs_split_sync sync, int64_t tile) {
  unsigned bits[sizeof(T) / 4];
  const volatile unsigned long long *w = sync.ready + tile * ZS_SPLIT_WORDS;
#pragma unroll
  for (int k = 0; k < (int)(sizeof(T) / 4); k++) {
    unsigned long long u;
    do {
      u = w[k];
    } while ((unsigned)(u >> 32) != sync.epoch);
    bits[k] = (unsigned)u;
  }
  T v;
  memcpy(&v, bits, sizeof v);
  return v;
}

/* A spanning row's sum by the tile that ends it: the earlier tiles' carries as they are
 * published, in tile order, then this tile's piece s (the same sums as zs_split_spans_kernel). */
template <typename T>
__device__ __forceinline__ T zs_split_span_sum(int64_t tile, const zs_split_coord &c0,
                                               zs_split_sync sync, T s) {
  T t = 0;
  for (int64_t c = tile - (c0.flags >> ZS_SPLIT_BACK_SHIFT); c < tile; c++)
    t += zs_split_collect<T>(sync, c);
  return t + s;
}

/* Tile `tile` (staged in buf, a barrier passed): every thread walks its ITEMS items, the block's
 * segmented scan completes the rows crossing threads, and the rows crossing tiles are finished
 * here from the earlier tiles' published carries (WAIT) or leave their pieces (carry, head). */
template <typename T, int ITEMS, bool WAIT>
__device__ __forceinline__ void zs_split_reduce(int64_t tile, const zs_split_coord &c0,
                                                const zs_split_coord &c1, const T *buf, T *y,
                                                T *carry, T *head, zs_split_sync sync, int *warp_f,
                                                T *warp_v, T alpha, T beta) {
  const int n_rows = c1.row - c0.row, n_nnz = (int)(c1.k - c0.k), items = n_rows + n_nnz;
  const T *prod = buf;
  const int32_t *ends = (const int32_t *)(buf + zs_split_at<T>(n_nnz) + 1);
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
    if (!f_ex && (c0.flags & ZS_SPLIT_HEAD_SPAN)) { /* started in an earlier tile */
      if (WAIT)
        zs_put_row(y, (int64_t)c0.row + first_row, zs_split_span_sum(tile, c0, sync, s), alpha,
                   beta);
      else
        head[tile] = s;
    } else {
      zs_put_row(y, (int64_t)c0.row + first_row, s, alpha, beta);
    }
  }
  if (threadIdx.x == ZS_BLOCK_THREADS - 1) {
    if (WAIT)
      zs_split_publish(sync, tile, v_in);
    else
      carry[tile] = v_in;
  }
}

/* The shared memory of a tile: products (padded: see zs_split_at), then the row ends;
 * rows + nnz <= TILE. */
#define ZS_SPLIT_BUF(T, ITEMS)  \
  (ZS_BLOCK_THREADS * (ITEMS) + \
   ZS_BLOCK_THREADS * (ITEMS) / (ZS_SPLIT_PAD_BYTES / (int)sizeof(T)) + 2)

/* One tile per block. ptr: the row offsets (I: int32 or int64); coords: the tiles' first items;
 * WAIT: the spans finished here (sync: the carries published, zs_split_sync); else carry[t]: the
 * tile's sum of its last (open) row and head[t]: a spanning first row's piece, finished by
 * zs_split_spans_kernel. STAGE: ZS_SPLIT_VECTOR and ZS_SPLIT_EARLY bits (0: the loads of one
 * loop, in order). */
template <typename T, typename I, int ITEMS, bool STREAM, int STAGE, bool WAIT>
__global__ void __launch_bounds__(ZS_BLOCK_THREADS, ZS_SPLIT_MIN_BLOCKS)
    zs_csr_split_kernel(const zs_split_coord *coords, const I *ptr, const int32_t *idx,
                        const T *val, const T *__restrict__ x, T *y, T *carry, T *head,
                        zs_split_sync sync, T alpha, T beta) {
  __shared__ T buf[ZS_SPLIT_BUF(T, ITEMS)];
  __shared__ int warp_f[ZS_BLOCK_THREADS / ZS_WARP_SIZE];
  __shared__ T warp_v[ZS_BLOCK_THREADS / ZS_WARP_SIZE];
  const int64_t tile = blockIdx.x;
  const zs_split_coord c0 = coords[tile], c1 = coords[tile + 1];
  zs_split_regs<T, I, ITEMS> r;
  zs_split_fetch<T, I, ITEMS, STREAM, STAGE>(c0, c1, ptr, idx, val, r);
  zs_split_stage<T, I, ITEMS, STREAM, STAGE>(c0, c1, ptr, idx, val, x, r, buf);
  __syncthreads();
  zs_split_reduce<T, ITEMS, WAIT>(tile, c0, c1, buf, y, carry, head, sync, warp_f, warp_v, alpha,
                                  beta);
}

/* Rows over several tiles: y[row] = alpha (carry[first] + ... + head[last]) + beta y[row], the
 * pieces in tile order. */
template <typename T>
__global__ void zs_split_spans_kernel(const zs_split_span *spans, int64_t n, const T *carry,
                                      const T *head, T *y, T alpha, T beta) {
  const int64_t s = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (s >= n) return;
  const zs_split_span sp = spans[s];
  T t = 0;
  for (int c = sp.first; c < sp.last; c++) t += carry[c];
  zs_put_row(y, sp.row, t + head[sp.last], alpha, beta);
}

}  // namespace

#endif /* ZS_CSR_SPLIT_CUH */
