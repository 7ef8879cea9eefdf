/* zsparse_backend.h — the backend plugin ABI, versioned apart from the public API. */
#ifndef ZSPARSE_BACKEND_H
#define ZSPARSE_BACKEND_H

#include "zsparse.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Bump when any struct below changes layout or a function changes meaning. */
#define ZS_BACKEND_ABI_VERSION 3

/* One named array of an encoded matrix, already validated, in host memory. */
typedef struct zsb_array {
  const char *name;
  const void *data;
  uint64_t count; /* elements */
  uint32_t elem_size;
} zsb_array;

typedef struct zsb_param {
  const char *name;
  int64_t value;
} zsb_param;

/* What a backend receives to build an operator: plain data, no library internals, so a
 * dlopen'ed module needs nothing from libzsparse. */
typedef struct zsb_encoded_view {
  zs_format format;
  zs_type type;
  int64_t rows, cols, nnz;
  int n_arrays;
  const zsb_array *arrays;
  int n_params;
  const zsb_param *params;
} zsb_encoded_view;

/* Functions may set a message with the `error` callback given at init (thread-local in the
 * library). Device pointers are opaque to the library. */
typedef void (*zsb_error_fn)(zs_status status, const char *message);

/* What the library tells a backend about the context it serves. */
typedef struct zsb_init_args {
  zsb_error_fn error; /* the library's error reporter: the same function for every context */
  int threads;        /* host threads the context may use (ZS_NUM_THREADS, else one per core) */
} zsb_init_args;

/* A backend is a table of functions; its state lives in `self`, made by init once per context,
 * so contexts never share state and a module serves any number of them. Functions on distinct
 * objects (vectors, operators) of one context may run concurrently from several threads:
 * scratch memory belongs to the object or the call, never to the module. */
typedef struct zsb_backend {
  uint32_t abi_version; /* ZS_BACKEND_ABI_VERSION */
  const char *name;

  /* Called once per context after loading: makes the context's state in *self. Returns ZS_OK
   * when usable; otherwise writes why to `why`, leaves nothing to free and *self NULL. */
  zs_status (*init)(void **self, const zsb_init_args *args, char *why, size_t why_len);
  /* Frees what init made, once per context, after every vector and operator of it is gone. */
  void (*fini)(void *self);

  /* Memory. Vectors are arrays of `type` on the backend. */
  zs_status (*alloc)(void *self, void **ptr, size_t bytes);
  void (*free)(void *self, void *ptr);
  zs_status (*upload)(void *self, void *dst, const void *src_host, size_t bytes);
  zs_status (*download)(void *self, void *dst_host, const void *src, size_t bytes);
  zs_status (*copy)(void *self, void *dst, const void *src, size_t bytes);
  zs_status (*fill)(void *self, zs_type type, void *x, int64_t n, double value);

  /* BLAS-1, deterministic. */
  zs_status (*dot)(void *self, zs_type type, int64_t n, const void *x, const void *y, double *out);
  zs_status (*axpby)(void *self, zs_type type, int64_t n, double alpha, const void *x, double beta,
                     void *y);

  /* Operators. create returns ZS_ERR_UNSUPPORTED for a format it has no kernel for. options
   * holds every operator option that applies to this backend and format, "key=value,...",
   * checked by the library against its one table of options (docs/backends.md) and with the
   * defaults filled in: read them with zsb_option, never parse or default them again. */
  zs_status (*op_create)(void *self, void **op, const zsb_encoded_view *enc, const char *options);
  void (*op_destroy)(void *self, void *op);
  zs_status (*op_apply)(void *self, void *op, zs_op which, double alpha, const void *x, double beta,
                        void *y);
  zs_status (*sync)(void *self);

  /* Named tables of functions beyond sparse operators (ABI 2), such as "vans-v2" for MAT-VANS
   * layer kernels (formats/vans/vans_backend.h). NULL, or a NULL result: not provided. */
  const void *(*extension)(void *self, const char *name);
} zsb_backend;

/* Extension "blas1-fused-v1" (optional): the fused BiCG updates of zs_vector_residual_update
 * and zs_vector_direction_update, deterministic like dot. residual_update: r -= alpha q,
 * s -= alpha t, then out[0] = r.s, out[1] = r.r. direction_update: x += alpha p, then
 * p = z + beta p, pt = zt + beta pt. The library checks shapes and aliasing before calling. */
#define ZSB_EXT_FUSED_BLAS1 "blas1-fused-v1"
typedef struct zsb_fused_blas1 {
  zs_status (*residual_update)(void *self, zs_type type, int64_t n, double alpha, const void *q,
                               void *r, const void *t, void *s, double out[2]);
  zs_status (*direction_update)(void *self, zs_type type, int64_t n, double alpha, void *p, void *x,
                                double beta, const void *z, const void *zt, void *pt);
} zsb_fused_blas1;

/* Extension "spmv-pair-v1" (optional): zs_spmv_pair in one pass over the operator's matrix,
 * y = alpha A x + beta y and z = alpha_t Aᵀ w + beta_t z. Returns ZS_ERR_UNSUPPORTED, without
 * setting a message, when it has no fused kernel for this operator; the library then makes the
 * two products with op_apply. The library checks shapes, types and aliasing before calling. */
#define ZSB_EXT_SPMV_PAIR "spmv-pair-v1"
typedef struct zsb_spmv_pair {
  zs_status (*apply_pair)(void *self, void *op, double alpha, const void *x, double beta, void *y,
                          double alpha_t, const void *w, double beta_t, void *z);
} zsb_spmv_pair;

/* Extension "host-memory-v1" (optional): any non-NULL result says the backend's vector memory
 * is ordinary host memory, so that zs_vector_wrap may hand it caller memory (aligned to the
 * element size, with no padding) instead of memory from alloc. */
#define ZSB_EXT_HOST_MEMORY "host-memory-v1"

/* A module exports this symbol; the library dlopens the module and calls it. */
typedef const zsb_backend *(*zsb_entry_fn)(void);
#define ZSB_ENTRY_SYMBOL "zsb_backend_entry"

/* Look up an array / parameter of a view by name; NULL / `fallback` when absent. */
static inline const zsb_array *zsb_find_array(const zsb_encoded_view *v, const char *name) {
  for (int i = 0; i < v->n_arrays; i++) {
    const char *a = v->arrays[i].name, *b = name;
    while (*a && *a == *b) a++, b++;
    if (*a == *b) return &v->arrays[i];
  }
  return NULL;
}

static inline int64_t zsb_find_param(const zsb_encoded_view *v, const char *name,
                                     int64_t fallback) {
  for (int i = 0; i < v->n_params; i++) {
    const char *a = v->params[i].name, *b = name;
    while (*a && *a == *b) a++, b++;
    if (*a == *b) return v->params[i].value;
  }
  return fallback;
}

/* The value of `key` in op_create's options, or "" where the option does not apply. */
static inline const char *zsb_option(const char *options, const char *key, char *buf, size_t len) {
  buf[0] = '\0';
  size_t klen = 0;
  while (key[klen]) klen++;
  for (const char *p = options; p && *p;) {
    const char *end = p;
    while (*end && *end != ',') end++;
    size_t i = 0;
    while (i < klen && p + i < end && p[i] == key[i]) i++;
    if (i == klen && p[i] == '=') {
      size_t n = 0;
      for (const char *v = p + klen + 1; v < end && n + 1 < len; v++) buf[n++] = *v;
      buf[n] = '\0';
      return buf;
    }
    p = *end ? end + 1 : end;
  }
  return buf;
}

static inline int zsb_option_is(const char *options, const char *key, const char *value) {
  char buf[32];
  const char *v = zsb_option(options, key, buf, sizeof buf);
  while (*v && *v == *value) v++, value++;
  return *v == *value;
}

#ifdef __cplusplus
}
#endif
#endif /* ZSPARSE_BACKEND_H */
