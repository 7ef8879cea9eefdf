/* test_sell_transpose.c — Aᵀ of a SELL matrix as SELL (built on the host for the GPU modules'
 * deterministic SpMVT): every nonzero of A once, each row of Aᵀ in A's row order, windows sorted
 * longest first (equal lengths by row), slices as wide as their longest row, padding as the
 * format pads, and Aᵀ x computed through it equal to the sums from A's rows, for A in natural
 * and permuted order, several slice heights and windows, empty rows and columns; its shape
 * planned from A's column counts alone equal to the built one, and the padding rule that
 * chooses it by default. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "backends/cuda_hip/sell_transpose.h"
#include "tests/common/check.h"

static uint64_t rng = 88172645463325252ull;
static uint64_t next_u(void) {
  rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
  return rng;
}

/* A random rows x cols matrix as a SELL layout with slices of 2^lc (positions permuted at random
 * when permute), columns of each row ascending; value of entry e = e + 1 (padding 0). */
typedef struct test_a {
  zs_sell_a a;
  int64_t *slice_ptr;
  int32_t *len, *perm, *col;
  double *val;
} test_a;

static void make_a(test_a *m, int64_t rows, int64_t cols, int lc, int max_len, int permute) {
  const int64_t c = INT64_C(1) << lc, n_slices = (rows + c - 1) / c;
  m->len = calloc((size_t)rows + 1, 4);
  m->perm = permute ? malloc(((size_t)rows + 1) * 4) : NULL;
  m->slice_ptr = calloc((size_t)n_slices + 1, 8);
  for (int64_t p = 0; p < rows; p++) {
    m->len[p] = cols ? (int32_t)(next_u() % (uint64_t)(max_len + 1)) : 0;
    if (m->len[p] > cols) m->len[p] = (int32_t)cols;
    if (permute) m->perm[p] = (int32_t)p;
  }
  for (int64_t p = rows - 1; permute && p > 0; p--) { /* any order: Aᵀ must not depend on it */
    const int64_t q = (int64_t)(next_u() % (uint64_t)(p + 1));
    const int32_t t = m->perm[p];
    m->perm[p] = m->perm[q], m->perm[q] = t;
  }
  for (int64_t s = 0; s < n_slices; s++) {
    int64_t w = 0;
    for (int64_t p = s * c; p < rows && p < (s + 1) * c; p++) w = m->len[p] > w ? m->len[p] : w;
    m->slice_ptr[s + 1] = m->slice_ptr[s] + w * c;
  }
  const int64_t entries = m->slice_ptr[n_slices];
  m->col = calloc((size_t)entries + 1, 4);
  m->val = calloc((size_t)entries + 1, sizeof(double));
  m->a = (zs_sell_a){rows, cols, lc, m->slice_ptr, m->len, m->perm, m->col};
  for (int64_t p = 0; p < rows; p++) {
    int32_t j = -1;
    const int64_t s = p >> lc, w = (m->slice_ptr[s + 1] - m->slice_ptr[s]) >> lc;
    for (int64_t k = 0; k < w; k++) {
      const int64_t e = zs_sell_a_entry(&m->a, p, k);
      if (k < m->len[p]) { /* ascending, leaving room for the rest of the row */
        const int64_t room = cols - (m->len[p] - k) - j;
        j += 1 + (int32_t)(next_u() % (uint64_t)room);
        m->col[e] = j, m->val[e] = (double)e + 1;
      } else {
        m->col[e] = j < 0 ? 0 : j;
      }
    }
  }
}

static void free_a(test_a *m) {
  free(m->slice_ptr), free(m->len), free(m->perm), free(m->col), free(m->val);
}

static void check_t(const test_a *m, int lc, int64_t sigma) {
  const zs_sell_a *a = &m->a;
  zs_sell_t t;
  CHECK(zs_sell_t_build(&t, a, lc, sigma));
  const int64_t c = INT64_C(1) << lc, rows = a->cols;
  CHECK(t.rows == rows && t.n_slices == (rows + c - 1) / c && t.slice_ptr[0] == 0);
  CHECK(t.entries == t.slice_ptr[t.n_slices]);
  /* A's entries: which position holds each, and whether it is real */
  int64_t a_entries = a->slice_ptr[(a->rows + (INT64_C(1) << a->lc) - 1) >> a->lc];
  int32_t *row_of = malloc(((size_t)a_entries + 1) * 4);
  char *real = calloc((size_t)a_entries + 1, 1), *seen = calloc((size_t)a_entries + 1, 1);
  int64_t nnz = 0;
  for (int64_t p = 0; p < a->rows; p++)
    for (int64_t k = 0; k < a->len[p]; k++) {
      const int64_t e = zs_sell_a_entry(a, p, k);
      row_of[e] = a->perm ? a->perm[p] : (int32_t)p, real[e] = 1, nnz++;
    }
  /* the positions: a permutation, each window sorted */
  char *placed = calloc((size_t)rows + 1, 1);
  int64_t *len = calloc((size_t)rows + 1, 8);
  for (int64_t e = 0; e < a_entries; e++)
    if (real[e]) len[a->col[e]]++;
  for (int64_t p = 0; p < rows; p++) {
    const int32_t r = t.perm[p];
    CHECK(r >= 0 && r < rows && !placed[r] && r / sigma == p / sigma);
    placed[r] = 1;
    if (p % sigma) {
      const int32_t q = t.perm[p - 1];
      CHECK(len[q] > len[r] || (len[q] == len[r] && q < r));
    }
  }
  /* the shape from A's column counts alone, before any entry is built: the built one's */
  int64_t *t_ptr = zs_sell_t_offsets(a);
  zs_sell_t plan;
  CHECK(t_ptr != NULL && zs_sell_t_plan(&plan, t_ptr, rows, lc, sigma));
  for (int64_t j = 0; j < rows; j++) CHECK(t_ptr[j + 1] - t_ptr[j] == len[j]);
  CHECK(t_ptr[0] == 0 && t_ptr[rows] == nnz && plan.col == NULL && plan.at == NULL);
  CHECK(plan.rows == t.rows && plan.n_slices == t.n_slices && plan.entries == t.entries);
  CHECK(plan.lc == lc && t.lc == lc);
  CHECK(!memcmp(plan.slice_ptr, t.slice_ptr, ((size_t)t.n_slices + 1) * 8));
  CHECK(!rows || !memcmp(plan.perm, t.perm, (size_t)rows * 4));
  for (int64_t pct = 0; pct <= 100; pct += 5) /* the default's choice, as a product would put it */
    CHECK(zs_sell_t_pads_at_most(&plan, nnz, pct) == ((t.entries - nnz) * 100 <= nnz * pct));
  /* entries filled into that plan: the built ones */
  CHECK(zs_sell_t_fill(&plan, a, t_ptr));
  CHECK(!t.entries || (!memcmp(plan.col, t.col, (size_t)t.entries * 4) &&
                       !memcmp(plan.at, t.at, (size_t)t.entries * 4)));
  zs_sell_t_free(&plan), free(t_ptr);
  /* every entry of Aᵀ, and y = Aᵀ x through it against A's own rows */
  double *x = malloc(((size_t)a->rows + 1) * sizeof(double));
  double *y = calloc((size_t)rows + 1, sizeof(double)),
         *want = calloc((size_t)rows + 1, sizeof(double));
  for (int64_t i = 0; i < a->rows; i++) x[i] = (double)(i % 7) - 3;
  for (int64_t e = 0; e < a_entries; e++)
    if (real[e]) want[a->col[e]] += m->val[e] * x[row_of[e]];
  int64_t found = 0;
  for (int64_t p = 0; p < t.n_slices * c; p++) {
    const int64_t s = p >> lc, width = (t.slice_ptr[s + 1] - t.slice_ptr[s]) >> lc;
    const int32_t r = p < rows ? t.perm[p] : -1;
    const int64_t n = r >= 0 ? len[r] : 0;
    CHECK(t.slice_ptr[s + 1] >= t.slice_ptr[s] && n <= width);
    double sum = 0;
    for (int64_t k = 0; k < width; k++) {
      const int64_t e = t.slice_ptr[s] + k * c + (p & (c - 1));
      const int32_t at = t.at[e];
      if (k < n) { /* A's nonzero of column r, rows ascending */
        CHECK(at >= 0 && at < a_entries && real[at] && !seen[at] && a->col[at] == r);
        CHECK(t.col[e] == row_of[at]);
        CHECK(k == 0 || t.col[e] > t.col[e - c]);
        seen[at] = 1, found++;
        sum += m->val[at] * x[t.col[e]];
      } else { /* padding: the row's last column, or 0 */
        CHECK(at == -1 && t.col[e] == (n ? t.col[e - (k - n + 1) * c] : 0));
      }
    }
    if (r >= 0) y[r] = sum;
  }
  CHECK(found == nnz);
  for (int64_t j = 0; j < rows; j++) CHECK(y[j] == want[j]); /* the same sums in the same order */
  /* each slice exactly as wide as its longest row */
  for (int64_t s = 0; s < t.n_slices; s++) {
    int64_t w = 0;
    for (int64_t p = s * c; p < rows && p < (s + 1) * c; p++)
      w = len[t.perm[p]] > w ? len[t.perm[p]] : w;
    CHECK(t.slice_ptr[s + 1] - t.slice_ptr[s] == w * c);
  }
  free(row_of), free(real), free(seen), free(placed), free(len), free(x), free(y), free(want);
  zs_sell_t_free(&t);
  CHECK(t.slice_ptr == NULL && t.entries == 0);
}

/* The default's rule on its own: at most pct percent of the real entries padded, exactly at the
 * bound, and no overflow for counts near 2^62. */
static void check_pad_rule(void) {
  zs_sell_t t;
  memset(&t, 0, sizeof t);
  t.entries = 110;
  CHECK(zs_sell_t_pads_at_most(&t, 100, 10) && !zs_sell_t_pads_at_most(&t, 100, 9));
  t.entries = 111;
  CHECK(!zs_sell_t_pads_at_most(&t, 100, 10) && zs_sell_t_pads_at_most(&t, 100, 11));
  t.entries = 0;
  CHECK(zs_sell_t_pads_at_most(&t, 0, 0));
  t.entries = 32; /* padding without a nonzero */
  CHECK(!zs_sell_t_pads_at_most(&t, 0, 100));
  t.entries = 1059; /* 59 on 1000 nonzeros: 5.9 % */
  CHECK(zs_sell_t_pads_at_most(&t, 1000, 6) && !zs_sell_t_pads_at_most(&t, 1000, 5));
  t.entries = 3; /* 1 on 2: 50 % */
  CHECK(zs_sell_t_pads_at_most(&t, 2, 50) && !zs_sell_t_pads_at_most(&t, 2, 49));
  const int64_t big = INT64_C(1) << 61;
  t.entries = big + big / 10;
  CHECK(zs_sell_t_pads_at_most(&t, big, 10) && !zs_sell_t_pads_at_most(&t, big, 9));
}

/* A plan whose padded slices would pass SELL_ENTRIES_MAX is refused (-1), one exactly at it is
 * not: two rows of Aᵀ in slices of one, from offsets alone (no entry is built). */
static void check_entries_limit(void) {
  const int64_t half = SELL_ENTRIES_MAX / 2;
  const int64_t at_limit[3] = {0, half, 2 * half}, past[3] = {0, half, 2 * half + 1};
  zs_sell_t t;
  CHECK(zs_sell_t_plan(&t, at_limit, 2, 0, 1) == 1 && t.entries == SELL_ENTRIES_MAX);
  zs_sell_t_free(&t);
  CHECK(zs_sell_t_plan(&t, past, 2, 0, 1) == -1 && t.slice_ptr == NULL && t.perm == NULL);
}

int main(void) {
  check_pad_rule();
  check_entries_limit();
  static const struct {
    int64_t rows, cols;
    int lc_a, max_len, permute, lc;
    int64_t sigma;
  } cases[] = {
      {100, 90, 5, 12, 0, 5, 4096}, /* fewer rows than a window */
      {1000, 1200, 2, 20, 1, 5, 64}, {777, 500, 0, 3, 1, 2, 8},
      {300, 300, 5, 0, 0, 5, 32},   /* no entries: every slice empty */
      {0, 40, 5, 4, 0, 5, 4096},    /* no rows: Aᵀ's rows all empty */
      {50, 0, 3, 4, 1, 5, 4096},    /* no columns: no rows in Aᵀ */
      {2000, 64, 4, 64, 1, 5, 1},   /* dense columns, natural order */
      {513, 1025, 5, 30, 0, 3, 20}, /* a window not a multiple of the slice */
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    test_a m;
    make_a(&m, cases[i].rows, cases[i].cols, cases[i].lc_a, cases[i].max_len, cases[i].permute);
    check_t(&m, cases[i].lc, cases[i].sigma);
    free_a(&m);
  }
  CHECK_DONE();
}
