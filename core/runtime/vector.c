/* vector.c — zs_vector: an array of one value type resident on one backend, and BLAS-1. */
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/runtime/runtime.h"

struct zs_vector {
  const zsi_backend_slot *slot; /* its context's backend: functions and state */
  const zsb_backend *be;        /* slot->ops */
  zs_type type;
  int64_t n;
  void *data;
  int wrapped; /* data is the caller's (zs_vector_wrap): never freed here */
};

/* A vector header for zs_vector_create and zs_vector_wrap (fn names which): arguments checked,
 * the backend looked up; the caller sets data. */
static zs_status new_header(zs_vector **v, zs_vector **out, zs_context *ctx, const char *backend,
                            zs_type type, int64_t n, const char *fn) {
  if (!out || !ctx) return zsi_error(ZS_ERR_INVALID_ARGUMENT, "%s: out or ctx is NULL", fn);
  if (type != ZS_F32 && type != ZS_F64)
    return zsi_error(ZS_ERR_INVALID_ARGUMENT, "%s: value type %d is invalid", fn, (int)type);
  if (n < 0 || n > ZS_MAX_DIM)
    return zsi_error(ZS_ERR_OVERFLOW, "vector length %" PRId64 " outside [0, 2^31-1]", n);
  const zsi_backend_slot *b;
  zs_status s = zsi_backend_get(ctx, backend, &b);
  if (s != ZS_OK) return s;
  if (!(*v = calloc(1, sizeof **v))) return zsi_error(ZS_ERR_OUT_OF_MEMORY, "vector header");
  (*v)->slot = b, (*v)->be = b->ops, (*v)->type = type, (*v)->n = n;
  return ZS_OK;
}

zs_status zs_vector_create(zs_vector **out, zs_context *ctx, const char *backend, zs_type type,
                           int64_t n) {
  zs_vector *v;
  zs_status s = new_header(&v, out, ctx, backend, type, n, "zs_vector_create");
  if (s != ZS_OK) return s;
  if ((s = v->be->alloc(v->slot->self, &v->data, (size_t)n * zs_type_size(type))) != ZS_OK) {
    free(v);
    return s;
  }
  *out = v;
  return ZS_OK;
}

/* Caller memory can stand for a backend's vector memory only where that memory is the host's;
 * elements are read as whole values, so they must sit at multiples of their size. */
static zs_status check_wrap(const zs_vector *v, const void *data, const char *fn) {
  if (!data && v->n)
    return zsi_error(ZS_ERR_INVALID_ARGUMENT, "%s: data is NULL for %" PRId64 " elements", fn,
                     v->n);
  const size_t align = zs_type_size(v->type);
  if ((uintptr_t)data % align)
    return zsi_error(ZS_ERR_INVALID_ARGUMENT,
                     "%s: data at %p is not aligned to its %zu-byte %s elements", fn, data, align,
                     zs_type_name(v->type));
  return ZS_OK;
}

zs_status zs_vector_wrap(zs_vector **out, zs_context *ctx, const char *backend, zs_type type,
                         int64_t n, void *data) {
  zs_vector *v;
  zs_status s = new_header(&v, out, ctx, backend, type, n, "zs_vector_wrap");
  if (s != ZS_OK) return s;
  if (!v->be->extension || !v->be->extension(v->slot->self, ZSB_EXT_HOST_MEMORY))
    s = zsi_error(ZS_ERR_UNSUPPORTED,
                  "zs_vector_wrap: backend '%s' keeps vectors in device memory; create a vector "
                  "and upload to it instead",
                  v->be->name);
  else
    s = check_wrap(v, data, "zs_vector_wrap");
  if (s != ZS_OK) {
    free(v);
    return s;
  }
  v->data = data, v->wrapped = 1;
  *out = v;
  return ZS_OK;
}

zs_status zs_vector_rewrap(zs_vector *v, void *data) {
  if (!v) return zsi_error(ZS_ERR_INVALID_ARGUMENT, "zs_vector_rewrap: NULL vector");
  if (!v->wrapped)
    return zsi_error(ZS_ERR_INVALID_ARGUMENT,
                     "zs_vector_rewrap: the vector owns its memory (zs_vector_create); only a "
                     "vector made by zs_vector_wrap takes other memory");
  zs_status s = check_wrap(v, data, "zs_vector_rewrap");
  if (s == ZS_OK) v->data = data;
  return s;
}

void zs_vector_destroy(zs_vector **v) {
  if (!v || !*v) return;
  if (!(*v)->wrapped) (*v)->be->free((*v)->slot->self, (*v)->data);
  free(*v);
  *v = NULL;
}

int64_t zs_vector_size(const zs_vector *v) { return v ? v->n : 0; }
zs_type zs_vector_type(const zs_vector *v) { return v ? v->type : (zs_type)0; }

static size_t bytes_of(const zs_vector *v) { return (size_t)v->n * zs_type_size(v->type); }

/* Internal: the backend and data pointer of a vector, for operators. */
const zsi_backend_slot *zsi_vector_backend(const zs_vector *v) { return v->slot; }
void *zsi_vector_data(const zs_vector *v) { return v->data; }

/* Wrapped vectors may share storage in part (views of one array); a backend's own allocations
 * never do, so comparing ranges is exact for both. Empty vectors hold no storage. */
int zsi_vector_overlap(const zs_vector *a, const zs_vector *b) {
  if (!a->n || !b->n) return 0;
  const uintptr_t a0 = (uintptr_t)a->data, b0 = (uintptr_t)b->data;
  return a0 < b0 + (uintptr_t)bytes_of(b) && b0 < a0 + (uintptr_t)bytes_of(a);
}

zs_status zs_vector_upload(zs_vector *v, const void *host) {
  if (!v || (!host && v->n))
    return zsi_error(ZS_ERR_INVALID_ARGUMENT, "zs_vector_upload: NULL argument");
  return v->be->upload(v->slot->self, v->data, host, bytes_of(v));
}

zs_status zs_vector_download(const zs_vector *v, void *host) {
  if (!v || (!host && v->n))
    return zsi_error(ZS_ERR_INVALID_ARGUMENT, "zs_vector_download: NULL argument");
  return v->be->download(v->slot->self, host, v->data, bytes_of(v));
}

zs_status zs_vector_fill(zs_vector *v, double value) {
  if (!v) return zsi_error(ZS_ERR_INVALID_ARGUMENT, "zs_vector_fill: NULL vector");
  return v->be->fill(v->slot->self, v->type, v->data, v->n, value);
}

static zs_status same_shape(const zs_vector *a, const zs_vector *b, const char *what) {
  if (!a || !b) return zsi_error(ZS_ERR_INVALID_ARGUMENT, "%s: NULL vector", what);
  if (a->slot != b->slot)
    return zsi_error(
        ZS_ERR_INVALID_ARGUMENT, "%s: vectors live on backends '%s' and '%s'%s", what, a->be->name,
        b->be->name,
        a->be == b->be ? " of different contexts (a context's vectors stay in it)" : "");
  if (a->type != b->type || a->n != b->n)
    return zsi_error(ZS_ERR_INVALID_ARGUMENT,
                     "%s: vectors differ (%s[%" PRId64 "] vs %s[%" PRId64 "])", what,
                     zs_type_name(a->type), a->n, zs_type_name(b->type), b->n);
  return ZS_OK;
}

/* Element-wise updates of y from x are well defined when x is y or apart from it; wrapped views
 * that overlap in part would depend on the order the elements are visited in. */
static zs_status apart_or_same(const zs_vector *x, const zs_vector *y, const char *what) {
  if (x->data != y->data && zsi_vector_overlap(x, y))
    return zsi_error(ZS_ERR_INVALID_ARGUMENT, "%s: the vectors overlap in part", what);
  return ZS_OK;
}

zs_status zs_vector_copy(zs_vector *dst, const zs_vector *src) {
  zs_status s = same_shape(dst, src, "zs_vector_copy");
  if (s == ZS_OK) s = apart_or_same(src, dst, "zs_vector_copy");
  if (s != ZS_OK || dst->data == src->data) return s;
  return dst->be->copy(dst->slot->self, dst->data, src->data, bytes_of(dst));
}

zs_status zs_vector_dot(const zs_vector *x, const zs_vector *y, double *out) {
  zs_status s = same_shape(x, y, "zs_vector_dot");
  if (s != ZS_OK) return s;
  if (!out) return zsi_error(ZS_ERR_INVALID_ARGUMENT, "zs_vector_dot: out is NULL");
  return x->be->dot(x->slot->self, x->type, x->n, x->data, y->data, out);
}

zs_status zs_vector_nrm2(const zs_vector *x, double *out) {
  if (!x || !out) return zsi_error(ZS_ERR_INVALID_ARGUMENT, "zs_vector_nrm2: x or out is NULL");
  double d;
  zs_status s = x->be->dot(x->slot->self, x->type, x->n, x->data, x->data, &d);
  if (s == ZS_OK) *out = sqrt(d);
  return s;
}

zs_status zs_vector_axpby(double alpha, const zs_vector *x, double beta, zs_vector *y) {
  zs_status s = same_shape(x, y, "zs_vector_axpby");
  if (s == ZS_OK) s = apart_or_same(x, y, "zs_vector_axpby");
  if (s != ZS_OK) return s;
  return y->be->axpby(y->slot->self, y->type, y->n, alpha, x->data, beta, y->data);
}

/* Backends that fuse the BiCG updates say so through an extension table. */
static const zsb_fused_blas1 *fused_blas1(const zs_vector *v) {
  return v->be->extension ? v->be->extension(v->slot->self, ZSB_EXT_FUSED_BLAS1) : NULL;
}

/* Every vector of a fused update on one backend, of one shape; the written ones distinct. */
static zs_status fused_args(const char *what, const zs_vector *const *v, int count, int written) {
  for (int i = 1; i < count; i++) {
    zs_status s = same_shape(v[0], v[i], what);
    if (s != ZS_OK) return s;
  }
  for (int i = 0; i < written; i++)
    for (int j = 0; j < count; j++)
      if (i != j && (v[i] == v[j] || zsi_vector_overlap(v[i], v[j])))
        return zsi_error(ZS_ERR_INVALID_ARGUMENT,
                         "%s: vector argument %d is also argument %d (written vectors must be "
                         "distinct)",
                         what, i + 1, j + 1);
  return ZS_OK;
}

zs_status zs_vector_residual_update(double alpha, const zs_vector *q, zs_vector *r,
                                    const zs_vector *t, zs_vector *s, double *rs, double *rr) {
  const zs_vector *v[4] = {r, s, q, t};
  zs_status st = fused_args("zs_vector_residual_update", v, 4, 2);
  if (st != ZS_OK) return st;
  const zsb_fused_blas1 *f = fused_blas1(r);
  double out[2];
  if (f) {
    st = f->residual_update(r->slot->self, r->type, r->n, alpha, q->data, r->data, t->data, s->data,
                            out);
  } else if ((st = zs_vector_axpby(-alpha, q, 1.0, r)) == ZS_OK &&
             (st = zs_vector_axpby(-alpha, t, 1.0, s)) == ZS_OK &&
             (st = rs ? zs_vector_dot(r, s, &out[0]) : ZS_OK) == ZS_OK) {
    st = rr ? zs_vector_dot(r, r, &out[1]) : ZS_OK;
  }
  if (st == ZS_OK && rs) *rs = out[0];
  if (st == ZS_OK && rr) *rr = out[1];
  return st;
}

zs_status zs_vector_direction_update(double alpha, zs_vector *p, zs_vector *x, double beta,
                                     const zs_vector *z, const zs_vector *zt, zs_vector *pt) {
  const zs_vector *v[5] = {p, x, pt, z, zt};
  zs_status st = fused_args("zs_vector_direction_update", v, 5, 3);
  if (st != ZS_OK) return st;
  const zsb_fused_blas1 *f = fused_blas1(p);
  if (f)
    return f->direction_update(p->slot->self, p->type, p->n, alpha, p->data, x->data, beta, z->data,
                               zt->data, pt->data);
  if ((st = zs_vector_axpby(alpha, p, 1.0, x)) != ZS_OK ||
      (st = zs_vector_axpby(1.0, z, beta, p)) != ZS_OK)
    return st;
  return zs_vector_axpby(1.0, zt, beta, pt);
}
