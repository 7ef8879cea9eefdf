/* sell_gpu.cuh — SELL-C-sigma operators of the GPU modules (docs/formats/sell.md), one unit of
 * its own (backends/cuda/cuda_sell.cu, backends/hip/hip_sell.cpp): SpMV a thread per stored
 * position, the atomic SpMVT and BiCG's pair from the same walk, the deterministic SpMVT through
 * Aᵀ stored as CSR (transpose_op) or as SELL sorted in windows (sell_transpose.h). */
#include <type_traits>

#include "backends/cuda_hip/csr_kernels.cuh"
#include "backends/cuda_hip/gpu_common.cuh"
#include "backends/cuda_hip/sell_transpose.h"
#include "formats/sell/sell_lanes.h"
#include "formats/sell/sell_layout.h"

namespace zs_gpu {
namespace {

#define ZS_SELL_THREADS 256
/* Entries a thread loads before it adds: independent loads in flight hide the gather's latency
 * (8 measured faster than 4 on the H100: lap2d f64 62.6 -> 57.4 us, band f32 65.0 -> 63.3;
 * experimental.sell_unroll=2|4|8|16 forces another count). */
#define ZS_SELL_UNROLL 8
/* The deterministic SpMVT through Aᵀ as SELL (by default where it pads little; forced by
 * experimental.sell_transpose=sell): slices of 32, Aᵀ's rows sorted by length in windows of
 * this many rows, so that a slice pads little where A's column counts vary (a banded A's Aᵀ:
 * 20 +- 4 per row pads ~50 % with natural order). */
#define ZS_SELL_T_LC 5
#define ZS_SELL_T_SIGMA 4096
/* By default (experimental.sell_transpose=auto) Aᵀ is stored as SELL where that pads at most
 * this share of its nonzeros (percent), else as our CSR. On the H200 (device-gaps.sh) SELL's
 * SpMVT through sorted SELL against our CSR: banded f32 49.3 against 63.1 us (cuSPARSE's CSR of
 * a stored Aᵀ 62.3), f64 79.7 against 86.1, lap2d f64 48.5 against 60.3, f32 28.3 against 37.2. */
#define ZS_SELL_T_PAD_PCT 10

/* What the walk over a position's entries does. SPMV: y_i = alpha sum_k a_ik x_k + beta y_i.
 * SCATTER: alpha a_ij x_i added to y_j atomically (y scaled before). PAIR: SPMV, and alpha_t
 * a_ij w_i added to z_j atomically (z scaled before). */
enum { ZS_SELL_SPMV = 0, ZS_SELL_SCATTER = 1, ZS_SELL_PAIR = 2 };

/* How a thread walks the entries of its slice (experimental.sell_tail). LOOP: batches of UNROLL
 * loads, then the last width mod UNROLL entries one at a time, each a dependent load and gather.
 * BATCH: every batch UNROLL wide, the entries past the width predicated off, so a slice of width
 * w costs ceil(w / UNROLL) load-then-gather steps. AHEAD: BATCH, with the next batch's loads
 * issued before the current batch's gathers, so the loads of one overlap the gathers of the
 * other. The sums are the same, in the same order, in all three. */
enum { ZS_SELL_LOOP = 0, ZS_SELL_BATCH = 1, ZS_SELL_AHEAD = 2 };

/* Entries [0, left) of the batch at cp/vp (stride c); the rest column 0 and value 0, not loaded. */
template <typename T, bool STREAM, int U>
__device__ __forceinline__ void zs_sell_load(const int32_t *cp, const T *vp, int64_t c,
                                             int64_t left, int32_t (&j)[U], T (&a)[U]) {
#pragma unroll
  for (int u = 0; u < U; u++) {
    j[u] = u < left ? zs_load_matrix<STREAM>(cp + u * c) : 0;
    a[u] = u < left ? zs_load_matrix<STREAM>(vp + u * c) : T(0);
  }
}

/* One thread per position p of the padded slices: lane l = p mod c of slice s = p / c, whose
 * entries lie at slice_ptr[s] + k c + l, k < width(s). The c lanes of a slice load consecutive
 * columns and values (one coalesced line per k for a warp), every lane the same number of times
 * (padding is an entry like any other: no branch); the slice's offset and width are read once.
 * Empty lanes past the last row walk their slice's padding and write nothing. */
template <typename T, int MODE, bool STREAM, int UNROLL, int TAIL>
__global__ void __launch_bounds__(ZS_SELL_THREADS)
    zs_sell_kernel(int64_t positions, int64_t rows, int lc, const int64_t *__restrict__ slice_ptr,
                   const int32_t *__restrict__ perm, const int32_t *__restrict__ col,
                   const T *__restrict__ val, const T *__restrict__ x, T *__restrict__ y, T alpha,
                   T beta, const T *__restrict__ w, T *__restrict__ z, T alpha_t) {
  static_assert(TAIL == ZS_SELL_LOOP || MODE == ZS_SELL_SPMV, "batched tails: SpMV only");
  const int64_t p = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (p >= positions) return;
  const int64_t c = INT64_C(1) << lc, s = p >> lc;
  const int64_t begin = slice_ptr[s], width = (slice_ptr[s + 1] - begin) >> lc;
  const bool live = p < rows;
  const int64_t row = live ? (perm ? (int64_t)perm[p] : p) : 0;
  const int32_t *cp = col + begin + (p & (c - 1));
  const T *vp = val + begin + (p & (c - 1));
  T sum = 0;
  if constexpr (TAIL != ZS_SELL_LOOP) {
    int32_t j[UNROLL];
    T a[UNROLL];
    if (TAIL == ZS_SELL_AHEAD) zs_sell_load<T, STREAM, UNROLL>(cp, vp, c, width, j, a);
    for (int64_t k = 0; k < width; k += UNROLL, cp += UNROLL * c, vp += UNROLL * c) {
      const int64_t left = width - k;
      if (TAIL == ZS_SELL_BATCH) zs_sell_load<T, STREAM, UNROLL>(cp, vp, c, left, j, a);
      T g[UNROLL], b[UNROLL];
#pragma unroll
      for (int u = 0; u < UNROLL; u++) g[u] = u < left ? x[j[u]] : T(0), b[u] = a[u];
      if (TAIL == ZS_SELL_AHEAD) /* the next batch (none when this one is the last) */
        zs_sell_load<T, STREAM, UNROLL>(cp + UNROLL * c, vp + UNROLL * c, c, left - UNROLL, j, a);
#pragma unroll
      for (int u = 0; u < UNROLL; u++)
        if (u < left) sum += b[u] * g[u]; /* in column order */
    }
    if (live) zs_put_row(y, row, sum, alpha, beta);
    return;
  }
  /* SCATTER: alpha x_i per entry; PAIR: alpha_t w_i; padding adds 0 (skipped: no atomic) */
  const T t = MODE == ZS_SELL_SCATTER ? (live ? alpha * x[row] : T(0))
              : MODE == ZS_SELL_PAIR  ? (live ? alpha_t * w[row] : T(0))
                                      : T(0);
  T *out = MODE == ZS_SELL_SCATTER ? y : z;
  int64_t k = 0;
  for (; k + UNROLL <= width; k += UNROLL) {
    int32_t j[UNROLL];
    T a[UNROLL];
#pragma unroll
    for (int u = 0; u < UNROLL; u++)
      j[u] = zs_load_matrix<STREAM>(cp + u * c), a[u] = zs_load_matrix<STREAM>(vp + u * c);
    if (MODE != ZS_SELL_SCATTER) {
      T g[UNROLL];
#pragma unroll
      for (int u = 0; u < UNROLL; u++) g[u] = x[j[u]];
#pragma unroll
      for (int u = 0; u < UNROLL; u++) sum += a[u] * g[u]; /* in column order */
    }
    if (MODE != ZS_SELL_SPMV) {
#pragma unroll
      for (int u = 0; u < UNROLL; u++)
        if (a[u] != T(0)) atomicAdd(&out[j[u]], a[u] * t);
    }
    cp += UNROLL * c, vp += UNROLL * c;
  }
  for (; k < width; k++, cp += c, vp += c) {
    const int32_t j = zs_load_matrix<STREAM>(cp);
    const T a = zs_load_matrix<STREAM>(vp);
    if (MODE != ZS_SELL_SCATTER) sum += a * x[j];
    if (MODE != ZS_SELL_SPMV && a != T(0)) atomicAdd(&out[j], a * t);
  }
  if (MODE != ZS_SELL_SCATTER && live) zs_put_row(y, row, sum, alpha, beta);
}

/* SpMV with R threads a position (R = 2 or 4): a warp holds 32 / R positions, lane i of its
 * r-th part walking entries k = r, r + R, r + 2R, ... of position first + i in predicated
 * batches of UNROLL, so each thread's chain of load -> gather steps is R times shorter; the R
 * parts of a warp read lines of R neighbouring columns k of the same rows. The R partial sums
 * are added by xor shuffles (each in column order, then in a fixed tree: the same bits every
 * call, other bits than R = 1). For grids so small that every warp is resident and the time is
 * each thread's chain (experimental.sell_lanes). */
template <typename T, bool STREAM, int UNROLL, int R>
__global__ void __launch_bounds__(ZS_SELL_THREADS)
    zs_sell_lanes_kernel(int64_t positions, int64_t rows, int lc,
                         const int64_t *__restrict__ slice_ptr, const int32_t *__restrict__ perm,
                         const int32_t *__restrict__ col, const T *__restrict__ val,
                         const T *__restrict__ x, T *__restrict__ y, T alpha, T beta) {
  constexpr int PW = ZS_WARP_SIZE / R; /* positions a warp */
  const int64_t t = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  const int lane = (int)(t % ZS_WARP_SIZE), r = lane / PW;
  const int64_t p = t / ZS_WARP_SIZE * PW + lane % PW;
  const int64_t c = INT64_C(1) << lc;
  int64_t begin = 0, width = 0; /* past the last position: nothing to walk, but the shuffles */
  if (p < positions) begin = slice_ptr[p >> lc], width = (slice_ptr[(p >> lc) + 1] - begin) >> lc;
  const int64_t mine = width > r ? (width - r + R - 1) / R : 0, step = R * c;
  const int32_t *cp = col + begin + r * c + (p & (c - 1));
  const T *vp = val + begin + r * c + (p & (c - 1));
  T sum = 0;
  for (int64_t m = 0; m < mine; m += UNROLL, cp += UNROLL * step, vp += UNROLL * step) {
    const int64_t left = mine - m;
    int32_t j[UNROLL];
    T a[UNROLL], g[UNROLL];
    zs_sell_load<T, STREAM, UNROLL>(cp, vp, step, left, j, a);
#pragma unroll
    for (int u = 0; u < UNROLL; u++) g[u] = u < left ? x[j[u]] : T(0);
#pragma unroll
    for (int u = 0; u < UNROLL; u++)
      if (u < left) sum += a[u] * g[u];
  }
#pragma unroll
  for (int o = PW; o < ZS_WARP_SIZE; o <<= 1) sum += zs_shfl_xor(sum, o);
  if (r == 0 && p < rows) {
    const int64_t row = perm ? (int64_t)perm[p] : p;
    zs_put_row(y, row, sum, alpha, beta);
  }
}

/* dst[e] = src[at[e]], or +0 where at[e] < 0 (padding): Aᵀ's SELL values from A's. */
template <typename T>
__global__ void zs_sell_gather_kernel(int64_t n, const int32_t *__restrict__ at,
                                      const T *__restrict__ src, T *__restrict__ dst) {
  for (int64_t e = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; e < n;
       e += (int64_t)gridDim.x * blockDim.x)
    dst[e] = at[e] >= 0 ? src[at[e]] : T(0);
}

/* A SELL matrix on the device: A itself, or Aᵀ built for the deterministic SpMVT. */
struct sell_dev {
  int64_t rows, n_slices;
  int lc;    /* log2 c */
  int lanes; /* SpMV threads a position by default (sell_auto_lanes) */
  int64_t *slice_ptr;
  int32_t *perm, *col; /* perm NULL: natural order */
  void *val;
};

struct sell_gpu_op {
  const gpu_device *dev;
  zs_type type;
  int64_t rows, cols, nnz, entries;
  bool atomic_t; /* transpose=atomic */
  bool stream;   /* evict-first loads of the matrix (by default where it exceeds half the L2) */
  int unroll;    /* entries a thread loads before it adds: 2, 4, 8 or 16 */
  int tail;      /* ZS_SELL_LOOP, _BATCH or _AHEAD (SpMV; the atomic walks loop); -1 chosen */
  int threads;   /* threads per block: 64, 128 or 256 */
  int lanes;     /* SpMV threads a position: 1, 2 or 4; 0: the matrix's own (sell_dev) */
  int t_sell; /* deterministic SpMVT through Aᵀ as SELL 1, our CSR 0, -1: chosen on first use */
  sell_dev a; /* A */
  /* Host copies for the deterministic SpMVT's Aᵀ (small: offsets and lengths), built on first
   * use: slice offsets, the length of each position and the permutation (NULL: natural). */
  int64_t *h_slice_ptr;
  int32_t *h_len, *h_perm;
  gpu_op *t_csr; /* Aᵀ as CSR, */
  sell_dev t;    /* or as SELL (t.slice_ptr set once built) */
};

void sell_dev_free(sell_dev *d) {
  release(d->slice_ptr), release(d->perm), release(d->col), release(d->val);
}

void sell_free(sell_gpu_op *op) {
  sell_dev_free(&op->a), sell_dev_free(&op->t);
  free(op->h_slice_ptr), free(op->h_len), free(op->h_perm);
  if (op->t_csr) csr_op_free(op->t_csr);
  free(op);
}

/* The walk's options: entries loaded ahead, the tail, threads per block, Aᵀ's storage. */
void sell_read_walk(sell_gpu_op *op, const char *options) {
  char buf[16];
  const int unroll = atoi(zsb_option(options, "experimental.sell_unroll", buf, sizeof buf));
  op->unroll = unroll ? unroll : ZS_SELL_UNROLL; /* auto: 0 */
  const char *tail = zsb_option(options, "experimental.sell_tail", buf, sizeof buf);
  op->tail = strcmp(tail, "batch") == 0   ? ZS_SELL_BATCH
             : strcmp(tail, "ahead") == 0 ? ZS_SELL_AHEAD
             : strcmp(tail, "loop") == 0  ? ZS_SELL_LOOP
                                          : -1;
  const int threads = atoi(zsb_option(options, "experimental.sell_threads", buf, sizeof buf));
  op->threads = threads ? threads : ZS_SELL_THREADS;
  op->lanes = atoi(zsb_option(options, "experimental.sell_lanes", buf, sizeof buf)); /* auto: 0 */
  const char *t = zsb_option(options, "experimental.sell_transpose", buf, sizeof buf);
  op->t_sell = strcmp(t, "sell") == 0 ? 1 : strcmp(t, "csr") == 0 ? 0 : -1;
}

/* SpMV threads a position by default (sell_lanes.h: the rule, and why). */
int sell_auto_lanes(const gpu_device *dev, const int64_t *slice_ptr, int64_t n_slices, int lc) {
  const int64_t sms = dev && dev->sm_count > 0 ? dev->sm_count : 0;
  return zs_sell_lanes_rule(sms, ZS_WARP_SIZE, slice_ptr, n_slices, lc);
}

zs_status sell_gpu_create(const gpu_device *dev, void **out, const zsb_encoded_view *v,
                          const char *options) {
  sell_layout L;
  char why[ZSI_LAYOUT_WHY];
  zs_status s = sell_layout_parse(v, &L, why, sizeof why);
  if (s != ZS_OK) return fail(s, "backend '%s': %s", ZS_GPU_BACKEND_NAME, why);
  sell_gpu_op *op = (sell_gpu_op *)calloc(1, sizeof(sell_gpu_op));
  if (!op) return fail(ZS_ERR_OUT_OF_MEMORY, "operator");
  op->dev = dev, op->type = L.type;
  op->rows = L.rows, op->cols = L.cols, op->nnz = L.nnz, op->entries = L.entries;
  op->a.rows = L.rows, op->a.n_slices = L.n_slices;
  while ((INT64_C(1) << op->a.lc) < L.c) op->a.lc++;
  op->a.lanes = sell_auto_lanes(dev, L.slice_ptr, L.n_slices, op->a.lc);
  op->atomic_t = zsb_option_is(options, "transpose", "atomic");
  char buf[16];
  const char *evict = zsb_option(options, "experimental.evict_first", buf, sizeof buf);
  /* evict-first by default past the L2 (stream_matrix): band f32 65.0 -> 60.0 us (with 8
   * entries ahead 58.0) on the H100; plain loads where the matrix stays in the L2 */
  const double bytes =
      (double)L.entries * (4.0 + (double)type_size(L.type)) + 8.0 * (double)L.n_slices;
  op->stream = strcmp(evict, "on") == 0 || (strcmp(evict, "off") != 0 && stream_matrix(dev, bytes));
  sell_read_walk(op, options);
  const size_t vs = type_size(L.type), ne = (size_t)L.entries;
  const size_t rows = (size_t)(L.rows ? L.rows : 1), ns = (size_t)L.n_slices + 1;
  s = upload_array(&op->a.slice_ptr, L.slice_ptr, ns, "slice_ptr");
  if (s == ZS_OK && L.perm) s = upload_array(&op->a.perm, L.perm, (uint64_t)L.rows, "perm");
  if (s == ZS_OK) s = upload_array(&op->a.col, L.col_idx, ne, "col_idx");
  if (s == ZS_OK) s = check(gpuMalloc(&op->a.val, (ne ? ne : 1) * vs), "values");
  if (s == ZS_OK && ne)
    s = check(gpuMemcpy(op->a.val, L.values, ne * vs, gpuMemcpyHostToDevice), "values");
  /* what the deterministic SpMVT needs to find each nonzero again */
  op->h_slice_ptr = (int64_t *)malloc(ns * 8);
  op->h_len = (int32_t *)malloc(rows * 4);
  op->h_perm = L.perm ? (int32_t *)malloc(rows * 4) : NULL;
  if (s == ZS_OK && (!op->h_slice_ptr || !op->h_len || (L.perm && !op->h_perm)))
    s = fail(ZS_ERR_OUT_OF_MEMORY, "SELL host offsets (%lld rows)", (long long)L.rows);
  if (s == ZS_OK) {
    memcpy(op->h_slice_ptr, L.slice_ptr, ns * 8);
    for (int64_t p = 0; p < L.rows; p++) op->h_len[p] = (int32_t)sell_len(&L, p);
    if (L.perm) memcpy(op->h_perm, L.perm, (size_t)L.rows * 4);
  }
  if (s != ZS_OK) {
    sell_free(op);
    return s;
  }
  *out = op;
  return ZS_OK;
}

void sell_gpu_destroy(void *state) { sell_free((sell_gpu_op *)state); }

/* What both deterministic SpMVTs refuse, and A's columns on the host (*all, entries). */
zs_status sell_transpose_begin(const sell_gpu_op *op, int32_t **all) {
  *all = NULL;
  if (op->nnz > INT32_MAX)
    return fail(ZS_ERR_UNSUPPORTED,
                "SELL deterministic SpMVT: %lld nonzeros exceed 32-bit indices (create the "
                "operator with transpose=atomic)",
                (long long)op->nnz);
  /* gather positions are entry numbers: the entries, padding included, must fit 32 bits too */
  if (op->entries > INT32_MAX)
    return fail(ZS_ERR_UNSUPPORTED,
                "SELL deterministic SpMVT: %lld stored entries exceed 32-bit indices (create the "
                "operator with transpose=atomic)",
                (long long)op->entries);
  const size_t ne = (size_t)op->entries;
  *all = (int32_t *)malloc(ne ? ne * 4 : 4);
  if (!*all) return fail(ZS_ERR_OUT_OF_MEMORY, "SELL transpose (%lld entries)", (long long)ne);
  return ne ? check(gpuMemcpy(*all, op->a.col, ne * 4, gpuMemcpyDeviceToHost), "download columns")
            : ZS_OK;
}

/* Aᵀ as our CSR, run forward by our CSR kernel: each nonzero's row and column found on the host
 * from the offsets and lengths and A's columns (a->col), its value gathered on the device into
 * nonzero order, then sorted by column as CSR's transpose is. Memory: a second copy of the
 * matrix (4-byte rows and the values per nonzero, offsets per column). */
zs_status sell_build_t_csr(sell_gpu_op *op, const zs_sell_a *a) {
  const size_t n = (size_t)(op->nnz ? op->nnz : 1);
  int32_t *col = (int32_t *)malloc(n * 4), *rows_of = (int32_t *)malloc(n * 4);
  int32_t *at = (int32_t *)malloc(n * 4), *d_at = NULL;
  void *d_val = NULL;
  zs_status s = ZS_OK;
  if (!(col && rows_of && at))
    s = fail(ZS_ERR_OUT_OF_MEMORY, "SELL transpose (%lld nonzeros)", (long long)op->nnz);
  int64_t q = 0;
  for (int64_t p = 0; s == ZS_OK && p < op->rows; p++)
    for (int64_t k = 0; k < op->h_len[p]; k++, q++) {
      const int64_t e = zs_sell_a_entry(a, p, k);
      col[q] = a->col[e], at[q] = (int32_t)e, rows_of[q] = op->h_perm ? op->h_perm[p] : (int32_t)p;
    }
  if (s == ZS_OK) s = upload_array(&d_at, at, (uint64_t)op->nnz, "transpose gather");
  if (s == ZS_OK) s = check(gpuMalloc(&d_val, n * type_size(op->type)), "transpose values");
  if (s == ZS_OK && op->nnz) {
    if (op->type == ZS_F64)
      zs_permute_kernel<double><<<grid_for(op->nnz, 256), 256>>>(
          op->nnz, d_at, (const double *)op->a.val, (double *)d_val);
    else
      zs_permute_kernel<float><<<grid_for(op->nnz, 256), 256>>>(
          op->nnz, d_at, (const float *)op->a.val, (float *)d_val);
    s = check_launch("SELL transpose values");
    if (s == ZS_OK) s = check(gpuDeviceSynchronize(), "SELL transpose values");
  }
  if (s == ZS_OK)
    s = transpose_op(&op->t_csr, op->dev, op->type, op->rows, op->cols, op->nnz, rows_of, col,
                     d_val, 0);
  release(d_at), release(d_val);
  free(col), free(rows_of), free(at);
  return s;
}

/* Aᵀ as SELL-32 with rows sorted in windows (sell_transpose.h), planned in h from its row
 * offsets t_ptr: its entries built on the host from A's columns, the values gathered on the
 * device; the SpMV kernel then runs Aᵀ forward. Memory: Aᵀ's entries (4 bytes and a value
 * each), offsets per slice, a position per row. */
zs_status sell_build_t_sell(sell_gpu_op *op, const zs_sell_a *a, const int64_t *t_ptr,
                            zs_sell_t *h) {
  if (!zs_sell_t_fill(h, a, t_ptr))
    return fail(ZS_ERR_OUT_OF_MEMORY, "SELL transpose (%lld nonzeros)", (long long)op->nnz);
  int32_t *d_at = NULL;
  sell_dev &t = op->t;
  t.rows = h->rows, t.n_slices = h->n_slices, t.lc = h->lc;
  t.lanes = sell_auto_lanes(op->dev, h->slice_ptr, h->n_slices, h->lc);
  const size_t ne = (size_t)(h->entries ? h->entries : 1);
  zs_status s = upload_array(&t.col, h->col, (uint64_t)h->entries, "transpose columns");
  if (s == ZS_OK) s = upload_array(&t.perm, h->perm, (uint64_t)h->rows, "transpose positions");
  if (s == ZS_OK) s = upload_array(&d_at, h->at, (uint64_t)h->entries, "transpose gather");
  if (s == ZS_OK) s = check(gpuMalloc(&t.val, ne * type_size(op->type)), "transpose values");
  if (s == ZS_OK && h->entries) {
    if (op->type == ZS_F64)
      zs_sell_gather_kernel<double><<<grid_for(h->entries, 256), 256>>>(
          h->entries, d_at, (const double *)op->a.val, (double *)t.val);
    else
      zs_sell_gather_kernel<float><<<grid_for(h->entries, 256), 256>>>(
          h->entries, d_at, (const float *)op->a.val, (float *)t.val);
    s = check_launch("SELL transpose values");
    if (s == ZS_OK) s = check(gpuDeviceSynchronize(), "SELL transpose values");
  }
  /* last: its slice offsets mark Aᵀ as built */
  if (s == ZS_OK)
    s = upload_array(&t.slice_ptr, h->slice_ptr, (uint64_t)h->n_slices + 1, "transpose offsets");
  if (s != ZS_OK) sell_dev_free(&t), t = sell_dev{};
  release(d_at);
  return s;
}

/* The deterministic SpMVT's Aᵀ, built on first use from A's columns, downloaded once: as SELL
 * (t_sell 1) or as our CSR (t_sell 0). Chosen (t_sell < 0) from A's column counts before any
 * entry of Aᵀ is built: SELL where its sorted windows pad at most ZS_SELL_T_PAD_PCT percent of
 * the nonzeros, else CSR (t_sell then keeps the choice). */
zs_status sell_ensure_transpose(sell_gpu_op *op) {
  if (op->t.slice_ptr || op->t_csr) return ZS_OK;
  int32_t *all = NULL;
  zs_status s = sell_transpose_begin(op, &all);
  const zs_sell_a a = {op->rows, op->cols, op->a.lc, op->h_slice_ptr, op->h_len, op->h_perm, all};
  int64_t *t_ptr = NULL;
  zs_sell_t h = {};
  if (s == ZS_OK && op->t_sell != 0) {
    t_ptr = zs_sell_t_offsets(&a);
    const int planned =
        t_ptr ? zs_sell_t_plan(&h, t_ptr, op->cols, ZS_SELL_T_LC, ZS_SELL_T_SIGMA) : 0;
    if (planned == 0)
      s = fail(ZS_ERR_OUT_OF_MEMORY, "SELL transpose (%lld columns)", (long long)op->cols);
    else if (planned < 0 && op->t_sell == 1)
      s = fail(ZS_ERR_OVERFLOW, "SELL transpose: A^T's padded slices pass 2^62 entries");
    else if (op->t_sell < 0)
      op->t_sell = planned > 0 && zs_sell_t_pads_at_most(&h, op->nnz, ZS_SELL_T_PAD_PCT) ? 1 : 0;
  }
  if (s == ZS_OK)
    s = op->t_sell == 1 ? sell_build_t_sell(op, &a, t_ptr, &h) : sell_build_t_csr(op, &a);
  free(all), free(t_ptr);
  zs_sell_t_free(&h);
  return s;
}

/* The SpMV walk by default: predicated batches where the whole grid is resident at once with
 * their occupancy (64 registers: 32 warps a multiprocessor), so the time is each thread's chain
 * of load -> gather steps, which batches shorten; the loop elsewhere, where the walk is
 * throughput-bound and the loop's 32 registers keep twice the warps. On the H200 (one run of
 * bench/gpu/device-gaps.sh): Watts-Strogatz f64 (3125 warps) 7.06 -> 6.38 us, cuSPARSE's
 * SELL-32 6.72; batches slower on the banded f32 (32 K warps: 44.1 -> 53.9) and lap2d f32
 * (26.9 -> 38.8) matrices. */
#define ZS_SELL_BATCH_WARPS_PER_SM 32
inline int sell_auto_tail(const gpu_device *dev, int64_t positions) {
  const int64_t sms = dev && dev->sm_count > 0 ? dev->sm_count : 0;
  return (positions + 31) / 32 <= sms * ZS_SELL_BATCH_WARPS_PER_SM ? ZS_SELL_BATCH : ZS_SELL_LOOP;
}

/* One launch of the walk MODE over d: the tail and entries ahead the operator chose, mapped to
 * the combinations compiled (LOOP 2, 4, 8; BATCH 4, 8, 16; AHEAD 4, 8; the atomic walks LOOP;
 * SpMV with 2 or 4 threads a position: 4, 8). */
template <typename T, int MODE>
void sell_launch(const sell_gpu_op *op, const sell_dev &d, T alpha, const T *x, T beta, T *y,
                 const T *w, T *z, T alpha_t) {
  const int64_t positions = d.n_slices << d.lc;
  if (positions == 0) return;
  const int threads = op->threads;
  const unsigned grid = (unsigned)((positions + threads - 1) / threads);
  const T *val = (const T *)d.val;
  const auto go = [&](auto stream, auto unroll, auto tail) {
    zs_sell_kernel<T, MODE, decltype(stream)::value, decltype(unroll)::value, decltype(tail)::value>
        <<<grid, threads>>>(positions, d.rows, d.lc, d.slice_ptr, d.perm, d.col, val, x, y, alpha,
                            beta, w, z, alpha_t);
  };
  using I2 = std::integral_constant<int, 2>;
  using I4 = std::integral_constant<int, 4>;
  using I8 = std::integral_constant<int, 8>;
  using I16 = std::integral_constant<int, 16>;
  const auto by_walk = [&](auto stream) {
    if constexpr (MODE == ZS_SELL_SPMV) {
      const int lanes = op->lanes ? op->lanes : d.lanes;
      if (lanes > 1) {
        const auto split = [&](auto unroll, auto r) {
          const int64_t n = positions * decltype(r)::value;
          zs_sell_lanes_kernel<T, decltype(stream)::value, decltype(unroll)::value,
                               decltype(r)::value>
              <<<(unsigned)((n + threads - 1) / threads), threads>>>(
                  positions, d.rows, d.lc, d.slice_ptr, d.perm, d.col, val, x, y, alpha, beta);
        };
        using R2 = std::integral_constant<int, 2>;
        using R4 = std::integral_constant<int, 4>;
        if (lanes == 4) return op->unroll >= 8 ? split(I8(), R4()) : split(I4(), R4());
        return op->unroll >= 8 ? split(I8(), R2()) : split(I4(), R2());
      }
      const int tail = op->tail >= 0 ? op->tail : sell_auto_tail(op->dev, positions);
      const auto batch = std::integral_constant<int, ZS_SELL_BATCH>();
      const auto ahead = std::integral_constant<int, ZS_SELL_AHEAD>();
      if (tail == ZS_SELL_BATCH || op->unroll == 16) {
        if (op->unroll == 16) return go(stream, I16(), batch);
        return op->unroll == 8 ? go(stream, I8(), batch) : go(stream, I4(), batch);
      }
      if (tail == ZS_SELL_AHEAD)
        return op->unroll >= 8 ? go(stream, I8(), ahead) : go(stream, I4(), ahead);
    }
    const auto loop = std::integral_constant<int, ZS_SELL_LOOP>();
    switch (op->unroll) {
    case 2: go(stream, I2(), loop); break;
    case 4: go(stream, I4(), loop); break;
    default: go(stream, I8(), loop);
    }
  };
  if (op->stream)
    by_walk(std::true_type());
  else
    by_walk(std::false_type());
}

template <typename T>
zs_status sell_apply_typed(sell_gpu_op *op, zs_op which, T alpha, const T *x, T beta, T *y) {
  if (which == ZS_OP_N) {
    /* rows past the slices (none) or a matrix without rows: nothing to write */
    sell_launch<T, ZS_SELL_SPMV>(op, op->a, alpha, x, beta, y, NULL, NULL, T(0));
    return check_launch("SELL SpMV kernel");
  }
  if (op->atomic_t) {
    zs_scale_kernel<T><<<grid_for(op->cols, 256), 256>>>(op->cols, beta, y);
    sell_launch<T, ZS_SELL_SCATTER>(op, op->a, alpha, x, beta, y, NULL, NULL, T(0));
    return check_launch("SELL atomic SpMVT kernel");
  }
  const zs_status s = sell_ensure_transpose(op);
  if (s != ZS_OK) return s;
  if (op->t_sell == 1) {
    sell_launch<T, ZS_SELL_SPMV>(op, op->t, alpha, x, beta, y, NULL, NULL, T(0));
    return check_launch("SELL SpMVT kernel");
  }
  return csr_apply(op->t_csr, ZS_OP_N, (double)alpha, x, (double)beta, y);
}

zs_status sell_gpu_apply(void *state, zs_op which, double alpha, const void *x, double beta,
                         void *y) {
  sell_gpu_op *op = (sell_gpu_op *)state;
  if (op->type == ZS_F64)
    return sell_apply_typed<double>(op, which, alpha, (const double *)x, beta, (double *)y);
  return sell_apply_typed<float>(op, which, (float)alpha, (const float *)x, (float)beta,
                                 (float *)y);
}

/* zs_spmv_pair in one walk where SpMVT is atomic anyway (transpose=atomic) and the SpMV walks a
 * thread a position (the pair's walk does: y keeps the SpMV's bits); ZS_ERR_UNSUPPORTED otherwise
 * (the library makes the two products). */
zs_status sell_gpu_pair(void *state, double alpha, const void *x, double beta, void *y,
                        double alpha_t, const void *w, double beta_t, void *z) {
  sell_gpu_op *op = (sell_gpu_op *)state;
  if (!op->atomic_t || (op->lanes ? op->lanes : op->a.lanes) > 1) return ZS_ERR_UNSUPPORTED;
  if (op->type == ZS_F64) {
    zs_scale_kernel<double><<<grid_for(op->cols, 256), 256>>>(op->cols, beta_t, (double *)z);
    sell_launch<double, ZS_SELL_PAIR>(op, op->a, alpha, (const double *)x, beta, (double *)y,
                                      (const double *)w, (double *)z, alpha_t);
  } else {
    zs_scale_kernel<float><<<grid_for(op->cols, 256), 256>>>(op->cols, (float)beta_t, (float *)z);
    sell_launch<float, ZS_SELL_PAIR>(op, op->a, (float)alpha, (const float *)x, (float)beta,
                                     (float *)y, (const float *)w, (float *)z, (float)alpha_t);
  }
  return check_launch("SELL pair kernel");
}

} /* namespace */

const gpu_format *gpu_format_sell() {
  /* a function's static, not a namespace-scope constant: HIP would also emit one for the device */
  static const gpu_format table = {ZS_FORMAT_SELL, sell_gpu_create, sell_gpu_destroy,
                                   sell_gpu_apply, sell_gpu_pair};
  return &table;
}

} /* namespace zs_gpu */
