/* format_layout.h — checked lookups of a zsb_encoded_view's arrays and parameters, shared by the
 * formats' typed layouts (formats/<fmt>/<fmt>_layout.h). Header-only C11 that also compiles as
 * C++17, so the GPU modules, which link nothing from the library, read a blob as the library does. */
#ifndef ZS_FORMAT_LAYOUT_H
#define ZS_FORMAT_LAYOUT_H

#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "zsparse_backend.h"

#define ZSI_LAYOUT_ANY UINT64_MAX     /* an array of any number of elements */
#define ZSI_LAYOUT_REQUIRED INT64_MIN /* a parameter without default */
#define ZSI_LAYOUT_WHY 256            /* room enough for any layout's message */

/* Where a parse is: the view, the format's name (every message starts with it) and where the
 * message of the first failure goes. */
typedef struct zsi_layout_ctx {
  const zsb_encoded_view *view;
  const char *format;
  char *why;
  size_t why_len;
} zsi_layout_ctx;

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static inline zs_status
zsi_layout_fail(const zsi_layout_ctx *c, zs_status status, const char *fmt, ...) {
  if (c->why && c->why_len) {
    const int n = snprintf(c->why, c->why_len, "%s: ", c->format);
    va_list ap;
    va_start(ap, fmt);
    if (n >= 0 && (size_t)n < c->why_len) vsnprintf(c->why + n, c->why_len - (size_t)n, fmt, ap);
    va_end(ap);
  }
  return status;
}

/* Array `name` with elements of elem_size bytes and `count` of them (ZSI_LAYOUT_ANY: any count).
 * Absent: ZS_ERR_CORRUPT when required, else ZS_OK with *data = NULL and *n = 0. n may be NULL. */
static inline zs_status zsi_layout_array(const zsi_layout_ctx *c, const char *name,
                                         uint32_t elem_size, uint64_t count, int required,
                                         const void **data, uint64_t *n) {
  const zsb_array *a = zsb_find_array(c->view, name);
  *data = NULL;
  if (n) *n = 0;
  if (!a)
    return required ? zsi_layout_fail(c, ZS_ERR_CORRUPT, "array '%s' is missing", name) : ZS_OK;
  if (a->elem_size != elem_size)
    return zsi_layout_fail(c, ZS_ERR_CORRUPT, "array '%s' has %u-byte elements, expected %u", name,
                           a->elem_size, elem_size);
  if (count != ZSI_LAYOUT_ANY && a->count != count)
    return zsi_layout_fail(c, ZS_ERR_CORRUPT,
                           "array '%s' has %" PRIu64 " elements, expected %" PRIu64, name, a->count,
                           count);
  *data = a->data;
  if (n) *n = a->count;
  return ZS_OK;
}

/* Integer parameter `name` in [lo, hi]; absent: `fallback`, or ZS_ERR_CORRUPT when that is
 * ZSI_LAYOUT_REQUIRED. */
static inline zs_status zsi_layout_param(const zsi_layout_ctx *c, const char *name, int64_t lo,
                                         int64_t hi, int64_t fallback, int64_t *out) {
  const int64_t v = zsb_find_param(c->view, name, fallback);
  if (v == ZSI_LAYOUT_REQUIRED)
    return zsi_layout_fail(c, ZS_ERR_CORRUPT, "parameter '%s' is missing", name);
  if (v < lo || v > hi)
    return zsi_layout_fail(c, ZS_ERR_CORRUPT,
                           "parameter '%s' = %" PRId64 " is not in [%" PRId64 ", %" PRId64 "]",
                           name, v, lo, hi);
  *out = v;
  return ZS_OK;
}

/* Bytes of one value of type t (0 for an unknown type): zs_type_size without linking it. */
static inline uint32_t zsi_layout_value_bytes(zs_type t) {
  return t == ZS_F64 ? 8u : t == ZS_F32 ? 4u : 0u;
}

/* Zero the layout (`size` bytes at `layout`) and copy the view's sizes into its first fields;
 * ZS_ERR_CORRUPT for a value type other than f32 and f64. */
static inline zs_status zsi_layout_begin(const zsi_layout_ctx *c, void *layout, size_t size,
                                         int64_t *rows, int64_t *cols, int64_t *nnz, zs_type *type,
                                         uint32_t *value_bytes) {
  memset(layout, 0, size);
  *rows = c->view->rows, *cols = c->view->cols, *nnz = c->view->nnz, *type = c->view->type;
  *value_bytes = zsi_layout_value_bytes(c->view->type);
  if (!*value_bytes)
    return zsi_layout_fail(c, ZS_ERR_CORRUPT, "value type %d is not f32 or f64", c->view->type);
  return ZS_OK;
}

/* The opening of every format's parser, `<fmt>_layout_parse(v, L, why, why_len)`: declares the
 * parse's context `c` (its messages start with `name`) and status `s`, zeroes *L and copies the
 * view's sizes and value type into it (zsi_layout_begin), and returns the status from the parser
 * when that fails, as zstd's CHECK_F does. L's type has the fields rows, cols, nnz, type and
 * value_bytes. */
#define ZSI_LAYOUT_OPEN(c, s, v, L, name, why, why_len)                                   \
  const zsi_layout_ctx c = {(v), (name), (why), (why_len)};                               \
  zs_status s = zsi_layout_begin(&c, (L), sizeof *(L), &(L)->rows, &(L)->cols, &(L)->nnz, \
                                 &(L)->type, &(L)->value_bytes);                          \
  if (s != ZS_OK) return s

/* The arrays of a plain format: its row index (`rows_name` of rows_bytes bytes, rows_count of
 * them), then col_idx and values, one per nonzero. */
static inline zs_status zsi_layout_plain(const zsi_layout_ctx *c, const char *rows_name,
                                         uint32_t rows_bytes, uint64_t rows_count,
                                         const void **rows, const int32_t **col_idx,
                                         const void **values) {
  const uint64_t nnz = (uint64_t)c->view->nnz;
  zs_status s;
  if ((s = zsi_layout_array(c, rows_name, rows_bytes, rows_count, 1, rows, NULL)) ||
      (s = zsi_layout_array(c, "col_idx", 4, nnz, 1, (const void **)col_idx, NULL)))
    return s;
  return zsi_layout_array(c, "values", zsi_layout_value_bytes(c->view->type), nnz, 1, values, NULL);
}

#endif
