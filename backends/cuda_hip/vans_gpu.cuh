/* vans_gpu.cuh — MAT-VANS layer kernels of the GPU modules, reached through the backend's
 * "vans-v1" extension table (included by gpu_module.cuh inside its anonymous namespace). */
#include <time.h>

#include "formats/vans/vans_backend.h"

#define VANS_GROUP 32 /* lanes of the interleaved layout: one row per group of 32 lanes */
#define VANS_THREADS 256
#define VANS_SHARED_X_MAX 45056 /* bytes of x kept in shared memory; beyond, x is read via L1 */

/* One entry per quantile: the weight (low byte), its probability and the quantile's offset
 * inside the symbol's slot, so a decode step is one shared-memory read and one multiply-add. */
__device__ __forceinline__ uint32_t vans_step(uint32_t &st, const uint32_t *tab) {
  const uint32_t e = tab[st & 0xffu];
  st = (st >> 8) * ((e >> 8) & 0xffu) + (e >> 16);
  return e & 0xffu;
}

__device__ __forceinline__ int vans_dot4(int a, int b, int c) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 610
  return __dp4a(a, b, c);
#else
  for (int i = 0; i < 32; i += 8) c += (int)(int8_t)(a >> i) * (int)(int8_t)(b >> i);
  return c;
#endif
}

__device__ __forceinline__ void vans_note_max(unsigned long long *amax, int64_t z) {
  atomicMax(amax, (unsigned long long)(z < 0 ? -z : z));
}

/* Stage x (zero-padded to `padded` bytes) and the decode table in shared memory. */
template <bool SHARED_X>
__device__ __forceinline__ void vans_stage(const int8_t *x, uint32_t cols, uint32_t padded,
                                           const uint32_t *tab_g, uint32_t *tab, int8_t *sx) {
  for (int i = threadIdx.x; i < 256; i += blockDim.x) tab[i] = tab_g[i];
  if (SHARED_X)
    for (uint32_t j = threadIdx.x; j < padded; j += blockDim.x) sx[j] = j < cols ? x[j] : 0;
  __syncthreads();
}

/* Interleaved layout: a group of 32 lanes per row, lane l holding the state of sub-stream l.
 * At each step every lane decodes one weight; lanes whose state fell below 2^16 take the next
 * words of the shared stream in lane order, so a refill is one coalesced read. Four steps fill
 * a lane's four neighbouring weights, which meet four x bytes in one dp4a. */
template <bool SHARED_X>
__global__ void __launch_bounds__(VANS_THREADS)
    vans_layer_lanes(uint32_t rows, uint32_t cols, const uint32_t *__restrict__ cursors,
                     const uint16_t *__restrict__ payload, const uint32_t *__restrict__ tab_g,
                     const int32_t *__restrict__ mult, const int8_t *__restrict__ x,
                     int64_t *__restrict__ z, unsigned long long *amax) {
  extern __shared__ uint32_t vans_smem[];
  uint32_t *tab = vans_smem;
  int8_t *sx = (int8_t *)(vans_smem + 256);
  const uint32_t chunks = (cols + 4 * VANS_GROUP - 1) / (4 * VANS_GROUP);
  vans_stage<SHARED_X>(x, cols, chunks * 4 * VANS_GROUP, tab_g, tab, sx);
  const int8_t *xv = SHARED_X ? sx : x;
  const uint32_t lane = threadIdx.x % VANS_GROUP;
  const uint32_t shift = threadIdx.x % ZS_WARP_SIZE - lane; /* the group's place in its warp */
  const uint32_t below = (1u << lane) - 1u;
  const uint32_t groups = blockDim.x / VANS_GROUP;
  for (uint32_t row = blockIdx.x * groups + threadIdx.x / VANS_GROUP; row < rows;
       row += gridDim.x * groups) {
    const uint16_t *p = payload + cursors[row];
    uint32_t st = (uint32_t)p[2 * lane] << 16 | p[2 * lane + 1];
    p += 2 * VANS_GROUP;
    int acc = 0;
    for (uint32_t ch = 0; ch < chunks; ch++) {
      const uint32_t base = ch * 4 * VANS_GROUP + 4 * lane;
      uint32_t packed = 0;
#pragma unroll
      for (int u = 0; u < 4; u++) {
        const bool active = base + u < cols;
        uint32_t s2 = st;
        const uint32_t w = vans_step(s2, tab);
        if (active) st = s2, packed |= w << (8 * u);
        const bool need = active && st < 0x10000u;
        const uint32_t mask = (uint32_t)((uint64_t)zs_ballot(need) >> shift);
        if (need) st = st << 16 | p[zs_popc(mask & below)];
        p += zs_popc(mask);
      }
      int xw;
      if (SHARED_X) {
        xw = *(const int *)(xv + base);
      } else {
        xw = 0;
        for (int u = 0; u < 4; u++)
          if (base + u < cols) xw |= (int)(uint8_t)xv[base + u] << (8 * u);
      }
      acc = vans_dot4((int)packed, xw, acc);
    }
    acc = zs_group_sum(acc, VANS_GROUP);
    if (lane == 0) {
      const int64_t v = (int64_t)acc * (mult ? mult[row] : 1);
      z[row] = v;
      vans_note_max(amax, v);
    }
  }
}

/* The report's layout: one thread per row, its stream read sequentially. */
template <bool SHARED_X>
__global__ void __launch_bounds__(VANS_THREADS)
    vans_layer_rows(uint32_t rows, uint32_t cols, const uint32_t *__restrict__ cursors,
                    const uint16_t *__restrict__ payload, const uint32_t *__restrict__ tab_g,
                    const int32_t *__restrict__ mult, const int8_t *__restrict__ x,
                    int64_t *__restrict__ z, unsigned long long *amax) {
  extern __shared__ uint32_t vans_smem[];
  uint32_t *tab = vans_smem;
  int8_t *sx = (int8_t *)(vans_smem + 256);
  vans_stage<SHARED_X>(x, cols, cols, tab_g, tab, sx);
  const int8_t *xv = SHARED_X ? sx : x;
  for (uint32_t row = blockIdx.x * blockDim.x + threadIdx.x; row < rows;
       row += gridDim.x * blockDim.x) {
    const uint16_t *p = payload + cursors[row];
    uint32_t st = (uint32_t)p[0] << 16 | p[1];
    p += 2;
    int acc = 0;
    for (uint32_t j = 0; j < cols; j++) {
      acc += (int)(int8_t)vans_step(st, tab) * xv[j];
      if (st < 0x10000u) st = st << 16 | *p++;
    }
    const int64_t v = (int64_t)acc * (mult ? mult[row] : 1);
    z[row] = v;
    vans_note_max(amax, v);
  }
}

__global__ void vans_requant(uint32_t n, const int64_t *__restrict__ z,
                             const unsigned long long *amax, int8_t *__restrict__ y) {
  const int64_t m = (int64_t)*amax;
  for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    const int64_t v = z[i], a = v < 0 ? -v : v;
    const int64_t q = m ? (2 * 127 * a + m) / (2 * m) : 0;
    y[i] = (int8_t)(v < 0 ? -q : q);
  }
}

struct vans_dev_layer {
  uint32_t rows, cols, lanes;
  uint32_t *cursors, *tab;
  uint16_t *payload;
  int32_t *mult;
};

struct vans_chain {
  int n;
  vans_dev_layer *layers;
  int8_t *x[2];
  int64_t *z;
  unsigned long long *amax; /* one per layer, cleared once per run */
  uint32_t n0, n_out;
  int sms;
};

void vans_chain_free(vans_chain *c) {
  if (!c) return;
  for (int k = 0; k < c->n && c->layers; k++) {
    release(c->layers[k].cursors);
    release(c->layers[k].tab);
    release(c->layers[k].payload);
    release(c->layers[k].mult);
  }
  free(c->layers);
  release(c->x[0]);
  release(c->x[1]);
  release(c->z);
  release(c->amax);
  free(c);
}

zs_status vans_chain_create(void **out, int n, const zsb_vans_layer *L) {
  vans_chain *c = (vans_chain *)calloc(1, sizeof *c);
  if (!c || !(c->layers = (vans_dev_layer *)calloc((size_t)n, sizeof *c->layers))) {
    free(c);
    return fail(ZS_ERR_OUT_OF_MEMORY, "vans: chain");
  }
  c->n = n;
  c->n0 = L[0].cols;
  c->n_out = L[n - 1].rows;
  uint64_t big = L[0].cols;
  zs_status s = ZS_OK;
  for (int k = 0; k < n && s == ZS_OK; k++) {
    if (L[k].lanes != 0 && L[k].lanes != VANS_GROUP)
      s = fail(ZS_ERR_UNSUPPORTED, "vans: layer %d has %u lanes; the kernels take 0 or %d", k,
               L[k].lanes, VANS_GROUP);
    vans_dev_layer *d = &c->layers[k];
    d->rows = L[k].rows, d->cols = L[k].cols, d->lanes = L[k].lanes;
    if (d->rows > big) big = d->rows;
    uint32_t tab[256];
    for (uint32_t q = 0; q < 256; q++) {
      const uint32_t r = L[k].ppf[q];
      const uint32_t p = (uint8_t)(L[k].cdf[r + 1] - L[k].cdf[r]);
      const uint32_t w = (uint8_t)(int8_t)(L[k].w_min + (int32_t)r);
      tab[q] = w | p << 8 | (q - L[k].cdf[r]) << 16;
    }
    if (s == ZS_OK) s = upload_array(&d->tab, tab, 256, "vans decode table");
    if (s == ZS_OK) s = upload_array(&d->cursors, L[k].cursors, d->rows, "vans cursors");
    if (s == ZS_OK) s = upload_array(&d->payload, L[k].payload, L[k].payload_words, "vans payload");
    if (s == ZS_OK && L[k].row_mult)
      s = upload_array(&d->mult, L[k].row_mult, d->rows, "vans row multipliers");
  }
  /* x buffers are read in whole 128-byte chunks by the interleaved kernel. */
  const size_t xb = (size_t)((big + 4 * VANS_GROUP - 1) / (4 * VANS_GROUP) * 4 * VANS_GROUP);
  if (s == ZS_OK) s = check(gpuMalloc((void **)&c->x[0], xb), "vans activations");
  if (s == ZS_OK) s = check(gpuMalloc((void **)&c->x[1], xb), "vans activations");
  if (s == ZS_OK) s = check(gpuMemset(c->x[0], 0, xb), "vans activations");
  if (s == ZS_OK) s = check(gpuMemset(c->x[1], 0, xb), "vans activations");
  if (s == ZS_OK) s = check(gpuMalloc((void **)&c->z, (size_t)big * 8), "vans accumulators");
  if (s == ZS_OK) s = check(gpuMalloc((void **)&c->amax, (size_t)n * 8), "vans maxima");
  gpuDeviceProp prop;
  if (s == ZS_OK) s = check(gpuGetDeviceProperties(&prop, 0), "vans device properties");
  if (s != ZS_OK) {
    vans_chain_free(c);
    return s;
  }
  c->sms = prop.multiProcessorCount;
  *out = c;
  return ZS_OK;
}

void vans_chain_destroy(void *c) { vans_chain_free((vans_chain *)c); }

/* The layers back to back on the device: x[0] holds the input, the result ends in *out. */
zs_status vans_chain_launch(vans_chain *c, int8_t **out) {
  zs_status s = check(gpuMemset(c->amax, 0, (size_t)c->n * 8), "vans maxima");
  const int8_t *in = c->x[0];
  for (int k = 0; k < c->n && s == ZS_OK; k++) {
    const vans_dev_layer *d = &c->layers[k];
    int8_t *o = c->x[(k + 1) % 2];
    const bool shared_x = d->cols <= VANS_SHARED_X_MAX;
    const uint32_t padded = (d->cols + 4 * VANS_GROUP - 1) / (4 * VANS_GROUP) * 4 * VANS_GROUP;
    const size_t smem = 1024 + (shared_x ? padded : 0);
    /* Enough blocks to fill the device a few times over; each stages x once for many rows. */
    const uint32_t per_block = d->lanes ? VANS_THREADS / VANS_GROUP : VANS_THREADS;
    uint32_t blocks = (d->rows + per_block - 1) / per_block;
    const uint32_t cap = (uint32_t)c->sms * (shared_x ? 4u : 8u);
    if (blocks > cap) blocks = cap;
    if (d->lanes) {
      if (shared_x)
        vans_layer_lanes<true><<<blocks, VANS_THREADS, smem>>>(
            d->rows, d->cols, d->cursors, d->payload, d->tab, d->mult, in, c->z, c->amax + k);
      else
        vans_layer_lanes<false><<<blocks, VANS_THREADS, smem>>>(
            d->rows, d->cols, d->cursors, d->payload, d->tab, d->mult, in, c->z, c->amax + k);
    } else {
      if (shared_x)
        vans_layer_rows<true><<<blocks, VANS_THREADS, smem>>>(
            d->rows, d->cols, d->cursors, d->payload, d->tab, d->mult, in, c->z, c->amax + k);
      else
        vans_layer_rows<false><<<blocks, VANS_THREADS, smem>>>(
            d->rows, d->cols, d->cursors, d->payload, d->tab, d->mult, in, c->z, c->amax + k);
    }
    vans_requant<<<grid_for(d->rows, VANS_THREADS), VANS_THREADS>>>(d->rows, c->z, c->amax + k, o);
    s = check_launch("vans layer");
    in = o;
  }
  *out = (int8_t *)in;
  return s;
}

zs_status vans_chain_run(void *opaque, const int8_t *x, int8_t *y) {
  vans_chain *c = (vans_chain *)opaque;
  zs_status s = check(gpuMemcpy(c->x[0], x, c->n0, gpuMemcpyHostToDevice), "vans input");
  int8_t *res = NULL;
  if (s == ZS_OK) s = vans_chain_launch(c, &res);
  if (s == ZS_OK) s = check(gpuMemcpy(y, res, c->n_out, gpuMemcpyDeviceToHost), "vans output");
  return s;
}

double vans_seconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

zs_status vans_chain_time(void *opaque, int reps, double *ms) {
  vans_chain *c = (vans_chain *)opaque;
  int8_t *res;
  zs_status s = vans_chain_launch(c, &res); /* warm-up */
  if (s == ZS_OK) s = check(gpuDeviceSynchronize(), "vans warm-up");
  const double t0 = vans_seconds();
  for (int r = 0; r < reps && s == ZS_OK; r++) s = vans_chain_launch(c, &res);
  if (s == ZS_OK) s = check(gpuDeviceSynchronize(), "vans timing");
  *ms = (vans_seconds() - t0) * 1e3 / reps;
  return s;
}

const zsb_vans_ops g_vans_ops = {1, vans_chain_create, vans_chain_destroy, vans_chain_run,
                                 vans_chain_time};

const void *vans_gpu_extension(const char *name) {
  return strcmp(name, ZSB_VANS_EXTENSION) == 0 ? &g_vans_ops : NULL;
}
