/* vans_chain.c — MAT-VANS layers from weights (quantisation, test generator) and the chained
 * product on the ref, cpu and GPU backends. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "backends/cpu/cpu_kernels.h"
#include "core/runtime/runtime.h"
#include "formats/vans/vans.h"

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
  ZSI_OMP(parallel num_threads(zsi_cpu_threads()) if (n > 65536)) {
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

/* Quantise x/delta to [-127, 127], halves away from zero. */
static inline int8_t quant(float x, float inv) {
  float q = roundf(x * inv);
  if (q > 127.f) q = 127.f;
  if (q < -127.f) q = -127.f;
  return (int8_t)q;
}

/* Shared by zs_vans_add_layer and the generator: steps[] holds the quantisation step of each
 * row (all equal per layer) and doubles as the stored scales. */
static zs_status add_quantised(zs_vans *V, int64_t rows, const float *w, const float *steps) {
  const uint64_t cols = (uint64_t)zs_vans_dim(V, (int)V->k);
  int8_t *q = zsi_alloc((uint64_t)rows * cols);
  if (!q)
    return zsi_error(ZS_ERR_OUT_OF_MEMORY, "vans: layer %u: %lld x %llu int8 weights", V->k,
                     (long long)rows, (unsigned long long)cols);
  ZSI_OMP(parallel for schedule(static) num_threads(zsi_cpu_threads()) if (rows > 64))
  for (int64_t i = 0; i < rows; i++) {
    const float inv = 1.0f / steps[i];
    for (uint64_t j = 0; j < cols; j++) q[i * cols + j] = quant(w[i * cols + j], inv);
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
  const zs_status s = add_quantised(V, rows, w, steps);
  zsi_free(steps);
  return s;
}

/* ---- test layers ---- */

static uint64_t mix64(uint64_t z) {
  z += UINT64_C(0x9e3779b97f4a7c15);
  z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
  z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
  return z ^ (z >> 31);
}
/* Standard normal numbers of one row: a counter-based generator, so rows can be made on any
 * thread in any order and still come out the same. */
static void normal_row(uint64_t seed, uint64_t layer, uint64_t row, float *out, uint64_t n) {
  const uint64_t base = mix64(seed ^ mix64(layer * UINT64_C(0x100000001b3) + row));
  for (uint64_t j = 0; j < n; j += 2) {
    const uint64_t a = mix64(base + j), b = mix64(base + j + 1);
    const double u1 = ((double)(a >> 11) + 1.0) * 0x1p-53, u2 = (double)(b >> 11) * 0x1p-53;
    const double r = sqrt(-2.0 * log(u1));
    out[j] = (float)(r * cos(6.283185307179586 * u2));
    if (j + 1 < n) out[j + 1] = (float)(r * sin(6.283185307179586 * u2));
  }
}

static double entropy_at(const float *w, uint64_t n, float step) {
  uint64_t h[256] = {0};
  const float inv = 1.0f / step;
  for (uint64_t i = 0; i < n; i++) h[(uint8_t)(quant(w[i], inv) + 128)]++;
  double e = 0;
  for (int v = 0; v < 256; v++)
    if (h[v]) e -= (double)h[v] / (double)n * log2((double)h[v] / (double)n);
  return e;
}

zs_status zs_vans_generate(zs_vans **out, const char *spec, unsigned flags) {
  static const char *const known[] = {"n", "k", "seed", "rows", "entropy", "v0", NULL};
  if (!out || !spec)
    return zsi_error(ZS_ERR_INVALID_ARGUMENT, "zs_vans_generate: out or spec is NULL");
  zs_status s = zsi_option_check(spec, known, "vans generator");
  if (s != ZS_OK) return s;
  int64_t n = 0, k = 1, seed = 1, rows = 0, v0seed = 0;
  int found;
  if ((s = zsi_option_int(spec, "n", 1, ZS_VANS_MAX_DIM, &n, &found)) != ZS_OK) return s;
  if (!found) return zsi_error(ZS_ERR_INVALID_ARGUMENT, "vans generator: n=N is required");
  if ((s = zsi_option_int(spec, "k", 1, ZS_VANS_MAX_LAYERS, &k, &found)) != ZS_OK ||
      (s = zsi_option_int(spec, "seed", 0, INT64_MAX, &seed, &found)) != ZS_OK ||
      (s = zsi_option_int(spec, "rows", 1, ZS_VANS_MAX_DIM, &rows, &found)) != ZS_OK ||
      (s = zsi_option_int(spec, "v0", 0, INT64_MAX, &v0seed, &found)) != ZS_OK)
    return s;
  if (!rows) rows = n;
  double target = 0;
  if ((s = zsi_option_double(spec, "entropy", &target, &found)) != ZS_OK)
    return zsi_error_prefix(ZS_ERR_PARSE, "vans generator");
  if (found && !(target > 0 && target <= 8))
    return zsi_error(ZS_ERR_PARSE, "vans generator: entropy=%g, want bits in (0, 8]", target);
  int8_t *v0 = zsi_alloc((uint64_t)n);
  float *tmp = zsi_alloc_array((uint64_t)n + 1, sizeof(float));
  if (!v0 || !tmp) {
    zsi_free(v0), zsi_free(tmp);
    return zsi_error(ZS_ERR_OUT_OF_MEMORY, "vans generator: v0");
  }
  /* v0: rounded N(0, 32^2), clipped to int8: a spread of activations, not a constant. */
  normal_row((uint64_t)(v0seed ? v0seed : seed), UINT64_C(0xffffffff), 0, tmp, (uint64_t)n);
  for (int64_t j = 0; j < n; j++) v0[j] = quant(tmp[j] * 32.0f, 1.0f);
  zsi_free(tmp);
  zs_vans *V = NULL;
  s = zs_vans_create(&V, n, v0, flags);
  zsi_free(v0);
  if (s != ZS_OK) return s;
  for (int64_t l = 0; l < k && s == ZS_OK; l++) {
    const int64_t r = rows, c = zs_vans_dim(V, (int)l);
    float *w = zsi_alloc_array((uint64_t)r * (uint64_t)c, sizeof(float));
    if (!w) {
      s = zsi_error(ZS_ERR_OUT_OF_MEMORY, "vans generator: %lld x %lld f32 weights", (long long)r,
                    (long long)c);
      break;
    }
    const float sigma = (float)(1.0 / sqrt((double)c));
    ZSI_OMP(parallel for schedule(static) num_threads(zsi_cpu_threads()) if (r > 64))
    for (int64_t i = 0; i < r; i++) {
      float *row = w + (uint64_t)i * (uint64_t)c;
      normal_row((uint64_t)seed, (uint64_t)l, (uint64_t)i, row, (uint64_t)c);
      for (int64_t j = 0; j < c; j++) row[j] *= sigma;
    }
    if (target > 0) {
      /* Bisection on the step over a sample: coarser steps give lower entropy. */
      const uint64_t m = (uint64_t)r * (uint64_t)c < 65536 ? (uint64_t)r * (uint64_t)c : 65536;
      float amax = 0;
      for (uint64_t i = 0; i < (uint64_t)r * (uint64_t)c; i++)
        if (fabsf(w[i]) > amax) amax = fabsf(w[i]);
      double lo = log(amax / 127.0), hi = log(amax * 4.0);
      for (int it = 0; it < 40; it++) {
        const double mid = 0.5 * (lo + hi);
        if (entropy_at(w, m, (float)exp(mid)) > target)
          lo = mid;
        else
          hi = mid;
      }
      float *steps = zsi_alloc_array((uint64_t)r, sizeof(float));
      if (!steps) {
        zsi_free(w);
        s = zsi_error(ZS_ERR_OUT_OF_MEMORY, "vans generator: steps");
        break;
      }
      for (int64_t i = 0; i < r; i++) steps[i] = (float)exp(hi);
      s = add_quantised(V, r, w, steps);
      zsi_free(steps);
    } else {
      s = zs_vans_add_layer(V, r, w);
    }
    zsi_free(w);
  }
  if (s != ZS_OK) {
    zs_vans_destroy(&V);
    return s;
  }
  *out = V;
  return ZS_OK;
}

/* ---- chains ---- */

enum { CHAIN_REF, CHAIN_CPU, CHAIN_GPU };

struct zs_vans_chain {
  const zs_vans *V;
  int kind;
  const zsb_vans_ops *ops;
  void *dev;
  int64_t *z;         /* largest N_k: multiplied accumulators */
  int8_t *x[2];       /* ping-pong activations */
  int8_t *w;          /* ref: one decoded layer */
  int8_t *xpad;       /* cpu: the input of a pair layer, zero-padded by a chunk */
  uint64_t *pair_tab; /* cpu: a pair layer's step table */
};

/* Requantise z[0..n) into y, the one step after every layer on the host backends. */
static void requant_host(const int64_t *z, int64_t n, int8_t *y, int threads) {
  int64_t amax = 0;
  ZSI_OMP(parallel for reduction(max : amax) num_threads(threads) if (n > 4096))
  for (int64_t i = 0; i < n; i++) {
    const int64_t a = z[i] < 0 ? -z[i] : z[i];
    if (a > amax) amax = a;
  }
  ZSI_OMP(parallel for num_threads(threads) if (n > 4096))
  for (int64_t i = 0; i < n; i++) y[i] = zsi_vans_requant(z[i], amax);
}

/* The oracle: decode the whole layer with the reference decoder, then multiply. */
static void layer_ref(zs_vans_chain *c, int k, const int8_t *x, int8_t *y) {
  const zsi_vans_layer *L = &c->V->layers[k];
  for (uint32_t i = 0; i < L->rows; i++)
    zsi_vans_decode_row(L, c->V->lanes, i, c->w + (uint64_t)i * L->cols);
  for (uint32_t i = 0; i < L->rows; i++) {
    const int8_t *row = c->w + (uint64_t)i * L->cols;
    int32_t acc = 0;
    for (uint32_t j = 0; j < L->cols; j++) acc += (int32_t)row[j] * x[j];
    c->z[i] = (int64_t)acc * (L->row_mult ? L->row_mult[i] : 1);
  }
  requant_host(c->z, L->rows, y, 1);
}

/* One entry per quantile: weight (low byte), probability, offset of the quantile in its slot;
 * one load per decoded weight instead of three (ppf, prob, cdf). */
static void step_table(const zsi_vans_layer *L, uint32_t tab[256]) {
  for (uint32_t q = 0; q < 256; q++) {
    const uint32_t r = L->ppf[q];
    tab[q] = (uint32_t)(uint8_t)(int8_t)(L->w_min + (int32_t)r) | (uint32_t)L->prob[r] << 8 |
             (q - L->cdf[r]) << 16;
  }
}

/* Fused decode and dot of four rows of the report's layout at once: each row's decode is one
 * long dependent chain, so four chains side by side keep the core busy. */
#define ZSI_VANS_ROWS 4
static void rows_dot_plain(const zsi_vans_layer *L, const uint32_t *tab, uint32_t i0, uint32_t n,
                           const int8_t *x, int32_t *out) {
  const uint16_t *p[ZSI_VANS_ROWS];
  uint32_t st[ZSI_VANS_ROWS];
  int32_t acc[ZSI_VANS_ROWS];
  for (uint32_t r = 0; r < ZSI_VANS_ROWS; r++) {
    p[r] = L->payload + L->cursors[i0 + (r < n ? r : 0)];
    st[r] = (uint32_t)p[r][0] << 16 | p[r][1];
    p[r] += 2;
    acc[r] = 0;
  }
  for (uint32_t j = 0; j < L->cols; j++) {
    const int32_t xj = x[j];
    for (uint32_t r = 0; r < ZSI_VANS_ROWS; r++) {
      const uint32_t e = tab[st[r] & 0xffu];
      acc[r] += (int32_t)(int8_t)(e & 0xffu) * xj;
      st[r] = (st[r] >> ZSI_VANS_PREC) * ((e >> 8) & 0xffu) + (e >> 16);
      if (st[r] < ZSI_VANS_LOW) st[r] = st[r] << 16 | *p[r]++;
    }
  }
  for (uint32_t r = 0; r < n; r++) out[r] = acc[r];
}

/* The pair layout's step table: one 64-bit entry per quantile, the probability f in bits 0-15,
 * the quantile's offset in its slot in bits 16-31 and the two weights in bytes 4 and 5: one
 * load per pair step instead of five (slot, f, cum, a, b). */
static void pair_table(const zsi_vans_pairs *P, uint64_t tab[ZSI_VANS_PAIR_SLOTS]) {
  for (uint32_t q = 0; q < ZSI_VANS_PAIR_SLOTS; q++) {
    const uint32_t k = P->slot[q];
    tab[q] = P->f[k] | (uint64_t)(q - P->cum[k]) << 16 | (uint64_t)(uint8_t)P->a[k] << 32 |
             (uint64_t)(uint8_t)P->b[k] << 40;
  }
}

/* Row i of a validated pair layer (docs/formats/vans.md §3) dotted with x, without checks: the
 * 32 lanes' states are independent chains, so decoding a chunk lane after lane keeps several
 * in flight. x holds whole chunks, zero past the columns (an odd last column's partner weight
 * meets a zero); the refills after the last chunk change no weight and are skipped. */
static int32_t pairs_row_dot(const zsi_vans_layer *L, const uint64_t *tab, uint32_t i,
                             const int8_t *x) {
  const uint16_t *p = L->payload + L->cursors[i];
  uint64_t st[ZS_VANS_LANES];
  for (uint32_t l = 0; l < ZS_VANS_LANES; l++, p += 4)
    st[l] = (uint64_t)zsi_vans_word32(p, 0) << 32 | zsi_vans_word32(p, 2);
  int32_t acc = 0;
  const uint32_t chunks = (L->cols + ZSI_VANS_CHUNK - 1) / ZSI_VANS_CHUNK;
  for (uint32_t ch = 0; ch < chunks; ch++)
    for (uint32_t l = 0; l < ZS_VANS_LANES; l++) {
      const uint32_t j = ch * ZSI_VANS_CHUNK + 4 * l;
      if (j >= L->cols) break;
      for (uint32_t h = 0; h < 4 && j + h < L->cols; h += 2) {
        const uint64_t e = tab[st[l] & (ZSI_VANS_PAIR_SLOTS - 1)];
        st[l] = (st[l] >> ZSI_VANS_PAIR_BITS) * (e & 0xffffu) + ((e >> 16) & 0xffffu);
        acc += (int32_t)(int8_t)(e >> 32) * x[j + h] + (int32_t)(int8_t)(e >> 40) * x[j + h + 1];
      }
      if (ch + 1 < chunks && st[l] < ZSI_VANS_PAIR_LOW) {
        st[l] = st[l] << 32 | zsi_vans_word32(p, 0);
        p += 2;
      }
    }
  return acc;
}

static void layer_cpu(zs_vans_chain *c, int k, const int8_t *x, int8_t *y) {
  const zsi_vans_layer *L = &c->V->layers[k];
  const int t = zsi_cpu_threads();
  if (c->V->lanes == 0) {
    uint32_t tab[256];
    step_table(L, tab);
    const int64_t groups = (L->rows + ZSI_VANS_ROWS - 1) / ZSI_VANS_ROWS;
    ZSI_OMP(parallel for schedule(static, 4) num_threads(t) if (L->rows > 64))
    for (int64_t g = 0; g < groups; g++) {
      const uint32_t i0 = (uint32_t)g * ZSI_VANS_ROWS;
      const uint32_t n = L->rows - i0 < ZSI_VANS_ROWS ? L->rows - i0 : ZSI_VANS_ROWS;
      int32_t acc[ZSI_VANS_ROWS];
      rows_dot_plain(L, tab, i0, n, x, acc);
      for (uint32_t r = 0; r < n; r++)
        c->z[i0 + r] = (int64_t)acc[r] * (L->row_mult ? L->row_mult[i0 + r] : 1);
    }
  } else if (L->pairs) {
    /* x padded with zeros to whole chunks (c->xpad holds the widest layer's rows plus a chunk) */
    int8_t *xp = c->xpad;
    memcpy(xp, x, L->cols);
    memset(xp + L->cols, 0, ZSI_VANS_CHUNK);
    pair_table(L->pairs, c->pair_tab);
    ZSI_OMP(parallel for schedule(static, 16) num_threads(t) if (L->rows > 64))
    for (int64_t i = 0; i < (int64_t)L->rows; i++)
      c->z[i] = (int64_t)pairs_row_dot(L, c->pair_tab, (uint32_t)i, xp) *
                (L->row_mult ? L->row_mult[i] : 1);
  } else {
    /* The interleaved layout is shaped for GPU lanes; on the host a row is decoded to a small
     * buffer, then dotted. */
    ZSI_OMP(parallel num_threads(t) if (L->rows > 64)) {
      int8_t *buf = malloc(L->cols);
      ZSI_OMP(for schedule(static, 16))
      for (int64_t i = 0; i < (int64_t)L->rows; i++) {
        int32_t acc = 0;
        if (buf) {
          zsi_vans_decode_row(L, c->V->lanes, (uint32_t)i, buf);
          for (uint32_t j = 0; j < L->cols; j++) acc += (int32_t)buf[j] * x[j];
        }
        c->z[i] = (int64_t)acc * (L->row_mult ? L->row_mult[i] : 1);
      }
      free(buf);
    }
  }
  requant_host(c->z, L->rows, y, t);
}

zs_status zs_vans_chain_create(zs_vans_chain **out, zs_context *ctx, const zs_vans *V,
                               const char *backend) {
  if (!out || !ctx || !V)
    return zsi_error(ZS_ERR_INVALID_ARGUMENT, "zs_vans_chain_create: out, ctx or V is NULL");
  if (V->k == 0) return zsi_error(ZS_ERR_INVALID_ARGUMENT, "vans: a chain without layers");
  const zsi_backend_slot *slot;
  zs_status s = zsi_backend_get(ctx, backend, &slot);
  if (s != ZS_OK) return s;
  zs_vans_chain *c = zsi_alloc(sizeof *c);
  if (!c) return zsi_error(ZS_ERR_OUT_OF_MEMORY, "vans: chain");
  c->V = V;
  uint64_t big = V->n0, big_in = 0;
  for (uint32_t k = 0; k < V->k; k++) {
    if (V->layers[k].rows > big) big = V->layers[k].rows;
    const uint64_t e = (uint64_t)V->layers[k].rows * V->layers[k].cols;
    if (e > big_in) big_in = e;
  }
  if (strcmp(slot->name, "ref") == 0 || strcmp(slot->name, "cpu") == 0) {
    c->kind = slot->name[0] == 'r' ? CHAIN_REF : CHAIN_CPU;
    c->z = zsi_alloc_array(big, sizeof(int64_t));
    c->x[0] = zsi_alloc(big);
    c->x[1] = zsi_alloc(big);
    if (c->kind == CHAIN_REF) c->w = zsi_alloc(big_in);
    if (c->kind == CHAIN_CPU) {
      c->xpad = zsi_alloc(big + ZSI_VANS_CHUNK);
      c->pair_tab = zsi_alloc_array(ZSI_VANS_PAIR_SLOTS, sizeof(uint64_t));
    }
    if (!c->z || !c->x[0] || !c->x[1] || (c->kind == CHAIN_REF && !c->w) ||
        (c->kind == CHAIN_CPU && (!c->xpad || !c->pair_tab))) {
      zs_vans_chain_destroy(&c);
      return zsi_error(ZS_ERR_OUT_OF_MEMORY, "vans: %s chain buffers", slot->name);
    }
    *out = c;
    return ZS_OK;
  }
  c->kind = CHAIN_GPU;
  c->ops = slot->ops->extension ? slot->ops->extension(slot->self, ZSB_VANS_EXTENSION) : NULL;
  if (!c->ops || c->ops->version != 2) {
    zsi_free(c);
    return zsi_error(ZS_ERR_UNSUPPORTED, "vans: backend '%s' has no %s kernels", slot->name,
                     ZSB_VANS_EXTENSION);
  }
  zsb_vans_layer *views = zsi_alloc_array(V->k, sizeof *views);
  if (!views) {
    zsi_free(c);
    return zsi_error(ZS_ERR_OUT_OF_MEMORY, "vans: layer views");
  }
  for (uint32_t k = 0; k < V->k; k++) zsi_vans_view(V, (int)k, &views[k]);
  zsi_error_clear();
  s = c->ops->chain_create(slot->self, &c->dev, (int)V->k, views);
  zsi_free(views);
  if (s != ZS_OK) {
    zsi_free(c);
    return s;
  }
  *out = c;
  return ZS_OK;
}

zs_status zs_vans_chain_run(zs_vans_chain *c, const int8_t *x, int8_t *y) {
  if (!c || !y) return zsi_error(ZS_ERR_INVALID_ARGUMENT, "zs_vans_chain_run: c or y is NULL");
  const zs_vans *V = c->V;
  if (!x) x = V->v0;
  if (c->kind == CHAIN_GPU) return c->ops->chain_run(c->dev, x, y);
  const int8_t *in = x;
  for (uint32_t k = 0; k < V->k; k++) {
    int8_t *o = k + 1 == V->k ? y : c->x[k % 2];
    if (c->kind == CHAIN_REF)
      layer_ref(c, (int)k, in, o);
    else
      layer_cpu(c, (int)k, in, o);
    in = o;
  }
  return ZS_OK;
}

zs_status zs_vans_chain_time(zs_vans_chain *c, int reps, double *ms) {
  if (!c || !ms || reps < 1)
    return zsi_error(ZS_ERR_INVALID_ARGUMENT, "zs_vans_chain_time: c or ms is NULL, or reps %d < 1",
                     reps);
  if (c->kind == CHAIN_GPU) return c->ops->chain_time(c->dev, reps, ms);
  const zs_vans *V = c->V;
  int8_t *y = zsi_alloc((uint64_t)V->layers[V->k - 1].rows);
  if (!y) return zsi_error(ZS_ERR_OUT_OF_MEMORY, "vans: output");
  const double t0 = zsi_now();
  zs_status s = ZS_OK;
  for (int r = 0; r < reps && s == ZS_OK; r++) s = zs_vans_chain_run(c, NULL, y);
  *ms = (zsi_now() - t0) * 1e3 / reps;
  zsi_free(y);
  return s;
}

void zs_vans_chain_destroy(zs_vans_chain **c) {
  if (!c || !*c) return;
  if ((*c)->kind == CHAIN_GPU && (*c)->dev) (*c)->ops->chain_destroy((*c)->dev);
  zsi_free((*c)->z);
  zsi_free((*c)->x[0]);
  zsi_free((*c)->x[1]);
  zsi_free((*c)->w);
  zsi_free((*c)->xpad);
  zsi_free((*c)->pair_tab);
  zsi_free(*c);
  *c = NULL;
}
