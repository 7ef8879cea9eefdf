/* vans_encode.c — the MAT-VANS rANS encoder: rows of int8 weights into the payload of a layer in
 * the report's layout (one stream a row), the interleaved layout (32 lanes a row) or the pair
 * layout (32 lanes of weight pairs), under the layer's model. */
#include <stdlib.h>
#include <string.h>

#include "core/zs_omp.h"
#include "formats/vans/vans.h"

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
    for (uint64_t t = zsi_vans_lane_steps(lanes, L->cols); t-- > 0;)
      for (uint32_t l = lanes; l-- > 0;) {
        const uint64_t j = zsi_vans_lane_col(lanes, t, l);
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
      const uint32_t ka = index[zsi_vans_pair_at(row, L->cols, j)];
      const int two = j + 2 < L->cols;
      const uint32_t kb = two ? index[zsi_vans_pair_at(row, L->cols, j + 2)] : 0;
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
    ZSI_OMP(parallel num_threads(zsi_omp_threads()) if (L->rows > 64)) {
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
