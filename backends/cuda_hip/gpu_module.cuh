/* gpu_module.cuh — the zsb_backend of the CUDA and HIP modules: the per-context state (device
 * properties, reduction scratch), device memory, BLAS-1, and the table of every format's
 * operators (one unit each, <format>_gpu.cuh). Compiled once per module by
 * backends/cuda/gpu_module.cu and backends/hip/gpu_module.hip.cpp. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mutex>
#include <new>

#include "backends/cuda_hip/blas1_kernels.cuh"
#include "backends/cuda_hip/gpu_common.cuh"

namespace zs_gpu {

std::atomic<zsb_error_fn> g_report{nullptr};

/* Scratch of one reduction: 2 ZS_DOT_BLOCKS partials of two sums, then the two sums. */
#define ZS_SCRATCH_DOUBLES (2 * ZS_DOT_BLOCKS + 2)
#define ZS_SCRATCH_KEPT 16 /* idle scratch buffers a context keeps for later calls */

/* One context's state (zsb_backend.init makes it, fini frees it). A reduction takes a scratch
 * buffer for the duration of its call, so concurrent calls on one context never share one. */
struct gpu_context {
  gpu_device dev;
  std::mutex lock; /* guards idle */
  double *idle[ZS_SCRATCH_KEPT];
  int n_idle;
};

const gpu_device *context_device(void *self) { return &((gpu_context *)self)->dev; }

namespace {

/* ---- the zsb_backend entries ---- */
zs_status gpu_init(void **self, const zsb_init_args *args, char *why, size_t why_len) {
  *self = NULL;
  g_report.store(args->error);
  int count = 0;
  gpuError_t e = gpuGetDeviceCount(&count);
  if (e != gpuSuccess || count == 0) {
    snprintf(why, why_len, ZS_GPU_RUNTIME " runtime found no device (%s)",
             e != gpuSuccess ? gpuGetErrorString(e) : "0 devices");
    return ZS_ERR_BACKEND_UNAVAILABLE;
  }
  gpuDeviceProp p;
  char bus[32] = "?";
  if ((e = gpuGetDeviceProperties(&p, 0)) != gpuSuccess || (e = gpuSetDevice(0)) != gpuSuccess) {
    snprintf(why, why_len, ZS_GPU_RUNTIME " device 0: %s", gpuGetErrorString(e));
    return ZS_ERR_BACKEND_UNAVAILABLE;
  }
  if (gpuDeviceGetPCIBusId(bus, sizeof bus, 0) != gpuSuccess) snprintf(bus, sizeof bus, "?");
  for (char *c = bus; *c; c++) *c = (char)tolower((unsigned char)*c);
  /* A module built without code for this device fails here, not in the first product. */
  gpuFuncAttributes attr;
  if ((e = gpuFuncGetAttributes(&attr, (const void *)zs_fill_kernel<double>)) != gpuSuccess) {
    snprintf(why, why_len, "%s (compute capability %d.%d): %s", p.name, p.major, p.minor,
             gpuGetErrorString(e));
    return ZS_ERR_BACKEND_UNAVAILABLE;
  }
  gpu_context *ctx = new (std::nothrow) gpu_context();
  if (!ctx) {
    snprintf(why, why_len, "%s: out of memory for the backend's state", p.name);
    return ZS_ERR_BACKEND_UNAVAILABLE;
  }
  ctx->dev.sm_count = p.multiProcessorCount;
  ctx->dev.smem_optin = ZS_SMEM_OPTIN(p);
  ctx->dev.smem_reserved = ZS_SMEM_RESERVED(p);
  ctx->dev.l2_bytes = (size_t)p.l2CacheSize;
  snprintf(why, why_len, "%s, cc %d.%d, %d SMs, %.1f GiB, pci %s (%d device%s)", p.name, p.major,
           p.minor, p.multiProcessorCount, (double)p.totalGlobalMem / (1 << 30), bus, count,
           count > 1 ? "s" : "");
  *self = ctx;
  return ZS_OK;
}

void gpu_fini(void *self) {
  gpu_context *ctx = (gpu_context *)self;
  for (int i = 0; i < ctx->n_idle; i++) release(ctx->idle[i]);
  delete ctx;
}

/* A reduction's scratch for one call: an idle buffer of the context, else a new one. */
zs_status scratch_take(void *self, double **out) {
  gpu_context *ctx = (gpu_context *)self;
  {
    std::lock_guard<std::mutex> hold(ctx->lock);
    if (ctx->n_idle > 0) {
      *out = ctx->idle[--ctx->n_idle];
      return ZS_OK;
    }
  }
  *out = NULL;
  return check(gpuMalloc((void **)out, ZS_SCRATCH_DOUBLES * sizeof(double)), "reduction scratch");
}

/* Back to the context for the next call (freed when it already keeps enough). */
void scratch_give(void *self, double *buf) {
  gpu_context *ctx = (gpu_context *)self;
  {
    std::lock_guard<std::mutex> hold(ctx->lock);
    if (ctx->n_idle < ZS_SCRATCH_KEPT) {
      ctx->idle[ctx->n_idle++] = buf;
      return;
    }
  }
  release(buf);
}

zs_status gpu_alloc(void *self, void **ptr, size_t bytes) {
  (void)self;
  *ptr = NULL;
  return check(gpuMalloc(ptr, bytes ? bytes : 1), "allocating a vector");
}

void gpu_free(void *self, void *ptr) {
  (void)self;
  release(ptr);
}

zs_status gpu_upload(void *self, void *dst, const void *src, size_t bytes) {
  (void)self;
  return bytes ? check(gpuMemcpy(dst, src, bytes, gpuMemcpyHostToDevice), "upload") : ZS_OK;
}

zs_status gpu_download(void *self, void *dst, const void *src, size_t bytes) {
  (void)self;
  return bytes ? check(gpuMemcpy(dst, src, bytes, gpuMemcpyDeviceToHost), "download") : ZS_OK;
}

zs_status gpu_copy(void *self, void *dst, const void *src, size_t bytes) {
  (void)self;
  return bytes ? check(gpuMemcpy(dst, src, bytes, gpuMemcpyDeviceToDevice), "copy") : ZS_OK;
}

zs_status gpu_fill(void *self, zs_type type, void *x, int64_t n, double value) {
  (void)self;
  if (type == ZS_F64)
    zs_fill_kernel<double><<<grid_for(n, 256), 256>>>(n, value, (double *)x);
  else
    zs_fill_kernel<float><<<grid_for(n, 256), 256>>>(n, (float)value, (float *)x);
  return check_launch("fill kernel");
}

zs_status gpu_dot(void *self, zs_type type, int64_t n, const void *x, const void *y, double *out) {
  double *part;
  zs_status s = scratch_take(self, &part);
  if (s != ZS_OK) return s;
  if (type == ZS_F64)
    zs_dot_partial_kernel<double>
        <<<ZS_DOT_BLOCKS, ZS_DOT_THREADS>>>(n, (const double *)x, (const double *)y, part);
  else
    zs_dot_partial_kernel<float>
        <<<ZS_DOT_BLOCKS, ZS_DOT_THREADS>>>(n, (const float *)x, (const float *)y, part);
  zs_dot_final_kernel<<<1, ZS_DOT_THREADS>>>(part, part + 2 * ZS_DOT_BLOCKS);
  s = check_launch("dot kernel");
  if (s == ZS_OK)
    s = check(gpuMemcpy(out, part + 2 * ZS_DOT_BLOCKS, sizeof(double), gpuMemcpyDeviceToHost),
              "dot result");
  scratch_give(self, part);
  return s;
}

zs_status gpu_residual_update(void *self, zs_type type, int64_t n, double alpha, const void *q,
                              void *r, const void *t, void *s, double out[2]) {
  double *part;
  zs_status st = scratch_take(self, &part);
  if (st != ZS_OK) return st;
  if (type == ZS_F64)
    zs_residual_update_kernel<double><<<ZS_DOT_BLOCKS, ZS_DOT_THREADS>>>(
        n, -alpha, (const double *)q, (double *)r, (const double *)t, (double *)s, part);
  else
    zs_residual_update_kernel<float><<<ZS_DOT_BLOCKS, ZS_DOT_THREADS>>>(
        n, (float)-alpha, (const float *)q, (float *)r, (const float *)t, (float *)s, part);
  zs_dot_final_kernel<<<1, ZS_DOT_THREADS>>>(part, part + 2 * ZS_DOT_BLOCKS);
  zs_dot_final_kernel<<<1, ZS_DOT_THREADS>>>(part + ZS_DOT_BLOCKS, part + 2 * ZS_DOT_BLOCKS + 1);
  st = check_launch("residual update kernel");
  if (st == ZS_OK)
    st = check(gpuMemcpy(out, part + 2 * ZS_DOT_BLOCKS, 2 * sizeof(double), gpuMemcpyDeviceToHost),
               "residual update sums");
  scratch_give(self, part);
  return st;
}

zs_status gpu_direction_update(void *self, zs_type type, int64_t n, double alpha, void *p, void *x,
                               double beta, const void *z, const void *zt, void *pt) {
  (void)self;
  if (type == ZS_F64)
    zs_direction_update_kernel<double>
        <<<grid_for(n, 256), 256>>>(n, alpha, (double *)p, (double *)x, beta, (const double *)z,
                                    (const double *)zt, (double *)pt);
  else
    zs_direction_update_kernel<float>
        <<<grid_for(n, 256), 256>>>(n, (float)alpha, (float *)p, (float *)x, (float)beta,
                                    (const float *)z, (const float *)zt, (float *)pt);
  return check_launch("direction update kernel");
}

const zsb_fused_blas1 gpu_fused_blas1 = {gpu_residual_update, gpu_direction_update};

zs_status gpu_axpby(void *self, zs_type type, int64_t n, double alpha, const void *x, double beta,
                    void *y) {
  (void)self;
  if (type == ZS_F64)
    zs_axpby_kernel<double>
        <<<grid_for(n, 256), 256>>>(n, alpha, (const double *)x, beta, (double *)y);
  else
    zs_axpby_kernel<float>
        <<<grid_for(n, 256), 256>>>(n, (float)alpha, (const float *)x, (float)beta, (float *)y);
  return check_launch("axpby kernel");
}

/* ---- operators: one slot per line of formats/format_list.h ---- */
struct gpu_slot {
  zs_format format;
  const char *name;
  const gpu_format *(*table)(); /* NULL: the module has no unit for the format */
};
#define ZS_GPU_SLOT(ID, name, folder, summary) {ZS_FORMAT_##ID, #name, gpu_format_##name},
const gpu_slot g_formats[] = {ZSI_FORMAT_LIST(ZS_GPU_SLOT)};
#undef ZS_GPU_SLOT

/* An operator: its format's table and that format's state. */
struct gpu_operator {
  const gpu_format *f;
  void *state;
};

zs_status gpu_op_create(void *self, void **out, const zsb_encoded_view *v, const char *options) {
  const gpu_slot *slot = NULL;
  for (const gpu_slot &e : g_formats)
    if (e.format == v->format) slot = &e;
  if (!slot)
    return fail(ZS_ERR_UNSUPPORTED, "backend '%s' has no kernel for format id %d",
                ZS_GPU_BACKEND_NAME, (int)v->format);
  const gpu_format *f = slot->table ? slot->table() : NULL;
  if (!f || !f->create)
    return fail(ZS_ERR_UNSUPPORTED, "backend '%s' has no kernel for format '%s'",
                ZS_GPU_BACKEND_NAME, slot->name);
  if (f->format != v->format)
    return fail(ZS_ERR_INTERNAL, "backend '%s': the unit of format '%s' serves format id %d",
                ZS_GPU_BACKEND_NAME, slot->name, (int)f->format);
  gpu_operator *op = (gpu_operator *)calloc(1, sizeof *op);
  if (!op) return fail(ZS_ERR_OUT_OF_MEMORY, "operator");
  op->f = f;
  const zs_status s = f->create(context_device(self), &op->state, v, options);
  if (s != ZS_OK) {
    free(op);
    return s;
  }
  *out = op;
  return ZS_OK;
}

void gpu_op_destroy(void *self, void *opaque) {
  (void)self;
  gpu_operator *op = (gpu_operator *)opaque;
  if (!op) return;
  op->f->destroy(op->state);
  free(op);
}

zs_status gpu_op_apply(void *self, void *opaque, zs_op which, double alpha, const void *x,
                       double beta, void *y) {
  (void)self;
  const gpu_operator *op = (const gpu_operator *)opaque;
  return op->f->apply(op->state, which, alpha, x, beta, y);
}

zs_status gpu_op_pair(void *self, void *opaque, double alpha, const void *x, double beta, void *y,
                      double alpha_t, const void *w, double beta_t, void *z) {
  (void)self;
  const gpu_operator *op = (const gpu_operator *)opaque;
  if (!op->f->pair) return ZS_ERR_UNSUPPORTED;
  return op->f->pair(op->state, alpha, x, beta, y, alpha_t, w, beta_t, z);
}
const zsb_spmv_pair gpu_spmv_pair = {gpu_op_pair};

const void *gpu_extension(void *self, const char *name) {
  (void)self; /* the tables are the same for every context; their functions take self */
  if (strcmp(name, ZSB_EXT_FUSED_BLAS1) == 0) return &gpu_fused_blas1;
  if (strcmp(name, ZSB_EXT_SPMV_PAIR) == 0) return &gpu_spmv_pair;
  return vans_gpu_extension(name);
}

zs_status gpu_sync(void *self) {
  (void)self;
  return check(gpuDeviceSynchronize(), "synchronize");
}

const zsb_backend g_backend = {
    ZS_BACKEND_ABI_VERSION,
    ZS_GPU_BACKEND_NAME,
    gpu_init,
    gpu_fini,
    gpu_alloc,
    gpu_free,
    gpu_upload,
    gpu_download,
    gpu_copy,
    gpu_fill,
    gpu_dot,
    gpu_axpby,
    gpu_op_create,
    gpu_op_destroy,
    gpu_op_apply,
    gpu_sync,
    gpu_extension,
};

} /* namespace */
} /* namespace zs_gpu */

extern "C" __attribute__((visibility("default"))) const zsb_backend *zsb_backend_entry(void) {
  return &zs_gpu::g_backend;
}
