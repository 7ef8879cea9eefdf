/* split_plan.h — the nonzero-split ("merge path") plan of the GPU CSR kernel (host side, plain
 * C; layout shared with the device). A CSR product is a walk over rows + nnz items: each row's
 * nonzeros, then an item that ends the row. The split kernel cuts that walk into tiles of equal
 * length, one per thread block, whatever the row lengths: an empty row costs one item, a row of
 * 25 000 nonzeros spans a dozen tiles. A tile starts at a coordinate (row, nonzero) found here
 * once per operator. A row that starts in an earlier tile and ends in this one is a span: its
 * pieces (each tile's carry, the last tile's head) are added in tile order, by the last tile
 * (csr_split.cuh, zs_split_span_sum) or a small second kernel, so the sums are the same bits
 * every run. */
#ifndef ZS_SPLIT_PLAN_H
#define ZS_SPLIT_PLAN_H

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

/* A tile's first item: `row` rows ended before it, nonzeros before k (absolute index into the
 * matrix arrays). flags & ZS_SPLIT_HEAD_SPAN: the tile's first row started in an earlier tile and
 * ends in this one (its sum goes to the span's pieces, not to y); flags >> ZS_SPLIT_BACK_SHIFT:
 * then how many tiles back that row started (the span's first tile). */
typedef struct zs_split_coord {
  int64_t k;
  int32_t row;
  int32_t flags;
} zs_split_coord;

#define ZS_SPLIT_HEAD_SPAN 1
#define ZS_SPLIT_BACK_SHIFT 1

#if defined(__CUDACC__) || defined(__HIPCC__)
#define ZS_SPLIT_HD __host__ __device__
#else
#define ZS_SPLIT_HD
#endif

/* Inside a tile of n_rows row ends (ends[i]: row i's end, relative to the tile's first nonzero)
 * and n_nnz nonzeros: the row ends among the tile's first d items (merge-path search). The
 * kernel's threads and the host's tests share it. */
static inline ZS_SPLIT_HD int zs_split_search(const int32_t *ends, int n_rows, int n_nnz, int d) {
  int lo = d > n_nnz ? d - n_nnz : 0, hi = d < n_rows ? d : n_rows;
  while (lo < hi) {
    const int mid = (lo + hi) / 2;
    if (ends[mid] <= d - 1 - mid)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

/* A row over several tiles: y[row] = carry[first] + ... + carry[last - 1] + head[last]. */
typedef struct zs_split_span {
  int32_t row, first, last, pad;
} zs_split_span;

typedef struct zs_split_plan {
  zs_split_coord *coords; /* n_tiles + 1: the last is (rows, ptr[rows]) */
  int64_t n_tiles;
  zs_split_span *spans;
  int64_t n_spans;
} zs_split_plan;

/* The coordinate of item d of the walk over rows with offsets ptr (ptr[0] need not be 0): the
 * number of row ends i among the first d items (merge-path search: row i's end comes after
 * every nonzero before ptr[i + 1]). */
static inline zs_split_coord zs_split_find(const int64_t *ptr, int64_t rows, int64_t d) {
  const int64_t nnz = ptr[rows] - ptr[0];
  int64_t lo = d > nnz ? d - nnz : 0, hi = d < rows ? d : rows;
  while (lo < hi) {
    const int64_t mid = lo + (hi - lo) / 2;
    if (ptr[mid + 1] - ptr[0] <= d - 1 - mid)
      lo = mid + 1;
    else
      hi = mid;
  }
  return (zs_split_coord){ptr[0] + (d - lo), (int32_t)lo, 0};
}

/* Build the plan for `rows` rows (offsets ptr) in tiles of `tile` items. Returns 0 when out of
 * memory (the plan is then freed). */
static inline int zs_split_plan_build(zs_split_plan *plan, const int64_t *ptr, int64_t rows,
                                      int64_t tile) {
  const int64_t items = rows + (ptr[rows] - ptr[0]);
  const int64_t tiles = (items + tile - 1) / tile;
  plan->n_tiles = tiles, plan->n_spans = 0;
  plan->coords = (zs_split_coord *)malloc((size_t)(tiles + 1) * sizeof(zs_split_coord));
  plan->spans = (zs_split_span *)malloc((size_t)(tiles ? tiles : 1) * sizeof(zs_split_span));
  if (!plan->coords || !plan->spans) {
    free(plan->coords), free(plan->spans);
    plan->coords = NULL, plan->spans = NULL;
    return 0;
  }
  for (int64_t t = 0; t < tiles; t++) plan->coords[t] = zs_split_find(ptr, rows, t * tile);
  plan->coords[tiles] = (zs_split_coord){ptr[rows], (int32_t)rows, 0};
  for (int64_t t = 1; t < tiles; t++) {
    zs_split_coord *c = &plan->coords[t];
    const int32_t r = c->row;
    /* the row started before this tile and its end item lies in it */
    if (!(ptr[r] < c->k && plan->coords[t + 1].row > r)) continue;
    int64_t first = t - 1; /* back to the tile holding the row's first nonzero */
    while (plan->coords[first].row == r && plan->coords[first].k > ptr[r]) first--;
    c->flags |= ZS_SPLIT_HEAD_SPAN | (int32_t)(t - first) << ZS_SPLIT_BACK_SHIFT;
    plan->spans[plan->n_spans++] = (zs_split_span){r, (int32_t)first, (int32_t)t, 0};
  }
  return 1;
}

/* Row-length statistics of a CSR matrix, behind the GPU CSR operator's kernel choices. */
typedef struct zs_row_stats {
  double cv;         /* standard deviation over mean; 0 without nonzeros */
  int64_t longest;   /* nonzeros of the longest row */
  int64_t longer[4]; /* rows of more than unit << k nonzeros (k = 0..3) */
} zs_row_stats;

/* The statistics of `slabs` CSR offset arrays of rows + 1 entries each (column slabs: a row's
 * length is the sum over the slabs), rows counted in `longer` against `unit` (a row block's
 * nonzeros per item). One pass over the offsets. */
static inline void zs_split_row_stats(const int64_t *ptr, int64_t rows, int slabs, int64_t unit,
                                      zs_row_stats *st) {
  double sum = 0, sum2 = 0;
  *st = (zs_row_stats){0, 0, {0, 0, 0, 0}};
  for (int64_t r = 0; r < rows; r++) {
    int64_t len = 0;
    for (int k = 0; k < slabs; k++) len += ptr[k * (rows + 1) + r + 1] - ptr[k * (rows + 1) + r];
    sum += (double)len, sum2 += (double)len * (double)len;
    if (len > st->longest) st->longest = len;
    for (int k = 0; k < 4 && len > unit << k; k++) st->longer[k]++;
  }
  const double mean = rows ? sum / (double)rows : 0;
  const double var = rows ? sum2 / (double)rows - mean * mean : 0;
  st->cv = mean > 0 ? sqrt(var > 0 ? var : 0) / mean : 0;
}

static inline void zs_split_plan_free(zs_split_plan *plan) {
  free(plan->coords), free(plan->spans);
  plan->coords = NULL, plan->spans = NULL;
}

#endif /* ZS_SPLIT_PLAN_H */
