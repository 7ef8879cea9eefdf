/* cpu_vans.c — the cpu backend's MAT-VANS layer products, fused decode and dot in every layout
 * (the "vans-v2" table of the cpu backend). */
#include <stdlib.h>
#include <string.h>

#include "backends/cpu/cpu_kernels.h"
#include "formats/vans/vans_host.h"

/* The chain's scratch: a pair layer's step table and its input padded to whole chunks. */
typedef struct cpu_vans_scratch {
  uint64_t pair_tab[ZSI_VANS_PAIR_SLOTS];
  int8_t xpad[]; /* the widest layer's cols plus a chunk */
} cpu_vans_scratch;

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

static void layer_cpu(zsi_vans_host *h, const zsi_vans_layer *L, const int8_t *x, int64_t *z) {
  const int t = h->threads;
  if (h->lanes == 0) {
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
        z[i0 + r] = (int64_t)acc[r] * (L->row_mult ? L->row_mult[i0 + r] : 1);
    }
  } else if (L->pairs) {
    cpu_vans_scratch *sc = h->scratch;
    int8_t *xp = sc->xpad;
    memcpy(xp, x, L->cols);
    memset(xp + L->cols, 0, ZSI_VANS_CHUNK);
    pair_table(L->pairs, sc->pair_tab);
    ZSI_OMP(parallel for schedule(static, 16) num_threads(t) if (L->rows > 64))
    for (int64_t i = 0; i < (int64_t)L->rows; i++)
      z[i] = (int64_t)pairs_row_dot(L, sc->pair_tab, (uint32_t)i, xp) *
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
          zsi_vans_decode_row(L, h->lanes, (uint32_t)i, buf);
          for (uint32_t j = 0; j < L->cols; j++) acc += (int32_t)buf[j] * x[j];
        }
        z[i] = (int64_t)acc * (L->row_mult ? L->row_mult[i] : 1);
      }
      free(buf);
    }
  }
}

static zs_status cpu_vans_create(void *self, void **chain, int n, const zsb_vans_layer *layers) {
  zsi_vans_host *h = NULL;
  zs_status s =
      zsi_vans_host_create(&h, "cpu", n, layers, layer_cpu, zsi_backend_cpu_threads(self));
  if (s != ZS_OK) return s;
  if (!(h->scratch = zsi_alloc(sizeof(cpu_vans_scratch) + h->max_dim + ZSI_VANS_CHUNK))) {
    zsi_vans_host_destroy(h);
    return zsi_error(ZS_ERR_OUT_OF_MEMORY, "vans: cpu chain buffers");
  }
  *chain = h;
  return ZS_OK;
}

const zsb_vans_ops zsi_cpu_vans = {2, cpu_vans_create, zsi_vans_host_destroy, zsi_vans_host_run,
                                   zsi_vans_host_time};
