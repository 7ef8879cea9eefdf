/* fuzz_zsm.c — libFuzzer target for the .zsm loader and saver: bytes to a temporary file, then
 * load; a loaded container is saved again (through the safe output) and must load as the same
 * matrix, and its decoded matrix must survive the Matrix Market writer (the convert path). */
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "core/zs_internal.h"
#include "fuzz/fuzz_container.h"
#include "fuzz/fuzz_matrix.h"

/* Save E next to its source, load it back: it must load and decode to the same matrix A. */
static void save_load_again(const zs_encoded *E, const zs_matrix *A, const char *src) {
  char out[600];
  snprintf(out, sizeof out, "%s.again.zsm", src);
  const zs_status saved = zs_encoded_save(E, out);
  if (saved == ZS_ERR_IO) return; /* a full disk, say */
  if (saved != ZS_OK) abort();    /* what loaded must save */
  zs_encoded *F = NULL;
  zs_matrix *B = NULL;
  zs_status s = zs_encoded_load(&F, out);
  if (s == ZS_OK) s = zs_decode(&B, F);
  unlink(out);
  if (s == ZS_ERR_OUT_OF_MEMORY) return;
  if (s != ZS_OK || !fuzz_same_matrix(A, B)) abort();
  zs_matrix_destroy(&B);
  zs_encoded_destroy(&F);
}

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
      if (s == ZS_OK) {
        save_load_again(E, A, path);
        fuzz_write_read_back(A, 0, 0);
      }
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
