/* zs_internal.h — library-internal types and helpers shared by core/, formats/ and backends/. */
#ifndef ZS_INTERNAL_H
#define ZS_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/row_sort.h" /* zsi_sort_row_keys, header-only: the GPU modules use it too */
#include "zsparse.h"
#include "zsparse_backend.h"

#if defined(__GNUC__)
#define ZSI_HIDDEN __attribute__((visibility("hidden")))
#define ZSI_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define ZSI_HIDDEN
#define ZSI_PRINTF(f, a)
#endif

#define ZS_MAX_DIM INT32_MAX          /* rows and cols */
#define ZS_MAX_NNZ (INT64_C(1) << 62) /* leaves room for byte counts of 8-byte values */

/* ---- errors (core/runtime/status.c) ---- */
/* Record a message for zs_last_error() on this thread and return `status`. */
ZSI_HIDDEN zs_status zsi_error(zs_status status, const char *fmt, ...) ZSI_PRINTF(2, 3);
/* Prefix the current message with "context: " (e.g. the file name) and return `status`. */
ZSI_HIDDEN zs_status zsi_error_prefix(zs_status status, const char *fmt, ...) ZSI_PRINTF(2, 3);
ZSI_HIDDEN void zsi_error_clear(void);
/* ZS_ERR_OUT_OF_MEMORY with the message "<what>: out of memory (<size>)"; `what` names the
 * operation and the object, e.g. "zs_encode csr: array 'values'". Every allocation failure's
 * message holds "out of memory" (zsi_error adds it where a site's text lacks it). */
ZSI_HIDDEN zs_status zsi_oom(const char *what, uint64_t bytes);
/* Callback handed to backends (zsb_error_fn). */
ZSI_HIDDEN void zsi_backend_error(zs_status status, const char *message);

/* ---- checked arithmetic: return false on overflow ---- */
static inline bool zsi_mul_u64(uint64_t a, uint64_t b, uint64_t *out) {
  return !__builtin_mul_overflow(a, b, out);
}
static inline bool zsi_add_u64(uint64_t a, uint64_t b, uint64_t *out) {
  return !__builtin_add_overflow(a, b, out);
}

/* ---- memory: 64-byte aligned, zero on failure ---- */
ZSI_HIDDEN void *zsi_alloc(uint64_t bytes); /* NULL on failure or overflow */
ZSI_HIDDEN void *zsi_alloc_array(uint64_t count, uint64_t elem_size);
ZSI_HIDDEN void zsi_free(void *p);
/* An aligned copy of `count` elements of elem_size bytes (a valid block even for 0), or NULL. */
static inline void *zsi_copy_array(const void *src, uint64_t count, uint64_t elem_size) {
  void *p = zsi_alloc_array(count ? count : 1, elem_size);
  if (p && count) __builtin_memcpy(p, src, (size_t)(count * elem_size));
  return p;
}
/* Bytes the system can still give (Linux: MemAvailable + SwapFree), UINT64_MAX when unknown.
 * zsi_alloc refuses a single allocation of 1 GiB or more beyond it. */
ZSI_HIDDEN uint64_t zsi_memory_available(void);

/* ---- matrix (core/matrix.c) ---- */
struct zs_matrix {
  int64_t rows, cols, nnz;
  zs_type type;
  int64_t *row_ptr; /* rows + 1 */
  int32_t *col_idx; /* nnz, ascending within a row, no duplicates */
  void *values;     /* nnz of type */
};
/* An empty matrix with allocated arrays of the given sizes (row_ptr zeroed). */
ZSI_HIDDEN zs_status zsi_matrix_alloc(zs_matrix **out, int64_t rows, int64_t cols, int64_t nnz,
                                      zs_type type);

static inline double zsi_value_get(zs_type t, const void *v, int64_t i) {
  return t == ZS_F64 ? ((const double *)v)[i] : (double)((const float *)v)[i];
}

/* ---- encoded matrices (core/encoded.c) ---- */
#define ZSI_NAME_MAX 31
#define ZSI_MAX_ARRAYS 64
#define ZSI_MAX_PARAMS 64

typedef struct zsi_array {
  char name[ZSI_NAME_MAX + 1];
  uint32_t elem_size;
  uint64_t count;
  void *data; /* owned, 64-byte aligned */
} zsi_array;

typedef struct zsi_param {
  char name[ZSI_NAME_MAX + 1];
  int64_t value;
} zsi_param;

struct zs_encoded {
  zs_format format;
  zs_type type;
  int64_t rows, cols, nnz;
  int n_arrays, n_params;
  zsi_array arrays[ZSI_MAX_ARRAYS];
  zsi_param params[ZSI_MAX_PARAMS];
  char *note;    /* what chose the format (ZS_FORMAT_AUTO), or NULL; kept in .zsm files */
  char *options; /* the encoder options zs_encode was given, or NULL: a stored transpose is
                    encoded with them (core/runtime/operator.c); kept in .zsm files */
};
/* Replace E's note with a copy of `note` (ZS_ERR_OUT_OF_MEMORY). */
ZSI_HIDDEN zs_status zsi_encoded_set_note(zs_encoded *E, const char *note);
/* Aᵀ in E's format, encoded with E's encoder options (transpose=stored; core/runtime/operator.c). */
ZSI_HIDDEN zs_status zsi_encode_transpose(const zs_encoded *E, zs_encoded **out);
/* zs_encode's ZS_FORMAT_AUTO (core/auto/auto_plan.c). */
ZSI_HIDDEN zs_status zsi_auto_encode(const zs_matrix *A, const char *options, zs_encoded **out);

ZSI_HIDDEN zs_status zsi_encoded_new(zs_encoded **out, zs_format format, zs_type type, int64_t rows,
                                     int64_t cols, int64_t nnz);
/* Add an array of `count` elements; *data receives the zeroed, owned storage. */
ZSI_HIDDEN zs_status zsi_encoded_add_array(zs_encoded *E, const char *name, uint32_t elem_size,
                                           uint64_t count, void **data);
ZSI_HIDDEN zs_status zsi_encoded_add_param(zs_encoded *E, const char *name, int64_t value);
ZSI_HIDDEN const zsi_array *zsi_encoded_array(const zs_encoded *E, const char *name);
/* Fetch a required array with the expected element size and count, or fail (ZS_ERR_CORRUPT
 * naming the array). */
ZSI_HIDDEN zs_status zsi_encoded_need(const zs_encoded *E, const char *name, uint32_t elem_size,
                                      uint64_t count, const void **data);
/* Rebuild an encoded matrix from a backend's view, validate it and decode it with the format's
 * reference decoder (the ref backend's path for every compressed format). */
ZSI_HIDDEN zs_status zsi_view_decode(const zsb_encoded_view *view, const char *backend,
                                     zs_matrix **out);
/* A plain view for backends; `arrays` and `params` must have room for E's counts. */
ZSI_HIDDEN void zsi_encoded_view(const zs_encoded *E, zsb_encoded_view *view, zsb_array *arrays,
                                 zsb_param *params);
/* E as a view with its own storage: what a format's layout parser (formats/<fmt>/<fmt>_layout.h)
 * reads, in the library as in the backends. */
typedef struct zsi_view_buf {
  zsb_encoded_view view;
  zsb_array arrays[ZSI_MAX_ARRAYS];
  zsb_param params[ZSI_MAX_PARAMS];
} zsi_view_buf;
ZSI_HIDDEN const zsb_encoded_view *zsi_encoded_as_view(const zs_encoded *E, zsi_view_buf *buf);

/* ---- formats (formats/<fmt>/, registered in core/formats.c) ---- */
typedef struct zsi_format_ops {
  zs_format id;
  const char *name;
  zs_status (*encode)(const zs_matrix *A, const char *options, zs_encoded **out);
  /* Check every array and parameter so decoders and kernels can trust E afterwards. */
  zs_status (*validate)(const zs_encoded *E);
  zs_status (*decode)(const zs_encoded *E, zs_matrix **out);
  /* Optional: format-specific figures for `zsparse info` (sizes, shares, entropies). */
  void (*stats)(const zs_encoded *E, zs_stat_fn emit, void *ctx);
} zsi_format_ops;
ZSI_HIDDEN const zsi_format_ops *zsi_format_lookup(zs_format id);
/* ZS_ERR_UNSUPPORTED for a format with no entry in the table, prefix (may be "") first. */
ZSI_HIDDEN zs_status zsi_format_absent(zs_format id, const char *prefix);

/* ---- "key=value,key=value" option strings (core/options.c) ---- */
/* Each key at most once (a repeated key is ZS_ERR_INVALID_ARGUMENT naming it); numbers in
 * decimal only. */
/* Find `key` in opts and parse it as a decimal integer in [lo, hi]; *found = 0 when absent. */
ZSI_HIDDEN zs_status zsi_option_int(const char *opts, const char *key, int64_t lo, int64_t hi,
                                    int64_t *value, int *found);
/* Find `key` and parse it as a finite decimal number (no hex, inf or nan); *found = 0 when
 * absent. Range checks are the caller's. */
ZSI_HIDDEN zs_status zsi_option_double(const char *opts, const char *key, double *value,
                                       int *found);
/* Copy the value of `key` (at most len - 1 chars); *found = 0 when absent. */
ZSI_HIDDEN zs_status zsi_option_str(const char *opts, const char *key, char *buf, size_t len,
                                    int *found);
/* Fail with ZS_ERR_INVALID_ARGUMENT naming the first key not in the NULL-terminated list, or
 * the first key given twice. */
ZSI_HIDDEN zs_status zsi_option_check(const char *opts, const char *const *known, const char *what);

/* ---- progress line on stderr (core/runtime/progress.c) ---- */
typedef struct zsi_progress {
  const char *what;
  uint64_t total;
  double start, last;
  int enabled, shown;
} zsi_progress;
/* Shown only when enabled, stderr is a terminal, and the work has run for over a second. */
ZSI_HIDDEN void zsi_progress_begin(zsi_progress *p, const char *what, uint64_t total, int enabled);
ZSI_HIDDEN void zsi_progress_update(zsi_progress *p, uint64_t done);
ZSI_HIDDEN void zsi_progress_end(zsi_progress *p);
ZSI_HIDDEN double zsi_now(void); /* monotonic seconds */

/* Threads from $ZS_NUM_THREADS when it holds 1..4096, else `fallback` (core/runtime/discovery.c;
 * a malformed value is reported on stderr once per call). */
ZSI_HIDDEN int zsi_threads_from_env(int fallback);

/* ---- built-in backends ---- */
ZSI_HIDDEN const zsb_backend *zsi_backend_ref(void);
ZSI_HIDDEN const zsb_backend *zsi_backend_cpu(void);

#endif /* ZS_INTERNAL_H */
