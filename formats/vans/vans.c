/* vans.c — MAT-VANS codec: the 8-bit entropy model, the rANS row coder (report layout and
 * lane-interleaved layout) and the report's containers (Table 1, Appendix A). */
#include "formats/vans/vans.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backends/cpu/cpu_kernels.h"
#include "core/io/safe_output.h"

static const char ext_magic[8] = {'Z', 'S', 'V', 'A', 'N', 'S', 'X', '1'};

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
static int grid_of(zsi_vans_layer *L, const uint64_t hist[256], uint64_t *n) {
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
  if (!grid_of(L, hist, &n))
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

/* Pair code of columns j, j + 1 of a row (a missing odd column counts as weight 0). */
static inline uint32_t pair_code(const int8_t *row, uint32_t cols, uint64_t j) {
  return zsi_vans_pair_code(row[j], j + 1 < cols ? row[j + 1] : 0);
}

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
  if (!grid_of(L, hist, &n_weights))
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
    for (uint64_t j = 0; j < L->cols; j += 2) h[pair_code(w + i * L->cols, L->cols, j)]++;
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

/* ---- rANS coder ----
 * The encoder runs backwards over a row; a word leaves the state when the next symbol would
 * push it to 2^32 or beyond, so the decoder refills exactly when its state falls below 2^16. */

static inline uint32_t rans_put(uint32_t x, uint32_t start, uint32_t p, uint16_t *out,
                                uint32_t *n) {
  if ((x >> (32 - ZSI_VANS_PREC)) >= p) {
    out[(*n)++] = (uint16_t)x;
    x >>= 16;
  }
  return ((x / p) << ZSI_VANS_PREC) + x % p + start;
}

/* Column of lane l at step t in the interleaved layout: groups of four neighbours per lane,
 * so a lane's four decoded weights meet four consecutive x entries in one 4-byte word. */
static inline uint64_t lane_col(uint32_t lanes, uint64_t t, uint32_t l) {
  return (t / 4) * 4 * lanes + 4 * (uint64_t)l + t % 4;
}
static inline uint64_t lane_steps(uint32_t lanes, uint32_t cols) {
  return ((uint64_t)cols + 4 * lanes - 1) / (4 * lanes) * 4;
}

/* Code row `row` (cols weights) into buf, returning the word count; buf holds the stream in
 * forward (decoding) order. buf needs cols + 2 * max(lanes, 1) words. */
static uint32_t encode_row(const zsi_vans_layer *L, uint32_t lanes, const int8_t *row,
                           uint16_t *buf, uint32_t *states) {
  uint32_t n = 0;
  if (lanes == 0) {
    uint32_t x = ZSI_VANS_LOW;
    for (uint32_t j = L->cols; j-- > 0;) {
      const uint32_t s = (uint32_t)(row[j] - L->w_min);
      x = rans_put(x, L->cdf[s], L->prob[s], buf, &n);
    }
    buf[n++] = (uint16_t)x;
    buf[n++] = (uint16_t)(x >> 16);
  } else {
    for (uint32_t l = 0; l < lanes; l++) states[l] = ZSI_VANS_LOW;
    for (uint64_t t = lane_steps(lanes, L->cols); t-- > 0;)
      for (uint32_t l = lanes; l-- > 0;) {
        const uint64_t j = lane_col(lanes, t, l);
        if (j >= L->cols) continue;
        const uint32_t s = (uint32_t)(row[j] - L->w_min);
        states[l] = rans_put(states[l], L->cdf[s], L->prob[s], buf, &n);
      }
    for (uint32_t l = lanes; l-- > 0;) {
      buf[n++] = (uint16_t)states[l];
      buf[n++] = (uint16_t)(states[l] >> 16);
    }
  }
  for (uint32_t a = 0, b = n - 1; a < b; a++, b--) {
    const uint16_t t = buf[a];
    buf[a] = buf[b], buf[b] = t;
  }
  return n;
}

static inline uint64_t pair_put(const zsi_vans_pairs *P, uint64_t x, uint32_t k) {
  return (x / P->f[k] << ZSI_VANS_PAIR_BITS) + x % P->f[k] + P->cum[k];
}

/* The pair layout's row coder (docs/formats/vans.md §3), backwards over the chunks: a lane's
 * state leaves a 32-bit word before it codes a chunk's pairs whenever coding them could reach
 * 2^64, so the decoder refills, once per chunk, exactly when its state fell below 2^32. Coding
 * pair k from x gives at most (x / f_k + 1) 2^12, hence the bounds f_a f_b 2^40 and f_a 2^52.
 * Returns the row's length in 16-bit words; buf (forward order) needs 64 + 32 chunks words. */
static uint32_t encode_row_pairs(const zsi_vans_layer *L, const uint16_t *index, const int8_t *row,
                                 uint32_t *buf) {
  const zsi_vans_pairs *P = L->pairs;
  uint64_t st[ZS_VANS_LANES];
  uint32_t n = 0;
  for (uint32_t l = 0; l < ZS_VANS_LANES; l++) st[l] = ZSI_VANS_PAIR_LOW;
  for (uint64_t c = (L->cols + ZSI_VANS_CHUNK - 1) / ZSI_VANS_CHUNK; c-- > 0;)
    for (uint32_t l = ZS_VANS_LANES; l-- > 0;) {
      const uint64_t j = c * ZSI_VANS_CHUNK + 4 * l;
      if (j >= L->cols) continue;
      const uint32_t ka = index[pair_code(row, L->cols, j)];
      const int two = j + 2 < L->cols;
      const uint32_t kb = two ? index[pair_code(row, L->cols, j + 2)] : 0;
      const uint64_t bound = two ? (uint64_t)P->f[ka] * P->f[kb] << 40 : (uint64_t)P->f[ka] << 52;
      if (st[l] >= bound) {
        buf[n++] = (uint32_t)st[l];
        st[l] >>= 32;
      }
      if (two) st[l] = pair_put(P, st[l], kb);
      st[l] = pair_put(P, st[l], ka);
    }
  for (uint32_t l = ZS_VANS_LANES; l-- > 0;) {
    buf[n++] = (uint32_t)st[l];
    buf[n++] = (uint32_t)(st[l] >> 32);
  }
  for (uint32_t a = 0, b = n - 1; a < b; a++, b--) {
    const uint32_t t = buf[a];
    buf[a] = buf[b], buf[b] = t;
  }
  return 2 * n;
}

/* A row's 32-bit words as the container's 16-bit words: low half first (little-endian). */
static void put_words(uint16_t *dst, const uint32_t *src, uint32_t n16) {
  for (uint32_t i = 0; i < n16 / 2; i++)
    dst[2 * i] = (uint16_t)src[i], dst[2 * i + 1] = (uint16_t)(src[i] >> 16);
}

zs_status zsi_vans_encode(zsi_vans_layer *L, const int8_t *w, uint32_t lanes) {
  const uint32_t lane_n = lanes ? lanes : 1;
  uint32_t *len = zsi_alloc_array(L->rows, sizeof(uint32_t));
  /* pair code -> pair (pair layout only) */
  uint16_t *index = L->pairs ? zsi_alloc_array(65536, sizeof(uint16_t)) : NULL;
  if (!len || (L->pairs && !index)) {
    zsi_free(len);
    zsi_free(index);
    return zsi_error(ZS_ERR_OUT_OF_MEMORY, "vans: row lengths of %u rows", L->rows);
  }
  if (index)
    for (uint32_t k = 0; k < L->pairs->n; k++)
      index[zsi_vans_pair_code(L->pairs->a[k], L->pairs->b[k])] = (uint16_t)k;
  const uint64_t scratch = L->pairs ? 64 + 32 * ((uint64_t)L->cols / ZSI_VANS_CHUNK + 1)
                                    : (uint64_t)L->cols + 2 * lane_n;
  int failed = 0;
  /* Two passes: lengths first, then each row written at its place, so no row needs a buffer
   * of its own. */
  for (int pass = 0; pass < 2 && !failed; pass++) {
    ZSI_OMP(parallel num_threads(zsi_cpu_threads()) if (L->rows > 64)) {
      uint16_t *buf = malloc(scratch * sizeof(uint32_t));
      uint32_t *states = malloc(lane_n * sizeof(uint32_t));
      if (!buf || !states) {
        ZSI_OMP(atomic write)
        failed = 1;
      }
      ZSI_OMP(for schedule(dynamic, 16))
      for (int64_t i = 0; i < (int64_t)L->rows; i++) {
        if (!buf || !states) continue;
        const int8_t *row = w + (uint64_t)i * L->cols;
        const uint32_t n = index ? encode_row_pairs(L, index, row, (uint32_t *)buf)
                                 : encode_row(L, lanes, row, buf, states);
        if (pass == 0)
          len[i] = n;
        else if (index)
          put_words(L->payload + L->cursors[i], (const uint32_t *)buf, n);
        else
          memcpy(L->payload + L->cursors[i], buf, (size_t)n * sizeof(uint16_t));
      }
      free(buf);
      free(states);
    }
    if (pass == 0 && !failed) {
      uint64_t total = 0;
      for (uint32_t i = 0; i < L->rows; i++) {
        L->cursors[i] = (uint32_t)total;
        total += len[i];
        if (total > UINT32_MAX) {
          zsi_free(len);
          zsi_free(index);
          return zsi_error(ZS_ERR_OVERFLOW,
                           "vans: payload of %llu words exceeds the u32 "
                           "payload_size",
                           (unsigned long long)total);
        }
      }
      L->payload_words = (uint32_t)total;
      L->payload = zsi_alloc_array(total ? total : 1, sizeof(uint16_t));
      if (!L->payload) failed = 1;
    }
  }
  zsi_free(len);
  zsi_free(index);
  if (failed)
    return zsi_error(ZS_ERR_OUT_OF_MEMORY, "vans: payload of a %u x %u layer", L->rows, L->cols);
  return ZS_OK;
}

static inline uint32_t rans_get(const zsi_vans_layer *L, uint32_t x, int8_t *w) {
  const uint32_t q = x & 0xffu, r = L->ppf[q];
  *w = (int8_t)(L->w_min + (int32_t)r);
  const uint32_t p = (uint32_t)(uint8_t)(L->cdf[r + 1] - L->cdf[r]);
  return (x >> ZSI_VANS_PREC) * p + q - L->cdf[r];
}

/* Row i of the pair layout, every read checked (docs/formats/vans.md §3): into out when not
 * NULL, counting weights into hist and pairs into count when not NULL. Returns 0 with the reason
 * in why when the stream is not what the encoder writes. */
static int pairs_row(const zsi_vans_layer *L, uint32_t i, int8_t *out, uint64_t *hist,
                     uint64_t *count, char *why, size_t why_len) {
  const zsi_vans_pairs *P = L->pairs;
  const uint16_t *p = L->payload;
  const uint64_t end = i + 1 < L->rows ? L->cursors[i + 1] : L->payload_words;
  uint64_t c = L->cursors[i];
  if (c % 2) {
    snprintf(why, why_len, "cursors[%u] = %llu is odd; the pair layout's words are 32-bit", i,
             (unsigned long long)c);
    return 0;
  }
  if (c > end || end - c < 4 * ZS_VANS_LANES) {
    snprintf(why, why_len,
             "cursors[%u] = %llu leaves %lld words before the next row's start %llu (needs at "
             "least %u)",
             i, (unsigned long long)c, (long long)(end - c), (unsigned long long)end,
             4 * ZS_VANS_LANES);
    return 0;
  }
  uint64_t st[ZS_VANS_LANES];
  for (uint32_t l = 0; l < ZS_VANS_LANES; l++, c += 4) {
    st[l] = (uint64_t)zsi_vans_word32(p, c) << 32 | zsi_vans_word32(p, c + 2);
    if (st[l] < ZSI_VANS_PAIR_LOW) {
      snprintf(why, why_len, "row %u: initial state %llu of lane %u is below 2^32", i,
               (unsigned long long)st[l], l);
      return 0;
    }
  }
  const uint64_t chunks = (L->cols + ZSI_VANS_CHUNK - 1) / ZSI_VANS_CHUNK;
  for (uint64_t ch = 0; ch < chunks; ch++)
    for (uint32_t l = 0; l < ZS_VANS_LANES; l++) {
      const uint64_t j0 = ch * ZSI_VANS_CHUNK + 4 * l;
      if (j0 >= L->cols) break;
      for (uint64_t j = j0; j < j0 + 4 && j < L->cols; j += 2) {
        const uint32_t q = (uint32_t)st[l] & (ZSI_VANS_PAIR_SLOTS - 1), k = P->slot[q];
        st[l] = (st[l] >> ZSI_VANS_PAIR_BITS) * P->f[k] + q - P->cum[k];
        if (count) count[k]++;
        if (out) out[j] = P->a[k];
        if (hist) hist[(uint8_t)(P->a[k] + 128)]++;
        if (j + 1 < L->cols) {
          if (out) out[j + 1] = P->b[k];
          if (hist) hist[(uint8_t)(P->b[k] + 128)]++;
        }
      }
      if (st[l] >= ZSI_VANS_PAIR_LOW) continue;
      if (c + 2 > end) {
        snprintf(why, why_len, "row %u: stream runs past its end (word %llu) in chunk %llu", i,
                 (unsigned long long)end, (unsigned long long)ch);
        return 0;
      }
      st[l] = st[l] << 32 | zsi_vans_word32(p, c);
      c += 2;
    }
  if (c != end) {
    snprintf(why, why_len, "row %u: decoding ends at word %llu, the row's stream at %llu", i,
             (unsigned long long)c, (unsigned long long)end);
    return 0;
  }
  for (uint32_t l = 0; l < ZS_VANS_LANES; l++)
    if (st[l] != ZSI_VANS_PAIR_LOW) {
      snprintf(why, why_len, "row %u: final state %llu of lane %u is not 2^32", i,
               (unsigned long long)st[l], l);
      return 0;
    }
  return 1;
}

void zsi_vans_decode_row(const zsi_vans_layer *L, uint32_t lanes, uint32_t i, int8_t *out) {
  if (L->pairs) {
    char why[256];
    (void)pairs_row(L, i, out, NULL, NULL, why, sizeof why); /* validated: cannot fail */
    return;
  }
  const uint16_t *p = L->payload;
  uint32_t c = L->cursors[i];
  if (lanes == 0) {
    uint32_t x = (uint32_t)p[c] << 16 | p[c + 1];
    c += 2;
    for (uint32_t j = 0; j < L->cols; j++) {
      x = rans_get(L, x, &out[j]);
      if (x < ZSI_VANS_LOW) x = x << 16 | p[c++];
    }
    return;
  }
  uint32_t st[64];
  for (uint32_t l = 0; l < lanes; l++, c += 2) st[l] = (uint32_t)p[c] << 16 | p[c + 1];
  const uint64_t steps = lane_steps(lanes, L->cols);
  for (uint64_t t = 0; t < steps; t++)
    for (uint32_t l = 0; l < lanes; l++) {
      const uint64_t j = lane_col(lanes, t, l);
      if (j >= L->cols) continue;
      st[l] = rans_get(L, st[l], &out[j]);
      if (st[l] < ZSI_VANS_LOW) st[l] = st[l] << 16 | p[c++];
    }
}

/* The decoder above with every read checked: a stream must end exactly where the next row's
 * begins, with every state back at 2^16 where the encoder started it. */
static int check_row(const zsi_vans_layer *L, uint32_t lanes, uint32_t i, uint64_t *hist, char *why,
                     size_t why_len) {
  const uint16_t *p = L->payload;
  const uint64_t end = i + 1 < L->rows ? L->cursors[i + 1] : L->payload_words;
  uint64_t c = L->cursors[i];
  const uint32_t lane_n = lanes ? lanes : 1;
  if (c > end || end - c < 2 * (uint64_t)lane_n) {
    snprintf(why, why_len,
             "cursors[%u] = %llu leaves %lld words before the next row's start "
             "%llu (needs at least %u)",
             i, (unsigned long long)c, (long long)(end - c), (unsigned long long)end, 2 * lane_n);
    return 0;
  }
  uint32_t st[64];
  for (uint32_t l = 0; l < lane_n; l++, c += 2) {
    st[l] = (uint32_t)p[c] << 16 | p[c + 1];
    if (st[l] < ZSI_VANS_LOW) {
      snprintf(why, why_len, "row %u: initial state %u of lane %u is below 2^16", i, st[l], l);
      return 0;
    }
  }
  const uint64_t steps = lanes ? lane_steps(lanes, L->cols) : L->cols;
  for (uint64_t t = 0; t < steps; t++)
    for (uint32_t l = 0; l < lane_n; l++) {
      if (lanes && lane_col(lanes, t, l) >= L->cols) continue;
      int8_t w;
      st[l] = rans_get(L, st[l], &w);
      hist[(uint8_t)(w + 128)]++;
      if (st[l] >= ZSI_VANS_LOW) continue;
      if (c >= end) {
        snprintf(why, why_len, "row %u: stream runs past its end (word %llu) at symbol %llu", i,
                 (unsigned long long)end, (unsigned long long)t);
        return 0;
      }
      st[l] = st[l] << 16 | p[c++];
    }
  if (c != end) {
    snprintf(why, why_len, "row %u: decoding ends at word %llu, the row's stream at %llu", i,
             (unsigned long long)c, (unsigned long long)end);
    return 0;
  }
  for (uint32_t l = 0; l < lane_n; l++)
    if (st[l] != ZSI_VANS_LOW) {
      snprintf(why, why_len, "row %u: final state %u of lane %u is not 2^16", i, st[l], l);
      return 0;
    }
  return 1;
}

zs_status zsi_vans_check_streams(zsi_vans_layer *L, uint32_t lanes, int k) {
  if (L->rows && L->cursors[0] != 0)
    return zsi_error(ZS_ERR_CORRUPT, "vans: layer %d: cursors[0] = %u, must be 0", k,
                     L->cursors[0]);
  memset(L->hist, 0, sizeof L->hist);
  int64_t bad = -1;
  char why[256] = "";
  int oom = 0;
  if (L->pairs) memset(L->pairs->count, 0, sizeof L->pairs->count);
  ZSI_OMP(parallel num_threads(zsi_cpu_threads()) if (L->rows > 64)) {
    uint64_t h[256] = {0};
    uint64_t *count = L->pairs ? calloc(ZSI_VANS_PAIR_SLOTS, sizeof(uint64_t)) : NULL;
    char w[256];
    ZSI_OMP(for schedule(dynamic, 16))
    for (int64_t i = 0; i < (int64_t)L->rows; i++) {
      const int ok = L->pairs ? pairs_row(L, (uint32_t)i, NULL, h, count, w, sizeof w)
                              : check_row(L, lanes, (uint32_t)i, h, w, sizeof w);
      if (!ok) {
        ZSI_OMP(critical(zsi_vans_check)) {
          if (bad < 0 || i < bad) bad = i, memcpy(why, w, sizeof why);
        }
      }
    }
    ZSI_OMP(critical(zsi_vans_hist)) {
      for (int v = 0; v < 256; v++) L->hist[v] += h[v];
      if (L->pairs && !count) oom = 1;
      for (uint32_t k = 0; count && k < ZSI_VANS_PAIR_SLOTS; k++) L->pairs->count[k] += count[k];
    }
    free(count);
  }
  if (oom) return zsi_error(ZS_ERR_OUT_OF_MEMORY, "vans: layer %d: pair counts", k);
  if (bad >= 0) return zsi_error(ZS_ERR_CORRUPT, "vans: layer %d: payload: %s", k, why);
  return ZS_OK;
}

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
  ZSI_OMP(parallel for schedule(dynamic, 16) num_threads(zsi_cpu_threads()) if (L->rows > 64))
  for (int64_t i = 0; i < (int64_t)L->rows; i++)
    zsi_vans_decode_row(L, V->lanes, (uint32_t)i, w + (uint64_t)i * L->cols);
  return ZS_OK;
}

/* ---- containers ---- */

typedef struct wbuf {
  uint8_t *p;
  size_t n;
} wbuf;
static void put(wbuf *b, const void *src, size_t len) {
  if (src)
    memcpy(b->p + b->n, src, len);
  else
    memset(b->p + b->n, 0, len);
  b->n += len;
}
static void put32(wbuf *b, uint32_t v) {
  const uint8_t x[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};
  put(b, x, 4);
}
static void putf(wbuf *b, float f) {
  uint32_t v;
  memcpy(&v, &f, 4);
  put32(b, v);
}

static uint32_t s_max_words(const zs_vans *V) {
  uint64_t m = 0;
  for (uint32_t k = 0; k < V->k; k++) {
    const uint64_t b = zsi_vans_record_bytes(&V->layers[k]) / 2;
    if (b > m) m = b;
  }
  return m > UINT32_MAX ? UINT32_MAX : (uint32_t)m;
}

zs_status zs_vans_write_memory(const zs_vans *V, void **data, size_t *size) {
  if (!V || !data || !size)
    return zsi_error(ZS_ERR_INVALID_ARGUMENT, "zs_vans_write_memory: V, data or size is NULL");
  if (V->k == 0) return zsi_error(ZS_ERR_INVALID_ARGUMENT, "vans: a chain without layers");
  uint64_t total = 12 + V->n0 + (3 - (V->n0 + 3) % 4);
  if (V->flags) total += 16;
  for (uint32_t k = 0; k < V->k; k++) {
    total += zsi_vans_record_bytes(&V->layers[k]);
    if (V->flags & ZS_VANS_PER_ROW) total += 4 * (uint64_t)V->layers[k].rows;
  }
  if (total > SIZE_MAX) return zsi_error(ZS_ERR_OVERFLOW, "vans: container too large");
  wbuf b = {malloc(total ? (size_t)total : 1), 0};
  if (!b.p)
    return zsi_error(ZS_ERR_OUT_OF_MEMORY, "vans: %llu-byte container", (unsigned long long)total);
  if (V->flags) {
    put(&b, ext_magic, 8);
    put32(&b, V->flags);
    put32(&b, V->lanes);
  }
  put32(&b, V->k);
  put32(&b, s_max_words(V));
  put32(&b, V->n0);
  put(&b, V->v0, V->n0);
  put(&b, NULL, 3 - (V->n0 + 3) % 4);
  for (uint32_t k = 0; k < V->k; k++) {
    const zsi_vans_layer *L = &V->layers[k];
    put32(&b, L->rows);
    put32(&b, L->cols);
    putf(&b, L->delta);
    for (uint32_t i = 0; i < L->rows; i++) put32(&b, L->cursors[i]);
    put32(&b, L->payload_words);
    if (L->pairs) {
      const zsi_vans_pairs *P = L->pairs;
      const uint8_t n[2] = {(uint8_t)P->n, (uint8_t)(P->n >> 8)};
      put(&b, n, 2);
      for (uint32_t k = 0; k < P->n; k++) {
        const uint8_t e[4] = {(uint8_t)P->a[k], (uint8_t)P->b[k], (uint8_t)P->f[k],
                              (uint8_t)(P->f[k] >> 8)};
        put(&b, e, 4);
      }
    } else {
      const uint8_t head[2] = {(uint8_t)(int8_t)L->w_min, (uint8_t)L->grid};
      put(&b, head, 2);
      put(&b, L->cdf, L->grid + 1);
      put(&b, NULL, (L->grid + 1) % 2);
      put(&b, L->ppf, 256);
    }
    for (uint32_t i = 0; i < L->payload_words; i++) {
      const uint8_t x[2] = {(uint8_t)L->payload[i], (uint8_t)(L->payload[i] >> 8)};
      put(&b, x, 2);
    }
  }
  if (V->flags & ZS_VANS_PER_ROW)
    for (uint32_t k = 0; k < V->k; k++)
      for (uint32_t i = 0; i < V->layers[k].rows; i++) putf(&b, V->layers[k].row_scales[i]);
  *data = b.p;
  *size = b.n;
  return ZS_OK;
}

typedef struct rbuf {
  const uint8_t *p;
  size_t n, off;
} rbuf;

/* Take len bytes or fail naming the field: every read of the container goes through here. */
static zs_status take(rbuf *r, size_t len, const void **out, int k, const char *field) {
  if (len > r->n - r->off) {
    if (k < 0)
      return zsi_error(ZS_ERR_CORRUPT, "vans: truncated at byte %zu: %s needs %zu bytes, %zu left",
                       r->off, field, len, r->n - r->off);
    return zsi_error(ZS_ERR_CORRUPT,
                     "vans: truncated at byte %zu: layer %d: %s needs %zu bytes, %zu left", r->off,
                     k, field, len, r->n - r->off);
  }
  *out = r->p + r->off;
  r->off += len;
  return ZS_OK;
}
/* Padding must be zero: otherwise a file would not be written back byte for byte. */
static zs_status take_pad(rbuf *r, size_t len, int k, const char *field) {
  const void *p = NULL;
  zs_status s = take(r, len, &p, k, field);
  for (size_t i = 0; s == ZS_OK && i < len; i++)
    if (((const uint8_t *)p)[i])
      s = zsi_error(ZS_ERR_CORRUPT, "vans: byte %zu: %s%s is %u, must be 0", r->off - len + i,
                    k < 0 ? "" : "a layer's ", field, ((const uint8_t *)p)[i]);
  return s;
}
static uint32_t get32(const void *p) {
  const uint8_t *b = p;
  return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}
static float getf(const void *p) {
  const uint32_t v = get32(p);
  float f;
  memcpy(&f, &v, 4);
  return f;
}
#define TAKE(len, ptr, k, field)                                            \
  do {                                                                      \
    if ((s = take(&r, (len), &(ptr), k, field)) != ZS_OK) goto fail_status; \
  } while (0)

static zs_status check_dims(uint32_t v, int k, const char *field) {
  if (v < 1 || v > ZS_VANS_MAX_DIM) {
    if (k < 0)
      return zsi_error(ZS_ERR_CORRUPT, "vans: %s = %u outside 1..%d", field, v, ZS_VANS_MAX_DIM);
    return zsi_error(ZS_ERR_CORRUPT, "vans: layer %d: %s = %u outside 1..%d", k, field, v,
                     ZS_VANS_MAX_DIM);
  }
  return ZS_OK;
}

/* Check the entropy model tables: strictly increasing cdf from 0 to 256 (stored modulo 256),
 * so no symbol has probability zero, and a ppf that inverts it quantile by quantile. */
static zs_status check_model(zsi_vans_layer *L, int k) {
  if (L->grid < 2)
    return zsi_error(ZS_ERR_CORRUPT, "vans: layer %d: |G| = %u, rANS needs at least 2 symbols", k,
                     L->grid);
  if (L->w_min + (int32_t)L->grid - 1 > 127)
    return zsi_error(ZS_ERR_CORRUPT, "vans: layer %d: w_min %d + |G| %u - 1 exceeds int8 127", k,
                     L->w_min, L->grid);
  if (L->cdf[0] != 0)
    return zsi_error(ZS_ERR_CORRUPT, "vans: layer %d: cdf[0] = %u, must be 0", k, L->cdf[0]);
  uint32_t prev = 0;
  for (uint32_t s = 1; s <= L->grid; s++) {
    const uint32_t c = s == L->grid && L->cdf[s] == 0 ? 256u : L->cdf[s];
    if (c <= prev)
      return zsi_error(ZS_ERR_CORRUPT,
                       "vans: layer %d: cdf[%u] = %u after %u: symbol %u would have probability "
                       "%s (cdf must rise strictly to 256, stored as 0)",
                       k, s, L->cdf[s], prev, s - 1, c == prev ? "zero" : "negative");
    if (s == L->grid && c != 256)
      return zsi_error(ZS_ERR_CORRUPT, "vans: layer %d: cdf[|G| = %u] = %u, must be 256 (0)", k, s,
                       L->cdf[s]);
    L->prob[s - 1] = (uint16_t)(c - prev);
    for (uint32_t q = prev; q < c; q++)
      if (L->ppf[q] != s - 1)
        return zsi_error(ZS_ERR_CORRUPT,
                         "vans: layer %d: ppf[%u] = %u, the cdf puts quantile %u in symbol %u", k,
                         q, L->ppf[q], q, s - 1);
    prev = c;
  }
  return ZS_OK;
}

zs_status zs_vans_read_memory(zs_vans **out, const void *data, size_t size) {
  if (!out || (!data && size))
    return zsi_error(ZS_ERR_INVALID_ARGUMENT, "zs_vans_read_memory: out or data is NULL");
  rbuf r = {data, size, 0};
  const void *p = NULL;
  zs_vans *V = NULL;
  zs_status s = ZS_OK;
  uint32_t flags = 0, lanes = 0;
  zsi_vans_layer L; /* the layer being read; freed on failure */
  memset(&L, 0, sizeof L);
  if (size >= 8 && memcmp(data, ext_magic, 8) == 0) {
    r.off = 8;
    TAKE(8, p, -1, "extended header");
    flags = get32(p);
    lanes = get32((const uint8_t *)p + 4);
    const uint32_t known = ZS_VANS_PER_ROW | ZS_VANS_INTERLEAVED | ZS_VANS_PAIRS;
    if ((flags & ~known) || ((flags & ZS_VANS_INTERLEAVED) && (flags & ZS_VANS_PAIRS))) {
      s = zsi_error(ZS_ERR_CORRUPT, "vans: extended header: flags 0x%x (%s)", flags,
                    flags & ~known ? "unknown bits" : "two layouts at once");
      goto fail_status;
    }
    const uint32_t want = flags & (ZS_VANS_INTERLEAVED | ZS_VANS_PAIRS) ? ZS_VANS_LANES : 0u;
    if (lanes != want) {
      s = zsi_error(ZS_ERR_CORRUPT, "vans: extended header: lanes = %u, must be %u", lanes, want);
      goto fail_status;
    }
  }
  TAKE(12, p, -1, "header (K, S_max, N_0)");
  const uint32_t K = get32(p), s_max = get32((const uint8_t *)p + 4),
                 n0 = get32((const uint8_t *)p + 8);
  if (K < 1 || K > ZS_VANS_MAX_LAYERS) {
    s = zsi_error(ZS_ERR_CORRUPT, "vans: K = %u outside 1..%d", K, ZS_VANS_MAX_LAYERS);
    goto fail_status;
  }
  if ((s = check_dims(n0, -1, "N_0")) != ZS_OK) goto fail_status;
  TAKE(n0, p, -1, "v0");
  if ((s = zs_vans_create(&V, n0, p, flags)) != ZS_OK) goto fail_status;
  if ((s = take_pad(&r, 3 - (n0 + 3) % 4, -1, "v0 padding")) != ZS_OK) goto fail_status;
  uint32_t cols_expected = n0;
  for (uint32_t k = 0; k < K; k++) {
    const int ki = (int)k;
    TAKE(12, p, ki, "N_{k+1}, N_k, delta");
    L.rows = get32(p);
    L.cols = get32((const uint8_t *)p + 4);
    L.delta = getf((const uint8_t *)p + 8);
    if ((s = check_dims(L.rows, ki, "N_{k+1} (rows)")) != ZS_OK) goto fail_status;
    if (L.cols != cols_expected) {
      s = zsi_error(ZS_ERR_CORRUPT, "vans: layer %d: N_k (cols) = %u, the vector has %u entries",
                    ki, L.cols, cols_expected);
      goto fail_status;
    }
    if (!isfinite(L.delta) || !(L.delta > 0)) {
      s = zsi_error(ZS_ERR_CORRUPT, "vans: layer %d: delta = %g, must be finite and positive", ki,
                    (double)L.delta);
      goto fail_status;
    }
    TAKE(4 * (size_t)L.rows, p, ki, "cursors");
    L.cursors = zsi_alloc_array(L.rows, 4);
    if (!L.cursors) goto fail_oom;
    for (uint32_t i = 0; i < L.rows; i++) L.cursors[i] = get32((const uint8_t *)p + 4 * i);
    if (flags & ZS_VANS_PAIRS) {
      TAKE(6, p, ki, "payload_size, pairs");
      L.payload_words = get32(p);
      if (!(L.pairs = zsi_alloc(sizeof *L.pairs))) goto fail_oom;
      memset(L.pairs, 0, sizeof *L.pairs);
      L.pairs->n = (uint32_t)((const uint8_t *)p)[4] | (uint32_t)((const uint8_t *)p)[5] << 8;
      if (L.pairs->n > ZSI_VANS_PAIR_SLOTS) {
        s = zsi_error(ZS_ERR_CORRUPT, "vans: layer %d: %u pairs, must be 2..%u", ki, L.pairs->n,
                      ZSI_VANS_PAIR_SLOTS);
        goto fail_status;
      }
      TAKE(4 * (size_t)L.pairs->n, p, ki, "pair table");
      for (uint32_t e = 0; e < L.pairs->n; e++) {
        const uint8_t *q = (const uint8_t *)p + 4 * e;
        L.pairs->a[e] = (int8_t)q[0], L.pairs->b[e] = (int8_t)q[1];
        L.pairs->f[e] = (uint16_t)(q[2] | q[3] << 8);
      }
      if ((s = zsi_vans_pairs_index(L.pairs, ki)) != ZS_OK) goto fail_status;
      if (L.payload_words % 2) {
        s = zsi_error(ZS_ERR_CORRUPT,
                      "vans: layer %d: payload_size = %u is odd; the pair layout's words are "
                      "32-bit",
                      ki, L.payload_words);
        goto fail_status;
      }
    } else {
      TAKE(6, p, ki, "payload_size, w_min, |G|");
      L.payload_words = get32(p);
      L.w_min = (int8_t)((const uint8_t *)p)[4];
      L.grid = ((const uint8_t *)p)[5];
      TAKE(L.grid + 1, p, ki, "cdf");
      memcpy(L.cdf, p, L.grid + 1);
      if ((s = take_pad(&r, (L.grid + 1) % 2, ki, "cdf padding")) != ZS_OK) goto fail_status;
      TAKE(256, p, ki, "ppf");
      memcpy(L.ppf, p, 256);
      if ((s = check_model(&L, ki)) != ZS_OK) goto fail_status;
    }
    for (uint32_t i = 0; i < L.rows; i++)
      if (L.cursors[i] > L.payload_words || (i && L.cursors[i] < L.cursors[i - 1])) {
        s = zsi_error(ZS_ERR_CORRUPT, "vans: layer %d: cursors[%u] = %u is %s (payload_size %u)",
                      ki, i, L.cursors[i],
                      L.cursors[i] > L.payload_words ? "past the payload" : "below cursors[i-1]",
                      L.payload_words);
        goto fail_status;
      }
    TAKE(2 * (size_t)L.payload_words, p, ki, "payload");
    L.payload = zsi_alloc_array(L.payload_words ? L.payload_words : 1, 2);
    if (!L.payload) goto fail_oom;
    for (uint32_t i = 0; i < L.payload_words; i++)
      L.payload[i] = (uint16_t)(((const uint8_t *)p)[2 * i] | ((const uint8_t *)p)[2 * i + 1] << 8);
    if ((s = zsi_vans_check_streams(&L, V->lanes, ki)) != ZS_OK) goto fail_status;
    uint64_t n_weights;
    if (L.pairs && !grid_of(&L, L.hist, &n_weights)) { /* w_min, |G| for info only */
      s = zsi_error(ZS_ERR_CORRUPT, "vans: layer %d: no weights", ki);
      goto fail_status;
    }
    if ((s = zsi_vans_append(V, &L)) != ZS_OK) goto fail_status;
    cols_expected = V->layers[k].rows;
  }
  if (flags & ZS_VANS_PER_ROW)
    for (uint32_t k = 0; k < K; k++) {
      zsi_vans_layer *L = &V->layers[k];
      TAKE(4 * (size_t)L->rows, p, (int)k, "row scales");
      L->row_scales = zsi_alloc_array(L->rows, 4);
      if (!L->row_scales) goto fail_oom;
      float top = 0;
      for (uint32_t i = 0; i < L->rows; i++) {
        const float f = getf((const uint8_t *)p + 4 * i);
        if (!isfinite(f) || !(f > 0) || f > L->delta) {
          s = zsi_error(ZS_ERR_CORRUPT,
                        "vans: layer %u: row scale %u = %g, must be finite, positive and at most "
                        "delta %g",
                        k, i, (double)f, (double)L->delta);
          goto fail_status;
        }
        L->row_scales[i] = f;
        if (f > top) top = f;
      }
      if (top != L->delta) {
        s = zsi_error(ZS_ERR_CORRUPT, "vans: layer %u: delta %g is not the largest row scale %g", k,
                      (double)L->delta, (double)top);
        goto fail_status;
      }
      if ((s = zsi_vans_row_mult(L)) != ZS_OK) goto fail_status;
    }
  if (r.off != r.n) {
    s = zsi_error(ZS_ERR_CORRUPT, "vans: %zu bytes after the last %s", r.n - r.off,
                  flags & ZS_VANS_PER_ROW ? "row scales" : "layer");
    goto fail_status;
  }
  if (s_max != s_max_words(V)) {
    s = zsi_error(ZS_ERR_CORRUPT, "vans: S_max = %u, the largest layer record is %u 16-bit words",
                  s_max, s_max_words(V));
    goto fail_status;
  }
  *out = V;
  return ZS_OK;
fail_oom:
  s = zsi_error(ZS_ERR_OUT_OF_MEMORY, "vans: reading layer arrays");
fail_status:
  zsi_vans_layer_free(&L);
  zs_vans_destroy(&V);
  return s;
}

static zs_status read_file(const char *path, uint8_t **data, size_t *size) {
  FILE *f = fopen(path, "rb");
  if (!f) return zsi_error(ZS_ERR_IO, "%s: cannot open", path);
  uint8_t *buf = NULL;
  size_t n = 0, cap = 0;
  for (;;) {
    if (n == cap) {
      cap = cap ? 2 * cap : 1 << 16;
      uint8_t *nb = realloc(buf, cap);
      if (!nb) {
        free(buf);
        fclose(f);
        return zsi_error(ZS_ERR_OUT_OF_MEMORY, "%s: reading", path);
      }
      buf = nb;
    }
    const size_t got = fread(buf + n, 1, cap - n, f);
    n += got;
    if (got == 0) break;
  }
  const int err = ferror(f);
  fclose(f);
  if (err) {
    free(buf);
    return zsi_error(ZS_ERR_IO, "%s: read error", path);
  }
  *data = buf;
  *size = n;
  return ZS_OK;
}

static zs_status write_file(const char *path, const void *data, size_t size) {
  zsi_output out;
  zs_status s = zsi_output_open(&out, path, ZSI_OUTPUT_BINARY);
  if (s != ZS_OK) return s;
  const unsigned char *p = data;
  for (size_t done = 0; done < size;) {
    const ssize_t n = write(out.fd, p + done, size - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      s = zsi_error(ZS_ERR_IO, "%s: writing the output failed: %s", path,
                    n < 0 ? strerror(errno) : "no progress");
      zsi_output_abort(&out);
      return s;
    }
    done += (size_t)n;
  }
  return zsi_output_commit(&out);
}

zs_status zs_vans_read(zs_vans **out, const char *path) {
  if (!out || !path) return zsi_error(ZS_ERR_INVALID_ARGUMENT, "zs_vans_read: out or path is NULL");
  uint8_t *d;
  size_t n;
  zs_status s = read_file(path, &d, &n);
  if (s != ZS_OK) return s;
  s = zs_vans_read_memory(out, d, n);
  free(d);
  return s == ZS_OK ? s : zsi_error_prefix(s, "%s", path);
}

zs_status zs_vans_write(const zs_vans *V, const char *path) {
  if (!V || !path) return zsi_error(ZS_ERR_INVALID_ARGUMENT, "zs_vans_write: V or path is NULL");
  void *d;
  size_t n;
  zs_status s = zs_vans_write_memory(V, &d, &n);
  if (s != ZS_OK) return s;
  s = write_file(path, d, n);
  free(d);
  return s;
}

/* ---- the baseline file (Appendix A): plain int8, column-major ---- */

zs_status zs_vans_write_baseline(const zs_vans *V, const char *path) {
  if (!V || !path)
    return zsi_error(ZS_ERR_INVALID_ARGUMENT, "zs_vans_write_baseline: V or path is NULL");
  if (V->flags & ZS_VANS_PER_ROW)
    return zsi_error(ZS_ERR_UNSUPPORTED,
                     "vans: the baseline file holds one scale per layer, "
                     "this chain has row scales");
  uint64_t total = 8 + V->n0 + (3 - (V->n0 + 3) % 4), big = 0;
  for (uint32_t k = 0; k < V->k; k++) {
    const uint64_t e = (uint64_t)V->layers[k].rows * V->layers[k].cols;
    total += 12 + e + e % 2;
    if (e > big) big = e;
  }
  wbuf b = {malloc((size_t)total), 0};
  int8_t *w = zsi_alloc(big), *col = zsi_alloc(big);
  zs_status s = ZS_OK;
  if (!b.p || !w || !col) {
    s = zsi_error(ZS_ERR_OUT_OF_MEMORY, "vans: %llu-byte baseline file", (unsigned long long)total);
    goto done;
  }
  put32(&b, V->k);
  put32(&b, V->n0);
  put(&b, V->v0, V->n0);
  put(&b, NULL, 3 - (V->n0 + 3) % 4);
  for (uint32_t k = 0; k < V->k; k++) {
    const zsi_vans_layer *L = &V->layers[k];
    put32(&b, L->rows);
    put32(&b, L->cols);
    putf(&b, L->delta);
    zs_vans_layer_decode(V, (int)k, w);
    for (uint64_t j = 0; j < L->cols; j++)
      for (uint64_t i = 0; i < L->rows; i++) col[j * L->rows + i] = w[i * L->cols + j];
    const uint64_t e = (uint64_t)L->rows * L->cols;
    put(&b, col, e);
    put(&b, NULL, e % 2);
  }
  s = write_file(path, b.p, b.n);
done:
  free(b.p);
  zsi_free(w);
  zsi_free(col);
  return s;
}

zs_status zs_vans_read_baseline(zs_vans **out, const char *path, unsigned flags) {
  if (!out || !path)
    return zsi_error(ZS_ERR_INVALID_ARGUMENT, "zs_vans_read_baseline: out or path is NULL");
  uint8_t *d;
  size_t n;
  zs_status s = read_file(path, &d, &n);
  if (s != ZS_OK) return s;
  rbuf r = {d, n, 0};
  const void *p = NULL;
  zs_vans *V = NULL;
  int8_t *w = NULL;
  float *scales = NULL;
  TAKE(8, p, -1, "baseline header (K, N_0)");
  const uint32_t K = get32(p), n0 = get32((const uint8_t *)p + 4);
  if (K < 1 || K > ZS_VANS_MAX_LAYERS) {
    s = zsi_error(ZS_ERR_CORRUPT, "vans: baseline K = %u outside 1..%d", K, ZS_VANS_MAX_LAYERS);
    goto fail_status;
  }
  if ((s = check_dims(n0, -1, "N_0")) != ZS_OK) goto fail_status;
  TAKE(n0, p, -1, "v0");
  if ((s = zs_vans_create(&V, n0, p, flags)) != ZS_OK) goto fail_status;
  if ((s = take_pad(&r, 3 - (n0 + 3) % 4, -1, "v0 padding")) != ZS_OK) goto fail_status;
  for (uint32_t k = 0; k < K; k++) {
    TAKE(12, p, (int)k, "N_{k+1}, N_k, delta");
    const uint32_t rows = get32(p), cols = get32((const uint8_t *)p + 4);
    const float delta = getf((const uint8_t *)p + 8);
    if ((s = check_dims(rows, (int)k, "N_{k+1} (rows)")) != ZS_OK) goto fail_status;
    if (cols != zs_vans_dim(V, (int)k)) {
      s = zsi_error(ZS_ERR_CORRUPT, "vans: baseline layer %u: N_k = %u, the vector has %lld", k,
                    cols, (long long)zs_vans_dim(V, (int)k));
      goto fail_status;
    }
    const uint64_t e = (uint64_t)rows * cols;
    TAKE(e, p, (int)k, "weights");
    zsi_free(w);
    zsi_free(scales);
    w = zsi_alloc(e);
    scales = zsi_alloc_array(rows, 4);
    if (!w || !scales) {
      s = zsi_error(ZS_ERR_OUT_OF_MEMORY, "vans: baseline layer %u", k);
      goto fail_status;
    }
    const int8_t *cm = p;
    for (uint64_t j = 0; j < cols; j++)
      for (uint64_t i = 0; i < rows; i++) w[i * cols + j] = cm[j * rows + i];
    for (uint32_t i = 0; i < rows; i++) scales[i] = delta;
    if ((s = zs_vans_add_layer_int8(V, rows, w, scales)) != ZS_OK) {
      zsi_error_prefix(s, "%s: baseline layer %u", path, k);
      goto fail_status;
    }
    if ((s = take_pad(&r, e % 2, (int)k, "weights padding")) != ZS_OK) goto fail_status;
  }
  if (r.off != r.n) {
    s = zsi_error(ZS_ERR_CORRUPT, "vans: %zu bytes after the last baseline layer", r.n - r.off);
    goto fail_status;
  }
  free(d);
  zsi_free(w);
  zsi_free(scales);
  *out = V;
  return ZS_OK;
fail_status:
  if (s == ZS_ERR_CORRUPT) zsi_error_prefix(s, "%s", path);
  free(d);
  zsi_free(w);
  zsi_free(scales);
  zs_vans_destroy(&V);
  return s;
}
