/* test_sell_lanes.c — the default count of threads a position of SELL's GPU SpMV
 * (formats/sell/sell_lanes.h), on slice widths shaped like the matrices it was measured on:
 * four where a small grid's slices are wide or one slice's walk outlasts the rest, one where
 * every slice is short or the grid is large; a warp of 64 counts half the warps. */
#include <stdint.h>
#include <stdlib.h>

#include "formats/sell/sell_lanes.h"
#include "tests/common/check.h"

/* n slices of c = 2^lc rows, each `width` wide but slice `wide_at` (if >= 0) `wide` wide. */
static int lanes_for(int64_t sms, int64_t warp, int64_t n, int lc, int64_t width, int64_t wide_at,
                     int64_t wide) {
  int64_t *sp = malloc(((size_t)n + 1) * sizeof *sp);
  if (!sp) return -1;
  sp[0] = 0;
  for (int64_t s = 0; s < n; s++) sp[s + 1] = sp[s] + ((s == wide_at ? wide : width) << lc);
  const int r = zs_sell_lanes_rule(sms, warp, sp, n, lc);
  free(sp);
  return r;
}

int main(void) {
  /* bayer10: 13436 rows, 420 slices of 32 about 27 wide on 132 SMs (3.2 warps an SM) */
  CHECK(lanes_for(132, 32, 420, 5, 27, -1, 0) == 4);
  /* the same grid of 8-wide slices (er-small's width): not wide enough, not skewed */
  CHECK(lanes_for(132, 32, 625, 5, 8, -1, 0) == 1);
  /* Watts-Strogatz: 3125 slices of about 13 (23.7 warps an SM): one thread */
  CHECK(lanes_for(132, 32, 3125, 5, 13, -1, 0) == 1);
  /* Barabasi-Albert: the same grid with one slice of 1185 (its hub): its chain is the time */
  CHECK(lanes_for(132, 32, 3125, 5, 20, 7, 1185) == 4);
  /* a banded matrix of 200 000 rows, 8 a row: one */
  CHECK(lanes_for(132, 32, 6250, 5, 8, -1, 0) == 1);
  /* the limits of "few": 4 warps an SM and 12 wide on average, not 11 or one warp more */
  CHECK(lanes_for(132, 32, 4 * 132, 5, 12, -1, 0) == 4);
  CHECK(lanes_for(132, 32, 4 * 132, 5, 11, -1, 0) == 1);
  CHECK(lanes_for(132, 32, 4 * 132 + 1, 5, 12, -1, 0) == 1);
  /* a warp of 64 holds two slices of 32: twice the slices for the same warps */
  CHECK(lanes_for(132, 64, 8 * 132, 5, 12, -1, 0) == 4);
  CHECK(lanes_for(132, 32, 8 * 132, 5, 12, -1, 0) == 1);
  /* slices of 8 rows (c = 8): four slices a warp of 32 */
  CHECK(lanes_for(132, 32, 16 * 132, 3, 16, -1, 0) == 4);
  /* a tiny grid, under a batch a lane of every multiprocessor: four (its one batch is the time) */
  CHECK(lanes_for(132, 32, 2, 5, 3, -1, 0) == 4);
  /* no multiprocessor count known, or no slices: one */
  CHECK(lanes_for(0, 32, 420, 5, 27, -1, 0) == 1);
  CHECK(lanes_for(132, 32, 0, 5, 27, -1, 0) == 1);
  CHECK_DONE();
}
