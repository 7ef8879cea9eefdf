/* fuzz_zsm.c — libFuzzer target for the .zsm loader: bytes to a temporary file, then load. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/zs_internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const char *t = getenv("TMPDIR");
  char path[512];
  snprintf(path, sizeof path, "%s/fuzz-zsm-XXXXXX", t && *t ? t : "/tmp");
  const int fd = mkstemp(path);
  if (fd < 0) return 0;
  size_t done = 0;
  while (done < size) {
    const ssize_t n = write(fd, data + done, size - done);
    if (n <= 0) break;
    done += (size_t)n;
  }
  close(fd);
  zs_encoded *E = NULL;
  if (done == size && zs_encoded_load(&E, path) == ZS_OK) {
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
  return 0;
}
