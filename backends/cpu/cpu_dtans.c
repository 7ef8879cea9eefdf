/* cpu_dtans.c — the cpu backend's CSR-dtANS kernels: a thread decodes whole slices, their 32
 * lanes in lockstep, so 32 independent state chains overlap (docs/formats/dtans.md). */
#include <inttypes.h>
#include <string.h>

#include "backends/cpu/cpu_dtans5.h"
#include "backends/cpu/cpu_kernels.h"
#include "formats/dtans/dtans.h"

#define W32 (UINT64_C(1) << 32)

/* Slot entries with the symbol itself, so a lookup gives everything at once. */
typedef struct delta_slot {
  int32_t delta; /* unused when esc */
  uint8_t digit, base_m1, esc;
} delta_slot;

typedef struct dtans_op {
  zs_type type;
  int64_t rows, cols, nnz, slices;
  int64_t *slice_rows; /* slice s: rows [slice_rows[s], slice_rows[s + 1]) */
  int value_mode, threads;
  uint32_t *row_nnz, *stream;
  int32_t *row_perm;  /* version 3: the matrix's row of each encoded row (NULL: the same) */
  int32_t *col_perm;  /* version 4: the matrix's column of each encoded column (NULL: the same) */
  void *xs;           /* version 4: x of SpMV and the pair by encoded column */
  int64_t *raw_start; /* per slice: its first raw value (coded nonzeros before it) */
  int64_t n_long;     /* rows stored apart as plain CSR */
  int32_t *long_rows, *long_cols;
  int64_t *long_ptr;
  void *long_values;
  int64_t *slice_words, *slice_desc, *slice_vesc;
  int32_t *delta_escapes;
  int32_t *columns; /* raw columns (DTANS_COLUMNS_RAW), in the raw values' layout; else NULL */
  void *value_escapes, *values, *constant;
  delta_slot dtab[DTANS_K];
  void *vtab;    /* DTANS_K value slots of the type below, when values are coded */
  int64_t *part; /* slices of each thread: [part[u], part[u+1]) */
  void *tbuf;    /* SpMVT sums: threads x cols (deterministic) or cols (atomic) */
  int transpose_atomic;
  dtans5_op *v5; /* version 5 (template rows): its own operator, the rest unused */
} dtans_op;

/* What a slice's decode feeds: y = A x, t += Aᵀ w, or both (BiCG's pair). */
enum { SLICE_N, SLICE_T, SLICE_PAIR };

typedef struct value_slot_f64 {
  double value;
  uint8_t digit, base_m1, esc;
} value_slot_f64;
typedef struct value_slot_f32 {
  float value;
  uint8_t digit, base_m1, esc;
} value_slot_f32;

#define VSLOT SFX(value_slot) /* value_slot_f32 or value_slot_f64 */
#define ZSI_TEMPLATE "backends/cpu/cpu_dtans_tmpl.inc"
#include "backends/each_value_type.h"
#undef VSLOT

static void cpu_dtans_destroy(void *state) {
  dtans_op *A = state;
  if (!A) return;
  cpu_dtans5_destroy(A->v5);
  void *lp[] = {A->long_rows,  A->long_cols, A->long_ptr, A->long_values,
                A->slice_rows, A->row_perm,  A->col_perm, A->xs};
  for (size_t i = 0; i < sizeof lp / sizeof *lp; i++) zsi_free(lp[i]);
  void *p[] = {A->row_nnz,    A->stream,        A->raw_start,     A->slice_words, A->slice_desc,
               A->slice_vesc, A->delta_escapes, A->value_escapes, A->values,      A->constant,
               A->vtab,       A->part,          A->tbuf,          A->columns};
  for (size_t i = 0; i < sizeof p / sizeof *p; i++) zsi_free(p[i]);
  zsi_free(A);
}

static zs_status no_memory(const char *what) {
  return zsi_error(ZS_ERR_OUT_OF_MEMORY, "backend 'cpu': dtans %s", what);
}

/* *out = an aligned copy of n elements of es bytes. */
static zs_status copy_of(const void *src, uint64_t n, size_t es, void *out) {
  return (*(void **)out = zsi_copy_array(src, n, es)) ? ZS_OK : no_memory("arrays");
}

/* The blob was validated when it was encoded or loaded: its layout's contents are trusted here. */
static zs_status cpu_dtans_create(void **state, const zsb_encoded_view *enc,
                                  const zsi_cpu_opts *opts) {
  if (dtans_view_version(enc) == DTANS_VERSION_TEMPLATES) {
    dtans_op *A = zsi_alloc(sizeof *A);
    if (!A) return no_memory("operator");
    zs_status s = cpu_dtans5_create(&A->v5, enc, opts->threads, opts->transpose_atomic);
    if (s != ZS_OK) {
      zsi_free(A);
      return s;
    }
    *state = A;
    return ZS_OK;
  }
  dtans_layout L;
  char why[ZSI_LAYOUT_WHY];
  zs_status s = dtans_layout_parse(enc, &L, why, sizeof why);
  if (s != ZS_OK) return zsi_error(s, "backend 'cpu': %s", why);
  dtans_op *A = zsi_alloc(sizeof *A);
  if (!A) return no_memory("operator");
  A->type = L.type, A->rows = L.rows, A->cols = L.cols, A->nnz = L.nnz;
  A->slices = L.slices;
  A->value_mode = L.value_mode;
  A->threads = opts->threads, A->transpose_atomic = opts->transpose_atomic;
  const size_t es = L.value_bytes;
  const uint64_t sl = (uint64_t)A->slices + 1;
  const int coded = L.value_mode == DTANS_VALUES_CODED;
  /* Row lengths widened to 4 bytes (the blob may hold 1 or 2 a row): the kernels read them per row. */
  if (!(A->row_nnz = zsi_alloc_array((uint64_t)A->rows, 4))) goto oom;
  dtans_row_nnz_widen(L.row_nnz, L.row_nnz_bytes, A->rows, A->row_nnz);
  if ((s = copy_of(L.stream, L.stream_words, 4, &A->stream)) ||
      (s = copy_of(L.slice_words, sl, 8, &A->slice_words)) ||
      (s = copy_of(L.slice_rows, sl, 8, &A->slice_rows)) ||
      (s = copy_of(L.slice_delta_esc, sl, 8, &A->slice_desc)) ||
      (s = copy_of(L.delta_escapes, L.n_delta_escapes, 4, &A->delta_escapes)) ||
      (L.columns && (s = copy_of(L.columns, L.n_columns, 4, &A->columns))))
    goto fail;
  /* Tables with the symbols folded in. */
  {
    dtans_slot t[DTANS_K];
    const int real = L.delta_real;
    dtans_build_table(L.delta_counts, L.delta_entries, t);
    for (int i = 0; i < DTANS_K; i++)
      A->dtab[i] = (delta_slot){t[i].id < real ? L.delta_symbols[t[i].id] : 0, t[i].digit,
                                t[i].base_m1, t[i].id >= real};
  }
  const int joint = L.value_mode == DTANS_VALUES_JOINT;
  if (coded || joint) {
    /* Coded: the value table; joint: the delta table's slots with their pair's value. */
    if ((coded && (s = copy_of(L.slice_value_esc, sl, 8, &A->slice_vesc))) ||
        (s = copy_of(L.value_escapes, L.n_value_escapes, es, &A->value_escapes)))
      goto fail;
    dtans_slot t[DTANS_K];
    if (coded)
      dtans_build_table(L.value_counts, L.value_entries, t);
    else
      dtans_build_table(L.delta_counts, L.delta_entries, t);
    const int64_t real = coded ? L.value_real : L.delta_real;
    const void *sym = L.value_symbols;
    const uint16_t *pv = L.pair_values;
    for (int i = 0; i < DTANS_K; i++)
      if (t[i].id < real && pv) t[i].id = pv[t[i].id]; /* the id of the pair's value */
    if (A->type == ZS_F64) {
      value_slot_f64 *v = A->vtab = zsi_alloc_array(DTANS_K, sizeof *v);
      if (!v) goto oom;
      for (int i = 0; i < DTANS_K; i++) {
        const int esc = pv ? A->dtab[i].esc : t[i].id >= real;
        v[i] = (value_slot_f64){esc ? 0 : ((const double *)sym)[t[i].id], t[i].digit, t[i].base_m1,
                                (uint8_t)esc};
      }
    } else {
      value_slot_f32 *v = A->vtab = zsi_alloc_array(DTANS_K, sizeof *v);
      if (!v) goto oom;
      for (int i = 0; i < DTANS_K; i++) {
        const int esc = pv ? A->dtab[i].esc : t[i].id >= real;
        v[i] = (value_slot_f32){esc ? 0 : ((const float *)sym)[t[i].id], t[i].digit, t[i].base_m1,
                                (uint8_t)esc};
      }
    }
  } else if (L.value_mode == DTANS_VALUES_CONSTANT) {
    if ((s = copy_of(L.value_symbols, 1, es, &A->constant))) goto fail;
  }
  A->n_long = L.n_long;
  if ((s = copy_of(L.long_rows, (uint64_t)L.n_long, 4, &A->long_rows)) ||
      (s = copy_of(L.long_ptr, (uint64_t)L.n_long + 1, 8, &A->long_ptr)) ||
      (s = copy_of(L.long_cols, L.long_nnz, 4, &A->long_cols)) ||
      (s = copy_of(L.long_values, L.long_nnz, es, &A->long_values)))
    goto fail;
  /* Version 3: y and x are indexed through row_perm; long rows get the matrix's row at once. */
  if (L.row_perm) {
    if ((s = copy_of(L.row_perm, (uint64_t)A->rows, 4, &A->row_perm))) goto fail;
    for (int64_t k = 0; k < A->n_long; k++) A->long_rows[k] = A->row_perm[A->long_rows[k]];
  }
  /* Version 4: the kernels index x by encoded column (apply and pair copy it through col_perm
   * into xs); SpMVT's sums land at the matrix's columns. */
  if (L.col_perm) {
    if ((s = copy_of(L.col_perm, (uint64_t)A->cols, 4, &A->col_perm))) goto fail;
    if (!(A->xs = zsi_alloc_array((uint64_t)A->cols, es))) goto oom;
  }
  /* Coded nonzeros before each slice: where its raw values start, and how slices are split. */
  if (!(A->raw_start = zsi_alloc_array((uint64_t)A->slices + 1, 8))) goto oom;
  dtans_coded_before_slices(A->row_nnz, 4, A->slice_rows, A->slices, A->raw_start);
  if (L.values && (s = copy_of(L.values, L.n_values, es, &A->values))) goto fail;
  /* Slices split among threads by coded nonzeros, fixed here: the SpMVT sums then depend only on
   * the thread count. */
  if (!(A->part = zsi_alloc_array((uint64_t)A->threads + 1, 8))) goto oom;
  const int64_t total = A->raw_start[A->slices];
  for (int u = 0; u <= A->threads; u++) {
    const int64_t want = zsi_cpu_split_point(total, A->threads, u);
    int64_t lo = 0, hi = A->slices; /* the first slice starting at or after `want` */
    while (lo < hi) {
      const int64_t m = (lo + hi) / 2;
      if (A->raw_start[m] < want)
        lo = m + 1;
      else
        hi = m;
    }
    A->part[u] = u == A->threads ? A->slices : lo;
  }
  /* SpMVT sums: one buffer per thread (deterministic), or one shared (atomic). */
  const uint64_t nbuf = A->transpose_atomic ? 1 : (uint64_t)A->threads;
  if (!(A->tbuf = zsi_alloc_array(nbuf * (uint64_t)(A->cols ? A->cols : 1), es))) goto oom;
  *state = A;
  return ZS_OK;
oom:
  s = no_memory("tables and buffers");
fail:
  cpu_dtans_destroy(A);
  return s;
}

/* Version 4: x by encoded column, xs[c] = x[col_perm[c]]. */
static const void *x_by_encoded_column(const dtans_op *A, const void *x) {
  const size_t es = zs_type_size(A->type);
  const int32_t *p = A->col_perm;
  ZSI_OMP(parallel for schedule(static) num_threads(A->threads) if (A->cols > 65536))
  for (int64_t c = 0; c < A->cols; c++)
    memcpy((char *)A->xs + (size_t)c * es, (const char *)x + (size_t)p[c] * es, es);
  return A->xs;
}

static zs_status cpu_dtans_apply(void *state, zs_op which, double alpha, const void *x, double beta,
                                 void *y) {
  const dtans_op *A = state;
  if (A->v5) return cpu_dtans5_apply(A->v5, which, alpha, x, beta, y);
  if (A->col_perm && which == ZS_OP_N) x = x_by_encoded_column(A, x);
  if (A->type == ZS_F64)
    apply_f64(A, which, alpha, x, beta, y);
  else
    apply_f32(A, which, alpha, x, beta, y);
  return ZS_OK;
}

static zs_status cpu_dtans_pair(void *state, double alpha, const void *x, double beta, void *y,
                                double alpha_t, const void *w, double beta_t, void *z) {
  const dtans_op *A = state;
  if (A->v5) return cpu_dtans5_pair(A->v5, alpha, x, beta, y, alpha_t, w, beta_t, z);
  if (A->col_perm) x = x_by_encoded_column(A, x);
  if (A->type == ZS_F64)
    pair_f64(A, alpha, x, beta, y, alpha_t, w, beta_t, z);
  else
    pair_f32(A, alpha, x, beta, y, alpha_t, w, beta_t, z);
  return ZS_OK;
}

const zsi_format_kernels zsi_cpu_dtans = {cpu_dtans_create, cpu_dtans_destroy, cpu_dtans_apply,
                                          cpu_dtans_pair};
