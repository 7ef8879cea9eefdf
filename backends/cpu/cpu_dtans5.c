/* cpu_dtans5.c — the cpu backend's kernels for CSR-dtANS version 5 (template and packed rows): a
 * thread takes whole slices of 32 rows, each row walks its template or its column fields
 * (docs/formats/dtans.md). */
#include <string.h>

#include "backends/cpu/cpu_dtans5.h"
#include "formats/dtans/dtans.h"
#include "formats/dtans/dtans5_walk.h"

struct dtans5_op {
  zs_type type;
  int64_t rows, cols, slices;
  int mode, bits, per_word, threads, transpose_atomic;
  uint32_t *tid; /* per row: template id, DTANS_LONG for a long row, templates + n packed */
  int64_t templates;
  int64_t *tptr;       /* templates + 1 */
  int32_t *toff;       /* offsets of every template */
  int64_t *slice_at;   /* raw: entries, packed: words, per slice + 1 */
  void *values;        /* raw values, or the value dictionary (packed, constant) */
  uint32_t *words;     /* packed ids */
  int64_t *col_at;     /* packed rows: their column words, per slice + 1 */
  uint32_t *col_words; /* packed rows' column fields */
  uint8_t *col_bits;   /* per slice */
  int32_t *col_base;   /* per slice */
  int32_t *row_perm;   /* the matrix's row of each encoded row (NULL: the same) */
  int32_t *col_perm;   /* the matrix's column of each encoded column (NULL: the same) */
  int64_t n_long;
  int32_t *long_rows, *long_cols; /* the matrix's rows and columns (mapped when created) */
  int64_t *long_ptr;
  void *long_values;
  int64_t *part; /* slices of each thread: [part[u], part[u + 1]) */
  void *tbuf;    /* SpMVT sums: threads x cols (deterministic) or cols (atomic) */
};

enum { ROW_N = 1, ROW_T = 2 }; /* what a row's walk feeds: y = A x, t += Aᵀ w, or both */

/* Nonzeros of row i in the slices (0 for a long row). */
static inline int64_t row_len5(const dtans5_op *A, int64_t i) {
  const uint32_t t = A->tid[i];
  return t == DTANS_LONG ? 0 : dtans5_entry_len(A->tptr, A->templates, t);
}

#define ZSI_TEMPLATE "backends/cpu/cpu_dtans5_tmpl.inc"
#include "backends/each_value_type.h"

void cpu_dtans5_destroy(dtans5_op *A) {
  if (!A) return;
  void *p[] = {A->tid,      A->tptr,        A->toff,     A->slice_at, A->values,    A->words,
               A->col_at,   A->col_words,   A->col_bits, A->col_base, A->long_rows, A->long_cols,
               A->long_ptr, A->long_values, A->part,     A->tbuf,     A->row_perm,  A->col_perm};
  for (size_t i = 0; i < sizeof p / sizeof *p; i++) zsi_free(p[i]);
  zsi_free(A);
}

/* *out = an aligned copy of n elements of es bytes (a valid block for none). */
static int copy_into(const void *src, uint64_t n, size_t es, void *out) {
  return (*(void **)out = zsi_copy_array(src, n, es)) != NULL;
}

zs_status cpu_dtans5_create(dtans5_op **out, const zsb_encoded_view *enc, int threads,
                            int transpose_atomic) {
  dtans5_layout L;
  char why[ZSI_LAYOUT_WHY];
  zs_status s = dtans5_layout_parse(enc, &L, why, sizeof why);
  if (s != ZS_OK) return zsi_error(s, "backend 'cpu': %s", why);
  dtans5_op *A = zsi_alloc(sizeof *A);
  if (!A) return zsi_error(ZS_ERR_OUT_OF_MEMORY, "backend 'cpu': dtans operator");
  A->type = L.type, A->rows = L.rows, A->cols = L.cols, A->slices = L.slices;
  A->mode = L.value_mode, A->bits = L.value_bits, A->per_word = L.ids_per_word;
  A->threads = threads, A->transpose_atomic = transpose_atomic;
  const size_t es = L.value_bytes;
  const uint64_t sl = (uint64_t)L.slices + 1;
  int ok = (A->tid = zsi_alloc_array((uint64_t)(L.rows ? L.rows : 1), 4)) != NULL;
  for (int64_t i = 0; ok && i < L.rows; i++)
    A->tid[i] = dtans5_row_template(L.row_template, L.row_template_bytes, i);
  ok = ok && copy_into(L.template_ptr, (uint64_t)L.templates + 1, 8, &A->tptr) &&
       copy_into(L.template_offsets, L.n_offsets, 4, &A->toff);
  A->templates = L.templates;
  if (L.packed_rows)
    ok = ok && copy_into(L.slice_col_words, sl, 8, &A->col_at) &&
         copy_into(L.col_words, L.n_col_words, 4, &A->col_words) &&
         copy_into(L.slice_col_bits, sl - 1, 1, &A->col_bits) &&
         copy_into(L.slice_col_base, sl - 1, 4, &A->col_base);
  if (L.value_mode == DTANS5_VALUES_RAW)
    ok = ok && copy_into(L.slice_values, sl, 8, &A->slice_at) &&
         copy_into(L.values, L.n_values, es, &A->values);
  else
    ok = ok && copy_into(L.value_symbols, (uint64_t)L.value_real, es, &A->values);
  if (L.value_mode == DTANS5_VALUES_PACKED)
    ok = ok && copy_into(L.slice_value_words, sl, 8, &A->slice_at) &&
         copy_into(L.value_words, L.n_value_words, 4, &A->words);
  A->n_long = L.n_long;
  ok = ok && copy_into(L.long_rows, (uint64_t)L.n_long, 4, &A->long_rows) &&
       copy_into(L.long_ptr, (uint64_t)L.n_long + 1, 8, &A->long_ptr) &&
       copy_into(L.long_cols, L.long_nnz, 4, &A->long_cols) &&
       copy_into(L.long_values, L.long_nnz, es, &A->long_values);
  /* Rows and columns in another order: the slices' rows and columns are mapped as they are
   * walked, the long rows' here (their columns then need not ascend: only the sums' order
   * changes, and it is fixed) */
  if (L.row_perm) ok = ok && copy_into(L.row_perm, (uint64_t)L.rows, 4, &A->row_perm);
  if (L.col_perm) ok = ok && copy_into(L.col_perm, (uint64_t)L.cols, 4, &A->col_perm);
  for (int64_t k = 0; ok && A->row_perm && k < L.n_long; k++)
    A->long_rows[k] = A->row_perm[A->long_rows[k]];
  for (uint64_t j = 0; ok && A->col_perm && j < L.long_nnz; j++)
    A->long_cols[j] = A->col_perm[A->long_cols[j]];
  /* Slices split among threads by nonzeros, fixed here: the SpMVT sums then depend only on the
   * thread count. */
  ok = ok && (A->part = zsi_alloc_array((uint64_t)threads + 1, 8)) != NULL;
  if (ok) {
    int64_t total = 0;
    for (int64_t i = 0; i < L.rows; i++) total += row_len5(A, i);
    /* thread u ends at the slice boundary nearest to u/threads of the nonzeros */
    int64_t done = 0, sl_at = 0;
    A->part[0] = 0;
    for (int u = 1; u <= threads; u++) {
      const int64_t want = zsi_cpu_split_point(total, threads, u);
      while (sl_at < A->slices) {
        int64_t n = 0;
        for (int64_t i = sl_at * DTANS5_LANES; i < (sl_at + 1) * DTANS5_LANES && i < L.rows; i++)
          n += row_len5(A, i);
        if (u < threads && done + n - want > want - done) break;
        done += n, sl_at++;
      }
      A->part[u] = sl_at;
    }
  }
  const uint64_t nbuf = transpose_atomic ? 1 : (uint64_t)threads;
  ok = ok && (A->tbuf = zsi_alloc_array(nbuf * (uint64_t)(A->cols ? A->cols : 1), es)) != NULL;
  if (!ok) {
    cpu_dtans5_destroy(A);
    return zsi_error(ZS_ERR_OUT_OF_MEMORY, "backend 'cpu': dtans version 5 arrays");
  }
  *out = A;
  return ZS_OK;
}

zs_status cpu_dtans5_apply(const dtans5_op *A, zs_op which, double alpha, const void *x,
                           double beta, void *y) {
  if (A->type == ZS_F64)
    apply5_f64(A, which, alpha, x, beta, y);
  else
    apply5_f32(A, which, alpha, x, beta, y);
  return ZS_OK;
}

zs_status cpu_dtans5_pair(const dtans5_op *A, double alpha, const void *x, double beta, void *y,
                          double alpha_t, const void *w, double beta_t, void *z) {
  if (A->type == ZS_F64)
    transpose5_f64(A, ROW_N | ROW_T, alpha, x, beta, y, alpha_t, w, beta_t, z);
  else
    transpose5_f32(A, ROW_N | ROW_T, alpha, x, beta, y, alpha_t, w, beta_t, z);
  return ZS_OK;
}
