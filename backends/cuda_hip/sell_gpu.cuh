/* sell_gpu.cuh — SELL-C-sigma operators of the GPU modules (docs/formats/sell.md), one unit of
 * its own (backends/cuda/cuda_sell.cu, backends/hip/hip_sell.cpp): SpMV a thread per stored
 * position, the atomic SpMVT and BiCG's pair from the same walk, the deterministic SpMVT through
 * Aᵀ stored as CSR (transpose_op). */
#include <type_traits>

#include "backends/cuda_hip/csr_kernels.cuh"
#include "backends/cuda_hip/gpu_common.cuh"
#include "formats/sell/sell_layout.h"

namespace zs_gpu {
namespace {

#define ZS_SELL_THREADS 256
/* Entries a thread loads before it adds: independent loads in flight hide the gather's latency
 * (8 measured faster than 4 on the H100: lap2d f64 62.6 -> 57.4 us, band f32 65.0 -> 63.3;
 * experimental.sell_unroll=2|4|8 forces another count). */
#define ZS_SELL_UNROLL 8

/* What the walk over a position's entries does. SPMV: y_i = alpha sum_k a_ik x_k + beta y_i.
 * SCATTER: alpha a_ij x_i added to y_j atomically (y scaled before). PAIR: SPMV, and alpha_t
 * a_ij w_i added to z_j atomically (z scaled before). */
enum { ZS_SELL_SPMV = 0, ZS_SELL_SCATTER = 1, ZS_SELL_PAIR = 2 };

/* One thread per position p of the padded slices: lane l = p mod c of slice s = p / c, whose
 * entries lie at slice_ptr[s] + k c + l, k < width(s). The c lanes of a slice load consecutive
 * columns and values (one coalesced line per k for a warp), every lane the same number of times
 * (padding is an entry like any other: no branch); the slice's offset and width are read once.
 * Empty lanes past the last row walk their slice's padding and write nothing. */
template <typename T, int MODE, bool STREAM, int UNROLL>
__global__ void __launch_bounds__(ZS_SELL_THREADS)
    zs_sell_kernel(int64_t positions, int64_t rows, int lc, const int64_t *__restrict__ slice_ptr,
                   const int32_t *__restrict__ perm, const int32_t *__restrict__ col,
                   const T *__restrict__ val, const T *__restrict__ x, T *__restrict__ y, T alpha,
                   T beta, const T *__restrict__ w, T *__restrict__ z, T alpha_t) {
  const int64_t p = (int64_t)blockIdx.x * ZS_SELL_THREADS + threadIdx.x;
  if (p >= positions) return;
  const int64_t c = INT64_C(1) << lc, s = p >> lc;
  const int64_t begin = slice_ptr[s], width = (slice_ptr[s + 1] - begin) >> lc;
  const bool live = p < rows;
  const int64_t row = live ? (perm ? (int64_t)perm[p] : p) : 0;
  const int32_t *cp = col + begin + (p & (c - 1));
  const T *vp = val + begin + (p & (c - 1));
  /* SCATTER: alpha x_i per entry; PAIR: alpha_t w_i; padding adds 0 (skipped: no atomic) */
  const T t = MODE == ZS_SELL_SCATTER ? (live ? alpha * x[row] : T(0))
              : MODE == ZS_SELL_PAIR  ? (live ? alpha_t * w[row] : T(0))
                                      : T(0);
  T *out = MODE == ZS_SELL_SCATTER ? y : z;
  T sum = 0;
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
  if (MODE != ZS_SELL_SCATTER && live)
    y[row] = beta == T(0) ? alpha * sum : alpha * sum + beta * y[row];
}

struct sell_gpu_op {
  const gpu_device *dev;
  zs_type type;
  int64_t rows, cols, nnz, n_slices, entries;
  int lc;        /* log2 c */
  bool atomic_t; /* transpose=atomic */
  bool stream;   /* evict-first loads of the matrix (by default where rows gather x at random) */
  int unroll;    /* entries a thread loads before it adds: 2, 4 or 8 */
  int64_t *slice_ptr;
  int32_t *perm, *col;
  void *val;
  /* Host copies for the deterministic SpMVT's Aᵀ (small: offsets and lengths), built on first
   * use: slice offsets, the length of each position and the permutation (NULL: natural). */
  int64_t *h_slice_ptr;
  int32_t *h_len, *h_perm;
  gpu_op *t_csr;
};

void sell_free(sell_gpu_op *op) {
  release(op->slice_ptr), release(op->perm), release(op->col), release(op->val);
  free(op->h_slice_ptr), free(op->h_len), free(op->h_perm);
  if (op->t_csr) csr_op_free(op->t_csr);
  free(op);
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
  op->rows = L.rows, op->cols = L.cols, op->nnz = L.nnz;
  op->n_slices = L.n_slices, op->entries = L.entries;
  while ((INT64_C(1) << op->lc) < L.c) op->lc++;
  op->atomic_t = zsb_option_is(options, "transpose", "atomic");
  char buf[16];
  const char *evict = zsb_option(options, "experimental.evict_first", buf, sizeof buf);
  /* evict-first by default: band f32 65.0 -> 60.0 us (with 8 entries ahead 58.0) on the H100 */
  op->stream = strcmp(evict, "off") != 0;
  const int unroll = atoi(zsb_option(options, "experimental.sell_unroll", buf, sizeof buf));
  op->unroll = unroll ? unroll : ZS_SELL_UNROLL; /* auto: 0 */
  const size_t vs = type_size(L.type), ne = (size_t)L.entries;
  const size_t rows = (size_t)(L.rows ? L.rows : 1), ns = (size_t)L.n_slices + 1;
  s = upload_array(&op->slice_ptr, L.slice_ptr, ns, "slice_ptr");
  if (s == ZS_OK && L.perm) s = upload_array(&op->perm, L.perm, (uint64_t)L.rows, "perm");
  if (s == ZS_OK) s = upload_array(&op->col, L.col_idx, ne, "col_idx");
  if (s == ZS_OK) s = check(gpuMalloc(&op->val, (ne ? ne : 1) * vs), "values");
  if (s == ZS_OK && ne)
    s = check(gpuMemcpy(op->val, L.values, ne * vs, gpuMemcpyHostToDevice), "values");
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

/* The deterministic SpMVT runs Aᵀ forward as CSR (our CSR kernel): each nonzero's row and column
 * found on the host from the offsets and lengths and the columns (downloaded once), its value
 * gathered on the device into nonzero order, then sorted by column as CSR's transpose is. Memory:
 * a second copy of the matrix (4-byte rows and the values per nonzero, offsets per column). */
zs_status sell_ensure_transpose(sell_gpu_op *op) {
  if (op->t_csr) return ZS_OK;
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
  const size_t n = (size_t)(op->nnz ? op->nnz : 1), ne = (size_t)op->entries;
  int32_t *all = (int32_t *)malloc(ne ? ne * 4 : 4);
  int32_t *col = (int32_t *)malloc(n * 4), *rows_of = (int32_t *)malloc(n * 4);
  int32_t *at = (int32_t *)malloc(n * 4), *d_at = NULL;
  void *d_val = NULL;
  zs_status s = all && col && rows_of && at ? ZS_OK
                                            : fail(ZS_ERR_OUT_OF_MEMORY,
                                                   "SELL transpose (%lld "
                                                   "nonzeros)",
                                                   (long long)op->nnz);
  if (s == ZS_OK && ne)
    s = check(gpuMemcpy(all, op->col, ne * 4, gpuMemcpyDeviceToHost), "download columns");
  const int64_t c = INT64_C(1) << op->lc;
  int64_t q = 0;
  for (int64_t p = 0; s == ZS_OK && p < op->rows; p++) {
    const int64_t e0 = op->h_slice_ptr[p >> op->lc] + (p & (c - 1));
    for (int64_t k = 0; k < op->h_len[p]; k++, q++) {
      const int64_t e = e0 + k * c;
      col[q] = all[e], at[q] = (int32_t)e, rows_of[q] = op->h_perm ? op->h_perm[p] : (int32_t)p;
    }
  }
  if (s == ZS_OK) s = upload_array(&d_at, at, (uint64_t)op->nnz, "transpose gather");
  if (s == ZS_OK) s = check(gpuMalloc(&d_val, n * type_size(op->type)), "transpose values");
  if (s == ZS_OK && op->nnz) {
    if (op->type == ZS_F64)
      zs_permute_kernel<double><<<grid_for(op->nnz, 256), 256>>>(
          op->nnz, d_at, (const double *)op->val, (double *)d_val);
    else
      zs_permute_kernel<float>
          <<<grid_for(op->nnz, 256), 256>>>(op->nnz, d_at, (const float *)op->val, (float *)d_val);
    s = check_launch("SELL transpose values");
    if (s == ZS_OK) s = check(gpuDeviceSynchronize(), "SELL transpose values");
  }
  if (s == ZS_OK)
    s = transpose_op(&op->t_csr, op->dev, op->type, op->rows, op->cols, op->nnz, rows_of, col,
                     d_val, 0);
  release(d_at), release(d_val);
  free(all), free(col), free(rows_of), free(at);
  return s;
}

template <typename T, int MODE>
void sell_launch(const sell_gpu_op *op, T alpha, const T *x, T beta, T *y, const T *w, T *z,
                 T alpha_t) {
  const int64_t positions = op->n_slices << op->lc;
  if (positions == 0) return;
  const unsigned grid = (unsigned)((positions + ZS_SELL_THREADS - 1) / ZS_SELL_THREADS);
  const T *val = (const T *)op->val;
  const auto go = [&](auto stream, auto unroll) {
    zs_sell_kernel<T, MODE, decltype(stream)::value, decltype(unroll)::value>
        <<<grid, ZS_SELL_THREADS>>>(positions, op->rows, op->lc, op->slice_ptr, op->perm, op->col,
                                    val, x, y, alpha, beta, w, z, alpha_t);
  };
  const auto by_unroll = [&](auto stream) {
    switch (op->unroll) {
    case 2: go(stream, std::integral_constant<int, 2>()); break;
    case 8: go(stream, std::integral_constant<int, 8>()); break;
    default: go(stream, std::integral_constant<int, 4>());
    }
  };
  if (op->stream)
    by_unroll(std::true_type());
  else
    by_unroll(std::false_type());
}

template <typename T>
zs_status sell_apply_typed(sell_gpu_op *op, zs_op which, T alpha, const T *x, T beta, T *y) {
  if (which == ZS_OP_N) {
    /* rows past the slices (none) or a matrix without rows: nothing to write */
    sell_launch<T, ZS_SELL_SPMV>(op, alpha, x, beta, y, NULL, NULL, T(0));
    return check_launch("SELL SpMV kernel");
  }
  if (op->atomic_t) {
    zs_scale_kernel<T><<<grid_for(op->cols, 256), 256>>>(op->cols, beta, y);
    sell_launch<T, ZS_SELL_SCATTER>(op, alpha, x, beta, y, NULL, NULL, T(0));
    return check_launch("SELL atomic SpMVT kernel");
  }
  const zs_status s = sell_ensure_transpose(op);
  return s == ZS_OK ? csr_apply(op->t_csr, ZS_OP_N, (double)alpha, x, (double)beta, y) : s;
}

zs_status sell_gpu_apply(void *state, zs_op which, double alpha, const void *x, double beta,
                         void *y) {
  sell_gpu_op *op = (sell_gpu_op *)state;
  if (op->type == ZS_F64)
    return sell_apply_typed<double>(op, which, alpha, (const double *)x, beta, (double *)y);
  return sell_apply_typed<float>(op, which, (float)alpha, (const float *)x, (float)beta,
                                 (float *)y);
}

/* zs_spmv_pair in one walk where SpMVT is atomic anyway (transpose=atomic); ZS_ERR_UNSUPPORTED
 * otherwise (the library makes the two products, the SpMVT deterministic). */
zs_status sell_gpu_pair(void *state, double alpha, const void *x, double beta, void *y,
                        double alpha_t, const void *w, double beta_t, void *z) {
  sell_gpu_op *op = (sell_gpu_op *)state;
  if (!op->atomic_t) return ZS_ERR_UNSUPPORTED;
  if (op->type == ZS_F64) {
    zs_scale_kernel<double><<<grid_for(op->cols, 256), 256>>>(op->cols, beta_t, (double *)z);
    sell_launch<double, ZS_SELL_PAIR>(op, alpha, (const double *)x, beta, (double *)y,
                                      (const double *)w, (double *)z, alpha_t);
  } else {
    zs_scale_kernel<float><<<grid_for(op->cols, 256), 256>>>(op->cols, (float)beta_t, (float *)z);
    sell_launch<float, ZS_SELL_PAIR>(op, (float)alpha, (const float *)x, (float)beta, (float *)y,
                                     (const float *)w, (float *)z, (float)alpha_t);
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
