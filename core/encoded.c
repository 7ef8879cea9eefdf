/* encoded.c — zs_encoded: a format id, sizes, named typed arrays and integer parameters. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/zs_internal.h"

zs_status zsi_encoded_new(zs_encoded **out, zs_format format, zs_type type, int64_t rows,
                          int64_t cols, int64_t nnz) {
  zs_encoded *E = calloc(1, sizeof *E);
  if (!E) return zsi_error(ZS_ERR_OUT_OF_MEMORY, "encoded matrix header");
  E->format = format, E->type = type, E->rows = rows, E->cols = cols, E->nnz = nnz;
  *out = E;
  return ZS_OK;
}

void zs_encoded_destroy(zs_encoded **E) {
  if (!E || !*E) return;
  for (int i = 0; i < (*E)->n_arrays; i++) zsi_free((*E)->arrays[i].data);
  free((*E)->note);
  free((*E)->options);
  free(*E);
  *E = NULL;
}

/* Out of memory for `count` elements of an array of a `format` matrix. */
static zs_status array_oom(zs_format format, const char *doing, const char *name, uint64_t count,
                           uint32_t elem_size) {
  const char *f = zs_format_name(format);
  char what[160];
  snprintf(what, sizeof what, "%s%s array '%s' of %" PRIu64 " x %u bytes", doing, f ? f : "?", name,
           count, elem_size);
  uint64_t bytes;
  return zsi_oom(what, zsi_mul_u64(count, elem_size, &bytes) ? bytes : UINT64_MAX);
}

zs_status zsi_encoded_add_array(zs_encoded *E, const char *name, uint32_t elem_size, uint64_t count,
                                void **data) {
  if (E->n_arrays == ZSI_MAX_ARRAYS || strlen(name) > ZSI_NAME_MAX || elem_size == 0)
    return zsi_error(ZS_ERR_INTERNAL, "cannot add array '%s'", name);
  void *p = zsi_alloc_array(count, elem_size);
  if (!p) return array_oom(E->format, "", name, count, elem_size);
  zsi_array *a = &E->arrays[E->n_arrays++];
  strcpy(a->name, name);
  a->elem_size = elem_size, a->count = count, a->data = p;
  if (data) *data = p;
  return ZS_OK;
}

zs_status zsi_encoded_set_note(zs_encoded *E, const char *note) {
  char *copy = malloc(strlen(note) + 1);
  if (!copy) return zsi_oom("encoded matrix note", strlen(note) + 1);
  strcpy(copy, note);
  free(E->note);
  E->note = copy;
  return ZS_OK;
}

const char *zs_encoded_note(const zs_encoded *E) { return E ? (E->note ? E->note : "") : NULL; }

const char *zs_encoded_options(const zs_encoded *E) {
  return E ? (E->options ? E->options : "") : NULL;
}

zs_status zsi_encoded_add_param(zs_encoded *E, const char *name, int64_t value) {
  if (E->n_params == ZSI_MAX_PARAMS || strlen(name) > ZSI_NAME_MAX)
    return zsi_error(ZS_ERR_INTERNAL, "cannot add parameter '%s'", name);
  zsi_param *p = &E->params[E->n_params++];
  strcpy(p->name, name);
  p->value = value;
  return ZS_OK;
}

const zsi_array *zsi_encoded_array(const zs_encoded *E, const char *name) {
  for (int i = 0; i < E->n_arrays; i++)
    if (strcmp(E->arrays[i].name, name) == 0) return &E->arrays[i];
  return NULL;
}

zs_status zsi_encoded_need(const zs_encoded *E, const char *name, uint32_t elem_size,
                           uint64_t count, const void **data) {
  const zsi_array *a = zsi_encoded_array(E, name);
  if (!a) return zsi_error(ZS_ERR_CORRUPT, "array '%s' is missing", name);
  if (a->elem_size != elem_size)
    return zsi_error(ZS_ERR_CORRUPT, "array '%s' has %u-byte elements, expected %u", name,
                     a->elem_size, elem_size);
  if (a->count != count)
    return zsi_error(ZS_ERR_CORRUPT, "array '%s' has %" PRIu64 " elements, expected %" PRIu64, name,
                     a->count, count);
  *data = a->data;
  return ZS_OK;
}

void zsi_encoded_view(const zs_encoded *E, zsb_encoded_view *view, zsb_array *arrays,
                      zsb_param *params) {
  for (int i = 0; i < E->n_arrays; i++)
    arrays[i] = (zsb_array){E->arrays[i].name, E->arrays[i].data, E->arrays[i].count,
                            E->arrays[i].elem_size};
  for (int i = 0; i < E->n_params; i++)
    params[i] = (zsb_param){E->params[i].name, E->params[i].value};
  *view = (zsb_encoded_view){E->format,   E->type, E->rows,     E->cols, E->nnz,
                             E->n_arrays, arrays,  E->n_params, params};
}

const zsb_encoded_view *zsi_encoded_as_view(const zs_encoded *E, zsi_view_buf *buf) {
  zsi_encoded_view(E, &buf->view, buf->arrays, buf->params);
  return &buf->view;
}

zs_status zsi_view_decode(const zsb_encoded_view *view, const char *backend, zs_matrix **out) {
  const zsi_format_ops *f = zsi_format_lookup(view->format);
  if (!f) {
    char prefix[64];
    snprintf(prefix, sizeof prefix, "backend '%.40s': ", backend);
    return zsi_format_absent(view->format, prefix);
  }
  zs_encoded *E = NULL;
  zs_status s = zsi_encoded_new(&E, view->format, view->type, view->rows, view->cols, view->nnz);
  for (int i = 0; s == ZS_OK && i < view->n_arrays; i++) {
    const zsb_array *a = &view->arrays[i];
    void *data = NULL;
    s = zsi_encoded_add_array(E, a->name, a->elem_size, a->count, &data);
    if (s == ZS_OK && a->count) memcpy(data, a->data, (size_t)(a->count * a->elem_size));
  }
  for (int i = 0; s == ZS_OK && i < view->n_params; i++)
    s = zsi_encoded_add_param(E, view->params[i].name, view->params[i].value);
  if (s == ZS_OK) s = f->validate(E);
  if (s == ZS_OK) s = f->decode(E, out);
  zs_encoded_destroy(&E);
  return s;
}

/* The getters answer 0 for a NULL E, as the header documents. */
zs_format zs_encoded_format(const zs_encoded *E) { return E ? E->format : (zs_format)0; }
zs_type zs_encoded_type(const zs_encoded *E) { return E ? E->type : (zs_type)0; }
int64_t zs_encoded_rows(const zs_encoded *E) { return E ? E->rows : 0; }
int64_t zs_encoded_cols(const zs_encoded *E) { return E ? E->cols : 0; }
int64_t zs_encoded_nnz(const zs_encoded *E) { return E ? E->nnz : 0; }
int zs_encoded_array_count(const zs_encoded *E) { return E ? E->n_arrays : 0; }
int zs_encoded_param_count(const zs_encoded *E) { return E ? E->n_params : 0; }

uint64_t zs_encoded_bytes(const zs_encoded *E) {
  uint64_t total = 0;
  for (int i = 0; E && i < E->n_arrays; i++) total += E->arrays[i].count * E->arrays[i].elem_size;
  return total;
}

zs_status zs_encoded_array_info(const zs_encoded *E, int i, const char **name, size_t *elem_size,
                                uint64_t *count) {
  if (!E) return zsi_error(ZS_ERR_INVALID_ARGUMENT, "zs_encoded_array_info: E is NULL");
  if (i < 0 || i >= E->n_arrays)
    return zsi_error(ZS_ERR_INVALID_ARGUMENT,
                     "zs_encoded_array_info: array index %d is outside [0, %d)", i, E->n_arrays);
  if (name) *name = E->arrays[i].name;
  if (elem_size) *elem_size = E->arrays[i].elem_size;
  if (count) *count = E->arrays[i].count;
  return ZS_OK;
}

zs_status zs_encoded_param_info(const zs_encoded *E, int i, const char **name, int64_t *value) {
  if (!E) return zsi_error(ZS_ERR_INVALID_ARGUMENT, "zs_encoded_param_info: E is NULL");
  if (i < 0 || i >= E->n_params)
    return zsi_error(ZS_ERR_INVALID_ARGUMENT,
                     "zs_encoded_param_info: parameter index %d is outside [0, %d)", i,
                     E->n_params);
  if (name) *name = E->params[i].name;
  if (value) *value = E->params[i].value;
  return ZS_OK;
}

zs_status zs_encode(zs_encoded **out, const zs_matrix *A, zs_format format, const char *options) {
  if (!out || !A) return zsi_error(ZS_ERR_INVALID_ARGUMENT, "zs_encode: out or A is NULL");
  if (format == ZS_FORMAT_AUTO) return zsi_auto_encode(A, options, out);
  const zsi_format_ops *f = zsi_format_lookup(format);
  if (!f) return zsi_format_absent(format, "zs_encode: ");
  zs_status s = f->encode(A, options, out);
  /* Deep inside an encoder an allocation cannot say which call it serves. */
  if (s == ZS_ERR_OUT_OF_MEMORY) return zsi_error_prefix(s, "zs_encode %s", f->name);
  if (s == ZS_OK && options && options[0]) { /* kept for a stored transpose */
    const size_t n = strlen(options) + 1;
    if (!((*out)->options = malloc(n))) {
      zs_encoded_destroy(out);
      return zsi_oom("zs_encode: the options kept", n);
    }
    memcpy((*out)->options, options, n);
  }
  return s;
}

zs_status zs_encoded_stats(const zs_encoded *E, zs_stat_fn fn, void *ctx) {
  if (!E || !fn) return zsi_error(ZS_ERR_INVALID_ARGUMENT, "zs_encoded_stats: E or fn is NULL");
  const zsi_format_ops *f = zsi_format_lookup(E->format);
  if (!f) return zsi_format_absent(E->format, "");
  if (f->stats) f->stats(E, fn, ctx);
  return ZS_OK;
}

zs_status zs_decode(zs_matrix **out, const zs_encoded *E) {
  if (!out || !E) return zsi_error(ZS_ERR_INVALID_ARGUMENT, "zs_decode: out or E is NULL");
  const zsi_format_ops *f = zsi_format_lookup(E->format);
  if (!f) return zsi_format_absent(E->format, "");
  const zs_status s = f->decode(E, out);
  if (s == ZS_ERR_OUT_OF_MEMORY) return zsi_error_prefix(s, "zs_decode %s", f->name);
  return s;
}
