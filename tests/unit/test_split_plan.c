/* test_split_plan.c — the nonzero-split plan of the GPU CSR kernel (built on the host): tiles of
 * equal length on the merge path, spans for the rows that cross tiles, and the kernel's
 * arithmetic replayed on the host thread by thread (search, walk, segmented scan, spans) against
 * a plain row-by-row product. Integer values keep every sum exact, so the two must be equal. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "backends/cuda_hip/split_plan.h"
#include "tests/common/check.h"

#define THREADS 8 /* per tile in the replay: small, so that rows cross threads and tiles */

/* Every tile's first item lies on the merge path, tiles have `tile` items (the last fewer), and
 * each span names the tiles that hold pieces of its row. */
static void check_coords(const zs_split_plan *p, const int64_t *ptr, int64_t rows, int64_t tile) {
  const int64_t items = rows + ptr[rows] - ptr[0];
  CHECK(p->n_tiles == (items + tile - 1) / tile);
  for (int64_t t = 0; t <= p->n_tiles; t++) {
    const zs_split_coord c = p->coords[t];
    const int64_t d = t < p->n_tiles ? t * tile : items;
    CHECK(c.row + (c.k - ptr[0]) == d);
    CHECK(c.row >= 0 && c.row <= rows);
    CHECK(c.k >= ptr[c.row] && (c.row == rows || c.k <= ptr[c.row + 1]));
    if (t > 0) CHECK(c.row >= p->coords[t - 1].row && c.k >= p->coords[t - 1].k);
  }
  for (int64_t s = 0; s < p->n_spans; s++) {
    const zs_split_span sp = p->spans[s];
    CHECK(sp.first < sp.last && sp.last < p->n_tiles);
    CHECK(p->coords[sp.last].row == sp.row && (p->coords[sp.last].flags & ZS_SPLIT_HEAD_SPAN));
    CHECK(p->coords[sp.first].k <= ptr[sp.row] && p->coords[sp.first + 1].k > ptr[sp.row]);
    /* the ending tile finds the span's first tile by itself (experimental.split_spans=wait) */
    CHECK((p->coords[sp.last].flags >> ZS_SPLIT_BACK_SHIFT) == sp.last - sp.first);
  }
  /* one span per tile whose first row started earlier, in tile order */
  int64_t s = 0;
  for (int64_t t = 0; t < p->n_tiles; t++)
    if (p->coords[t].flags & ZS_SPLIT_HEAD_SPAN) CHECK(s < p->n_spans && p->spans[s++].last == t);
  CHECK(s == p->n_spans);
}

/* y = A x by the split kernel's steps; prod[k] = val[k] x[col[k]] given: the tiles, last to
 * first (blocks finish in any order), then a pass over the spans, each adding its pieces in tile
 * order. */
static void replay(const zs_split_plan *p, const int64_t *ptr, int64_t tile, const double *prod,
                   double *y) {
  const int items_per_thread = (int)(tile / THREADS);
  double *carry = calloc((size_t)p->n_tiles + 1, sizeof *carry);
  double *head = calloc((size_t)p->n_tiles + 1, sizeof *head);
  for (int64_t t = p->n_tiles - 1; t >= 0; t--) {
    const zs_split_coord c0 = p->coords[t], c1 = p->coords[t + 1];
    const int n_rows = c1.row - c0.row, n_nnz = (int)(c1.k - c0.k), items = n_rows + n_nnz;
    int ends[4096];
    for (int i = 0; i < n_rows; i++) ends[i] = (int)(ptr[c0.row + 1 + i] - c0.k);
    ends[n_rows] = INT32_MAX;
    double tail[THREADS], first[THREADS];
    int first_row[THREADS];
    for (int th = 0; th < THREADS; th++) {
      const int d = th * items_per_thread;
      int i = d < items ? zs_split_search(ends, n_rows, n_nnz, d) : n_rows, j = d - i;
      double sum = 0;
      first_row[th] = -1;
      for (int it = 0; it < items_per_thread && d + it < items; it++) {
        if (j < ends[i]) {
          sum += prod[c0.k - ptr[0] + j++];
          continue;
        }
        if (first_row[th] < 0)
          first[th] = sum, first_row[th] = i;
        else
          y[c0.row + i] = sum;
        sum = 0, i++;
      }
      tail[th] = sum;
    }
    /* the segmented scan, sequentially: v_ex = the tails since the last thread that ended a row */
    double v = 0;
    int f = 0;
    for (int th = 0; th < THREADS; th++) {
      if (first_row[th] >= 0) {
        const double s = v + first[th];
        if (!f && (c0.flags & ZS_SPLIT_HEAD_SPAN))
          head[t] = s;
        else
          y[c0.row + first_row[th]] = s;
        v = tail[th], f = 1;
      } else {
        v += tail[th];
      }
    }
    carry[t] = v;
  }
  for (int64_t s = 0; s < p->n_spans; s++) {
    const zs_split_span *sp = &p->spans[s];
    double sum = 0;
    for (int c = sp->first; c < sp->last; c++) sum += carry[c];
    y[sp->row] = sum + head[sp->last];
  }
  free(carry), free(head);
}

static uint64_t rng = 7;
static int64_t below(int64_t n) {
  rng = rng * 6364136223846793005ull + 1442695040888963407ull;
  return (int64_t)((rng >> 33) % (uint64_t)n);
}

/* Rows of the given lengths, offsets from base (a column slab's offsets start past 0). */
static void check_lengths(const int64_t *len, int64_t rows, int64_t base) {
  int64_t *ptr = malloc(((size_t)rows + 1) * sizeof *ptr);
  ptr[0] = base;
  for (int64_t r = 0; r < rows; r++) ptr[r + 1] = ptr[r] + len[r];
  const int64_t end = ptr[rows];
  double *prod = malloc((size_t)(end - base + 1) * sizeof *prod); /* from base */
  double *want = malloc((size_t)(rows ? rows : 1) * sizeof *want);
  double *got = malloc((size_t)(rows ? rows : 1) * sizeof *got);
  for (int64_t k = 0; k < end - base; k++) prod[k] = (double)(below(21) - 10);
  for (int64_t r = 0; r < rows; r++) {
    want[r] = 0;
    for (int64_t k = ptr[r]; k < ptr[r + 1]; k++) want[r] += prod[k - base];
  }
  static const int64_t tiles[] = {8, 16, 64, 256};
  for (int t = 0; t < 4; t++) {
    zs_split_plan p;
    CHECK(zs_split_plan_build(&p, ptr, rows, tiles[t]));
    check_coords(&p, ptr, rows, tiles[t]);
    for (int64_t r = 0; r < rows; r++) got[r] = 1e300; /* every row must be written */
    replay(&p, ptr, tiles[t], prod, got);
    int64_t bad = 0;
    for (int64_t r = 0; r < rows; r++) bad += got[r] != want[r];
    CHECK(bad == 0);
    zs_split_plan_free(&p);
  }
  free(ptr), free(prod), free(want), free(got);
}

/* Row lengths behind the kernel's defaults, over column slabs too: cv, the longest row and the
 * rows longer than unit << k, all from one pass, against lengths counted here. */
static void check_stats(void) {
  /* rows 0, 2, 0, 2 as one array, then as two slabs of 0, 1, 0, 1 each */
  const int64_t one[] = {0, 0, 2, 2, 4}, two[] = {0, 0, 1, 1, 2, 2, 2, 3, 3, 4};
  zs_row_stats st;
  memset(&st, 0xff, sizeof st);
  zs_split_row_stats(one, 4, 1, 1, &st);
  CHECK(st.cv == 1.0 && st.longest == 2);
  CHECK(st.longer[0] == 2 && st.longer[1] == 0 && st.longer[2] == 0 && st.longer[3] == 0);
  memset(&st, 0xff, sizeof st);
  zs_split_row_stats(two, 4, 2, 1, &st);
  CHECK(st.cv == 1.0 && st.longest == 2 && st.longer[0] == 2 && st.longer[1] == 0);
  const int64_t even[] = {10, 13, 16, 19}; /* offsets from 10, every row 3 */
  zs_split_row_stats(even, 3, 1, 1, &st);
  CHECK(st.cv == 0.0 && st.longest == 3 && st.longer[1] == 3 && st.longer[2] == 0);
  const int64_t none[] = {0, 0, 0};
  memset(&st, 0xff, sizeof st);
  zs_split_row_stats(none, 2, 1, 256, &st);
  CHECK(st.cv == 0.0 && st.longest == 0 && st.longer[0] == 0 && st.longer[3] == 0);
  memset(&st, 0xff, sizeof st);
  zs_split_row_stats(none, 0, 1, 256, &st);
  CHECK(st.cv == 0.0 && st.longest == 0 && st.longer[0] == 0 && st.longer[3] == 0);
  /* lengths around each bound (256 << k and one more), split over three slabs */
  enum { ROWS = 40, SLABS = 3 };
  int64_t len[ROWS], ptr[SLABS * (ROWS + 1)], want[4] = {0}, longest = 0;
  for (int r = 0; r < ROWS; r++) {
    len[r] = r < 8 ? (256 << (r / 2)) + r % 2 : below(300) + (r % 7 == 0 ? below(3000) : 0);
    longest = len[r] > longest ? len[r] : longest;
    for (int k = 0; k < 4; k++) want[k] += len[r] > (256 << k);
  }
  for (int k = 0; k < SLABS; k++) { /* slab k: a third of each row, offsets from k << 20 */
    ptr[k * (ROWS + 1)] = (int64_t)k << 20;
    for (int r = 0; r < ROWS; r++) {
      const int64_t part = len[r] / SLABS + (k < len[r] % SLABS);
      ptr[k * (ROWS + 1) + r + 1] = ptr[k * (ROWS + 1) + r] + part;
    }
  }
  zs_split_row_stats(ptr, ROWS, SLABS, 256, &st);
  CHECK(st.longest == longest && st.cv > 0);
  for (int k = 0; k < 4; k++) CHECK(st.longer[k] == want[k]);
}

int main(void) {
  enum { N = 3000 };
  int64_t *len = calloc(N, sizeof *len);
  check_lengths(len, N, 0); /* every row empty */
  check_lengths(len, 0, 0); /* no rows */
  len[1234] = 2000;         /* one huge row among empty ones */
  check_lengths(len, N, 0);
  for (int64_t r = 0; r < N; r++) len[r] = r % 3 ? 0 : 1 + below(5); /* short rows and gaps */
  check_lengths(len, N, 0);
  check_lengths(len, N, (int64_t)1 << 33); /* offsets past 2^32 (a later column slab) */
  for (int64_t r = 0; r < N; r++)          /* power-law: mostly empty or short, a few very long */
    len[r] = below(2) ? 0 : below(50) ? below(8) : below(40) ? 20 + below(200) : 500 + below(3000);
  check_lengths(len, N, 0);
  for (int64_t r = 0; r < N; r++) len[r] = 5;
  check_lengths(len, N, 0);
  len[0] = 1;
  check_lengths(len, 1, 0); /* one row of one nonzero */
  free(len);
  check_stats(); /* last: the matrices above keep their random draws */
  CHECK_DONE();
}
