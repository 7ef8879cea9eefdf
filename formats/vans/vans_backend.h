/* vans_backend.h — the "vans-v2" extension table a backend offers for MAT-VANS chains (ref and
 * cpu in backends/ref, backends/cpu; the GPU modules in backends/cuda_hip/vans_gpu.cuh). */
#ifndef ZS_VANS_BACKEND_H
#define ZS_VANS_BACKEND_H

#include <stdint.h>

#include "zsparse.h"

#ifdef __cplusplus
extern "C" {
#endif

#define ZSB_VANS_EXTENSION "vans-v2"

/* One coded layer as validated host arrays (docs/formats/vans.md). lanes = 0: the report's
 * layout (one stream per row); lanes > 0: each row's symbols dealt to `lanes` interleaved rANS
 * states that share one stream of words. cdf holds grid + 1 entries modulo 256. */
typedef struct zsb_vans_layer {
  uint32_t rows, cols, lanes, grid;
  int32_t w_min;
  const uint8_t *cdf;      /* grid + 1 */
  const uint8_t *ppf;      /* 256 */
  const uint32_t *cursors; /* rows: first word of each row's stream */
  const uint16_t *payload; /* payload_words */
  uint64_t payload_words;
  const int32_t *row_mult; /* rows integer row multipliers, or NULL for all ones */
  /* The pair layout (pairs > 0, lanes = 32): pair k holds weights pair_a[k], pair_b[k] with
   * probability pair_f[k] / 4096, quantiles in pair order; cdf and ppf are then unused. */
  uint32_t pairs;
  const int8_t *pair_a, *pair_b;
  const uint16_t *pair_f;
} zsb_vans_layer;

typedef struct zsb_vans_ops {
  uint32_t version; /* 2 */
  /* Upload the layers for the context whose backend state is `self`; *chain receives the
   * device-side chain. Layers are borrowed: a GPU module copies them, the host backends (ref,
   * cpu) keep pointers to their arrays, which belong to the zs_vans that outlives the chain. */
  zs_status (*chain_create)(void *self, void **chain, int n_layers, const zsb_vans_layer *layers);
  void (*chain_destroy)(void *chain);
  /* y = the chained product of the layers applied to x (host int8 arrays of the first layer's
   * cols and the last layer's rows); the layers run back to back on the device. */
  zs_status (*chain_run)(void *chain, const int8_t *x, int8_t *y);
  /* Device milliseconds per run of the chain without transfers, over `reps` runs (on the host
   * backends, wall time of runs on the last input given to chain_run). */
  zs_status (*chain_time)(void *chain, int reps, double *ms);
} zsb_vans_ops;

#ifdef __cplusplus
}
#endif
#endif
