/* cpu_backend.c — the OpenMP cpu backend: thread count, memory, deterministic BLAS-1, operators. */
#include <stdio.h>
#include <string.h>

#include "backends/cpu/cpu_kernels.h"

/* The backend's state in one context: the threads its kernels use. */
typedef struct cpu_state {
  int threads;
} cpu_state;

/* Work outside any context (encoders, decoders): $ZS_NUM_THREADS, else OpenMP's default. */
int zsi_cpu_threads(void) {
#if defined(_OPENMP)
  return zsi_threads_from_env(omp_get_max_threads());
#else
  return 1;
#endif
}

int zsi_backend_cpu_threads(const void *self) { return ((const cpu_state *)self)->threads; }

/* Below this many elements a vector operation runs on the calling thread only. */
#define PARALLEL_MIN 32768

typedef struct cpu_handle {
  const zsi_cpu_kernel *k;
  void *state;
} cpu_handle;

static zs_status cpu_init(void **self, const zsb_init_args *args, char *why, size_t why_len) {
  cpu_state *st = zsi_alloc(sizeof *st);
  if (!st) {
    snprintf(why, why_len, "out of memory for the backend's state");
    return ZS_ERR_OUT_OF_MEMORY;
  }
#if defined(_OPENMP)
  st->threads = args->threads > 0 ? args->threads : omp_get_max_threads();
  snprintf(why, why_len, "OpenMP, %d threads", st->threads);
#else
  (void)args;
  st->threads = 1;
  snprintf(why, why_len, "built without OpenMP: 1 thread");
#endif
  *self = st;
  return ZS_OK;
}

static void cpu_fini(void *self) { zsi_free(self); }

static zs_status cpu_alloc(void *self, void **ptr, size_t bytes) {
  (void)self;
  if (!(*ptr = zsi_alloc(bytes)))
    return zsi_error(ZS_ERR_OUT_OF_MEMORY, "backend 'cpu': cannot allocate %zu bytes", bytes);
  return ZS_OK;
}

static void cpu_free(void *self, void *ptr) {
  (void)self;
  zsi_free(ptr);
}

static zs_status cpu_memcpy(void *self, void *dst, const void *src, size_t bytes) {
  (void)self;
  if (bytes) memcpy(dst, src, bytes);
  return ZS_OK;
}

static zs_status cpu_fill(void *self, zs_type type, void *x, int64_t n, double value) {
  const int t = zsi_backend_cpu_threads(self);
  (void)t; /* unused without OpenMP */
  if (type == ZS_F32) {
    float *restrict p = x;
    const float v = (float)value;
    ZSI_OMP(parallel for schedule(static) num_threads(t) if (n > PARALLEL_MIN))
    for (int64_t i = 0; i < n; i++) p[i] = v;
  } else {
    double *restrict p = x;
    ZSI_OMP(parallel for schedule(static) num_threads(t) if (n > PARALLEL_MIN))
    for (int64_t i = 0; i < n; i++) p[i] = value;
  }
  return ZS_OK;
}

/* dot: fixed blocks whose size depends only on n, each summed with four interleaved double
 * accumulators, then the block sums added in order: the same bits for any thread count. */
#define DOT_MIN_BLOCK 4096
#define DOT_MAX_BLOCKS 1024

#define DOT_BLOCK(VT, x, y, b, e, out)                              \
  do {                                                              \
    const VT *restrict px_ = (x), *restrict py_ = (y);              \
    double s0 = 0, s1 = 0, s2 = 0, s3 = 0;                          \
    int64_t i_ = (b);                                               \
    for (; i_ + 4 <= (e); i_ += 4) {                                \
      s0 += (double)px_[i_] * (double)py_[i_];                      \
      s1 += (double)px_[i_ + 1] * (double)py_[i_ + 1];              \
      s2 += (double)px_[i_ + 2] * (double)py_[i_ + 2];              \
      s3 += (double)px_[i_ + 3] * (double)py_[i_ + 3];              \
    }                                                               \
    for (; i_ < (e); i_++) s0 += (double)px_[i_] * (double)py_[i_]; \
    (out) = (s0 + s1) + (s2 + s3);                                  \
  } while (0)

static zs_status cpu_dot(void *self, zs_type type, int64_t n, const void *x, const void *y,
                         double *out) {
  int64_t bs = DOT_MIN_BLOCK;
  if ((n + bs - 1) / bs > DOT_MAX_BLOCKS) bs = (n + DOT_MAX_BLOCKS - 1) / DOT_MAX_BLOCKS;
  const int64_t nb = (n + bs - 1) / bs;
  double part[DOT_MAX_BLOCKS];
  const int t = zsi_backend_cpu_threads(self);
  (void)t; /* unused without OpenMP */
  ZSI_OMP(parallel for schedule(static) num_threads(t) if (nb > 1))
  for (int64_t b = 0; b < nb; b++) {
    const int64_t e = (b + 1) * bs < n ? (b + 1) * bs : n;
    if (type == ZS_F32)
      DOT_BLOCK(float, x, y, b *bs, e, part[b]);
    else
      DOT_BLOCK(double, x, y, b *bs, e, part[b]);
  }
  double s = 0;
  for (int64_t b = 0; b < nb; b++) s += part[b];
  *out = s;
  return ZS_OK;
}

/* Same expression as the ref backend, element by element: the results agree bit for bit. */
static zs_status cpu_axpby(void *self, zs_type type, int64_t n, double alpha, const void *x,
                           double beta, void *y) {
  const int t = zsi_backend_cpu_threads(self);
  (void)t; /* unused without OpenMP */
  if (type == ZS_F32) {
    const float *restrict px = x;
    float *restrict py = y;
    ZSI_OMP(parallel for schedule(static) num_threads(t) if (n > PARALLEL_MIN))
    for (int64_t i = 0; i < n; i++)
      py[i] = beta == 0.0 ? (float)(alpha * (double)px[i])
                          : (float)(alpha * (double)px[i] + beta * (double)py[i]);
  } else {
    const double *restrict px = x;
    double *restrict py = y;
    ZSI_OMP(parallel for schedule(static) num_threads(t) if (n > PARALLEL_MIN))
    for (int64_t i = 0; i < n; i++)
      py[i] = beta == 0.0 ? alpha * px[i] : alpha * px[i] + beta * py[i];
  }
  return ZS_OK;
}

static zs_status cpu_op_create(void *self, void **op, const zsb_encoded_view *enc,
                               const char *options) {
  zsi_cpu_opts o = {.threads = zsi_backend_cpu_threads(self),
                    .transpose_atomic = zsb_option_is(options, "transpose", "atomic")};
  zs_status s;
  if (enc->type != ZS_F32 && enc->type != ZS_F64)
    return zsi_error(ZS_ERR_INVALID_ARGUMENT, "backend 'cpu': value type %d is invalid",
                     (int)enc->type);
  const zsi_cpu_kernel *k = zsi_cpu_kernels_for(enc->format);
  if (!k) {
    const char *name = zs_format_name(enc->format);
    return zsi_error(ZS_ERR_UNSUPPORTED, "backend 'cpu' has no kernel for format '%s'",
                     name ? name : "unknown");
  }
  cpu_handle *h = zsi_alloc(sizeof *h);
  if (!h) return zsi_error(ZS_ERR_OUT_OF_MEMORY, "backend 'cpu': operator handle");
  h->k = k;
  if ((s = k->create(&h->state, enc, &o)) != ZS_OK) {
    zsi_free(h);
    return s;
  }
  *op = h;
  return ZS_OK;
}

static void cpu_op_destroy(void *self, void *op) {
  (void)self;
  cpu_handle *h = op;
  if (!h) return;
  h->k->destroy(h->state);
  zsi_free(h);
}

static zs_status cpu_op_apply(void *self, void *op, zs_op which, double alpha, const void *x,
                              double beta, void *y) {
  (void)self;
  const cpu_handle *h = op;
  return h->k->apply(h->state, which, alpha, x, beta, y);
}

static zs_status cpu_op_pair(void *self, void *op, double alpha, const void *x, double beta,
                             void *y, double alpha_t, const void *w, double beta_t, void *z) {
  (void)self;
  const cpu_handle *h = op;
  if (!h->k->pair) return ZS_ERR_UNSUPPORTED;
  return h->k->pair(h->state, alpha, x, beta, y, alpha_t, w, beta_t, z);
}

static const zsb_spmv_pair cpu_spmv_pair = {cpu_op_pair};

/* Vectors are plain host arrays, so caller memory may stand in for them (zs_vector_wrap). */
static const void *cpu_extension(void *self, const char *name) {
  (void)self;
  if (strcmp(name, ZSB_VANS_EXTENSION) == 0) return &zsi_cpu_vans;
  if (strcmp(name, ZSB_EXT_HOST_MEMORY) == 0) return name;
  return strcmp(name, ZSB_EXT_SPMV_PAIR) == 0 ? &cpu_spmv_pair : NULL;
}

/* Kernels return only when their parallel regions have joined: nothing is ever queued. */
static zs_status cpu_sync(void *self) {
  (void)self;
  return ZS_OK;
}

static const zsb_backend cpu_backend = {
    .abi_version = ZS_BACKEND_ABI_VERSION,
    .name = "cpu",
    .init = cpu_init,
    .fini = cpu_fini,
    .alloc = cpu_alloc,
    .free = cpu_free,
    .upload = cpu_memcpy,
    .download = cpu_memcpy,
    .copy = cpu_memcpy,
    .fill = cpu_fill,
    .dot = cpu_dot,
    .axpby = cpu_axpby,
    .op_create = cpu_op_create,
    .op_destroy = cpu_op_destroy,
    .op_apply = cpu_op_apply,
    .sync = cpu_sync,
    .extension = cpu_extension,
};

const zsb_backend *zsi_backend_cpu(void) { return &cpu_backend; }
