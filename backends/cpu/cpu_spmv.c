/* cpu_spmv.c — the cpu backend's CSR and COO operators: nnz-balanced partitions fixed at create,
 * private-buffer (deterministic) or atomic SpMVT. */
#include <string.h>

#include "backends/cpu/cpu_kernels.h"
#include "formats/coo/coo_layout.h"
#include "formats/csr/csr_layout.h"

/* SpMV runs CHUNKS_PER_THREAD equal-work chunks per thread, static schedule (contiguous chunks
 * per thread). SpMVT runs one slot per thread, each with its own column buffer. */
#define CHUNKS_PER_THREAD 4
/* Below this many nonzeros + rows + cols a product runs on the calling thread (the partition
 * is still walked, slot by slot): a fork/join costs microseconds idle and a scheduler tick when
 * the cores are oversubscribed, more than the whole product. */
#define PARALLEL_MIN_WORK 32768

typedef struct cpu_op {
  zs_format format;
  zs_type type;
  int64_t rows, cols, nnz;
  int threads, transpose_atomic;
  int parallel;     /* large enough to pay for a fork/join */
  int64_t *row_ptr; /* CSR */
  int32_t *row_idx; /* COO */
  int32_t *col_idx;
  void *values;
  /* SpMV: chunk c covers rows (CSR) or nonzeros (COO) [chunk[c], chunk[c + 1]). */
  int nchunks;
  int64_t *chunk;
  /* COO: a chunk's first and last row, whether they continue from / into a neighbour chunk,
   * and the partial sums of those rows (head: nchunks, then tail: nchunks, of the value type). */
  int64_t *first_row, *last_row;
  unsigned char *first_shared, *last_shared;
  void *partial;
  /* SpMVT: slot u covers rows (CSR) or nonzeros (COO) [slot[u], slot[u + 1]) and touches
   * columns [col_lo[u], col_hi[u]] (empty when lo > hi); its buffer starts at buf_off[u]. */
  int nslots;
  int64_t *slot, *col_lo, *col_hi, *buf_off;
  int64_t tbuf_len;
  void *tbuf; /* allocated on the first SpMVT */
} cpu_op;

#define ZSI_TEMPLATE "backends/cpu/cpu_spmv_tmpl.inc"
#include "backends/each_value_type.h"

int64_t zsi_cpu_split_point(int64_t total, int64_t n, int64_t c) {
  return (total / n) * c + (total % n) * c / n;
}

/* Part c starts at the first row i with row_ptr[i] + i >= target, found by binary search (the
 * weight is monotone in i). */
void zsi_cpu_split_rows(const int64_t *rp, int64_t rows, int n, int64_t *bounds) {
  const int64_t total = rp[rows] + rows;
  bounds[0] = 0, bounds[n] = rows;
  for (int c = 1; c < n; c++) {
    const int64_t target = zsi_cpu_split_point(total, n, c);
    int64_t lo = bounds[c - 1], hi = rows;
    while (lo < hi) {
      const int64_t mid = lo + (hi - lo) / 2;
      if (rp[mid] + mid >= target)
        hi = mid;
      else
        lo = mid + 1;
    }
    bounds[c] = lo;
  }
}

static void cpu_destroy(void *state) {
  cpu_op *A = state;
  if (!A) return;
  void *arrays[] = {A->row_ptr,   A->row_idx,  A->col_idx,      A->values,      A->chunk,
                    A->first_row, A->last_row, A->first_shared, A->last_shared, A->partial,
                    A->slot,      A->col_lo,   A->col_hi,       A->buf_off,     A->tbuf};
  for (size_t i = 0; i < sizeof arrays / sizeof *arrays; i++) zsi_free(arrays[i]);
  zsi_free(A);
}

static zs_status no_memory(const char *what) {
  return zsi_error(ZS_ERR_OUT_OF_MEMORY, "backend 'cpu': cannot allocate %s", what);
}

/* Chunks for SpMV and slots (with their column ranges) for SpMVT. */
static zs_status partition(cpu_op *A) {
  const int t = A->threads;
  const size_t es = zs_type_size(A->type);
  if (A->format == ZS_FORMAT_CSR) {
    A->nchunks = t * CHUNKS_PER_THREAD, A->nslots = t;
  } else {
    /* COO chunks must be non-empty; with no nonzeros every row is handled apart. */
    const int64_t want = (int64_t)t * CHUNKS_PER_THREAD;
    A->nchunks = (int)(A->nnz < want ? A->nnz : want);
    A->nslots = (int)(A->nnz < t ? A->nnz : t);
  }
  const int nc = A->nchunks, ns = A->nslots;
  if (!(A->chunk = zsi_alloc_array((uint64_t)nc + 1, 8)) ||
      !(A->slot = zsi_alloc_array((uint64_t)ns + 1, 8)) ||
      !(A->col_lo = zsi_alloc_array((uint64_t)ns, 8)) ||
      !(A->col_hi = zsi_alloc_array((uint64_t)ns, 8)) ||
      !(A->buf_off = zsi_alloc_array((uint64_t)ns, 8)))
    return no_memory("partition tables");
  if (A->format == ZS_FORMAT_CSR) {
    zsi_cpu_split_rows(A->row_ptr, A->rows, nc, A->chunk);
    zsi_cpu_split_rows(A->row_ptr, A->rows, ns, A->slot);
  } else {
    for (int c = 0; c <= nc; c++) A->chunk[c] = zsi_cpu_split_point(A->nnz, nc ? nc : 1, c);
    for (int u = 0; u <= ns; u++) A->slot[u] = zsi_cpu_split_point(A->nnz, ns ? ns : 1, u);
    if (!(A->first_row = zsi_alloc_array((uint64_t)nc, 8)) ||
        !(A->last_row = zsi_alloc_array((uint64_t)nc, 8)) ||
        !(A->first_shared = zsi_alloc_array((uint64_t)nc, 1)) ||
        !(A->last_shared = zsi_alloc_array((uint64_t)nc, 1)) ||
        !(A->partial = zsi_alloc_array(2 * (uint64_t)nc, es)))
      return no_memory("COO chunk tables");
    const int32_t *ri = A->row_idx;
    for (int c = 0; c < nc; c++) {
      const int64_t kb = A->chunk[c], ke = A->chunk[c + 1];
      A->first_row[c] = ri[kb], A->last_row[c] = ri[ke - 1];
      A->first_shared[c] = kb > 0 && ri[kb - 1] == ri[kb];
      A->last_shared[c] = ke < A->nnz && ri[ke] == ri[ke - 1];
    }
  }
  /* Columns each slot touches, so its buffer (and the reduction) covers only those. */
  int64_t off = 0;
  for (int u = 0; u < ns; u++) {
    int64_t lo = A->cols, hi = -1;
    if (A->format == ZS_FORMAT_CSR) {
      for (int64_t i = A->slot[u]; i < A->slot[u + 1]; i++) {
        const int64_t kb = A->row_ptr[i], ke = A->row_ptr[i + 1];
        if (kb == ke) continue;
        if (A->col_idx[kb] < lo) lo = A->col_idx[kb]; /* columns ascend in a row */
        if (A->col_idx[ke - 1] > hi) hi = A->col_idx[ke - 1];
      }
    } else {
      for (int64_t k = A->slot[u]; k < A->slot[u + 1]; k++) {
        if (A->col_idx[k] < lo) lo = A->col_idx[k];
        if (A->col_idx[k] > hi) hi = A->col_idx[k];
      }
    }
    A->col_lo[u] = lo, A->col_hi[u] = hi, A->buf_off[u] = off;
    if (lo <= hi) off += hi - lo + 1;
  }
  A->tbuf_len = off;
  return ZS_OK;
}

/* CSR or COO: the arrays copied from the format's layout. */
static zs_status cpu_create(void **state, const zsb_encoded_view *enc, const zsi_cpu_opts *o) {
  csr_layout csr;
  coo_layout coo;
  char why[ZSI_LAYOUT_WHY];
  const int is_csr = enc->format == ZS_FORMAT_CSR;
  zs_status s = is_csr ? csr_layout_parse(enc, &csr, why, sizeof why)
                       : coo_layout_parse(enc, &coo, why, sizeof why);
  if (s != ZS_OK) return zsi_error(s, "backend 'cpu': %s", why);
  cpu_op *A = zsi_alloc(sizeof *A);
  if (!A) return no_memory("operator header");
  A->format = enc->format, A->type = enc->type;
  A->rows = enc->rows, A->cols = enc->cols, A->nnz = enc->nnz;
  A->threads = o->threads < 1 ? 1 : o->threads;
  A->transpose_atomic = o->transpose_atomic;
  A->parallel = enc->nnz + enc->rows + enc->cols >= PARALLEL_MIN_WORK;
  const uint64_t nnz = (uint64_t)enc->nnz, es = zs_type_size(enc->type);
  A->col_idx = zsi_copy_array(is_csr ? csr.col_idx : coo.col_idx, nnz, 4);
  A->values = zsi_copy_array(is_csr ? csr.values : coo.values, nnz, es);
  if (is_csr)
    A->row_ptr = zsi_copy_array(csr.row_ptr, (uint64_t)enc->rows + 1, 8);
  else
    A->row_idx = zsi_copy_array(coo.row_idx, nnz, 4);
  if (!A->col_idx || !A->values || !(is_csr ? (void *)A->row_ptr : (void *)A->row_idx))
    s = no_memory("arrays");
  if (s == ZS_OK) s = partition(A);
  if (s != ZS_OK) {
    cpu_destroy(A);
    return s;
  }
  *state = A;
  return ZS_OK;
}

/* The deterministic SpMVT's column buffers, once per operator: operators serving only op N never
 * pay for them. */
static zs_status transpose_buffers(cpu_op *A) {
  if (A->tbuf) return ZS_OK;
  if (!(A->tbuf = zsi_alloc_array((uint64_t)A->tbuf_len, zs_type_size(A->type))))
    return zsi_error(ZS_ERR_OUT_OF_MEMORY,
                     "backend 'cpu': SpMVT buffers of %lld elements (try transpose=atomic)",
                     (long long)A->tbuf_len);
  return ZS_OK;
}

static zs_status cpu_apply(void *state, zs_op which, double alpha, const void *x, double beta,
                           void *y) {
  cpu_op *A = state;
  if (which == ZS_OP_T && !A->transpose_atomic) {
    const zs_status s = transpose_buffers(A);
    if (s != ZS_OK) return s;
  }
  if (A->type == ZS_F32)
    apply_f32(A, which, alpha, x, beta, y);
  else
    apply_f64(A, which, alpha, x, beta, y);
  return ZS_OK;
}

/* BiCG's pair in one sweep with the deterministic SpMVT: CSR (SFX(csr_pair)), and COO where
 * each SpMVT slot is CHUNKS_PER_THREAD whole SpMV chunks (SFX(coo_pair); not with fewer nonzeros
 * than chunks, nor none). The atomic SpMVT makes the two products. */
static zs_status cpu_pair(void *state, double alpha, const void *x, double beta, void *y,
                          double alpha_t, const void *w, double beta_t, void *z) {
  cpu_op *A = state;
  const int coo = A->format == ZS_FORMAT_COO;
  if (A->transpose_atomic || (coo && (A->nnz == 0 || A->nchunks != CHUNKS_PER_THREAD * A->nslots)))
    return ZS_ERR_UNSUPPORTED;
  const zs_status s = transpose_buffers(A);
  if (s != ZS_OK) return s;
  if (A->type == ZS_F32 && coo)
    coo_pair_f32(A, alpha, x, beta, y, alpha_t, w, beta_t, z);
  else if (coo)
    coo_pair_f64(A, alpha, x, beta, y, alpha_t, w, beta_t, z);
  else if (A->type == ZS_F32)
    csr_pair_f32(A, alpha, x, beta, y, alpha_t, w, beta_t, z);
  else
    csr_pair_f64(A, alpha, x, beta, y, alpha_t, w, beta_t, z);
  return ZS_OK;
}

const zsi_format_kernels zsi_cpu_csr = {cpu_create, cpu_destroy, cpu_apply, cpu_pair};
const zsi_format_kernels zsi_cpu_coo = {cpu_create, cpu_destroy, cpu_apply, cpu_pair};
