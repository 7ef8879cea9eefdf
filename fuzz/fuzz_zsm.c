/* fuzz_zsm.c — libFuzzer target for the .zsm loader: bytes to a temporary file, then load. */
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "core/zs_internal.h"
#include "fuzz/fuzz_container.h"

static void load_bytes(const uint8_t *data, size_t size) {
  char path[512];
  const int made = fuzz_temp_file(path, sizeof path, "fuzz-zsm", data, size);
  if (made == 0) return;
  zs_encoded *E = NULL;
  if (made > 0 && zs_encoded_load(&E, path) == ZS_OK) {
    /* A loaded matrix has passed its format's validate, so decoding must be safe. Huge but
     * valid dimensions would make the decoded row_ptr legitimately large: skip those. */
    if (E->rows <= (1 << 20)) {
      zs_matrix *A = NULL;
      const zs_status s = zs_decode(&A, E);
      if (s != ZS_OK && s != ZS_ERR_OUT_OF_MEMORY) abort();
      zs_matrix_destroy(&A);
    }
    zs_encoded_destroy(&E);
  }
  unlink(path);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fuzz_with_fixed_crcs(data, size, load_bytes);
  return 0;
}
