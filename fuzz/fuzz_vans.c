/* fuzz_vans.c — libFuzzer target for the MAT-VANS container reader: read, decode, write back
 * (to memory, and to a file through the safe output). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "formats/vans/vans.h"

/* zs_vans_write to a file holds the same bytes (TMPDIR on tmpfs keeps the fsync cheap). */
static void written_file_matches(const zs_vans *V, const uint8_t *data, size_t size) {
  const char *t = getenv("TMPDIR");
  char path[512];
  snprintf(path, sizeof path, "%s/zs-fuzz-vans-%ld.vans", t && *t ? t : "/tmp", (long)getpid());
  if (zs_vans_write(V, path) != ZS_OK) return; /* a full disk, say */
  FILE *f = fopen(path, "rb");
  uint8_t *back = malloc(size + 1);
  const size_t got = f && back ? fread(back, 1, size + 1, f) : 0;
  if (f) fclose(f);
  unlink(path);
  if (back && (got != size || memcmp(back, data, size) != 0)) abort();
  free(back);
}

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
    written_file_matches(V, data, size);
  }
  zs_vans_destroy(&V);
  return 0;
}
