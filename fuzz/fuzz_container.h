/* fuzz_container.h — what the .zsm fuzz targets share: little-endian fields, the CRC re-fix of a
 * mutated container, and the input written to a temporary file for the loader. */
#ifndef ZS_FUZZ_CONTAINER_H
#define ZS_FUZZ_CONTAINER_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

static inline uint64_t le(const uint8_t *p, int n) {
  uint64_t v = 0;
  for (int i = 0; i < n; i++) v |= (uint64_t)p[i] << (8 * i);
  return v;
}
static inline void put_le32(uint8_t *p, uint32_t v) {
  for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i));
}

/* Recompute the array CRCs and the header CRC (docs/container.md) where they lie inside the
 * input: random mutations almost never keep CRCs right, and this lets them reach the checks
 * behind the CRCs and the formats' validate. */
static inline void fix_crcs(uint8_t *d, size_t size) {
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

/* Write the bytes to a new file "$TMPDIR/<stem>-XXXXXX" (path, cap bytes). Returns 0 when no
 * file was made, 1 when all bytes were written, -1 when the file was made but is short; the
 * caller unlinks a file it was given. */
static inline int fuzz_temp_file(char *path, size_t cap, const char *stem, const uint8_t *data,
                                 size_t size) {
  const char *t = getenv("TMPDIR");
  snprintf(path, cap, "%s/%s-XXXXXX", t && *t ? t : "/tmp", stem);
  const int fd = mkstemp(path);
  if (fd < 0) return 0;
  size_t done = 0;
  while (done < size) {
    const ssize_t n = write(fd, data + done, size - done);
    if (n <= 0) break;
    done += (size_t)n;
  }
  close(fd);
  return done == size ? 1 : -1;
}

/* Run `load` on the input as it is, then on a copy with its CRCs re-fixed where that changes
 * any byte. */
static inline void fuzz_with_fixed_crcs(const uint8_t *data, size_t size,
                                        void (*load)(const uint8_t *, size_t)) {
  load(data, size);
  uint8_t *copy = malloc(size ? size : 1);
  if (!copy) return;
  memcpy(copy, data, size);
  fix_crcs(copy, size);
  if (size && memcmp(copy, data, size) != 0) load(copy, size);
  free(copy);
}

#endif
