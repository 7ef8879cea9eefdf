/* vans_generate.c — test chains of Gaussian layers (zs_vans_generate): reproducible on any
 * thread count, quantised at absmax/127 or at the step that gives a target entropy. */
#include <math.h>

#include "core/zs_omp.h"
#include "formats/vans/vans.h"

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
  for (uint64_t i = 0; i < n; i++) h[(uint8_t)(zsi_vans_quant(w[i], inv) + 128)]++;
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
  for (int64_t j = 0; j < n; j++) v0[j] = zsi_vans_quant(tmp[j] * 32.0f, 1.0f);
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
    ZSI_OMP(parallel for schedule(static) num_threads(zsi_omp_threads()) if (r > 64))
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
      s = zsi_vans_add_quantised(V, r, w, steps);
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
