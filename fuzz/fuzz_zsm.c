/* fuzz_zsm.c — libFuzzer target for the .zsm loader: bytes to a temporary file, then load. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "core/zs_internal.h"

static uint64_t le(const uint8_t *p, int n) {
  uint64_t v = 0;
  for (int i = 0; i < n; i++) v |= (uint64_t)p[i] << (8 * i);
  return v;
}
static void put_le32(uint8_t *p, uint32_t v) {
  for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i));
}

/* Recompute the array CRCs and the header CRC (docs/container.md) where they lie inside the
 * input: random mutations almost never keep CRCs right, and this lets them reach the checks
 * behind the CRCs and the formats' validate. */
static void fix_crcs(uint8_t *d, size_t size) {
  if (size < 64) return;
  const uint64_t np = le(d + 20, 4), na = le(d + 24, 4);
  if (np > 64 || na > 64) return; /* version-1 limits */
  const size_t h = 64 + 40 * (size_t)np + 64 * (size_t)na + 4;
  if (h > size) return;
  for (size_t i = 0; i < na; i++) {
    uint8_t *e = d + 64 + 40 * np + 64 * i;
    const uint64_t off = le(e + 48, 8), len = le(e + 56, 8);
    if (off <= size && len <= size - off && len <= UINT32_MAX)
      put_le32(e + 36, (uint32_t)crc32(0L, d + off, (uInt)len));
  }
  put_le32(d + h - 4, (uint32_t)crc32(0L, d, (uInt)(h - 4)));
}

static void load_bytes(const uint8_t *data, size_t size) {
  const char *t = getenv("TMPDIR");
  char path[512];
  snprintf(path, sizeof path, "%s/fuzz-zsm-XXXXXX", t && *t ? t : "/tmp");
  const int fd = mkstemp(path);
  if (fd < 0) return;
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
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  load_bytes(data, size);
  uint8_t *copy = malloc(size ? size : 1);
  if (!copy) return 0;
  memcpy(copy, data, size);
  fix_crcs(copy, size);
  if (size && memcmp(copy, data, size) != 0) load_bytes(copy, size);
  free(copy);
  return 0;
}
