/* fuzz_vans.c — libFuzzer target for the MAT-VANS container reader: read, decode, write back. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "formats/vans/vans.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  zs_vans *V = NULL;
  const zs_status s = zs_vans_read_memory(&V, data, size);
  if (s != ZS_OK) {
    if (s != ZS_ERR_CORRUPT && s != ZS_ERR_OUT_OF_MEMORY) abort();
    return 0;
  }
  /* A container that passed the reader decodes safely and is written back byte for byte. */
  for (int k = 0; k < zs_vans_layers(V); k++) {
    const uint64_t n = (uint64_t)zs_vans_dim(V, k + 1) * (uint64_t)zs_vans_dim(V, k);
    if (n > (1u << 24)) continue;
    int8_t *w = malloc(n);
    if (!w) continue;
    if (zs_vans_layer_decode(V, k, w) != ZS_OK) abort();
    free(w);
  }
  void *out;
  size_t n;
  if (zs_vans_write_memory(V, &out, &n) == ZS_OK) {
    if (n != size || memcmp(out, data, size) != 0) abort();
    free(out);
  }
  zs_vans_destroy(&V);
  return 0;
}
