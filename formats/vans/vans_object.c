/* vans_object.c — the zs_vans object: a chain's input vector and coded layers, their accessors,
 * and new layers from int8 or f32 weights (quantised, modelled, coded). */
#include <math.h>
#include <string.h>

#include "core/zs_omp.h"
#include "formats/vans/vans.h"

/* ---- layers ---- */

zs_status zsi_vans_row_mult(zsi_vans_layer *L) {
  zsi_free(L->row_mult);
  L->row_mult = NULL;
  if (!L->row_scales) return ZS_OK;
  L->row_mult = zsi_alloc_array(L->rows, sizeof(int32_t));
  if (!L->row_mult) return zsi_error(ZS_ERR_OUT_OF_MEMORY, "vans: row multipliers");
  for (uint32_t i = 0; i < L->rows; i++)
    L->row_mult[i] = (int32_t)floor(
        (double)L->row_scales[i] / (double)L->delta * (1 << ZSI_VANS_MULT_BITS) + 0.5);
  return ZS_OK;
}

void zsi_vans_layer_free(zsi_vans_layer *L) {
  zsi_free(L->cursors);
  zsi_free(L->payload);
  zsi_free(L->row_scales);
  zsi_free(L->row_mult);
  zsi_free(L->pairs);
  memset(L, 0, sizeof *L);
}

uint64_t zsi_vans_record_bytes(const zsi_vans_layer *L) {
  if (L->pairs)
    return 12 + 4 * (uint64_t)L->rows + 4 + 2 + 4 * (uint64_t)L->pairs->n +
           2 * (uint64_t)L->payload_words;
  return 12 + 4 * (uint64_t)L->rows + 4 + 2 + (L->grid + 1) + (L->grid + 1) % 2 + 256 +
         2 * (uint64_t)L->payload_words;
}

void zsi_vans_view(const zs_vans *V, int k, zsb_vans_layer *out) {
  const zsi_vans_layer *L = &V->layers[k];
  out->rows = L->rows;
  out->cols = L->cols;
  out->lanes = V->lanes;
  out->grid = L->grid;
  out->w_min = L->w_min;
  out->cdf = L->cdf;
  out->ppf = L->ppf;
  out->cursors = L->cursors;
  out->payload = L->payload;
  out->payload_words = L->payload_words;
  out->row_mult = L->row_mult;
  out->pairs = L->pairs ? L->pairs->n : 0;
  out->pair_a = L->pairs ? L->pairs->a : NULL;
  out->pair_b = L->pairs ? L->pairs->b : NULL;
  out->pair_f = L->pairs ? L->pairs->f : NULL;
}

zs_status zsi_vans_append(zs_vans *V, zsi_vans_layer *L) {
  if (V->k >= ZS_VANS_MAX_LAYERS)
    return zsi_error(ZS_ERR_OVERFLOW, "vans: more than %d layers", ZS_VANS_MAX_LAYERS);
  if (V->k == V->cap) {
    const uint32_t cap = V->cap ? 2 * V->cap : 8;
    zsi_vans_layer *n = zsi_alloc_array(cap, sizeof *n);
    if (!n) return zsi_error(ZS_ERR_OUT_OF_MEMORY, "vans: layer table");
    if (V->k) memcpy(n, V->layers, V->k * sizeof *n);
    zsi_free(V->layers);
    V->layers = n;
    V->cap = cap;
  }
  V->layers[V->k++] = *L;
  memset(L, 0, sizeof *L);
  return ZS_OK;
}

/* ---- the public object ---- */

zs_status zs_vans_create(zs_vans **out, int64_t n0, const int8_t *v0, unsigned flags) {
  if (!out) return zsi_error(ZS_ERR_INVALID_ARGUMENT, "zs_vans_create: out is NULL");
  if (flags & ~(unsigned)(ZS_VANS_PER_ROW | ZS_VANS_INTERLEAVED | ZS_VANS_PAIRS))
    return zsi_error(ZS_ERR_INVALID_ARGUMENT, "zs_vans_create: unknown flags 0x%x", flags);
  if ((flags & ZS_VANS_INTERLEAVED) && (flags & ZS_VANS_PAIRS))
    return zsi_error(ZS_ERR_INVALID_ARGUMENT,
                     "vans: ZS_VANS_INTERLEAVED and ZS_VANS_PAIRS are two layouts; choose one");
  if (n0 < 1 || n0 > ZS_VANS_MAX_DIM)
    return zsi_error(ZS_ERR_OVERFLOW, "vans: N_0 = %lld outside 1..%d", (long long)n0,
                     ZS_VANS_MAX_DIM);
  zs_vans *V = zsi_alloc(sizeof *V);
  if (V) V->v0 = zsi_alloc((uint64_t)n0);
  if (!V || !V->v0) {
    if (V) zsi_free(V);
    return zsi_error(ZS_ERR_OUT_OF_MEMORY, "vans: a chain with N_0 = %lld", (long long)n0);
  }
  if (v0) memcpy(V->v0, v0, (size_t)n0);
  V->n0 = (uint32_t)n0;
  V->flags = flags;
  V->lanes = flags & (ZS_VANS_INTERLEAVED | ZS_VANS_PAIRS) ? ZS_VANS_LANES : 0;
  *out = V;
  return ZS_OK;
}

void zs_vans_destroy(zs_vans **V) {
  if (!V || !*V) return;
  for (uint32_t k = 0; k < (*V)->k; k++) zsi_vans_layer_free(&(*V)->layers[k]);
  zsi_free((*V)->layers);
  zsi_free((*V)->v0);
  zsi_free(*V);
  *V = NULL;
}

int zs_vans_layers(const zs_vans *V) { return V ? (int)V->k : 0; }
int64_t zs_vans_dim(const zs_vans *V, int k) {
  if (!V || k < 0 || k > (int)V->k) return 0;
  return k == 0 ? V->n0 : V->layers[k - 1].rows;
}
unsigned zs_vans_flags(const zs_vans *V) { return V ? V->flags : 0; }
const int8_t *zs_vans_v0(const zs_vans *V) { return V ? V->v0 : NULL; }

zs_status zs_vans_layer_info_get(const zs_vans *V, int k, zs_vans_layer_info *info) {
  if (!V || !info || k < 0 || k >= (int)V->k)
    return zsi_error(ZS_ERR_INVALID_ARGUMENT,
                     "zs_vans_layer_info_get: V or info is NULL, or no layer %d", k);
  const zsi_vans_layer *L = &V->layers[k];
  memset(info, 0, sizeof *info);
  info->rows = L->rows;
  info->cols = L->cols;
  info->delta = L->delta;
  info->w_min = L->w_min;
  info->grid = (int)L->grid;
  info->payload_words = L->payload_words;
  info->bytes = (int64_t)zsi_vans_record_bytes(L);
  const double n = (double)L->rows * (double)L->cols;
  double h = 0, ce = 0;
  for (uint32_t s = 0; s < L->grid; s++) {
    const double c = (double)L->hist[L->w_min + 128 + (int32_t)s];
    if (c == 0) continue;
    h -= c / n * log2(c / n);
    if (!L->pairs) ce -= c / n * log2(L->prob[s] / 256.0);
  }
  for (uint32_t k = 0; L->pairs && k < L->pairs->n; k++)
    ce -= (double)L->pairs->count[k] / n * log2(L->pairs->f[k] / (double)ZSI_VANS_PAIR_SLOTS);
  info->entropy_bits = h;
  info->cross_entropy_bits = ce;
  info->payload_bits_per_weight = 16.0 * L->payload_words / n;
  return ZS_OK;
}

zs_status zs_vans_layer_decode(const zs_vans *V, int k, int8_t *w) {
  if (!V || !w || k < 0 || k >= (int)V->k)
    return zsi_error(ZS_ERR_INVALID_ARGUMENT,
                     "zs_vans_layer_decode: V or w is NULL, or no layer %d", k);
  const zsi_vans_layer *L = &V->layers[k];
  ZSI_OMP(parallel for schedule(dynamic, 16) num_threads(zsi_omp_threads()) if (L->rows > 64))
  for (int64_t i = 0; i < (int64_t)L->rows; i++)
    zsi_vans_decode_row(L, V->lanes, (uint32_t)i, w + (uint64_t)i * L->cols);
  return ZS_OK;
}

/* ---- layers from weights ---- */

zs_status zs_vans_add_layer_int8(zs_vans *V, int64_t rows, const int8_t *w, const float *scales) {
  if (!V || !w || !scales)
    return zsi_error(ZS_ERR_INVALID_ARGUMENT, "zs_vans_add_layer_int8: V, w or scales is NULL");
  if (rows < 1 || rows > ZS_VANS_MAX_DIM)
    return zsi_error(ZS_ERR_OVERFLOW, "vans: layer %u: rows = %lld outside 1..%d", V->k,
                     (long long)rows, ZS_VANS_MAX_DIM);
  const int per_row = (V->flags & ZS_VANS_PER_ROW) != 0;
  zsi_vans_layer L;
  memset(&L, 0, sizeof L);
  L.rows = (uint32_t)rows;
  L.cols = (uint32_t)zs_vans_dim(V, (int)V->k);
  const uint64_t n = (uint64_t)L.rows * L.cols;
  for (int64_t i = 0; i < (per_row ? rows : 1); i++) {
    if (!isfinite(scales[i]) || !(scales[i] > 0))
      return zsi_error(ZS_ERR_OUT_OF_RANGE,
                       "vans: layer %u: scale %lld = %g, must be finite and "
                       "positive",
                       V->k, (long long)i, (double)scales[i]);
    if (scales[i] > L.delta) L.delta = scales[i];
  }
  uint64_t hist[256] = {0};
  ZSI_OMP(parallel num_threads(zsi_omp_threads()) if (n > 65536)) {
    uint64_t h[256] = {0};
    ZSI_OMP(for schedule(static))
    for (int64_t i = 0; i < (int64_t)n; i++) h[(uint8_t)(w[i] + 128)]++;
    ZSI_OMP(critical(zsi_vans_hist2)) {
      for (int v = 0; v < 256; v++) hist[v] += h[v];
    }
  }
  zs_status s = V->flags & ZS_VANS_PAIRS ? zsi_vans_pair_model(&L, w, hist, ZSI_VANS_PAIR_CAP)
                                         : zsi_vans_model(&L, hist);
  if (s != ZS_OK) {
    zsi_vans_layer_free(&L);
    return zsi_error_prefix(s, "vans: layer %u", V->k);
  }
  memcpy(L.hist, hist, sizeof hist);
  L.cursors = zsi_alloc_array(L.rows, 4);
  if (per_row) L.row_scales = zsi_alloc_array(L.rows, 4);
  if (!L.cursors || (per_row && !L.row_scales)) {
    zsi_vans_layer_free(&L);
    return zsi_error(ZS_ERR_OUT_OF_MEMORY, "vans: layer %u", V->k);
  }
  if (per_row) memcpy(L.row_scales, scales, (size_t)rows * 4);
  if ((s = zsi_vans_encode(&L, w, V->lanes)) != ZS_OK || (s = zsi_vans_row_mult(&L)) != ZS_OK ||
      (s = zsi_vans_append(V, &L)) != ZS_OK)
    zsi_vans_layer_free(&L);
  return s;
}

zs_status zsi_vans_add_quantised(zs_vans *V, int64_t rows, const float *w, const float *steps) {
  const uint64_t cols = (uint64_t)zs_vans_dim(V, (int)V->k);
  int8_t *q = zsi_alloc((uint64_t)rows * cols);
  if (!q)
    return zsi_error(ZS_ERR_OUT_OF_MEMORY, "vans: layer %u: %lld x %llu int8 weights", V->k,
                     (long long)rows, (unsigned long long)cols);
  ZSI_OMP(parallel for schedule(static) num_threads(zsi_omp_threads()) if (rows > 64))
  for (int64_t i = 0; i < rows; i++) {
    const float inv = 1.0f / steps[i];
    for (uint64_t j = 0; j < cols; j++) q[i * cols + j] = zsi_vans_quant(w[i * cols + j], inv);
  }
  const zs_status s = zs_vans_add_layer_int8(V, rows, q, steps);
  zsi_free(q);
  return s;
}

zs_status zs_vans_add_layer(zs_vans *V, int64_t rows, const float *w) {
  if (!V || !w) return zsi_error(ZS_ERR_INVALID_ARGUMENT, "zs_vans_add_layer: V or w is NULL");
  if (rows < 1 || rows > ZS_VANS_MAX_DIM)
    return zsi_error(ZS_ERR_OVERFLOW, "vans: layer %u: rows = %lld outside 1..%d", V->k,
                     (long long)rows, ZS_VANS_MAX_DIM);
  const uint64_t cols = (uint64_t)zs_vans_dim(V, (int)V->k);
  float *steps = zsi_alloc_array((uint64_t)rows, sizeof(float));
  if (!steps) return zsi_error(ZS_ERR_OUT_OF_MEMORY, "vans: row scales");
  float top = 0;
  int64_t bad = -1;
  for (int64_t i = 0; i < rows && bad < 0; i++) {
    float m = 0;
    for (uint64_t j = 0; j < cols; j++) {
      const float a = fabsf(w[i * cols + j]);
      if (!isfinite(a)) bad = i * (int64_t)cols + (int64_t)j;
      if (a > m) m = a;
    }
    steps[i] = m > 0 ? m / 127.0f : 1.0f;
    if (m > top) top = m;
  }
  if (bad >= 0) {
    zsi_free(steps);
    return zsi_error(ZS_ERR_OUT_OF_RANGE, "vans: layer %u: weight (%lld, %lld) is not finite", V->k,
                     (long long)(bad / (int64_t)cols), (long long)(bad % (int64_t)cols));
  }
  if (!(V->flags & ZS_VANS_PER_ROW))
    for (int64_t i = 0; i < rows; i++) steps[i] = top > 0 ? top / 127.0f : 1.0f;
  const zs_status s = zsi_vans_add_quantised(V, rows, w, steps);
  zsi_free(steps);
  return s;
}
