/* matrix.c — zs_matrix, the canonical host CSR: built from COO or CSR, sorted, duplicates
 * summed, validated once. */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/zs_internal.h"

static zs_status check_dims(int64_t rows, int64_t cols, int64_t nnz, zs_type type) {
  if (type != ZS_F32 && type != ZS_F64)
    return zsi_error(ZS_ERR_INVALID_ARGUMENT, "value type %d is neither f32 nor f64", (int)type);
  if (rows < 0 || cols < 0 || nnz < 0)
    return zsi_error(ZS_ERR_INVALID_ARGUMENT,
                     "negative size: rows %" PRId64 ", cols %" PRId64 ", nnz %" PRId64, rows, cols,
                     nnz);
  if (rows > ZS_MAX_DIM || cols > ZS_MAX_DIM)
    return zsi_error(ZS_ERR_OVERFLOW,
                     "%" PRId64 " x %" PRId64 " exceeds the dimension limit 2^31-1", rows, cols);
  if (nnz > ZS_MAX_NNZ)
    return zsi_error(ZS_ERR_OVERFLOW, "nnz %" PRId64 " exceeds the limit 2^62", nnz);
  return ZS_OK;
}

/* Before building a matrix, the memory it needs at its peak (indices, values and `row_arrays`
 * arrays of rows + 1 counts: the row pointers, and while scattering and sorting two more)
 * against what is available: a file may declare 2^31-1 rows in a few bytes, and zeroing tens of
 * GiB only to fail later helps nobody. */
static zs_status check_build_memory(int64_t rows, int64_t cols, int64_t nnz, zs_type type,
                                    int row_arrays) {
  const uint64_t need = (uint64_t)row_arrays * ((uint64_t)rows + 1) * sizeof(int64_t) +
                        (uint64_t)nnz * (4 + zs_type_size(type));
  const uint64_t avail = zsi_memory_available();
  if (need < (UINT64_C(1) << 30) || need <= avail) return ZS_OK;
  return zsi_error(ZS_ERR_OUT_OF_MEMORY,
                   "out of memory: building a %" PRId64 " x %" PRId64 " matrix with %" PRId64
                   " entries needs %.1f GiB, %.1f GiB are available",
                   rows, cols, nnz, (double)need / (1 << 30), (double)avail / (1 << 30));
}

zs_status zsi_matrix_alloc(zs_matrix **out, int64_t rows, int64_t cols, int64_t nnz, zs_type type) {
  zs_status s = check_dims(rows, cols, nnz, type);
  if (s != ZS_OK || (s = check_build_memory(rows, cols, nnz, type, 1)) != ZS_OK) return s;
  zs_matrix *A = calloc(1, sizeof *A);
  if (!A) return zsi_error(ZS_ERR_OUT_OF_MEMORY, "matrix header");
  A->rows = rows, A->cols = cols, A->nnz = nnz, A->type = type;
  A->row_ptr = zsi_alloc_array((uint64_t)rows + 1, sizeof(int64_t));
  A->col_idx = zsi_alloc_array((uint64_t)nnz, sizeof(int32_t));
  A->values = zsi_alloc_array((uint64_t)nnz, zs_type_size(type));
  if (!A->row_ptr || !A->col_idx || !A->values) {
    zs_matrix_destroy(&A);
    return zsi_error(ZS_ERR_OUT_OF_MEMORY,
                     "out of memory for a %" PRId64 " x %" PRId64 " matrix with %" PRId64
                     " nonzeros",
                     rows, cols, nnz);
  }
  *out = A;
  return ZS_OK;
}

void zs_matrix_destroy(zs_matrix **A) {
  if (!A || !*A) return;
  zsi_free((*A)->row_ptr);
  zsi_free((*A)->col_idx);
  zsi_free((*A)->values);
  free(*A);
  *A = NULL;
}

int64_t zs_matrix_rows(const zs_matrix *A) { return A ? A->rows : 0; }
int64_t zs_matrix_cols(const zs_matrix *A) { return A ? A->cols : 0; }
int64_t zs_matrix_nnz(const zs_matrix *A) { return A ? A->nnz : 0; }
zs_type zs_matrix_type(const zs_matrix *A) { return A ? A->type : (zs_type)0; }

void zs_matrix_csr(const zs_matrix *A, const int64_t **row_ptr, const int32_t **col_idx,
                   const void **values) {
  if (row_ptr) *row_ptr = A ? A->row_ptr : NULL;
  if (col_idx) *col_idx = A ? A->col_idx : NULL;
  if (values) *values = A ? A->values : NULL;
}

static void value_set(zs_type t, void *v, int64_t i, double x) {
  if (t == ZS_F64)
    ((double *)v)[i] = x;
  else
    ((float *)v)[i] = (float)x;
}

static zs_status check_value(const void *values, zs_type type, int64_t k, unsigned flags,
                             int64_t row, int64_t col) {
  if (!values || (flags & ZS_MATRIX_ALLOW_NONFINITE)) return ZS_OK;
  if (isfinite(zsi_value_get(type, values, k))) return ZS_OK;
  return zsi_error(ZS_ERR_OUT_OF_RANGE,
                   "entry %" PRId64 " (row %" PRId64 ", col %" PRId64 ") is NaN or infinite", k,
                   row, col);
}

/* Sort one row's (col, value) pairs by column, sum duplicates, drop zeros when asked; returns
 * the row's new length, -1 out of memory, -2 when finite duplicates sum past the type's range
 * (*bad_col: their column) unless non-finite values are allowed. scratch holds 2 len keys;
 * duplicates sum in input order. */
static int64_t canonicalise_row(int32_t *col, void *val, zs_type t, int64_t len, unsigned flags,
                                uint64_t *scratch, int32_t *bad_col) {
  int sorted = 1;
  for (int64_t k = 1; k < len && sorted; k++) sorted = col[k - 1] < col[k];
  if (!sorted) {
    for (int64_t k = 0; k < len; k++) scratch[k] = (uint64_t)(uint32_t)col[k] << 32 | (uint64_t)k;
    zsi_sort_row_keys(scratch, len, scratch + len);
    /* Gather values through a copy of the row (at most len values). */
    size_t es = zs_type_size(t);
    char *tmp = malloc((size_t)len * es);
    if (!tmp) return -1;
    memcpy(tmp, val, (size_t)len * es);
    for (int64_t k = 0; k < len; k++) {
      col[k] = (int32_t)(scratch[k] >> 32);
      memcpy((char *)val + k * es, tmp + (scratch[k] & 0xffffffffu) * es, es);
    }
    free(tmp);
  }
  int64_t out = 0;
  for (int64_t k = 0; k < len; k++) {
    if (out > 0 && col[out - 1] == col[k]) {
      const double a = zsi_value_get(t, val, out - 1), b = zsi_value_get(t, val, k);
      value_set(t, val, out - 1, a + b);
      if (!(flags & ZS_MATRIX_ALLOW_NONFINITE) && !isfinite(zsi_value_get(t, val, out - 1))) {
        *bad_col = col[k];
        return -2;
      }
      continue;
    }
    col[out] = col[k];
    value_set(t, val, out, zsi_value_get(t, val, k));
    out++;
  }
  if (flags & ZS_MATRIX_DROP_ZEROS) {
    int64_t kept = 0;
    for (int64_t k = 0; k < out; k++) {
      if (zsi_value_get(t, val, k) == 0.0) continue;
      col[kept] = col[k];
      value_set(t, val, kept, zsi_value_get(t, val, k));
      kept++;
    }
    out = kept;
  }
  return out;
}

/* Canonicalise every row in place, then close the gaps left by merged entries. */
static zs_status canonicalise(zs_matrix *A, unsigned flags) {
  int64_t max_len = 0;
  for (int64_t i = 0; i < A->rows; i++)
    if (A->row_ptr[i + 1] - A->row_ptr[i] > max_len) max_len = A->row_ptr[i + 1] - A->row_ptr[i];
  if (max_len > (int64_t)UINT32_MAX) /* a row's places are sorted in 32 bits */
    return zsi_error(ZS_ERR_OVERFLOW,
                     "a row holds %" PRId64
                     " entries before duplicates are summed; the limit is "
                     "2^32-1",
                     max_len);
  uint64_t *scratch = zsi_alloc_array(2 * (uint64_t)max_len, sizeof *scratch);
  int64_t *len = zsi_alloc_array((uint64_t)A->rows + 1, sizeof *len);
  if (!scratch || !len) {
    zsi_free(scratch), zsi_free(len);
    return zsi_error(ZS_ERR_OUT_OF_MEMORY, "sorting rows");
  }
  size_t es = zs_type_size(A->type);
  int64_t failed = 0, bad_row = 0;
  int32_t bad_col = 0;
  for (int64_t i = 0; i < A->rows && !failed; i++) {
    int64_t b = A->row_ptr[i];
    len[i] = canonicalise_row(A->col_idx + b, (char *)A->values + b * (int64_t)es, A->type,
                              A->row_ptr[i + 1] - b, flags, scratch, &bad_col);
    if (len[i] < 0) failed = len[i], bad_row = i;
  }
  zsi_free(scratch);
  if (failed) zsi_free(len);
  if (failed == -2)
    return zsi_error(ZS_ERR_OUT_OF_RANGE,
                     "duplicate entries at row %" PRId64 ", col %" PRId32
                     " (0-based) sum past the %s range to an infinite value",
                     bad_row, bad_col, zs_type_name(A->type));
  if (failed) return zsi_error(ZS_ERR_OUT_OF_MEMORY, "out of memory sorting the rows");
  int64_t w = 0;
  for (int64_t i = 0; i < A->rows; i++) {
    int64_t b = A->row_ptr[i];
    if (w != b) {
      memmove(A->col_idx + w, A->col_idx + b, (size_t)len[i] * sizeof(int32_t));
      memmove((char *)A->values + w * (int64_t)es, (char *)A->values + b * (int64_t)es,
              (size_t)len[i] * es);
    }
    A->row_ptr[i] = w;
    w += len[i];
  }
  A->row_ptr[A->rows] = w;
  A->nnz = w;
  zsi_free(len);
  return ZS_OK;
}

zs_status zs_matrix_from_coo(zs_matrix **out, int64_t rows, int64_t cols, int64_t nnz,
                             const int64_t *row_idx, const int64_t *col_idx, const void *values,
                             zs_type type, unsigned flags) {
  if (!out) return zsi_error(ZS_ERR_INVALID_ARGUMENT, "zs_matrix_from_coo: out is NULL");
  zs_status s = check_dims(rows, cols, nnz, type);
  if (s != ZS_OK) return s;
  if (nnz > 0 && (!row_idx || !col_idx))
    return zsi_error(ZS_ERR_INVALID_ARGUMENT, "zs_matrix_from_coo: index arrays are NULL");
  for (int64_t k = 0; k < nnz; k++) {
    if (row_idx[k] < 0 || row_idx[k] >= rows || col_idx[k] < 0 || col_idx[k] >= cols)
      return zsi_error(ZS_ERR_OUT_OF_RANGE,
                       "entry %" PRId64 " (row %" PRId64 ", col %" PRId64
                       ") is outside the %" PRId64 " x %" PRId64 " matrix",
                       k, row_idx[k], col_idx[k], rows, cols);
    s = check_value(values, type, k, flags, row_idx[k], col_idx[k]);
    if (s != ZS_OK) return s;
  }
  zs_matrix *A;
  if ((s = check_build_memory(rows, cols, nnz, type, 3)) != ZS_OK ||
      (s = zsi_matrix_alloc(&A, rows, cols, nnz, type)) != ZS_OK)
    return s;
  for (int64_t k = 0; k < nnz; k++) A->row_ptr[row_idx[k] + 1]++;
  for (int64_t i = 0; i < rows; i++) A->row_ptr[i + 1] += A->row_ptr[i];
  int64_t *next = zsi_alloc_array((uint64_t)rows + 1, sizeof *next);
  if (!next) {
    zs_matrix_destroy(&A);
    return zsi_error(ZS_ERR_OUT_OF_MEMORY, "out of memory scattering %" PRId64 " entries", nnz);
  }
  memcpy(next, A->row_ptr, (size_t)rows * sizeof *next);
  for (int64_t k = 0; k < nnz; k++) {
    int64_t p = next[row_idx[k]]++;
    A->col_idx[p] = (int32_t)col_idx[k];
    value_set(type, A->values, p, values ? zsi_value_get(type, values, k) : 1.0);
  }
  zsi_free(next);
  if ((s = canonicalise(A, flags)) != ZS_OK) {
    zs_matrix_destroy(&A);
    return s;
  }
  *out = A;
  return ZS_OK;
}

zs_status zs_matrix_from_csr(zs_matrix **out, int64_t rows, int64_t cols, const int64_t *row_ptr,
                             const int32_t *col_idx, const void *values, zs_type type,
                             unsigned flags) {
  if (!out || !row_ptr)
    return zsi_error(ZS_ERR_INVALID_ARGUMENT, "zs_matrix_from_csr: out or row_ptr is NULL");
  zs_status s = check_dims(rows, cols, 0, type);
  if (s != ZS_OK) return s;
  if (row_ptr[0] != 0)
    return zsi_error(ZS_ERR_OUT_OF_RANGE, "row_ptr[0] is %" PRId64 ", not 0", row_ptr[0]);
  for (int64_t i = 0; i < rows; i++)
    if (row_ptr[i + 1] < row_ptr[i])
      return zsi_error(ZS_ERR_OUT_OF_RANGE,
                       "row_ptr decreases at row %" PRId64 " (%" PRId64 " then %" PRId64 ")", i,
                       row_ptr[i], row_ptr[i + 1]);
  int64_t nnz = row_ptr[rows];
  if ((s = check_dims(rows, cols, nnz, type)) != ZS_OK) return s;
  if (nnz > 0 && !col_idx)
    return zsi_error(ZS_ERR_INVALID_ARGUMENT, "zs_matrix_from_csr: col_idx is NULL");
  for (int64_t i = 0; i < rows; i++)
    for (int64_t k = row_ptr[i]; k < row_ptr[i + 1]; k++) {
      if (col_idx[k] < 0 || col_idx[k] >= cols)
        return zsi_error(ZS_ERR_OUT_OF_RANGE,
                         "entry %" PRId64 " (row %" PRId64 ", col %" PRId32
                         ") is outside the %" PRId64 " x %" PRId64 " matrix",
                         k, i, col_idx[k], rows, cols);
      if ((s = check_value(values, type, k, flags, i, col_idx[k])) != ZS_OK) return s;
    }
  zs_matrix *A;
  if ((s = check_build_memory(rows, cols, nnz, type, 3)) != ZS_OK ||
      (s = zsi_matrix_alloc(&A, rows, cols, nnz, type)) != ZS_OK)
    return s;
  memcpy(A->row_ptr, row_ptr, ((size_t)rows + 1) * sizeof *row_ptr);
  if (nnz > 0) memcpy(A->col_idx, col_idx, (size_t)nnz * sizeof *col_idx);
  if (values && nnz > 0)
    memcpy(A->values, values, (size_t)nnz * zs_type_size(type));
  else
    for (int64_t k = 0; k < nnz; k++) value_set(type, A->values, k, 1.0);
  if ((s = canonicalise(A, flags)) != ZS_OK) {
    zs_matrix_destroy(&A);
    return s;
  }
  *out = A;
  return ZS_OK;
}

/* A counting sort over columns: visiting A's rows in order leaves each column's rows ascending,
 * so Aᵀ is canonical like A. */
zs_status zs_matrix_transpose(zs_matrix **out, const zs_matrix *A) {
  if (!out || !A) return zsi_error(ZS_ERR_INVALID_ARGUMENT, "zs_matrix_transpose: NULL argument");
  zs_matrix *T;
  zs_status s = zsi_matrix_alloc(&T, A->cols, A->rows, A->nnz, A->type);
  if (s != ZS_OK) return s;
  int64_t *next = malloc(((size_t)A->cols + 1) * sizeof *next);
  if (!next) {
    zs_matrix_destroy(&T);
    return zsi_error(ZS_ERR_OUT_OF_MEMORY, "transpose of %" PRId64 " columns", A->cols);
  }
  int64_t *tp = T->row_ptr; /* zeroed by zsi_matrix_alloc */
  for (int64_t k = 0; k < A->nnz; k++) tp[A->col_idx[k] + 1]++;
  for (int64_t j = 0; j < A->cols; j++) tp[j + 1] += tp[j];
  memcpy(next, tp, ((size_t)A->cols + 1) * sizeof *next);
  for (int64_t i = 0; i < A->rows; i++)
    for (int64_t k = A->row_ptr[i]; k < A->row_ptr[i + 1]; k++) {
      const int64_t at = next[A->col_idx[k]]++;
      T->col_idx[at] = (int32_t)i;
      if (A->type == ZS_F64)
        ((double *)T->values)[at] = ((const double *)A->values)[k];
      else
        ((float *)T->values)[at] = ((const float *)A->values)[k];
    }
  free(next);
  *out = T;
  return ZS_OK;
}

zs_status zs_matrix_convert(zs_matrix **out, const zs_matrix *A, zs_type type) {
  if (!out || !A) return zsi_error(ZS_ERR_INVALID_ARGUMENT, "zs_matrix_convert: NULL argument");
  zs_matrix *B;
  zs_status s = zsi_matrix_alloc(&B, A->rows, A->cols, A->nnz, type);
  if (s != ZS_OK) return s;
  memcpy(B->row_ptr, A->row_ptr, ((size_t)A->rows + 1) * sizeof *A->row_ptr);
  memcpy(B->col_idx, A->col_idx, (size_t)A->nnz * sizeof *A->col_idx);
  for (int64_t i = 0; i < A->rows; i++)
    for (int64_t k = A->row_ptr[i]; k < A->row_ptr[i + 1]; k++) {
      const double v = zsi_value_get(A->type, A->values, k);
      value_set(type, B->values, k, v);
      /* Narrowing must not turn a finite value into an infinity. */
      if (isfinite(v) && !isfinite(zsi_value_get(type, B->values, k))) {
        zs_matrix_destroy(&B);
        return zsi_error(ZS_ERR_OUT_OF_RANGE,
                         "converting to %s: the value %.17g at row %" PRId64 ", col %" PRId32
                         " (0-based) is beyond the %s range",
                         zs_type_name(type), v, i, A->col_idx[k], zs_type_name(type));
      }
    }
  *out = B;
  return ZS_OK;
}
