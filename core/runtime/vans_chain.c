/* vans_chain.c — zs_vans_chain: a MAT-VANS chain bound to a context's backend through the
 * backend's "vans-v2" table (ref and cpu in backends/, the GPU modules in backends/cuda_hip). */
#include "core/runtime/runtime.h"
#include "formats/vans/vans.h"

struct zs_vans_chain {
  const zs_vans *V;
  const zsb_vans_ops *ops;
  void *impl; /* the backend's chain */
};

zs_status zs_vans_chain_create(zs_vans_chain **out, zs_context *ctx, const zs_vans *V,
                               const char *backend) {
  if (!out || !ctx || !V)
    return zsi_error(ZS_ERR_INVALID_ARGUMENT, "zs_vans_chain_create: out, ctx or V is NULL");
  if (V->k == 0) return zsi_error(ZS_ERR_INVALID_ARGUMENT, "vans: a chain without layers");
  const zsi_backend_slot *slot;
  zs_status s = zsi_backend_get(ctx, backend, &slot);
  if (s != ZS_OK) return s;
  const zsb_vans_ops *ops =
      slot->ops->extension ? slot->ops->extension(slot->self, ZSB_VANS_EXTENSION) : NULL;
  if (!ops || ops->version != 2)
    return zsi_error(ZS_ERR_UNSUPPORTED, "vans: backend '%s' has no %s kernels", slot->name,
                     ZSB_VANS_EXTENSION);
  zs_vans_chain *c = zsi_alloc(sizeof *c);
  zsb_vans_layer *views = zsi_alloc_array(V->k, sizeof *views);
  if (!c || !views) {
    zsi_free(c);
    zsi_free(views);
    return zsi_error(ZS_ERR_OUT_OF_MEMORY, "vans: a chain of %u layers", V->k);
  }
  c->V = V;
  c->ops = ops;
  for (uint32_t k = 0; k < V->k; k++) zsi_vans_view(V, (int)k, &views[k]);
  zsi_error_clear();
  s = ops->chain_create(slot->self, &c->impl, (int)V->k, views);
  zsi_free(views);
  if (s != ZS_OK) {
    zsi_free(c);
    return s;
  }
  *out = c;
  return ZS_OK;
}

zs_status zs_vans_chain_run(zs_vans_chain *c, const int8_t *x, int8_t *y) {
  if (!c || !y) return zsi_error(ZS_ERR_INVALID_ARGUMENT, "zs_vans_chain_run: c or y is NULL");
  return c->ops->chain_run(c->impl, x ? x : c->V->v0, y);
}

zs_status zs_vans_chain_time(zs_vans_chain *c, int reps, double *ms) {
  if (!c || !ms || reps < 1)
    return zsi_error(ZS_ERR_INVALID_ARGUMENT, "zs_vans_chain_time: c or ms is NULL, or reps %d < 1",
                     reps);
  return c->ops->chain_time(c->impl, reps, ms);
}

void zs_vans_chain_destroy(zs_vans_chain **c) {
  if (!c || !*c) return;
  (*c)->ops->chain_destroy((*c)->impl);
  zsi_free(*c);
  *c = NULL;
}
