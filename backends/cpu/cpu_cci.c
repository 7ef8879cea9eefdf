/* cpu_cci.c — the cpu backend's CCI kernels: the S streams of a row (or, with one slice, four
 * rows) decoded together, SpMV and SpMVT (private buffers or atomic). */
#ifndef CPU_CCI_TYPED

#include <string.h>

#include "backends/cpu/cpu_kernels.h"
#include "formats/cci/cci_codec.h"

/* As cpu_spmv.c: chunks of equal nonzeros + rows, a few per thread; small products stay on the
 * calling thread. */
#define CCI_CHUNKS_PER_THREAD 4
#define CCI_PARALLEL_MIN_WORK 32768
/* With one slice per row, this many rows are decoded side by side: the paper's main CPU lesson
 * is that a single fetch-decode-shift chain leaves the core waiting on its own latency. */
#define CCI_ROWS_TOGETHER 4

#if defined(__GNUC__)
#define CCI_INLINE static inline __attribute__((always_inline))
#else
#define CCI_INLINE static inline
#endif

typedef struct cci_op {
  zs_type type;
  int64_t rows, cols, nnz, S, shift;
  int threads, transpose_atomic, parallel;
  int64_t *row_ptr;
  zs_cci_entry table[ZS_CCI_TABLE];
  void *cstart; /* uint32 or uint64 bit offsets, rows * S + 1 */
  int cstart64;
  uint64_t *codes;
  void *values;
  int nchunks;
  int64_t *chunk; /* chunk c: rows [chunk[c], chunk[c + 1]) */
  /* SpMVT, built on the first one: slot u (a thread's rows) touches columns
   * [col_lo[u], col_hi[u]] and owns a buffer at buf_off[u]. */
  int nslots;
  int64_t *slot, *col_lo, *col_hi, *buf_off, tbuf_len;
  void *tbuf;
} cci_op;

CCI_INLINE uint64_t cci_start(const cci_op *A, uint64_t q) {
  return A->cstart64 ? ((const uint64_t *)A->cstart)[q] : ((const uint32_t *)A->cstart)[q];
}

/* One code: its value, and the stream position moved past it (branch-free). */
CCI_INLINE uint64_t cci_next(const cci_op *A, uint64_t *pos) {
  const uint64_t m = zs_cci_peek(A->codes, *pos);
  const zs_cci_entry e = A->table[m & 7];
  *pos += e.count;
  return (m >> e.shift) & e.mask;
}

/* Kinds of walk over a row's nonzeros. */
enum { CCI_SUM = 0, CCI_SCATTER = 1, CCI_ATOMIC = 2 };

#define VT float
#define SFX(name) name##_f32
#define CPU_CCI_TYPED
#include "backends/cpu/cpu_cci.c"
#undef VT
#undef SFX
#define VT double
#define SFX(name) name##_f64
#include "backends/cpu/cpu_cci.c"
#undef VT
#undef SFX
#undef CPU_CCI_TYPED

static void cpu_cci_destroy(void *state) {
  cci_op *A = state;
  if (!A) return;
  void *arrays[] = {A->row_ptr, A->cstart, A->codes,  A->values,  A->chunk,
                    A->slot,    A->col_lo, A->col_hi, A->buf_off, A->tbuf};
  for (size_t i = 0; i < sizeof arrays / sizeof *arrays; i++) zsi_free(arrays[i]);
  zsi_free(A);
}

static zs_status cci_no_memory(const char *what) {
  return zsi_error(ZS_ERR_OUT_OF_MEMORY, "backend 'cpu': cannot allocate CCI %s", what);
}

/* The view has passed the format's validate (at encode or load); only what the kernels index
 * with is checked again here. */
static zs_status cpu_cci_create(void **state, const zsb_encoded_view *enc, const zsi_cpu_opts *o) {
  cci_op *A = zsi_alloc(sizeof *A);
  if (!A) return cci_no_memory("operator header");
  A->type = enc->type, A->rows = enc->rows, A->cols = enc->cols, A->nnz = enc->nnz;
  A->S = zsb_find_param(enc, "slices", 0), A->shift = zsb_find_param(enc, "first_shift", 0);
  A->threads = o->threads < 1 ? 1 : o->threads;
  A->transpose_atomic = o->transpose_atomic;
  A->parallel = enc->nnz + enc->rows + enc->cols >= CCI_PARALLEL_MIN_WORK;
  const zsb_array *cs = zsb_find_array(enc, "cstart"), *codes = zsb_find_array(enc, "codes");
  zs_status s = ZS_OK;
  if (A->S < 1 || A->S > ZS_CCI_MAX_SLICES || (A->S & (A->S - 1)) || !cs || !codes)
    s = zsi_error(ZS_ERR_CORRUPT, "backend 'cpu': CCI matrix without valid slices/cstart/codes");
  const uint64_t nstreams = (uint64_t)A->rows * (uint64_t)A->S + 1;
  uint32_t *tab = NULL;
  if (s == ZS_OK)
    s = zsi_view_copy_array(enc, "cpu", "row_ptr", 8, (uint64_t)A->rows + 1, (void **)&A->row_ptr);
  if (s == ZS_OK) s = zsi_view_copy_array(enc, "cpu", "optable", 4, ZS_CCI_TABLE, (void **)&tab);
  if (s == ZS_OK)
    s = zsi_view_copy_array(enc, "cpu", "cstart", cs->elem_size, nstreams, &A->cstart);
  if (s == ZS_OK) s = zsi_view_copy_array(enc, "cpu", "codes", 8, codes->count, (void **)&A->codes);
  if (s == ZS_OK)
    s = zsi_view_copy_array(enc, "cpu", "values", (uint32_t)zs_type_size(enc->type),
                            (uint64_t)enc->nnz, &A->values);
  if (s == ZS_OK) {
    A->cstart64 = cs->elem_size == 8;
    for (int e = 0; e < ZS_CCI_TABLE; e++) A->table[e] = zs_cci_unpack(tab[e]);
    A->nchunks = A->threads * CCI_CHUNKS_PER_THREAD, A->nslots = A->threads;
    if (!(A->chunk = zsi_alloc_array((uint64_t)A->nchunks + 1, 8)) ||
        !(A->slot = zsi_alloc_array((uint64_t)A->nslots + 1, 8)))
      s = cci_no_memory("partition");
  }
  zsi_free(tab);
  if (s == ZS_OK) {
    zsi_cpu_split_rows(A->row_ptr, A->rows, A->nchunks, A->chunk);
    zsi_cpu_split_rows(A->row_ptr, A->rows, A->nslots, A->slot);
  }
  if (s != ZS_OK) {
    cpu_cci_destroy(A);
    return s;
  }
  *state = A;
  return ZS_OK;
}

/* Columns each SpMVT slot touches (a row's first and last decoded column bound it), so its
 * buffer and the reduction cover only those. Once per operator, on the first SpMVT. */
static zs_status cci_transpose_setup(cci_op *A) {
  if (!(A->col_lo = zsi_alloc_array((uint64_t)A->nslots, 8)) ||
      !(A->col_hi = zsi_alloc_array((uint64_t)A->nslots, 8)) ||
      !(A->buf_off = zsi_alloc_array((uint64_t)A->nslots, 8)))
    return cci_no_memory("SpMVT slots");
  int64_t off = 0;
  for (int u = 0; u < A->nslots; u++) {
    int64_t lo = A->cols, hi = -1;
    for (int64_t i = A->slot[u]; i < A->slot[u + 1]; i++) {
      int64_t first, last;
      if (!cci_row_bounds(A, i, &first, &last)) continue;
      if (first < lo) lo = first;
      if (last > hi) hi = last;
    }
    A->col_lo[u] = lo, A->col_hi[u] = hi, A->buf_off[u] = off;
    if (lo <= hi) off += hi - lo + 1;
  }
  A->tbuf_len = off;
  if (!(A->tbuf = zsi_alloc_array((uint64_t)(off ? off : 1), zs_type_size(A->type))))
    return zsi_error(ZS_ERR_OUT_OF_MEMORY,
                     "backend 'cpu': CCI SpMVT buffers of %lld elements (try transpose=atomic)",
                     (long long)off);
  return ZS_OK;
}

static zs_status cpu_cci_apply(void *state, zs_op which, double alpha, const void *x, double beta,
                               void *y) {
  cci_op *A = state;
  if (which == ZS_OP_T && !A->transpose_atomic && !A->tbuf) {
    const zs_status s = cci_transpose_setup(A);
    if (s != ZS_OK) return s;
  }
  if (A->type == ZS_F32)
    cci_apply_f32(A, which, alpha, x, beta, y);
  else
    cci_apply_f64(A, which, alpha, x, beta, y);
  return ZS_OK;
}

const zsi_cpu_kernel zsi_cpu_cci = {ZS_FORMAT_CCI, cpu_cci_create, cpu_cci_destroy, cpu_cci_apply,
                                    NULL};

#else /* CPU_CCI_TYPED: the typed kernels, included twice above */

/* First and last column of row i (for the SpMVT buffers); 0 for an empty row. Shared by both
 * value types, so defined in the f32 pass only. */
#ifndef CCI_ROW_BOUNDS_DONE
#define CCI_ROW_BOUNDS_DONE
static int cci_row_bounds(const cci_op *A, int64_t i, int64_t *first, int64_t *last) {
  const int64_t n = A->row_ptr[i + 1] - A->row_ptr[i], S = A->S;
  if (n == 0) return 0;
  int64_t col[ZS_CCI_MAX_SLICES];
  uint64_t pos[ZS_CCI_MAX_SLICES];
  for (int64_t s = 0; s < S && s < n; s++) {
    pos[s] = cci_start(A, (uint64_t)(i * S + s));
    const uint64_t u = cci_next(A, &pos[s]);
    col[s] = s == 0 ? zs_cci_ref(i, A->rows, A->cols, A->shift) + zs_cci_unzigzag(u)
                    : col[s - 1] + 1 + (int64_t)u;
  }
  /* the slice holding the row's last entry, walked to its end */
  const int64_t t = (n - 1) % S;
  *first = col[0];
  for (int64_t k = t + S; k < n; k += S) col[t] += S + (int64_t)cci_next(A, &pos[t]);
  *last = col[t];
  return 1;
}
#endif

static inline VT SFX(cci_finish)(double alpha, VT s, double beta, const VT *y) {
  /* beta == 0 must not read y: its old contents may be NaN. */
  return beta == 0.0 ? (VT)(alpha * (double)s) : (VT)(alpha * (double)s + beta * (double)*y);
}

/* One step of stream s: its next column, and the nonzero at v[k + s] summed (CCI_SUM) or added
 * as v * xi into out[col - lo] (CCI_SCATTER) or into y with omp atomic (CCI_ATOMIC). */
CCI_INLINE void SFX(cci_step)(const cci_op *A, int64_t s, int64_t k, const int S, const int kind,
                              uint64_t *pos, int64_t *col, VT *sum, const VT *restrict v,
                              const VT *restrict x, VT xi, VT *restrict out, int64_t lo) {
  col[s] += S + (int64_t)cci_next(A, &pos[s]);
  if (kind == CCI_SUM)
    sum[s] += v[k + s] * x[col[s]];
  else if (kind == CCI_SCATTER)
    out[col[s] - lo] += v[k + s] * xi;
  else {
    const VT p = v[k + s] * xi;
    ZSI_OMP(atomic)
    out[col[s]] += p;
  }
}

/* One row with S slices decoded side by side. CCI_SUM returns sum a_ij x_j; CCI_SCATTER adds
 * a_ij * xi into out[j - lo]; CCI_ATOMIC does so into y with omp atomic. */
CCI_INLINE VT SFX(cci_row)(const cci_op *A, int64_t i, const int S, const int kind,
                           const VT *restrict x, VT xi, VT *restrict out, int64_t lo) {
  const VT *restrict v = A->values;
  const int64_t b = A->row_ptr[i], n = A->row_ptr[i + 1] - b;
  if (n == 0) return 0;
  uint64_t pos[ZS_CCI_MAX_SLICES];
  int64_t col[ZS_CCI_MAX_SLICES];
  VT sum[ZS_CCI_MAX_SLICES];
  const int64_t first = n < S ? n : S;
  for (int64_t s = 0; s < first; s++) {
    pos[s] = cci_start(A, (uint64_t)(i * S + s));
    const uint64_t u = cci_next(A, &pos[s]);
    col[s] = s == 0 ? zs_cci_ref(i, A->rows, A->cols, A->shift) + zs_cci_unzigzag(u)
                    : col[s - 1] + 1 + (int64_t)u;
  }
  for (int64_t s = 0; s < first; s++) {
    if (kind == CCI_SUM)
      sum[s] = v[b + s] * x[col[s]];
    else if (kind == CCI_SCATTER)
      out[col[s] - lo] += v[b + s] * xi;
    else {
      const VT p = v[b + s] * xi;
      ZSI_OMP(atomic)
      out[col[s]] += p;
    }
  }
  int64_t k = S;
  for (; k + S <= n; k += S) /* full steps: S independent decode chains */
    for (int s = 0; s < S; s++)
      SFX(cci_step)(A, s, b + k, S, kind, pos, col, sum, v, x, xi, out, lo);
  for (int64_t s = 0; k + s < n; s++) /* the last, partial step */
    SFX(cci_step)(A, s, b + k, S, kind, pos, col, sum, v, x, xi, out, lo);
  VT total = 0;
  if (kind == CCI_SUM)
    for (int64_t s = 0; s < first; s++) total += sum[s];
  return total;
}

/* One slice per row: CCI_ROWS_TOGETHER rows decoded side by side while all have entries left,
 * then each row's rest alone. */
CCI_INLINE void SFX(cci_rows1)(const cci_op *A, int64_t i0, double alpha, const VT *restrict x,
                               double beta, VT *restrict y) {
  enum { R = CCI_ROWS_TOGETHER };
  const VT *restrict v = A->values;
  const int64_t *restrict rp = A->row_ptr;
  uint64_t pos[R];
  int64_t col[R], b[R], n[R];
  VT sum[R];
  int64_t common = INT64_MAX;
  for (int r = 0; r < R; r++) {
    const int64_t i = i0 + r;
    b[r] = rp[i], n[r] = rp[i + 1] - rp[i], sum[r] = 0;
    pos[r] = cci_start(A, (uint64_t)i);
    col[r] = zs_cci_ref(i, A->rows, A->cols, A->shift) - 1; /* first step adds 1 + unzigzag */
    if (n[r] < common) common = n[r];
  }
  if (common > 0) {
    for (int r = 0; r < R; r++) {
      col[r] += 1 + zs_cci_unzigzag(cci_next(A, &pos[r]));
      sum[r] = v[b[r]] * x[col[r]];
    }
    for (int64_t k = 1; k < common; k++)
      for (int r = 0; r < R; r++) {
        col[r] += 1 + (int64_t)cci_next(A, &pos[r]);
        sum[r] += v[b[r] + k] * x[col[r]];
      }
  }
  for (int r = 0; r < R; r++) {
    for (int64_t k = common > 0 ? common : 0; k < n[r]; k++) {
      const uint64_t u = cci_next(A, &pos[r]);
      col[r] += 1 + (k == 0 ? zs_cci_unzigzag(u) : (int64_t)u);
      sum[r] += v[b[r] + k] * x[col[r]];
    }
    y[i0 + r] = SFX(cci_finish)(alpha, sum[r], beta, &y[i0 + r]);
  }
}

CCI_INLINE void SFX(cci_chunk_n)(const cci_op *A, int c, const int S, double alpha,
                                 const VT *restrict x, double beta, VT *restrict y) {
  int64_t i = A->chunk[c];
  const int64_t end = A->chunk[c + 1];
  if (S == 1)
    for (; i + CCI_ROWS_TOGETHER <= end; i += CCI_ROWS_TOGETHER)
      SFX(cci_rows1)(A, i, alpha, x, beta, y);
  for (; i < end; i++)
    y[i] = SFX(cci_finish)(alpha, SFX(cci_row)(A, i, S, CCI_SUM, x, 0, NULL, 0), beta, &y[i]);
}

ZSI_NO_VECTORIZE static void SFX(cci_n)(const cci_op *A, double alpha, const VT *restrict x,
                                        double beta, VT *restrict y) {
  const int nc = A->nchunks;
  const int S = (int)A->S;
  ZSI_OMP(parallel for schedule(static) num_threads(A->threads) if (A->parallel))
  for (int c = 0; c < nc; c++) {
    switch (S) {
    case 1: SFX(cci_chunk_n)(A, c, 1, alpha, x, beta, y); break;
    case 2: SFX(cci_chunk_n)(A, c, 2, alpha, x, beta, y); break;
    case 4: SFX(cci_chunk_n)(A, c, 4, alpha, x, beta, y); break;
    case 8: SFX(cci_chunk_n)(A, c, 8, alpha, x, beta, y); break;
    case 16: SFX(cci_chunk_n)(A, c, 16, alpha, x, beta, y); break;
    default: SFX(cci_chunk_n)(A, c, 32, alpha, x, beta, y); break;
    }
  }
}

/* SpMVT rows of one slot, scattering into `out` (a private buffer or y itself). */
CCI_INLINE void SFX(cci_slot_t)(const cci_op *A, int u, const int S, const int kind, double alpha,
                                const VT *restrict x, VT *restrict out, int64_t lo) {
  for (int64_t i = A->slot[u]; i < A->slot[u + 1]; i++) {
    const VT xi = kind == CCI_ATOMIC ? (VT)(alpha * (double)x[i]) : x[i];
    SFX(cci_row)(A, i, S, kind, x, xi, out, lo);
  }
}

static void SFX(cci_slot_t_any)(const cci_op *A, int u, const int kind, double alpha,
                                const VT *restrict x, VT *restrict out, int64_t lo) {
  switch ((int)A->S) {
  case 1: SFX(cci_slot_t)(A, u, 1, kind, alpha, x, out, lo); break;
  case 2: SFX(cci_slot_t)(A, u, 2, kind, alpha, x, out, lo); break;
  case 4: SFX(cci_slot_t)(A, u, 4, kind, alpha, x, out, lo); break;
  case 8: SFX(cci_slot_t)(A, u, 8, kind, alpha, x, out, lo); break;
  case 16: SFX(cci_slot_t)(A, u, 16, kind, alpha, x, out, lo); break;
  default: SFX(cci_slot_t)(A, u, 32, kind, alpha, x, out, lo); break;
  }
}

/* Deterministic SpMVT: each slot scatters into its own buffer, then the columns are summed
 * over the slots in slot order, so the bits depend only on the thread count. */
#define CCI_REDUCE_BLOCK 256
static void SFX(cci_t_private)(const cci_op *A, double alpha, const VT *restrict x, double beta,
                               VT *restrict y) {
  VT *buf = A->tbuf;
  const int64_t n = A->cols, nb = (n + CCI_REDUCE_BLOCK - 1) / CCI_REDUCE_BLOCK;
  ZSI_OMP(parallel num_threads(A->threads) if (A->parallel)) {
    for (int u = zsi_cpu_tid(); u < A->nslots; u += zsi_cpu_nth()) {
      const int64_t lo = A->col_lo[u], hi = A->col_hi[u];
      if (lo > hi) continue;
      VT *restrict b = buf + A->buf_off[u];
      for (int64_t j = 0; j <= hi - lo; j++) b[j] = 0;
      SFX(cci_slot_t_any)(A, u, CCI_SCATTER, alpha, x, b, lo);
    }
    ZSI_OMP(barrier)
    ZSI_OMP(for schedule(static))
    for (int64_t blk = 0; blk < nb; blk++) {
      const int64_t j0 = blk * CCI_REDUCE_BLOCK;
      const int64_t j1 = j0 + CCI_REDUCE_BLOCK < n ? j0 + CCI_REDUCE_BLOCK : n;
      VT acc[CCI_REDUCE_BLOCK];
      for (int64_t j = j0; j < j1; j++) acc[j - j0] = 0;
      for (int u = 0; u < A->nslots; u++) {
        const int64_t lo = A->col_lo[u] > j0 ? A->col_lo[u] : j0;
        const int64_t hi = A->col_hi[u] < j1 - 1 ? A->col_hi[u] : j1 - 1;
        for (int64_t j = lo; j <= hi; j++) acc[j - j0] += buf[A->buf_off[u] + (j - A->col_lo[u])];
      }
      for (int64_t j = j0; j < j1; j++) y[j] = SFX(cci_finish)(alpha, acc[j - j0], beta, &y[j]);
    }
  }
}

/* "transpose=atomic": y scaled first, then alpha a_ij x_i added with omp atomic (the order of
 * additions, and so the bits, vary from run to run). */
static void SFX(cci_t_atomic)(const cci_op *A, double alpha, const VT *restrict x, double beta,
                              VT *y) {
  const int64_t cols = A->cols;
  ZSI_OMP(parallel num_threads(A->threads) if (A->parallel)) {
    ZSI_OMP(for schedule(static))
    for (int64_t j = 0; j < cols; j++) y[j] = beta == 0.0 ? (VT)0 : (VT)(beta * (double)y[j]);
    for (int u = zsi_cpu_tid(); u < A->nslots; u += zsi_cpu_nth())
      SFX(cci_slot_t_any)(A, u, CCI_ATOMIC, alpha, x, y, 0);
  }
}

static void SFX(cci_apply)(const cci_op *A, zs_op which, double alpha, const void *x, double beta,
                           void *y) {
  if (which == ZS_OP_N)
    SFX(cci_n)(A, alpha, x, beta, y);
  else if (A->transpose_atomic)
    SFX(cci_t_atomic)(A, alpha, x, beta, y);
  else
    SFX(cci_t_private)(A, alpha, x, beta, y);
}

#endif /* CPU_CCI_TYPED */
