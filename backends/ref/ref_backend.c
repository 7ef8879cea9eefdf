/* ref_backend.c — the scalar single-threaded oracle: memory, BLAS-1 and the operator table. */
#include <stdio.h>
#include <string.h>

#include "backends/ref/ref_kernels.h"

typedef struct ref_handle {
  const zsi_ref_kernel *k;
  void *state;
} ref_handle;

/* The oracle keeps no state: every call works on its arguments alone. */
static zs_status ref_init(void **self, const zsb_init_args *args, char *why, size_t why_len) {
  (void)args;
  *self = NULL;
  snprintf(why, why_len, "scalar single-thread oracle");
  return ZS_OK;
}

static void ref_fini(void *self) { (void)self; }

static zs_status ref_alloc(void *self, void **ptr, size_t bytes) {
  (void)self;
  if (!(*ptr = zsi_alloc(bytes)))
    return zsi_error(ZS_ERR_OUT_OF_MEMORY, "backend 'ref': cannot allocate %zu bytes", bytes);
  return ZS_OK;
}

static void ref_free(void *self, void *ptr) {
  (void)self;
  zsi_free(ptr);
}

static zs_status ref_memcpy(void *self, void *dst, const void *src, size_t bytes) {
  (void)self;
  if (bytes) memcpy(dst, src, bytes);
  return ZS_OK;
}

static zs_status ref_fill(void *self, zs_type type, void *x, int64_t n, double value) {
  (void)self;
  if (type == ZS_F32)
    for (int64_t i = 0; i < n; i++) ((float *)x)[i] = (float)value;
  else
    for (int64_t i = 0; i < n; i++) ((double *)x)[i] = value;
  return ZS_OK;
}

/* Plain left-to-right sum in double: the obvious answer the cpu's blocked sum is checked against. */
static zs_status ref_dot(void *self, zs_type type, int64_t n, const void *x, const void *y,
                         double *out) {
  (void)self;
  double s = 0;
  for (int64_t i = 0; i < n; i++) s += zsi_value_get(type, x, i) * zsi_value_get(type, y, i);
  *out = s;
  return ZS_OK;
}

static zs_status ref_axpby(void *self, zs_type type, int64_t n, double alpha, const void *x,
                           double beta, void *y) {
  (void)self;
  for (int64_t i = 0; i < n; i++) {
    const double xi = zsi_value_get(type, x, i);
    const double r = beta == 0.0 ? alpha * xi : alpha * xi + beta * zsi_value_get(type, y, i);
    if (type == ZS_F32)
      ((float *)y)[i] = (float)r;
    else
      ((double *)y)[i] = r;
  }
  return ZS_OK;
}

static zs_status ref_op_create(void *self, void **op, const zsb_encoded_view *enc,
                               const char *options) {
  /* transpose=atomic asks for no particular order: the oracle's one sequential sum is one. */
  (void)self, (void)options;
  zs_status s;
  if (enc->type != ZS_F32 && enc->type != ZS_F64)
    return zsi_error(ZS_ERR_INVALID_ARGUMENT, "backend 'ref': value type %d is invalid",
                     (int)enc->type);
  const zsi_ref_kernel *k = zsi_ref_kernels_for(enc->format);
  if (!k) {
    const char *name = zs_format_name(enc->format);
    return zsi_error(ZS_ERR_UNSUPPORTED, "backend 'ref' has no kernel for format '%s'",
                     name ? name : "unknown");
  }
  ref_handle *h = zsi_alloc(sizeof *h);
  if (!h) return zsi_error(ZS_ERR_OUT_OF_MEMORY, "backend 'ref': operator handle");
  h->k = k;
  if ((s = k->create(&h->state, enc, NULL)) != ZS_OK) {
    zsi_free(h);
    return s;
  }
  *op = h;
  return ZS_OK;
}

static void ref_op_destroy(void *self, void *op) {
  (void)self;
  ref_handle *h = op;
  if (!h) return;
  h->k->destroy(h->state);
  zsi_free(h);
}

static zs_status ref_op_apply(void *self, void *op, zs_op which, double alpha, const void *x,
                              double beta, void *y) {
  (void)self;
  const ref_handle *h = op;
  return h->k->apply(h->state, which, alpha, x, beta, y);
}

static zs_status ref_sync(void *self) {
  (void)self;
  return ZS_OK;
}

/* Vectors are plain host arrays, so caller memory may stand in for them (zs_vector_wrap). */
static const void *ref_extension(void *self, const char *name) {
  (void)self;
  if (strcmp(name, ZSB_EXT_HOST_MEMORY) == 0) return name;
  return strcmp(name, ZSB_VANS_EXTENSION) == 0 ? &zsi_ref_vans : NULL;
}

static const zsb_backend ref_backend = {
    .abi_version = ZS_BACKEND_ABI_VERSION,
    .name = "ref",
    .init = ref_init,
    .fini = ref_fini,
    .alloc = ref_alloc,
    .free = ref_free,
    .upload = ref_memcpy,
    .download = ref_memcpy,
    .copy = ref_memcpy,
    .fill = ref_fill,
    .dot = ref_dot,
    .axpby = ref_axpby,
    .op_create = ref_op_create,
    .op_destroy = ref_op_destroy,
    .op_apply = ref_op_apply,
    .sync = ref_sync,
    .extension = ref_extension,
};

const zsb_backend *zsi_backend_ref(void) { return &ref_backend; }
