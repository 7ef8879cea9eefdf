/* test_vans.c — MAT-VANS: container round trips, corrupted containers, the K-layer chain on
 * ref, cpu and (given as argument) a GPU backend against a plain integer reference. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../common/check.h"
#include "../common/le_bytes.h"
#include "../common/test_random.h"
#include "formats/vans/vans.h"
#include "zsparse_vans.h"

static uint64_t rng_state = 12345;

/* Weights peaked around zero, like quantised Gaussians, spanning `span` values. */
static void random_weights(int8_t *w, int64_t n, int span) {
  for (int64_t i = 0; i < n; i++) {
    int v = (int)(zs_test_splitmix64(&rng_state) % (uint64_t)span) - span / 2;
    if (zs_test_splitmix64(&rng_state) % 4) v /= 4;
    w[i] = (int8_t)v;
  }
}

/* The chain as the issue states it, with no codec in sight: int32 dots of the original weights,
 * times the row multipliers, requantised. */
static void plain_chain(int K, const int64_t *dims, int8_t *const *w, int32_t *const *mult,
                        const int8_t *v0, int8_t *y) {
  int8_t *x = malloc((size_t)dims[0]);
  memcpy(x, v0, (size_t)dims[0]);
  for (int k = 0; k < K; k++) {
    const int64_t r = dims[k + 1], c = dims[k];
    int64_t *z = malloc((size_t)r * 8), amax = 0;
    for (int64_t i = 0; i < r; i++) {
      int64_t acc = 0;
      for (int64_t j = 0; j < c; j++) acc += (int64_t)w[k][i * c + j] * x[j];
      z[i] = acc * (mult[k] ? mult[k][i] : 1);
      if (llabs(z[i]) > amax) amax = llabs(z[i]);
    }
    free(x);
    x = malloc((size_t)r);
    for (int64_t i = 0; i < r; i++) {
      /* round(127 z / amax) half away from zero, computed in long double as a second opinion */
      const long double t = amax ? 127.0L * (long double)z[i] / (long double)amax : 0;
      x[i] = (int8_t)(t < 0 ? -(int)(-t + 0.5L) : (int)(t + 0.5L));
    }
    free(z);
  }
  memcpy(y, x, (size_t)dims[K]);
  free(x);
}

static zs_vans *build(unsigned flags, int K, const int64_t *dims, int8_t **w, int span) {
  int8_t *v0 = malloc((size_t)dims[0]);
  random_weights(v0, dims[0], 255);
  zs_vans *V = NULL;
  CHECK_STATUS(zs_vans_create(&V, dims[0], v0, flags), ZS_OK);
  free(v0);
  for (int k = 0; k < K; k++) {
    w[k] = malloc((size_t)(dims[k + 1] * dims[k]));
    random_weights(w[k], dims[k + 1] * dims[k], span);
    float *sc = malloc((size_t)dims[k + 1] * sizeof(float));
    for (int64_t i = 0; i < dims[k + 1]; i++)
      sc[i] = 0.001f * (float)(1 + zs_test_splitmix64(&rng_state) % 50);
    CHECK_STATUS(zs_vans_add_layer_int8(V, dims[k + 1], w[k], sc), ZS_OK);
    free(sc);
  }
  return V;
}

enum { CHAIN_MAX = 20 };

/* K <= 20 layers of sizes dims (the last at most 1024): every layout and backend against a
 * plain int8 chain. */
static void check_chain_dims(zs_context *ctx, unsigned flags, const char *gpu, int K,
                             const int64_t *dims) {
  int8_t *w[CHAIN_MAX];
  int32_t *mult[CHAIN_MAX];
  zs_vans *V = build(flags, K, dims, w, 31);
  if (!V) return;
  for (int k = 0; k < K; k++) mult[k] = V->layers[k].row_mult;
  CHECK((flags & ZS_VANS_PER_ROW) ? mult[0] != NULL : mult[0] == NULL);

  /* Decoding gives the weights back. */
  for (int k = 0; k < K; k++) {
    int8_t *d = malloc((size_t)(dims[k + 1] * dims[k]));
    CHECK_STATUS(zs_vans_layer_decode(V, k, d), ZS_OK);
    CHECK(memcmp(d, w[k], (size_t)(dims[k + 1] * dims[k])) == 0);
    free(d);
  }
  /* Bytes written, read and written again are the same bytes. */
  void *b1, *b2;
  size_t n1, n2;
  CHECK_STATUS(zs_vans_write_memory(V, &b1, &n1), ZS_OK);
  zs_vans *R = NULL;
  CHECK_STATUS(zs_vans_read_memory(&R, b1, n1), ZS_OK);
  if (R) {
    CHECK_STATUS(zs_vans_write_memory(R, &b2, &n2), ZS_OK);
    CHECK(n1 == n2 && memcmp(b1, b2, n1) == 0);
    free(b2);
    CHECK(zs_vans_flags(R) == flags);
  }
  free(b1);

  int8_t want[1024], got[1024];
  plain_chain(K, dims, w, mult, zs_vans_v0(V), want);
  const char *backends[] = {"ref", "cpu", gpu};
  for (int b = 0; b < (gpu ? 3 : 2); b++) {
    zs_vans_chain *c = NULL;
    CHECK_STATUS(zs_vans_chain_create(&c, ctx, R ? R : V, backends[b]), ZS_OK);
    if (!c) continue;
    memset(got, 0x55, sizeof got);
    CHECK_STATUS(zs_vans_chain_run(c, NULL, got), ZS_OK);
    if (memcmp(got, want, (size_t)dims[K]) != 0) {
      fprintf(stderr, "flags %u backend %s: chain output differs from the plain reference\n", flags,
              backends[b]);
      check_failures++;
    }
    zs_vans_chain_destroy(&c);
  }
  /* A different input through the same chain. */
  int8_t *x = malloc((size_t)dims[0]);
  random_weights(x, dims[0], 200);
  plain_chain(K, dims, w, mult, x, want);
  zs_vans_chain *c = NULL;
  CHECK_STATUS(zs_vans_chain_create(&c, ctx, V, gpu ? gpu : "cpu"), ZS_OK);
  if (c) {
    CHECK_STATUS(zs_vans_chain_run(c, x, got), ZS_OK);
    CHECK(memcmp(got, want, (size_t)dims[K]) == 0);
    zs_vans_chain_destroy(&c);
  }
  free(x);
  zs_vans_destroy(&R);
  zs_vans_destroy(&V);
  for (int k = 0; k < K; k++) free(w[k]);
}

/* K = 20 layers of random sizes (odd ones on purpose) from `least` to least + 159. */
static void check_chain(zs_context *ctx, unsigned flags, const char *gpu, int64_t least) {
  int64_t dims[CHAIN_MAX + 1];
  for (int k = 0; k <= CHAIN_MAX; k++)
    dims[k] = least + (int64_t)(zs_test_splitmix64(&rng_state) % 160);
  check_chain_dims(ctx, flags, gpu, CHAIN_MAX, dims);
}

static void expect_corrupt(const uint8_t *d, size_t n, const char *needle) {
  zs_vans *V = NULL;
  const zs_status s = zs_vans_read_memory(&V, d, n);
  if (s != ZS_ERR_CORRUPT || (needle && !strstr(zs_last_error(), needle))) {
    fprintf(stderr, "expected ZS_ERR_CORRUPT mentioning '%s', got %s: %s\n", needle,
            zs_status_name(s), zs_last_error());
    check_failures++;
  }
  CHECK(V == NULL);
  zs_vans_destroy(&V);
}

/* Every single bit flip of container d (n bytes) is refused with ZS_ERR_CORRUPT or read; only
 * bytes marked in may_pass (bits that no check can pin down) may be read. */
static void check_bit_flips(const uint8_t *d, size_t n, const uint8_t *may_pass) {
  uint8_t *m = malloc(n);
  for (size_t i = 0; i < n; i++) {
    memcpy(m, d, n);
    m[i] ^= (uint8_t)(1u << (i % 8));
    zs_vans *R = NULL;
    const zs_status s = zs_vans_read_memory(&R, m, n);
    CHECK(s == ZS_OK || s == ZS_ERR_CORRUPT);
    if (s == ZS_OK && !may_pass[i]) {
      fprintf(stderr, "a flip of bit %zu of byte %zu was read as valid\n", i % 8, i);
      check_failures++;
    }
    zs_vans_destroy(&R);
  }
  free(m);
}

static void check_corruption(void) {
  int64_t dims[3] = {45, 30, 21};
  int8_t *w[2];
  zs_vans *V = build(0, 2, dims, w, 9);
  void *buf;
  size_t n;
  CHECK_STATUS(zs_vans_write_memory(V, &buf, &n), ZS_OK);
  uint8_t *d = buf, *m = malloc(n + 1);
  /* Every truncation is refused. */
  for (size_t cut = 0; cut < n; cut++) expect_corrupt(d, cut, NULL);
  /* Table 1 offsets of layer 0: header 12, v0 45 + pad 3 = 60. */
  const size_t L0 = 60, cur = L0 + 12, ps = cur + 4 * 30, wmin = ps + 4, g = ps + 5;
  const uint32_t grid = d[g];
  const size_t cdf = ps + 6, ppf = cdf + grid + 1 + (grid + 1) % 2;
#define MUT(stmt, needle)         \
  do {                            \
    memcpy(m, d, n);              \
    stmt;                         \
    expect_corrupt(m, n, needle); \
  } while (0)
  MUT(zs_test_wr32(m, 0), "K = 0");
  MUT(zs_test_wr32(m, 5000), "K = 5000");
  MUT(zs_test_wr32(m + 4, zs_test_rd32(m + 4) + 1), "S_max");
  MUT(zs_test_wr32(m + 8, 0), "N_0");
  MUT(zs_test_wr32(m + L0 + 4, 44), "N_k (cols)");
  MUT(zs_test_wr32(m + L0, 0), "N_{k+1}");
  MUT(zs_test_wr32(m + L0 + 8, 0x7fc00000u), "delta");
  MUT(zs_test_wr32(m + L0 + 8, 0xbf800000u), "delta");
  MUT(zs_test_wr32(m + cur, 1), "cursors[0]");
  MUT(zs_test_wr32(m + cur + 4 * 7, zs_test_rd32(m + ps) + 5), "cursors[7]");
  MUT(zs_test_wr32(m + cur + 4 * 7, zs_test_rd32(m + cur + 4 * 7) + 1), "row");
  MUT(m[wmin] = 125, "w_min");
  MUT(m[g] = 1, "|G| = 1");
  MUT(m[cdf + 1] = 0, "cdf[1]");
  MUT(m[cdf] = 3, "cdf[0]");
  MUT(m[ppf] ^= 1, "ppf[0]");
  MUT(m[ppf + 255] = 0, "ppf[255]");
  MUT(m[ppf + 256 + 2 * 3] ^= 0x40, "payload");
  memcpy(m, d, n);
  m[n] = 0;
  expect_corrupt(m, n + 1, "after the last");
  /* only v0, delta, w_min and the payloads hold bits that no check can pin down */
  for (size_t i = 0; i < n; i++)
    m[i] = (i >= 12 && i < 12 + 45) || (i >= L0 + 8 && i < L0 + 12) || i == wmin || i >= ppf + 256;
  check_bit_flips(d, n, m);
  free(m);
  free(buf);
  zs_vans_destroy(&V);
  free(w[0]);
  free(w[1]);
}

/* Pair layers with probabilities over 255/4096, which the encoder never writes but the format
 * allows (and GPU modules decode with 8-byte table entries): few weight values, the model
 * rebuilt without the cap and the rows coded again, then every backend against a plain chain. */
static void check_wide_pairs(zs_context *ctx, const char *gpu) {
  enum { K = 3 };
  int64_t dims[K + 1] = {300, 411, 129, 260};
  int8_t *w[K];
  int32_t *mult[K] = {NULL, NULL, NULL};
  zs_vans *V = build(ZS_VANS_PAIRS, K, dims, w, 3);
  if (!V) return;
  for (int k = 0; k < K; k++) {
    zsi_vans_layer *L = &V->layers[k];
    CHECK_STATUS(zsi_vans_pair_model(L, w[k], L->hist, ZSI_VANS_PAIR_SLOTS - 1), ZS_OK);
    uint32_t top = 0;
    for (uint32_t e = 0; e < L->pairs->n; e++) top = L->pairs->f[e] > top ? L->pairs->f[e] : top;
    CHECK(top > 255);
    zsi_free(L->payload);
    L->payload = NULL;
    CHECK_STATUS(zsi_vans_encode(L, w[k], ZS_VANS_LANES), ZS_OK);
    CHECK_STATUS(zsi_vans_check_streams(L, ZS_VANS_LANES, k), ZS_OK);
  }
  int8_t want[512], got[512];
  plain_chain(K, dims, w, mult, zs_vans_v0(V), want);
  const char *backends[] = {"ref", "cpu", gpu};
  for (int b = 0; b < (gpu ? 3 : 2); b++) {
    zs_vans_chain *c = NULL;
    CHECK_STATUS(zs_vans_chain_create(&c, ctx, V, backends[b]), ZS_OK);
    if (!c) continue;
    memset(got, 0x55, sizeof got);
    CHECK_STATUS(zs_vans_chain_run(c, NULL, got), ZS_OK);
    CHECK(memcmp(got, want, (size_t)dims[K]) == 0);
    zs_vans_chain_destroy(&c);
  }
  zs_vans_destroy(&V);
  for (int k = 0; k < K; k++) free(w[k]);
}

/* The pair layout's container: its pair table, 32-bit words and cursors are checked. */
static void check_pairs_corruption(void) {
  int64_t dims[3] = {45, 30, 21};
  int8_t *w[2];
  zs_vans *V = build(ZS_VANS_PAIRS, 2, dims, w, 5);
  void *buf;
  size_t n;
  CHECK_STATUS(zs_vans_write_memory(V, &buf, &n), ZS_OK);
  uint8_t *d = buf, *m = malloc(n);
  for (size_t cut = 0; cut < n; cut++) expect_corrupt(d, cut, NULL);
  /* extended header 16, Table 1 header 12, v0 45 + pad 3: layer 0 at 76 */
  const size_t L0 = 76, cur = L0 + 12, ps = cur + 4 * 30, np = ps + 4, tab = ps + 6;
  const uint32_t pairs = d[np] | (uint32_t)d[np + 1] << 8;
  const size_t pay = tab + 4 * pairs;
  CHECK(pairs >= 2 && pairs <= 121);
  MUT(m[8] |= 2, "two layouts");
  MUT(zs_test_wr32(m + 12, 0), "lanes = 0");
  MUT((m[np] = 1, m[np + 1] = 0), "1 pairs");
  MUT((m[np] = 0x01, m[np + 1] = 0x10), "4097 pairs");
  MUT(m[tab + 2] ^= 1, "/4096");
  MUT((m[tab + 2] = 0, m[tab + 3] = 0), "zero");
  MUT(memcpy(m + tab, d + tab + 4, 2), "code order");
  MUT(zs_test_wr32(m + ps, zs_test_rd32(m + ps) + 1), "odd");
  MUT(zs_test_wr32(m + cur + 4 * 7, zs_test_rd32(m + cur + 4 * 7) + 1), "row 6");
  MUT(zs_test_wr32(m + cur + 4 * 7, zs_test_rd32(m + cur + 4 * 7) + 2), "row 6");
  MUT(memset(m + pay, 0, 4), "initial state");
  MUT(m[pay + 300] ^= 0x10, "payload");
  /* v0, delta, the pairs' weights and the payloads may still decode to something */
  for (size_t i = 0; i < n; i++)
    m[i] = (i >= 28 && i < 28 + 45) || (i >= L0 + 8 && i < L0 + 12) ||
           (i >= tab && i < pay && (i - tab) % 4 < 2) || i >= pay;
  check_bit_flips(d, n, m);
  free(m);
  free(buf);
  zs_vans_destroy(&V);
  free(w[0]);
  free(w[1]);
}

/* Pair models: one pair alone, odd widths, too many pairs, two layouts at once. */
static void check_pair_models(void) {
  float sc = 0.5f;
  zs_vans *V = NULL;
  int8_t w[7 * 9], d[7 * 9];
  for (int cols = 8; cols <= 9; cols++)
    for (int v = -128; v <= 127; v += 255) {
      memset(w, v, sizeof w);
      CHECK_STATUS(zs_vans_create(&V, cols, NULL, ZS_VANS_PAIRS), ZS_OK);
      CHECK_STATUS(zs_vans_add_layer_int8(V, 7, w, &sc), ZS_OK);
      CHECK_STATUS(zs_vans_layer_decode(V, 0, d), ZS_OK);
      CHECK(memcmp(d, w, (size_t)(7 * cols)) == 0);
      /* (v, v) (and (v, 0) for an odd last column) with unused pairs beside it: at most
       * 255/4096 each, so 17 pairs at least */
      CHECK(zs_vans_layers(V) == 1 && V->layers[0].pairs && V->layers[0].pairs->n == 17);
      zs_vans_destroy(&V);
    }
  /* 64 x 64 values in neighbouring columns: 4096 pairs fit, 4097 do not */
  enum { C = 2 * 4097 };
  int8_t *big = malloc(C);
  for (int i = 0; i < 4096; i++) big[2 * i] = (int8_t)(i % 64), big[2 * i + 1] = (int8_t)(i / 64);
  CHECK_STATUS(zs_vans_create(&V, 2 * 4096, NULL, ZS_VANS_PAIRS), ZS_OK);
  CHECK_STATUS(zs_vans_add_layer_int8(V, 1, big, &sc), ZS_OK);
  int8_t *back = malloc(C);
  CHECK_STATUS(zs_vans_layer_decode(V, 0, back), ZS_OK);
  CHECK(memcmp(back, big, 2 * 4096) == 0);
  zs_vans_destroy(&V);
  big[C - 2] = 100, big[C - 1] = 100;
  CHECK_STATUS(zs_vans_create(&V, C, NULL, ZS_VANS_PAIRS), ZS_OK);
  CHECK_STATUS(zs_vans_add_layer_int8(V, 1, big, &sc), ZS_ERR_OUT_OF_RANGE);
  CHECK(strstr(zs_last_error(), "4096") != NULL);
  zs_vans_destroy(&V);
  free(big);
  free(back);
  CHECK_STATUS(zs_vans_create(&V, 9, NULL, ZS_VANS_PAIRS | ZS_VANS_INTERLEAVED),
               ZS_ERR_INVALID_ARGUMENT);
  CHECK(V == NULL);
}

static void check_models(void) {
  int64_t dims[2] = {16, 8};
  int8_t w[128];
  float sc = 0.5f;
  zs_vans *V = NULL;
  /* one value only: a dummy second symbol keeps rANS working */
  for (int v = -127; v <= 127; v += 127) {
    memset(w, v, sizeof w);
    CHECK_STATUS(zs_vans_create(&V, 16, NULL, 0), ZS_OK);
    CHECK_STATUS(zs_vans_add_layer_int8(V, 8, w, &sc), ZS_OK);
    int8_t d[128];
    CHECK_STATUS(zs_vans_layer_decode(V, 0, d), ZS_OK);
    CHECK(memcmp(d, w, 128) == 0);
    CHECK(V->layers[0].grid == 2);
    zs_vans_destroy(&V);
  }
  /* 255 values fit the grid, 256 do not */
  int8_t big[256 * 8];
  for (int i = 0; i < 256 * 8; i++) big[i] = (int8_t)(i % 255 - 127);
  CHECK_STATUS(zs_vans_create(&V, 256, NULL, 0), ZS_OK);
  CHECK_STATUS(zs_vans_add_layer_int8(V, 8, big, &sc), ZS_OK);
  int8_t d[256 * 8];
  CHECK_STATUS(zs_vans_layer_decode(V, 0, d), ZS_OK);
  CHECK(memcmp(d, big, sizeof d) == 0);
  zs_vans_destroy(&V);
  for (int i = 0; i < 256 * 8; i++) big[i] = (int8_t)(i % 256 - 128);
  CHECK_STATUS(zs_vans_create(&V, 256, NULL, 0), ZS_OK);
  CHECK_STATUS(zs_vans_add_layer_int8(V, 8, big, &sc), ZS_ERR_OUT_OF_RANGE);
  CHECK(strstr(zs_last_error(), "256 values") != NULL);
  zs_vans_destroy(&V);
  (void)dims;
  /* every symbol of the grid has a probability, the model sums to 256 */
  for (int i = 0; i < 128; i++) w[i] = (int8_t)(i == 0 ? -40 : i == 1 ? 40 : (i % 3));
  CHECK_STATUS(zs_vans_create(&V, 16, NULL, 0), ZS_OK);
  CHECK_STATUS(zs_vans_add_layer_int8(V, 8, w, &sc), ZS_OK);
  uint32_t sum = 0, zero = 0;
  for (uint32_t s = 0; s < V->layers[0].grid; s++)
    sum += V->layers[0].prob[s], zero += V->layers[0].prob[s] == 0;
  CHECK(V->layers[0].grid == 81 && sum == 256 && zero == 0);
  zs_vans_destroy(&V);
  /* f32 layers: per-layer and per-row quantisation, bad weights refused */
  float f[6 * 4];
  for (int i = 0; i < 24; i++) f[i] = (float)(i - 12) * (i < 12 ? 0.01f : 1.0f);
  for (unsigned flags = 0; flags <= ZS_VANS_PER_ROW; flags++) {
    CHECK_STATUS(zs_vans_create(&V, 4, NULL, flags), ZS_OK);
    CHECK_STATUS(zs_vans_add_layer(V, 6, f), ZS_OK);
    int8_t q[24];
    CHECK_STATUS(zs_vans_layer_decode(V, 0, q), ZS_OK);
    CHECK(q[23] == 127);                      /* the largest weight maps to 127 */
    CHECK(flags ? q[0] == -127 : q[0] == -1); /* row 0 keeps its resolution per row */
    zs_vans_destroy(&V);
  }
  f[5] = 1.0f / 0.0f;
  CHECK_STATUS(zs_vans_create(&V, 4, NULL, 0), ZS_OK);
  CHECK_STATUS(zs_vans_add_layer(V, 6, f), ZS_ERR_OUT_OF_RANGE);
  zs_vans_destroy(&V);
}

static void check_files(zs_context *ctx, const char *dir) {
  char path[1024], base[1024];
  snprintf(path, sizeof path, "%s/test-vans-%d.bin", dir, (int)getpid());
  snprintf(base, sizeof base, "%s/test-vans-%d.base", dir, (int)getpid());
  zs_vans *V = NULL, *R = NULL, *B = NULL;
  CHECK_STATUS(zs_vans_generate(&V, "n=96,k=5,rows=70,seed=3", 0), ZS_OK);
  if (!V) return;
  CHECK(zs_vans_dim(V, 0) == 96 && zs_vans_dim(V, 1) == 70 && zs_vans_dim(V, 5) == 70);
  CHECK_STATUS(zs_vans_write(V, path), ZS_OK);
  CHECK_STATUS(zs_vans_read(&R, path), ZS_OK);
  CHECK_STATUS(zs_vans_write_baseline(V, base), ZS_OK);
  CHECK_STATUS(zs_vans_read_baseline(&B, base, ZS_VANS_INTERLEAVED), ZS_OK);
  int8_t y1[70], y2[70];
  zs_vans_chain *c = NULL;
  CHECK_STATUS(zs_vans_chain_create(&c, ctx, R, "cpu"), ZS_OK);
  if (c) CHECK_STATUS(zs_vans_chain_run(c, NULL, y1), ZS_OK);
  zs_vans_chain_destroy(&c);
  CHECK_STATUS(zs_vans_chain_create(&c, ctx, B, "ref"), ZS_OK);
  if (c) CHECK_STATUS(zs_vans_chain_run(c, NULL, y2), ZS_OK);
  zs_vans_chain_destroy(&c);
  CHECK(memcmp(y1, y2, 70) == 0);
  zs_vans_layer_info info;
  CHECK_STATUS(zs_vans_layer_info_get(R, 0, &info), ZS_OK);
  /* Gaussian weights at absmax/127: about 6.5 bits, the 8-bit model close behind. */
  CHECK(info.entropy_bits > 5 && info.entropy_bits < 7.5);
  CHECK(info.cross_entropy_bits >= info.entropy_bits - 1e-9);
  CHECK(info.payload_bits_per_weight < info.cross_entropy_bits + 1.5);
  zs_vans_destroy(&V);
  CHECK_STATUS(zs_vans_generate(&V, "n=200,k=1,entropy=3", 0), ZS_OK);
  if (V) {
    CHECK_STATUS(zs_vans_layer_info_get(V, 0, &info), ZS_OK);
    CHECK(info.entropy_bits > 2.7 && info.entropy_bits < 3.3);
  }
  CHECK_STATUS(zs_vans_generate(&V, "n=10,bogus=1", 0), ZS_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(zs_vans_read(&B, "/nonexistent/file.vans"), ZS_ERR_IO);
  zs_vans_destroy(&V);
  zs_vans_destroy(&R);
  zs_vans_destroy(&B);
  remove(path);
  remove(base);
}

/* The golden files pin the layout: read, run, and re-code the decoded weights to the same bytes. */
static void check_golden(zs_context *ctx, const char *dir) {
  const char *names[] = {"table1", "extended", "pairs"};
  for (int g = 0; g < 3; g++) {
    char path[1024], outp[1024];
    snprintf(path, sizeof path, "%s/%s.vans", dir, names[g]);
    snprintf(outp, sizeof outp, "%s/%s.out", dir, names[g]);
    zs_vans *V = NULL;
    CHECK_STATUS(zs_vans_read(&V, path), ZS_OK);
    if (!V) continue;
    const int K = zs_vans_layers(V);
    const int64_t nk = zs_vans_dim(V, K);
    int8_t *y = malloc((size_t)nk), *want = malloc((size_t)nk + 1);
    FILE *f = fopen(outp, "rb");
    CHECK(f && fread(want, 1, (size_t)nk + 1, f) == (size_t)nk);
    if (f) fclose(f);
    zs_vans_chain *c = NULL;
    CHECK_STATUS(zs_vans_chain_create(&c, ctx, V, "ref"), ZS_OK);
    if (c) CHECK_STATUS(zs_vans_chain_run(c, NULL, y), ZS_OK);
    CHECK(memcmp(y, want, (size_t)nk) == 0);
    zs_vans_chain_destroy(&c);
    zs_vans *E = NULL;
    CHECK_STATUS(zs_vans_create(&E, zs_vans_dim(V, 0), zs_vans_v0(V), zs_vans_flags(V)), ZS_OK);
    for (int k = 0; k < K && E; k++) {
      int8_t *w = malloc((size_t)(zs_vans_dim(V, k + 1) * zs_vans_dim(V, k)));
      CHECK_STATUS(zs_vans_layer_decode(V, k, w), ZS_OK);
      const float *sc = V->layers[k].row_scales ? V->layers[k].row_scales : &V->layers[k].delta;
      CHECK_STATUS(zs_vans_add_layer_int8(E, zs_vans_dim(V, k + 1), w, sc), ZS_OK);
      free(w);
    }
    void *a, *b;
    size_t na, nb;
    CHECK_STATUS(zs_vans_write_memory(V, &a, &na), ZS_OK);
    CHECK_STATUS(zs_vans_write_memory(E, &b, &nb), ZS_OK);
    CHECK(na == nb && memcmp(a, b, na) == 0);
    free(a), free(b), free(y), free(want);
    zs_vans_destroy(&E);
    zs_vans_destroy(&V);
  }
}

int main(int argc, char **argv) {
  /* argv: golden dir, scratch dir, optional GPU backend (exits 77 when it is not usable). */
  if (argc < 3) return 2;
  zs_context *ctx = NULL;
  if (zs_context_create(&ctx) != ZS_OK) return 1;
  const char *gpu = argc > 3 ? argv[3] : NULL;
  if (gpu) {
    zs_vans *V = NULL;
    zs_vans_chain *c = NULL;
    zs_vans_generate(&V, "n=8,k=1", 0);
    const zs_status s = zs_vans_chain_create(&c, ctx, V, gpu);
    zs_vans_chain_destroy(&c);
    zs_vans_destroy(&V);
    if (s == ZS_ERR_BACKEND_UNAVAILABLE || s == ZS_ERR_INVALID_ARGUMENT) {
      printf("SKIP: %s\n", zs_last_error());
      zs_context_destroy(&ctx);
      return 77;
    }
  }
  const unsigned layouts[] = {0, ZS_VANS_INTERLEAVED, ZS_VANS_PAIRS};
  for (int l = 0; l < 3; l++)
    for (unsigned per_row = 0; per_row <= ZS_VANS_PER_ROW; per_row++)
      check_chain(ctx, layouts[l] | per_row, gpu, 37);
  /* several whole chunks of 128 columns and a partial one: the GPU lanes kernels' two paths */
  check_chain(ctx, ZS_VANS_INTERLEAVED, gpu, 300);
  check_chain(ctx, ZS_VANS_PAIRS, gpu, 300);
  /* Rows whose streams outgrow the GPU kernels' rings in shared memory (about 4.3 KiB a row
   * at the 3.8 bits of entropy of these weights, against rings of 2 KiB), with 70 and 71 whole
   * chunks and a partial one: the pair kernel's turns of four chunks, the whole chunks left
   * after them, and the last chunk. */
  const int64_t long_rows[] = {9000, 150, 9100, 130};
  check_chain_dims(ctx, ZS_VANS_PAIRS, gpu, 3, long_rows);
  check_chain_dims(ctx, ZS_VANS_PAIRS | ZS_VANS_PER_ROW, gpu, 3, long_rows);
  check_chain_dims(ctx, ZS_VANS_INTERLEAVED, gpu, 3, long_rows);
  check_wide_pairs(ctx, gpu);
  if (!gpu) {
    check_corruption();
    check_pairs_corruption();
    check_pair_models();
    check_models();
    check_files(ctx, argv[2]);
    check_golden(ctx, argv[1]);
  }
  zs_context_destroy(&ctx);
  CHECK_DONE();
}
