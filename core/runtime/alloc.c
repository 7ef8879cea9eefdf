/* alloc.c — 64-byte aligned host allocations with overflow-checked sizes. */
#include <stdlib.h>
#include <string.h>

#include "core/zs_internal.h"

void *zsi_alloc(uint64_t bytes) {
  /* Round up to the alignment: aligned_alloc requires a multiple, and kernels may read a full
   * cache line at an array's end. */
  uint64_t rounded;
  if (!zsi_add_u64(bytes, 63, &rounded) || rounded > SIZE_MAX) return NULL;
  rounded &= ~UINT64_C(63);
  if (rounded == 0) rounded = 64;
  void *p = aligned_alloc(64, (size_t)rounded);
  if (p) memset(p, 0, (size_t)rounded);
  return p;
}

void *zsi_alloc_array(uint64_t count, uint64_t elem_size) {
  uint64_t bytes;
  if (!zsi_mul_u64(count, elem_size, &bytes)) return NULL;
  return zsi_alloc(bytes);
}

void zsi_free(void *p) { free(p); }
