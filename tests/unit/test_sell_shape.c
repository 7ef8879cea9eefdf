/* test_sell_shape.c — SELL's slice offsets (formats/sell/sell_shape.h) from row offsets alone,
 * the encoder's guard against more than 2^62 stored entries included: no matrix that large can
 * be built, but its row offsets can be written down. */
#include <stdint.h>

#include "formats/sell/sell_layout.h"
#include "formats/sell/sell_shape.h"
#include "tests/common/check.h"

int main(void) {
  /* 5 rows of 3, 0, 7, 1, 2 in slices of c = 2: widths 3, 7, 2 */
  const int64_t ptr[] = {0, 3, 3, 10, 11, 13};
  int64_t sp[4], wmax;
  CHECK(sell_slice_offsets(ptr, NULL, 5, 2, SELL_ENTRIES_MAX, sp, &wmax) == -1);
  CHECK(sp[0] == 0 && sp[1] == 6 && sp[2] == 20 && sp[3] == 24 && wmax == 7);
  /* in the order 2, 0, 4, 1, 3: slices (7, 3), (2, 0), (1): widths 7, 2, 1 */
  const int32_t order[] = {2, 0, 4, 1, 3};
  CHECK(sell_slice_offsets(ptr, order, 5, 2, SELL_ENTRIES_MAX, sp, &wmax) == -1);
  CHECK(sp[1] == 14 && sp[2] == 18 && sp[3] == 20 && wmax == 7);
  /* a cap of 19 entries: the last slice, ending at 20, passes it */
  CHECK(sell_slice_offsets(ptr, order, 5, 2, 19, sp, &wmax) == 2 && sp[2] == 18);

  /* 64 rows in slices of 32: a row of 2^57 in the first fills 2^62 exactly, which is allowed;
   * one more entry in the second slice is not (the encoder refuses the matrix there) */
  int64_t big[65];
  big[0] = 0;
  for (int i = 0; i < 64; i++) big[i + 1] = big[i] + (i == 0 ? INT64_C(1) << 57 : 0);
  int64_t bsp[3];
  CHECK(sell_slice_offsets(big, NULL, 64, 32, SELL_ENTRIES_MAX, bsp, &wmax) == -1);
  CHECK(bsp[1] == SELL_ENTRIES_MAX && bsp[2] == SELL_ENTRIES_MAX);
  big[64] = big[63] + 1; /* the last row: one entry */
  CHECK(sell_slice_offsets(big, NULL, 64, 32, SELL_ENTRIES_MAX, bsp, &wmax) == 1);
  /* the widest slice that cannot fit even from zero: a row of 2^62 / 32 + 1 */
  for (int i = 0; i < 64; i++) big[i + 1] = big[i] + (i == 0 ? (INT64_C(1) << 57) + 1 : 0);
  CHECK(sell_slice_offsets(big, NULL, 64, 32, SELL_ENTRIES_MAX, bsp, &wmax) == 0);
  CHECK_DONE();
}
