/* vans_model.c — MAT-VANS entropy models: the 8-bit model of a layer's int8 weights (the report's
 * cdf/ppf tables) and the 12-bit model of weight pairs (the pair layout), built from counts. */
#include <math.h>
#include <string.h>

#include "formats/vans/vans.h"

/* ---- entropy model ---- */

/* Probabilities p[0..g) summing to `total`, none below 1 or above cap (g * cap >= total), close
 * to total * count / n: rounded,
 * then moved one unit at a time where that costs the fewest bits (the rounding is close, so
 * the loop runs a handful of times per symbol at most). */
static void quantize(const uint64_t *count, uint32_t g, uint64_t n, uint32_t total, uint32_t cap,
                     uint32_t *p) {
  int64_t sum = 0;
  for (uint32_t s = 0; s < g; s++) {
    const double want = (double)count[s] * total / (double)n;
    p[s] = want < 1.0 ? 1u : want >= cap ? cap : (uint32_t)floor(want + 0.5);
    sum += p[s];
  }
  while (sum != (int64_t)total) {
    int64_t best = -1;
    double best_cost = 0;
    for (uint32_t s = 0; s < g; s++) {
      const double c = (double)count[s];
      double cost;
      if (sum > (int64_t)total) {
        if (p[s] <= 1) continue;
        cost = c * log2((double)p[s] / (double)(p[s] - 1));
      } else {
        if (p[s] >= cap) continue;
        cost = -c * log2((double)(p[s] + 1) / (double)p[s]);
      }
      if (best < 0 || cost < best_cost) best = s, best_cost = cost;
    }
    if (sum > (int64_t)total)
      p[best]--, sum--;
    else
      p[best]++, sum++;
  }
}

/* w_min and grid of the weights counted in hist (one value: a dummy neighbour beside it, as
 * rANS needs two symbols); 0 when they span more than |G| holds. */
int zsi_vans_grid(zsi_vans_layer *L, const uint64_t hist[256], uint64_t *n) {
  int lo = 256, hi = -1;
  *n = 0;
  for (int v = 0; v < 256; v++)
    if (hist[v]) {
      if (lo > v) lo = v;
      hi = v;
      *n += hist[v];
    }
  if (*n == 0) return 0;
  if (hi == lo) {
    if (hi < 255)
      hi++;
    else
      lo--;
  }
  L->w_min = lo - 128;
  L->grid = (uint32_t)(hi - lo + 1);
  return 1;
}

zs_status zsi_vans_model(zsi_vans_layer *L, const uint64_t hist[256]) {
  uint64_t n;
  if (!zsi_vans_grid(L, hist, &n))
    return zsi_error(ZS_ERR_INVALID_ARGUMENT, "vans: a layer without weights");
  if (L->grid > 255)
    return zsi_error(ZS_ERR_OUT_OF_RANGE,
                     "vans: weights span %u values (%d..%d); the grid |G| holds at most 255",
                     L->grid, L->w_min, L->w_min + (int)L->grid - 1);
  const uint32_t g = L->grid;
  uint64_t count[256] = {0};
  uint32_t p[256];
  for (uint32_t s = 0; s < g; s++) count[s] = hist[L->w_min + 128 + (int32_t)s];
  quantize(count, g, n, 256, 256, p);
  uint32_t c = 0;
  for (uint32_t s = 0; s < g; s++) {
    L->cdf[s] = (uint8_t)c;
    L->prob[s] = (uint16_t)p[s];
    for (uint32_t q = c; q < c + p[s]; q++) L->ppf[q] = (uint8_t)s;
    c += p[s];
  }
  L->cdf[g] = (uint8_t)c; /* 256 stored as 0 */
  return ZS_OK;
}

/* ---- the pair model ---- */

zs_status zsi_vans_pairs_index(zsi_vans_pairs *P, int k) {
  if (P->n < 2 || P->n > ZSI_VANS_PAIR_SLOTS)
    return zsi_error(ZS_ERR_CORRUPT, "vans: layer %d: %u pairs, must be 2..%u", k, P->n,
                     ZSI_VANS_PAIR_SLOTS);
  uint32_t c = 0, prev = 0;
  for (uint32_t i = 0; i < P->n; i++) {
    const uint32_t code = zsi_vans_pair_code(P->a[i], P->b[i]);
    if (i && code <= prev)
      return zsi_error(ZS_ERR_CORRUPT,
                       "vans: layer %d: pair %u (%d, %d) does not follow pair %u in code order "
                       "(a + 256 b, bytes unsigned)",
                       k, i, P->a[i], P->b[i], i - 1);
    if (P->f[i] == 0 || c + P->f[i] > ZSI_VANS_PAIR_SLOTS)
      return zsi_error(ZS_ERR_CORRUPT, "vans: layer %d: pair %u has probability %u/4096%s", k, i,
                       P->f[i], P->f[i] ? ", past a total of 4096" : " (zero)");
    P->cum[i] = (uint16_t)c;
    for (uint32_t q = c; q < c + P->f[i]; q++) P->slot[q] = (uint16_t)i;
    c += P->f[i];
    prev = code;
  }
  if (c != ZSI_VANS_PAIR_SLOTS)
    return zsi_error(ZS_ERR_CORRUPT, "vans: layer %d: pair probabilities sum to %u/4096", k, c);
  return ZS_OK;
}

zs_status zsi_vans_pair_model(zsi_vans_layer *L, const int8_t *w, const uint64_t hist[256],
                              uint32_t cap) {
  uint64_t n_weights;
  if (!zsi_vans_grid(L, hist, &n_weights))
    return zsi_error(ZS_ERR_INVALID_ARGUMENT, "vans: a layer without weights");
  uint64_t *h = zsi_alloc_array(65536, sizeof(uint64_t));
  if (!L->pairs) L->pairs = zsi_alloc(sizeof *L->pairs);
  if (!h || !L->pairs) {
    zsi_free(h);
    return zsi_error(ZS_ERR_OUT_OF_MEMORY, "vans: pair model");
  }
  memset(h, 0, 65536 * sizeof(uint64_t));
  memset(L->pairs, 0, sizeof *L->pairs);
  for (uint64_t i = 0; i < L->rows; i++)
    for (uint64_t j = 0; j < L->cols; j += 2) h[zsi_vans_pair_at(w + i * L->cols, L->cols, j)]++;
  zsi_vans_pairs *P = L->pairs;
  uint64_t n = 0;
  for (uint32_t code = 0; code < 65536; code++) {
    if (!h[code]) continue;
    if (P->n == ZSI_VANS_PAIR_SLOTS) {
      zsi_free(h);
      return zsi_error(ZS_ERR_OUT_OF_RANGE,
                       "vans: more than %u distinct weight pairs (columns 2m, 2m + 1); the pair "
                       "layout's 12-bit model holds at most %u: use another layout",
                       ZSI_VANS_PAIR_SLOTS, ZSI_VANS_PAIR_SLOTS);
    }
    P->a[P->n] = (int8_t)(uint8_t)code, P->b[P->n] = (int8_t)(uint8_t)(code >> 8);
    P->count[P->n++] = h[code];
    n += h[code];
  }
  zsi_free(h);
  /* rANS needs two symbols, and the cap needs total / cap of them: unused codes fill in (they
   * take the probability the cap leaves over; nothing codes them). */
  if (P->n < 2 || (uint64_t)P->n * cap < ZSI_VANS_PAIR_SLOTS) {
    const uint32_t least = (ZSI_VANS_PAIR_SLOTS + cap - 1) / cap, want = least < 2 ? 2 : least;
    uint32_t codes[ZSI_VANS_PAIR_SLOTS];
    uint64_t counts[ZSI_VANS_PAIR_SLOTS];
    uint32_t m = 0, i = 0, added = P->n;
    for (uint32_t code = 0; code < 65536 && m < ZSI_VANS_PAIR_SLOTS; code++) {
      const uint32_t have = i < P->n ? zsi_vans_pair_code(P->a[i], P->b[i]) : 65536;
      if (code == have) {
        codes[m] = code, counts[m++] = P->count[i++];
      } else if (added < want) {
        codes[m] = code, counts[m++] = 0, added++;
      }
    }
    for (uint32_t k = 0; k < m; k++)
      P->a[k] = (int8_t)(uint8_t)codes[k], P->b[k] = (int8_t)(uint8_t)(codes[k] >> 8),
      P->count[k] = counts[k];
    P->n = m;
  }
  uint32_t f[ZSI_VANS_PAIR_SLOTS];
  quantize(P->count, P->n, n, ZSI_VANS_PAIR_SLOTS, cap, f);
  for (uint32_t i = 0; i < P->n; i++) P->f[i] = (uint16_t)f[i];
  return zsi_vans_pairs_index(P, -1);
}
