/* vans.h — MAT-VANS internals shared by the codec's files (model, encoder, decoder, object,
 * files), the host backends' kernels and the tests. */
#ifndef ZS_VANS_H
#define ZS_VANS_H

#include <math.h>

#include "core/zs_internal.h"
#include "formats/vans/vans_backend.h"
#include "zsparse_vans.h"

#define ZSI_VANS_PREC 8 /* probability bits: a quantile is the state's low byte */
#define ZSI_VANS_LOW (UINT32_C(1) << 16)
#define ZSI_VANS_MULT_BITS 15 /* row multipliers are round(2^15 * scale_i / max scale) */
/* The pair layout (docs/formats/vans.md §3): 12-bit probabilities of weight pairs, 64-bit
 * states renormalised once per chunk of 128 columns with 32-bit words. */
#define ZSI_VANS_PAIR_BITS 12
#define ZSI_VANS_PAIR_SLOTS (1u << ZSI_VANS_PAIR_BITS)
#define ZSI_VANS_PAIR_LOW (UINT64_C(1) << 32)
#define ZSI_VANS_CHUNK (4 * ZS_VANS_LANES) /* columns a row's lanes take in one turn */

/* The pair model of a layer: pair k stands for weights (a[k], b[k]) of columns 2m, 2m + 1 and
 * has probability f[k] / 4096; its quantiles are cum[k] .. cum[k] + f[k] - 1. */
typedef struct zsi_vans_pairs {
  uint32_t n; /* 2 .. 4096 */
  int8_t a[ZSI_VANS_PAIR_SLOTS], b[ZSI_VANS_PAIR_SLOTS];
  uint16_t f[ZSI_VANS_PAIR_SLOTS], cum[ZSI_VANS_PAIR_SLOTS];
  uint16_t slot[ZSI_VANS_PAIR_SLOTS];  /* quantile -> pair */
  uint64_t count[ZSI_VANS_PAIR_SLOTS]; /* occurrences in the layer's streams */
} zsi_vans_pairs;

/* Code of the weight pair (a, b): a + 256 b, bytes unsigned (the pair table's order). */
static inline uint32_t zsi_vans_pair_code(int8_t a, int8_t b) {
  return (uint8_t)a | (uint32_t)(uint8_t)b << 8;
}

/* Pair code of columns j, j + 1 of a row (a missing odd column counts as weight 0). */
static inline uint32_t zsi_vans_pair_at(const int8_t *row, uint32_t cols, uint64_t j) {
  return zsi_vans_pair_code(row[j], j + 1 < cols ? row[j + 1] : 0);
}

/* Column of lane l at step t in the interleaved layout: groups of four neighbours per lane,
 * so a lane's four decoded weights meet four consecutive x entries in one 4-byte word. */
static inline uint64_t zsi_vans_lane_col(uint32_t lanes, uint64_t t, uint32_t l) {
  return (t / 4) * 4 * lanes + 4 * (uint64_t)l + t % 4;
}
/* Steps of one lane over a row of cols weights in the interleaved layout. */
static inline uint64_t zsi_vans_lane_steps(uint32_t lanes, uint32_t cols) {
  return ((uint64_t)cols + 4 * lanes - 1) / (4 * lanes) * 4;
}

/* Quantise x/delta (inv = 1/delta) to [-127, 127], halves away from zero. */
static inline int8_t zsi_vans_quant(float x, float inv) {
  float q = roundf(x * inv);
  if (q > 127.f) q = 127.f;
  if (q < -127.f) q = -127.f;
  return (int8_t)q;
}

/* The pair layout's 32-bit word at 16-bit offset c of a payload: low half first. */
static inline uint32_t zsi_vans_word32(const uint16_t *p, uint64_t c) {
  return (uint32_t)p[c] | (uint32_t)p[c + 1] << 16;
}

typedef struct zsi_vans_layer {
  uint32_t rows, cols;
  float delta;
  int32_t w_min;
  uint32_t grid;    /* symbols: w_min .. w_min + grid - 1 */
  uint8_t cdf[257]; /* grid + 1 entries, modulo 256 as stored */
  uint16_t prob[256];
  uint8_t ppf[256];
  uint32_t *cursors; /* rows */
  uint16_t *payload; /* payload_words */
  uint32_t payload_words;
  float *row_scales;     /* rows, only with ZS_VANS_PER_ROW */
  int32_t *row_mult;     /* rows, only with ZS_VANS_PER_ROW */
  uint64_t hist[256];    /* counts of each int8 value, index value + 128 */
  zsi_vans_pairs *pairs; /* the pair layout's model; NULL in the other layouts */
} zsi_vans_layer;

struct zs_vans {
  uint32_t k, cap, n0, flags, lanes;
  int8_t *v0;
  zsi_vans_layer *layers;
};

/* ---- the models (vans_model.c) ---- */

/* w_min and grid of the weights counted in hist, *n their count; 0 for no weights. */
ZSI_HIDDEN int zsi_vans_grid(zsi_vans_layer *L, const uint64_t hist[256], uint64_t *n);
/* Entropy model of counts over the grid: 8-bit probabilities summing to 256, none zero. */
ZSI_HIDDEN zs_status zsi_vans_model(zsi_vans_layer *L, const uint64_t hist[256]);
/* The pair model of int8 weights (row-major) into L->pairs, w_min and grid from hist[]; no pair
 * gets more than cap / 4096. The encoder uses ZSI_VANS_PAIR_CAP: with every probability at most
 * 255 / 4096, a GPU decode-table entry fits 32 bits (probability, offset, two weights). */
#define ZSI_VANS_PAIR_CAP 255
ZSI_HIDDEN zs_status zsi_vans_pair_model(zsi_vans_layer *L, const int8_t *w,
                                         const uint64_t hist[256], uint32_t cap);
/* cum[] and slot[] from n, a, b, f; ZS_ERR_CORRUPT names layer k and the entry at fault. */
ZSI_HIDDEN zs_status zsi_vans_pairs_index(zsi_vans_pairs *P, int k);

/* ---- the coder (vans_encode.c, vans_decode.c) ---- */

/* Code int8 weights (row-major) into L (model set): the layout is chosen by `lanes`, and is the
 * pair layout whenever L->pairs is set. */
ZSI_HIDDEN zs_status zsi_vans_encode(zsi_vans_layer *L, const int8_t *w, uint32_t lanes);
/* Decode row i of a validated layer into out[cols]. */
ZSI_HIDDEN void zsi_vans_decode_row(const zsi_vans_layer *L, uint32_t lanes, uint32_t i,
                                    int8_t *out);
/* Decode every row with bounds checks; fills L->hist. ZS_ERR_CORRUPT names layer and row. */
ZSI_HIDDEN zs_status zsi_vans_check_streams(zsi_vans_layer *L, uint32_t lanes, int k);

/* ---- layers and the object (vans_object.c) ---- */

/* Row multipliers from row scales (NULL row_mult without them). */
ZSI_HIDDEN zs_status zsi_vans_row_mult(zsi_vans_layer *L);
ZSI_HIDDEN zs_status zsi_vans_append(zs_vans *V, zsi_vans_layer *L);
ZSI_HIDDEN void zsi_vans_layer_free(zsi_vans_layer *L);
ZSI_HIDDEN uint64_t zsi_vans_record_bytes(const zsi_vans_layer *L);
/* A backend's view of layer k. */
ZSI_HIDDEN void zsi_vans_view(const zs_vans *V, int k, zsb_vans_layer *out);
/* Quantise f32 weights (row-major) at steps[i] for row i and add them as a layer; steps double as
 * the stored scales (zs_vans_add_layer and the generator). */
ZSI_HIDDEN zs_status zsi_vans_add_quantised(zs_vans *V, int64_t rows, const float *w,
                                            const float *steps);

/* Requantise z[0..n) to int8: round(127 z / max|z|), halves away from zero; zeros if all zero. */
static inline int8_t zsi_vans_requant(int64_t z, int64_t amax) {
  if (amax == 0) return 0;
  const int64_t a = z < 0 ? -z : z;
  const int64_t q = (2 * 127 * a + amax) / (2 * amax);
  return (int8_t)(z < 0 ? -q : q);
}

#endif
