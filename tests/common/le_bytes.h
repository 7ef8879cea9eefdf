/* le_bytes.h — test helpers: little-endian integers in a byte buffer, read and written by tests
 * that build or damage a container by hand (the formats' headers are little-endian on every
 * host). */
#ifndef ZS_TEST_LE_BYTES_H
#define ZS_TEST_LE_BYTES_H

#include <stdint.h>

static inline uint32_t zs_test_rd32(const uint8_t *p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline uint64_t zs_test_rd64(const uint8_t *p) {
  return (uint64_t)zs_test_rd32(p) | (uint64_t)zs_test_rd32(p + 4) << 32;
}

static inline void zs_test_wr32(uint8_t *p, uint32_t v) {
  for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i));
}

static inline void zs_test_wr64(uint8_t *p, uint64_t v) {
  for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (8 * i));
}

#endif
