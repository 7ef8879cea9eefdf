/* test_row_sort.c — zsi_sort_row_keys against qsort of the whole keys: short and long rows, column
 * spans of one to four bytes (one to four radix passes), repeated columns kept in input order. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/zs_internal.h"
#include "tests/common/check.h"
#include "tests/common/test_random.h"

static int by_whole_key(const void *a, const void *b) {
  const uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return (x > y) - (x < y);
}

/* n keys with columns in [base, base + span), some repeated; places 0 … n-1 as the callers make
 * them. Sorting by column alone must give the whole keys' order: places break ties ascending. */
static void check_row(int64_t n, uint32_t base, uint64_t span, int repeats, uint64_t *seed) {
  uint64_t *key = malloc((size_t)(n ? n : 1) * sizeof *key),
           *want = malloc((size_t)(n ? n : 1) * sizeof *want),
           *tmp = malloc((size_t)(n ? n : 1) * sizeof *tmp);
  for (int64_t k = 0; k < n; k++) {
    const uint64_t c = repeats && k > 0 && zs_test_lcg(seed, 17) % 3 == 0
                           ? key[zs_test_lcg(seed, 17) % (uint64_t)k] >> 32
                           : base + zs_test_lcg(seed, 17) % span;
    key[k] = c << 32 | (uint64_t)k;
  }
  memcpy(want, key, (size_t)n * sizeof *key);
  qsort(want, (size_t)n, sizeof *want, by_whole_key);
  zsi_sort_row_keys(key, n, tmp);
  CHECK(memcmp(key, want, (size_t)n * sizeof *key) == 0);
  free(key), free(want), free(tmp);
}

int main(void) {
  uint64_t seed = 42;
  const int64_t lengths[] = {0, 1, 2, 31, 32, 33, 100, 1000, 70000};
  const uint64_t spans[] = {1, 200, 70000, UINT64_C(1) << 24, UINT64_C(1) << 31};
  for (size_t i = 0; i < sizeof lengths / sizeof *lengths; i++)
    for (size_t j = 0; j < sizeof spans / sizeof *spans; j++)
      for (int repeats = 0; repeats < 2; repeats++) {
        check_row(lengths[i], 0, spans[j], repeats, &seed);
        check_row(lengths[i], (uint32_t)(INT32_MAX - spans[j] + 1), spans[j], repeats, &seed);
      }
  CHECK_DONE();
}
