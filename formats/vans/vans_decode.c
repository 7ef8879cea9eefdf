/* vans_decode.c — the MAT-VANS reference decoder: a row of a validated layer back to its int8
 * weights, and the checked decode of every row that validates a layer's streams on reading. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/zs_omp.h"
#include "formats/vans/vans.h"

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
  const uint64_t steps = zsi_vans_lane_steps(lanes, L->cols);
  for (uint64_t t = 0; t < steps; t++)
    for (uint32_t l = 0; l < lanes; l++) {
      const uint64_t j = zsi_vans_lane_col(lanes, t, l);
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
  const uint64_t steps = lanes ? zsi_vans_lane_steps(lanes, L->cols) : L->cols;
  for (uint64_t t = 0; t < steps; t++)
    for (uint32_t l = 0; l < lane_n; l++) {
      if (lanes && zsi_vans_lane_col(lanes, t, l) >= L->cols) continue;
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
  ZSI_OMP(parallel num_threads(zsi_omp_threads()) if (L->rows > 64)) {
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
