/* cpu_cci.c — the cpu backend's CCI kernels: the S streams of a row (or, with one slice, four
 * rows) decoded together, SpMV and SpMVT (private buffers or atomic). */
#include <string.h>

#include "backends/cpu/cpu_kernels.h"
#include "formats/cci/cci_layout.h"

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

/* First and last column of row i (for the SpMVT buffers); 0 for an empty row. */
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

/* Kinds of walk over a row's nonzeros. */
enum { CCI_SUM = 0, CCI_SCATTER = 1, CCI_ATOMIC = 2 };

#define ZSI_TEMPLATE "backends/cpu/cpu_cci_tmpl.inc"
#include "backends/each_value_type.h"

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

/* The view has passed the format's validate (at encode or load): its layout is trusted here. */
static zs_status cpu_cci_create(void **state, const zsb_encoded_view *enc, const zsi_cpu_opts *o) {
  cci_layout L;
  char why[ZSI_LAYOUT_WHY];
  zs_status s = cci_layout_parse(enc, &L, why, sizeof why);
  if (s != ZS_OK) return zsi_error(s, "backend 'cpu': %s", why);
  cci_op *A = zsi_alloc(sizeof *A);
  if (!A) return cci_no_memory("operator header");
  A->type = L.type, A->rows = L.rows, A->cols = L.cols, A->nnz = L.nnz;
  A->S = L.slices, A->shift = L.first_shift;
  A->threads = o->threads < 1 ? 1 : o->threads;
  A->transpose_atomic = o->transpose_atomic;
  A->parallel = L.nnz + L.rows + L.cols >= CCI_PARALLEL_MIN_WORK;
  const uint64_t nstarts = (uint64_t)A->rows * (uint64_t)A->S + 1;
  A->cstart64 = L.cstart_bytes == 8;
  for (int e = 0; e < ZS_CCI_TABLE; e++) A->table[e] = zs_cci_unpack(L.optable[e]);
  A->nchunks = A->threads * CCI_CHUNKS_PER_THREAD, A->nslots = A->threads;
  if (!(A->row_ptr = zsi_copy_array(L.row_ptr, (uint64_t)A->rows + 1, 8)) ||
      !(A->cstart = zsi_copy_array(L.cstart, nstarts, L.cstart_bytes)) ||
      !(A->codes = zsi_copy_array(L.codes, L.n_codes, 8)) ||
      !(A->values = zsi_copy_array(L.values, (uint64_t)L.nnz, L.value_bytes)) ||
      !(A->chunk = zsi_alloc_array((uint64_t)A->nchunks + 1, 8)) ||
      !(A->slot = zsi_alloc_array((uint64_t)A->nslots + 1, 8))) {
    cpu_cci_destroy(A);
    return cci_no_memory("arrays and partition");
  }
  zsi_cpu_split_rows(A->row_ptr, A->rows, A->nchunks, A->chunk);
  zsi_cpu_split_rows(A->row_ptr, A->rows, A->nslots, A->slot);
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

const zsi_format_kernels zsi_cpu_cci = {cpu_cci_create, cpu_cci_destroy, cpu_cci_apply, NULL};
