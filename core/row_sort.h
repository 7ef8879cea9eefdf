/* row_sort.h — keys sorted by their high 32 bits, places (low bits) kept in order: one row's
 * entries by column (matrix building, dtANS column renumbering), SELL's windows by row length
 * (formats/sell/sell_shape.h). Header-only C11 that also compiles as C++17: the GPU modules,
 * which link nothing from the library, shape SELL through it too. */
#ifndef ZS_ROW_SORT_H
#define ZS_ROW_SORT_H

#include <stdint.h>
#include <string.h>

/* Sorts one row's keys, column << 32 | place, by column; places must start ascending, and equal
 * columns keep that order. tmp holds n keys.
 *
 * Short rows by insertion (no calls, few moves); longer ones by a least-significant-digit radix
 * sort over the bytes in which the row's columns differ, so a row spanning 2^20 columns takes 3
 * passes. Radix passes are stable and the places start ascending, so equal columns keep their
 * order without comparing places. */
static inline void zsi_sort_row_keys(uint64_t *key, int64_t n, uint64_t *tmp) {
  if (n <= 32) {
    for (int64_t k = 1; k < n; k++) {
      const uint64_t kk = key[k];
      int64_t j = k;
      for (; j > 0 && key[j - 1] > kk; j--) key[j] = key[j - 1];
      key[j] = kk;
    }
    return;
  }
  uint32_t lo = UINT32_MAX, hi = 0;
  for (int64_t k = 0; k < n; k++) {
    const uint32_t c = (uint32_t)(key[k] >> 32);
    lo = c < lo ? c : lo, hi = c > hi ? c : hi;
  }
  uint64_t *src = key, *dst = tmp;
  for (unsigned shift = 0; shift < 32 && ((hi - lo) >> shift) != 0; shift += 8) {
    int64_t at[257] = {0};
    for (int64_t k = 0; k < n; k++) at[((((uint32_t)(src[k] >> 32) - lo) >> shift) & 255) + 1]++;
    for (int d = 0; d < 256; d++) at[d + 1] += at[d];
    for (int64_t k = 0; k < n; k++)
      dst[at[(((uint32_t)(src[k] >> 32) - lo) >> shift) & 255]++] = src[k];
    uint64_t *const t = src;
    src = dst, dst = t;
  }
  if (src != key) memcpy(key, src, (size_t)n * sizeof *key);
}

#endif /* ZS_ROW_SORT_H */
