/* vans_host.h — what the host backends (ref, cpu) share to offer the "vans-v2" table: the
 * layers rebuilt from their views, the chain's buffers, and the loop of layer products and
 * requantisations. A backend brings only its product of one layer. */
#ifndef ZS_VANS_HOST_H
#define ZS_VANS_HOST_H

#include "formats/vans/vans.h"

typedef struct zsi_vans_host zsi_vans_host;

/* z[i] = (row i of L) . x times the row's multiplier, for i < L->rows: a backend's product of
 * one validated layer (x holds L->cols entries). */
typedef void (*zsi_vans_host_product)(zsi_vans_host *h, const zsi_vans_layer *L, const int8_t *x,
                                      int64_t *z);

struct zsi_vans_host {
  uint32_t n, lanes;
  /* n layers read from their views: cursors, payload and row multipliers borrowed from the
   * zs_vans (which outlives its chain), tables copied, the pair model's index built here. */
  zsi_vans_layer *layers;
  uint64_t max_dim;     /* the largest N_k */
  uint64_t max_weights; /* the largest N_{k+1} N_k */
  int threads;          /* for the requantisation */
  zsi_vans_host_product product;
  int64_t *z;    /* max_dim: one layer's products */
  int8_t *x[2];  /* max_dim: ping-pong activations */
  int8_t *in;    /* N_0: the last input, which chain_time runs on */
  void *scratch; /* the backend's own, zsi_alloc'ed by it, freed with the chain */
};

/* A host chain of n layers (vans-v2 chain_create); `backend` names it in messages. */
ZSI_HIDDEN zs_status zsi_vans_host_create(zsi_vans_host **out, const char *backend, int n,
                                          const zsb_vans_layer *views,
                                          zsi_vans_host_product product, int threads);
/* The rest of the vans-v2 table, shared as they are (chain is a zsi_vans_host). */
ZSI_HIDDEN void zsi_vans_host_destroy(void *chain);
ZSI_HIDDEN zs_status zsi_vans_host_run(void *chain, const int8_t *x, int8_t *y);
ZSI_HIDDEN zs_status zsi_vans_host_time(void *chain, int reps, double *ms);

#endif
