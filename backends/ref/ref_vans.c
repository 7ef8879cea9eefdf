/* ref_vans.c — the oracle's MAT-VANS layer product: the whole layer decoded by the reference
 * decoder, then multiplied row by row (the "vans-v2" table of the ref backend). */
#include "backends/ref/ref_kernels.h"
#include "formats/vans/vans_host.h"

static void layer_ref(zsi_vans_host *h, const zsi_vans_layer *L, const int8_t *x, int64_t *z) {
  int8_t *w = h->scratch;
  for (uint32_t i = 0; i < L->rows; i++)
    zsi_vans_decode_row(L, h->lanes, i, w + (uint64_t)i * L->cols);
  for (uint32_t i = 0; i < L->rows; i++) {
    const int8_t *row = w + (uint64_t)i * L->cols;
    int32_t acc = 0;
    for (uint32_t j = 0; j < L->cols; j++) acc += (int32_t)row[j] * x[j];
    z[i] = (int64_t)acc * (L->row_mult ? L->row_mult[i] : 1);
  }
}

static zs_status ref_vans_create(void *self, void **chain, int n, const zsb_vans_layer *layers) {
  (void)self;
  zsi_vans_host *h = NULL;
  zs_status s = zsi_vans_host_create(&h, "ref", n, layers, layer_ref, 1);
  if (s != ZS_OK) return s;
  const uint64_t weights = h->max_weights;
  if (!(h->scratch = zsi_alloc(weights))) {
    zsi_vans_host_destroy(h);
    return zsi_error(ZS_ERR_OUT_OF_MEMORY, "vans: ref chain: a decoded layer of %llu weights",
                     (unsigned long long)weights);
  }
  *chain = h;
  return ZS_OK;
}

const zsb_vans_ops zsi_ref_vans = {2, ref_vans_create, zsi_vans_host_destroy, zsi_vans_host_run,
                                   zsi_vans_host_time};
