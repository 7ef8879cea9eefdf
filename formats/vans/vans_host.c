/* vans_host.c — the host backends' MAT-VANS chain: layers from their views, buffers, and the
 * loop of one backend's layer products, each followed by the requantisation to int8. */
#include "formats/vans/vans_host.h"

#include <string.h>

#include "core/zs_omp.h"

/* Layer k from its view, as the decoder and the host kernels read it: the model's tables copied
 * and completed (probabilities from the cdf, the pair model's index), the arrays borrowed. */
static zs_status layer_of_view(const zsb_vans_layer *v, int k, zsi_vans_layer *L) {
  L->rows = v->rows;
  L->cols = v->cols;
  L->w_min = v->w_min;
  L->grid = v->grid;
  /* The layer type is the encoder's too, so its arrays are not const; these are only read. */
  L->cursors = (uint32_t *)v->cursors;
  L->payload = (uint16_t *)v->payload;
  L->payload_words = (uint32_t)v->payload_words;
  L->row_mult = (int32_t *)v->row_mult;
  if (v->pairs) {
    zsi_vans_pairs *P = L->pairs = zsi_alloc(sizeof *L->pairs);
    if (!P) return zsi_error(ZS_ERR_OUT_OF_MEMORY, "vans: layer %d: pair model", k);
    P->n = v->pairs;
    memcpy(P->a, v->pair_a, P->n);
    memcpy(P->b, v->pair_b, P->n);
    memcpy(P->f, v->pair_f, P->n * sizeof *P->f);
    return zsi_vans_pairs_index(P, k);
  }
  memcpy(L->cdf, v->cdf, v->grid + 1);
  memcpy(L->ppf, v->ppf, 256);
  /* cdf[grid] is 256 stored as 0: the byte difference is right for the last symbol too. */
  for (uint32_t s = 0; s < v->grid; s++) L->prob[s] = (uint8_t)(L->cdf[s + 1] - L->cdf[s]);
  return ZS_OK;
}

zs_status zsi_vans_host_create(zsi_vans_host **out, const char *backend, int n,
                               const zsb_vans_layer *views, zsi_vans_host_product product,
                               int threads) {
  zsi_vans_host *h = zsi_alloc(sizeof *h);
  if (!h) return zsi_error(ZS_ERR_OUT_OF_MEMORY, "vans: %s chain", backend);
  h->lanes = views[0].lanes;
  h->product = product;
  h->threads = threads;
  h->max_dim = views[0].cols;
  for (int k = 0; k < n; k++) {
    const uint64_t e = (uint64_t)views[k].rows * views[k].cols;
    if (views[k].rows > h->max_dim) h->max_dim = views[k].rows;
    if (e > h->max_weights) h->max_weights = e;
  }
  h->layers = zsi_alloc_array((uint64_t)n, sizeof *h->layers);
  h->z = zsi_alloc_array(h->max_dim, sizeof(int64_t));
  h->x[0] = zsi_alloc(h->max_dim);
  h->x[1] = zsi_alloc(h->max_dim);
  h->in = zsi_alloc(views[0].cols);
  if (!h->layers || !h->z || !h->x[0] || !h->x[1] || !h->in) {
    zsi_vans_host_destroy(h);
    return zsi_error(ZS_ERR_OUT_OF_MEMORY, "vans: %s chain buffers", backend);
  }
  for (int k = 0; k < n; k++) {
    h->n = (uint32_t)k + 1; /* so that destroy frees what this layer allocated */
    const zs_status s = layer_of_view(&views[k], k, &h->layers[k]);
    if (s != ZS_OK) {
      zsi_vans_host_destroy(h);
      return s;
    }
  }
  *out = h;
  return ZS_OK;
}

void zsi_vans_host_destroy(void *chain) {
  zsi_vans_host *h = chain;
  if (!h) return;
  for (uint32_t k = 0; k < h->n; k++) zsi_free(h->layers[k].pairs); /* the rest is borrowed */
  zsi_free(h->layers);
  zsi_free(h->z);
  zsi_free(h->x[0]);
  zsi_free(h->x[1]);
  zsi_free(h->in);
  zsi_free(h->scratch);
  zsi_free(h);
}

/* Requantise z[0..n) into y, the one step after every layer on the host backends. */
static void requant(const int64_t *z, int64_t n, int8_t *y, int threads) {
  int64_t amax = 0;
  ZSI_OMP(parallel for reduction(max : amax) num_threads(threads) if (n > 4096))
  for (int64_t i = 0; i < n; i++) {
    const int64_t a = z[i] < 0 ? -z[i] : z[i];
    if (a > amax) amax = a;
  }
  ZSI_OMP(parallel for num_threads(threads) if (n > 4096))
  for (int64_t i = 0; i < n; i++) y[i] = zsi_vans_requant(z[i], amax);
}

zs_status zsi_vans_host_run(void *chain, const int8_t *x, int8_t *y) {
  zsi_vans_host *h = chain;
  if (x != h->in) memcpy(h->in, x, h->layers[0].cols);
  const int8_t *in = h->in;
  for (uint32_t k = 0; k < h->n; k++) {
    const zsi_vans_layer *L = &h->layers[k];
    int8_t *o = k + 1 == h->n ? y : h->x[k % 2];
    h->product(h, L, in, h->z);
    requant(h->z, L->rows, o, h->threads);
    in = o;
  }
  return ZS_OK;
}

zs_status zsi_vans_host_time(void *chain, int reps, double *ms) {
  zsi_vans_host *h = chain;
  int8_t *y = zsi_alloc(h->layers[h->n - 1].rows);
  if (!y) return zsi_error(ZS_ERR_OUT_OF_MEMORY, "vans: output");
  const double t0 = zsi_now();
  for (int r = 0; r < reps; r++) zsi_vans_host_run(h, h->in, y);
  *ms = (zsi_now() - t0) * 1e3 / reps;
  zsi_free(y);
  return ZS_OK;
}
