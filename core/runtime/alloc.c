/* alloc.c — 64-byte aligned host allocations with overflow-checked sizes. */
#define _DEFAULT_SOURCE /* madvise's MADV_HUGEPAGE */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(__linux__)
#include <sys/mman.h>
#endif

#include "core/zs_internal.h"

/* Arrays of this size or more are placed on 2 MiB boundaries and offered transparent huge pages
 * (Linux with THP in `madvise` mode, as Debian ships it). The first write to a fresh 4 KiB page
 * faults, and on the 2-core virtual machines this project builds on, zeroing fresh 4 KiB pages
 * took over 20x what huge pages did. Smaller arrays keep 64 bytes. */
#define HUGE_ALIGN (UINT64_C(2) << 20)
#define HUGE_MIN (UINT64_C(8) << 20)

/* An allocation this large is first checked against the memory the system can still give
 * (Linux: MemAvailable + SwapFree). Zeroing more than that would not fail cleanly: the process
 * would be killed mid-way, or the machine would thrash, instead of getting NULL. */
#define CHECKED_MIN (UINT64_C(1) << 30)

uint64_t zsi_memory_available(void) {
#if defined(__linux__)
  FILE *f = fopen("/proc/meminfo", "r");
  if (!f) return UINT64_MAX;
  char line[128];
  unsigned long long kib, avail = 0;
  int seen = 0;
  while (fgets(line, sizeof line, f))
    if (sscanf(line, "MemAvailable: %llu kB", &kib) == 1 ||
        sscanf(line, "SwapFree: %llu kB", &kib) == 1)
      avail += kib, seen++;
  fclose(f);
  return seen == 2 && avail < UINT64_MAX / 1024 ? avail * 1024 : UINT64_MAX;
#else
  return UINT64_MAX;
#endif
}

void *zsi_alloc(uint64_t bytes) {
  /* Round up to the alignment: aligned_alloc requires a multiple, and kernels may read a full
   * cache line at an array's end. */
  uint64_t rounded;
  if (!zsi_add_u64(bytes, 63, &rounded) || rounded > SIZE_MAX) return NULL;
  if (bytes >= CHECKED_MIN && bytes > zsi_memory_available()) return NULL;
  rounded &= ~UINT64_C(63);
  if (rounded == 0) rounded = 64;
  uint64_t align = 64;
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  if (rounded >= HUGE_MIN && zsi_add_u64(rounded, HUGE_ALIGN - 1, &rounded) && rounded <= SIZE_MAX)
    align = HUGE_ALIGN, rounded &= ~(HUGE_ALIGN - 1);
#endif
  void *p = aligned_alloc((size_t)align, (size_t)rounded);
  if (!p) return NULL;
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  if (align == HUGE_ALIGN) (void)madvise(p, (size_t)rounded, MADV_HUGEPAGE); /* advice only */
#endif
  memset(p, 0, (size_t)rounded);
  return p;
}

void *zsi_alloc_array(uint64_t count, uint64_t elem_size) {
  uint64_t bytes;
  if (!zsi_mul_u64(count, elem_size, &bytes)) return NULL;
  return zsi_alloc(bytes);
}

void zsi_free(void *p) { free(p); }
