/* auto_stats.c — the statistics the format chooser reads: one pass over the row offsets and one
 * over a deterministic sample of row bands, so 10^8 nonzeros take well under a second. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/auto/auto.h"
#include "formats/dtans/dtans_order.h"

#define BAND_ROWS 64                  /* rows per sampled band: neighbours for far_share, 2 x 32 */
#define SAMPLE_NNZ (INT64_C(1) << 23) /* nonzeros examined at most (about) */
#define WIDE_BUCKETS 64               /* deltas past the table: sign x bit width, plus raw bits */
#define VALUE_SLOTS 8192              /* open-addressing tables of values and of deltas */
#define VALUE_CAP 4096                /* distinct keys counted before "many" */
#define COUNT_CAP 65536               /* column counts above this are pooled */
#define FAR_GAP 64                    /* columns further apart than this do not share lines */

typedef struct value_table {
  uint64_t key[VALUE_SLOTS];
  uint32_t count[VALUE_SLOTS];
  int64_t distinct;
  int full;
} value_table;

/* Count `bits`; 0 once the table holds VALUE_CAP other keys (it is then marked full). */
static int value_add(value_table *t, uint64_t bits) {
  uint64_t h = bits * UINT64_C(0x9E3779B97F4A7C15);
  for (uint32_t i = (uint32_t)(h >> 51);; i = (i + 1) & (VALUE_SLOTS - 1)) {
    if (t->count[i] == 0) {
      if (t->distinct == VALUE_CAP) return t->full = 1, 0;
      t->key[i] = bits, t->count[i] = 1, t->distinct++;
      return 1;
    }
    if (t->key[i] == bits) return t->count[i]++, 1;
  }
}

static uint64_t value_bits(zs_type type, const void *v, int64_t k) {
  if (type == ZS_F64) {
    uint64_t b;
    memcpy(&b, (const double *)v + k, 8);
    return b;
  }
  uint32_t b;
  memcpy(&b, (const float *)v + k, 4);
  return b;
}

static int bit_width(uint64_t v) { return v ? 64 - __builtin_clzll(v) : 0; }

/* -sum p log2 p over counts summing to n. */
static double entropy(const uint64_t *count, int k, double n) {
  double h = 0;
  for (int i = 0; i < k; i++)
    if (count[i]) {
      const double p = (double)count[i] / n;
      h -= p * log2(p);
    }
  return h;
}

/* Rows of the sample: bands of BAND_ROWS rows, one every `stride` bands. */
static int64_t band_stride(const zs_matrix *A) {
  const int64_t bands = (A->rows + BAND_ROWS - 1) / BAND_ROWS;
  if (A->nnz <= SAMPLE_NNZ || bands <= 1) return 1;
  int64_t stride = A->nnz / SAMPLE_NNZ;
  if (stride > bands) stride = bands;
  return stride < 1 ? 1 : stride;
}

typedef struct sample_acc {
  uint64_t wide[WIDE_BUCKETS], width[ZSI_AUTO_WIDTHS];
  double raw_bits;
  uint64_t deltas, far, compared, blocks;
  double band_max;
  uint32_t *col_count;                    /* per column bucket */
  uint32_t *stamp;                        /* per 32-column block: the last stripe that saw it */
  int shift;                              /* column bucket = col >> shift */
  value_table values, deltas_seen;        /* the deltas' table: each distinct delta a symbol */
  value_table patterns;                   /* rows' column offsets from the diagonal, hashed */
  uint64_t rows;                          /* rows sampled */
  double packed_entries, packed_col_bits; /* CSR-dtANS packed rows of the sampled slices */
  double packed_field_bits;               /* their entries times their slice's field bits */
} sample_acc;

static void delta_add(sample_acc *a, int64_t d) {
  a->deltas++;
  const uint64_t mag = (uint64_t)(d < 0 ? -d : d);
  const int w = d == 1 ? 0 : bit_width(mag); /* CCI codes a step of 1 without data bits */
  a->width[w > 32 ? 32 : w]++;
  if (!value_add(&a->deltas_seen, (uint64_t)d)) {
    const int bw = bit_width(mag);
    a->wide[(d < 0 ? 32 : 0) + (bw > 31 ? 31 : bw)]++;
    a->raw_bits += bw - 1;
  }
}

/* One row of the sample; prev is the previous row's columns (or NULL). */
static void sample_row(sample_acc *a, const zs_matrix *A, int64_t i, const int32_t *prev,
                       int64_t prev_n) {
  const int64_t lo = A->row_ptr[i], n = A->row_ptr[i + 1] - lo;
  const int32_t *c = A->col_idx + lo;
  const double diag = A->rows ? (double)i * (double)A->cols / (double)A->rows : 0;
  for (int64_t k = 0; k < n; k++) {
    delta_add(a, k ? (int64_t)c[k] - c[k - 1] : (int64_t)c[k] - i);
    const double off = fabs((double)c[k] - diag);
    if (off > a->band_max) a->band_max = off;
    a->col_count[c[k] >> a->shift]++;
    if (!a->values.full) value_add(&a->values, value_bits(A->type, A->values, lo + k));
  }
  /* the row's pattern relative to its diagonal, what CSR-dtANS version 5 keeps as a template */
  uint64_t h = (uint64_t)n * UINT64_C(0x100000001b3);
  for (int64_t k = 0; k < n; k++)
    h = (h ^ (uint64_t)((int64_t)c[k] - i)) * UINT64_C(0x100000001b3) + UINT64_C(0x9e37);
  if (!a->patterns.full) value_add(&a->patterns, h);
  a->rows++;
  const int64_t m = prev && prev_n < n ? prev_n : prev ? n : 0;
  for (int64_t k = 0; k < m; k++) {
    const int64_t gap = (int64_t)c[k] - prev[k];
    a->far += gap > FAR_GAP || gap < -FAR_GAP;
  }
  a->compared += (uint64_t)m;
}

/* Nonempty 32-column blocks of rows [r0, r1), counted with a stamp per block. */
static void stripe_blocks(sample_acc *a, const zs_matrix *A, int64_t r0, int64_t r1, uint32_t id) {
  for (int64_t i = r0; i < r1; i++)
    for (int64_t k = A->row_ptr[i]; k < A->row_ptr[i + 1]; k++) {
      const int64_t b = A->col_idx[k] >> 5;
      if (a->stamp[b] != id) a->stamp[b] = id, a->blocks++;
    }
}

/* CSR-dtANS packed rows (docs/formats/dtans.md) of one slice of 32 rows [r0, r1), rows longer
 * than long_min aside (the encoder stores them apart): every lane padded to the slice's longest
 * row, its column fields at the bits of the slice's widest (a step less one, or a first column's
 * offset from the slice's smallest) in whole 32-bit words. */
static void packed_slice(sample_acc *a, const zs_matrix *A, int64_t r0, int64_t r1,
                         double long_min) {
  int64_t longest = 0, lo = INT64_MAX, hi = INT64_MIN;
  uint64_t widest = 0;
  for (int64_t i = r0; i < r1; i++) {
    const int64_t b = A->row_ptr[i], n = A->row_ptr[i + 1] - b;
    if (n == 0 || (double)n > long_min) continue;
    const int32_t *c = A->col_idx + b;
    const int64_t first = (int64_t)c[0] - i;
    if (n > longest) longest = n;
    if (first < lo) lo = first;
    if (first > hi) hi = first;
    for (int64_t k = 1; k < n; k++) {
      const uint64_t f = (uint64_t)((int64_t)c[k] - c[k - 1] - 1);
      if (f > widest) widest = f;
    }
  }
  if (longest == 0) return;
  if ((uint64_t)(hi - lo) > widest) widest = (uint64_t)(hi - lo);
  const int bits = widest ? bit_width(widest) : 1; /* 1 ... 32 bits a field */
  a->packed_entries += 32.0 * (double)longest;
  a->packed_col_bits += 32.0 * 32.0 * ceil((double)longest * bits / 32.0);
  a->packed_field_bits += 32.0 * (double)longest * bits;
}

/* Packed rows in the encoder's default order, by its rule (formats/dtans/dtans_order.h), over
 * every row as the encoder reads them: rows by length where that cuts the slices' lane steps
 * enough, columns by count where the 1 % fullest hold a quarter of the nonzeros (here the
 * sample's share). With the rows ordered a slice's rows come from all over the matrix, so the
 * entries and column words are counted from the lengths alone (rows of one length fill whole
 * slices) with fields of `field_bits`, the sampled slices' mean: R-MAT scale 22 measured 21.4 in
 * natural order and 20.9 ordered. Long rows (over long_min) are stored apart as CSR
 * (packed_long_share); the longest other row is packed_row_max. */
static zs_status packed_order(const zs_matrix *A, int64_t long_min, double field_bits,
                              zsi_auto_stats *st) {
  zsi_dtans5_slices sl;
  const zs_status s = zsi_dtans5_slices_measure(A, long_min, field_bits, &sl);
  if (s != ZS_OK) return s;
  st->packed_row_max = sl.longest;
  st->packed_long_share = A->nnz ? (double)sl.long_nnz / (double)A->nnz : 0;
  if (sl.rows_by_length) {
    st->packed_order |= ZSI_AUTO_ORDER_ROWS;
    st->packed_fill = sl.by_length / (double)A->nnz;
    st->packed_col_bits = 32.0 * sl.by_length_words / (double)A->nnz;
  }
  if (zsi_dtans_columns_by_count(A->cols, st->top1_share)) st->packed_order |= ZSI_AUTO_ORDER_COLS;
  return ZS_OK;
}

/* Aᵀ's SELL-32 padding: slices of 32 consecutive columns, each padded to its fullest, from the
 * sample's column counts (exact where every row was sampled; with fewer, the counts' noise pads
 * more, so a stored transpose is priced no cheaper than it is). Buckets wider than one column:
 * unknown (1). */
static void transposed_fill(const sample_acc *a, int64_t cols, double sample_nnz,
                            zsi_auto_stats *st) {
  st->sell_fill_t = 1.0, st->col_max = st->row_max;
  if (a->shift > 0 || sample_nnz <= 0) return;
  double entries = 0;
  uint32_t fullest = 0;
  for (int64_t j0 = 0; j0 < cols; j0 += 32) {
    uint32_t most = 0;
    for (int64_t j = j0; j < j0 + 32 && j < cols; j++)
      if (a->col_count[j] > most) most = a->col_count[j];
    entries += 32.0 * most;
    if (most > fullest) fullest = most;
  }
  st->sell_fill_t = entries / sample_nnz;
  st->col_max = (int64_t)ceil(fullest / (st->sampled > 0 ? st->sampled : 1));
}

/* Column skew from the bucket counts: share in the 1 % fullest, and how many hold 90 %. */
static void column_skew(const sample_acc *a, int64_t buckets, double sample_nnz,
                        zsi_auto_stats *st) {
  uint64_t *by_count = calloc(COUNT_CAP + 1, sizeof *by_count);
  double pooled = 0; /* nonzeros in buckets over COUNT_CAP */
  uint64_t pooled_n = 0;
  if (!by_count) return;
  for (int64_t b = 0; b < buckets; b++) {
    const uint32_t c = a->col_count[b];
    if (c > COUNT_CAP)
      pooled += c, pooled_n++;
    else
      by_count[c]++;
  }
  const double per_bucket = (double)((int64_t)1 << a->shift);
  const double top = ceil(0.01 * (double)st->cols);
  double cols_seen = pooled_n * per_bucket, nnz_seen = pooled, top_nnz = 0, hot = -1;
  if (cols_seen >= top) top_nnz = pooled * top / cols_seen;
  if (nnz_seen >= 0.9 * sample_nnz && sample_nnz > 0) hot = cols_seen * 0.9 * sample_nnz / nnz_seen;
  for (int64_t c = COUNT_CAP; c >= 1; c--) {
    if (!by_count[c]) continue;
    const double cols = (double)by_count[c] * per_bucket, nnz = (double)by_count[c] * c;
    if (cols_seen < top) top_nnz += nnz * fmin(1.0, (top - cols_seen) / cols);
    if (hot < 0 && nnz_seen + nnz >= 0.9 * sample_nnz)
      hot = cols_seen + cols * (0.9 * sample_nnz - nnz_seen) / nnz;
    cols_seen += cols, nnz_seen += nnz;
  }
  free(by_count);
  st->top1_share = sample_nnz > 0 ? fmin(1.0, top_nnz / sample_nnz) : 0;
  st->hot_cols = hot < 0 ? 0 : fmin(hot, (double)st->cols);
}

static int longer_first(const void *a, const void *b) {
  const int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x < y) - (x > y);
}

/* Entries of SELL-32 slices, padded to their longest row, when the n rows of each window of
 * ZSI_AUTO_SELL_SIGMA are sorted longest first (what sell:sigma=4096 stores), the rows' lengths
 * from row_ptr, or from counts where row_ptr is NULL (Aᵀ's rows: the column counts): lengths
 * below 256 go through a histogram, longer ones (`longs`, room for a window) are sorted. O(n). */
static double sorted_entries(const int64_t *row_ptr, const uint32_t *counts, int64_t n_rows,
                             int64_t *longs) {
  double entries = 0;
  for (int64_t w0 = 0; w0 < n_rows; w0 += ZSI_AUTO_SELL_SIGMA) {
    const int64_t w1 = n_rows - w0 < ZSI_AUTO_SELL_SIGMA ? n_rows : w0 + ZSI_AUTO_SELL_SIGMA;
    int64_t hist[256] = {0}, n_long = 0, pos = 0; /* pos: the next row's place in its slice */
    for (int64_t i = w0; i < w1; i++) {
      const int64_t n = row_ptr ? row_ptr[i + 1] - row_ptr[i] : (int64_t)counts[i];
      if (n < 256)
        hist[n]++;
      else
        longs[n_long++] = n;
    }
    qsort(longs, (size_t)n_long, sizeof *longs, longer_first);
    for (int64_t k = 0; k < n_long; k++, pos = (pos + 1) % 32)
      if (pos == 0) entries += 32.0 * (double)longs[k];
    for (int len = 255; len >= 0; len--)
      for (int64_t c = hist[len]; c > 0;) { /* a slice starting here is padded to len */
        if (pos == 0) entries += 32.0 * len;
        const int64_t take = c < 32 - pos ? c : 32 - pos;
        pos = (pos + take) % 32, c -= take;
      }
  }
  return entries;
}

zs_status zsi_auto_stats_compute(const zs_matrix *A, zsi_auto_stats *st) {
  memset(st, 0, sizeof *st);
  st->rows = A->rows, st->cols = A->cols, st->nnz = A->nnz, st->type = A->type;
  st->value_entropy = 8.0 * (double)zs_type_size(A->type);
  if (A->rows == 0) return ZS_OK;

  /* Row lengths: every row; and what slices of 32 rows padded to their longest hold. */
  double sum2 = 0, sliced = 0;
  int64_t slice_max = 0, block = 0, misses = 0;
  /* scratch of a window's rows: first the row-length guesses' table, then sorted_entries' long
   * rows (which it writes before it reads) */
  int64_t *longs = malloc(sizeof *longs * ZSI_AUTO_SELL_SIGMA);
  if (!longs) return zsi_oom("zs_plan: statistics", sizeof *longs * ZSI_AUTO_SELL_SIGMA);
  /* each row's length guessed from the two before it, as the length that last followed them
   * (hashed into LEN_HISTORY slots): what a branch predictor learns of a loop's trip counts */
  enum { LEN_HISTORY = 4096 };
  _Static_assert(LEN_HISTORY <= ZSI_AUTO_SELL_SIGMA, "the guesses' table fits the scratch");
  int64_t *follows = longs;
  for (int k = 0; k < LEN_HISTORY; k++) follows[k] = -1;
  int64_t prev1 = 0, prev2 = 0;
  /* GCSB's default beta: 128 bytes of values, 16 rows of f64, 32 of f32 */
  const int64_t beta = 128 / (int64_t)zs_type_size(A->type);
  for (int64_t i = 0; i < A->rows; i++) {
    const int64_t n = A->row_ptr[i + 1] - A->row_ptr[i];
    sum2 += (double)n * (double)n;
    const unsigned h = (unsigned)((prev1 * 31 + prev2 * 977) % LEN_HISTORY);
    if (i > 1 && follows[h] != n) misses++;
    follows[h] = n, prev2 = prev1, prev1 = n;
    if (n > st->row_max) st->row_max = n;
    if (n > slice_max) slice_max = n;
    if (i % 32 == 31 || i == A->rows - 1) sliced += 32.0 * (double)slice_max, slice_max = 0;
    block += n;
    if (i % beta == beta - 1 || i == A->rows - 1) {
      if (block > st->block_row_max) st->block_row_max = block;
      block = 0;
    }
  }
  st->sell_fill = A->nnz ? sliced / (double)A->nnz : 1;
  st->sell_fill_sorted =
      A->nnz ? sorted_entries(A->row_ptr, NULL, A->rows, longs) / (double)A->nnz : 1;
  st->row_mean = (double)A->nnz / (double)A->rows;
  st->len_misses = A->rows > 2 ? (double)misses / (double)(A->rows - 2) : 0;
  const double var = sum2 / (double)A->rows - st->row_mean * st->row_mean;
  st->row_cv = st->row_mean > 0 ? sqrt(var > 0 ? var : 0) / st->row_mean : 0;
  const double long_min = fmax(256.0, 16.0 * st->row_mean);
  if (st->row_max > long_min) {
    int64_t in_long = 0;
    for (int64_t i = 0; i < A->rows; i++) {
      const int64_t n = A->row_ptr[i + 1] - A->row_ptr[i];
      if ((double)n > long_min) in_long += n;
    }
    st->long_share = (double)in_long / (double)A->nnz;
  }
  if (A->nnz == 0) {
    free(longs);
    return ZS_OK;
  }

  sample_acc *a = calloc(1, sizeof *a);
  if (!a) {
    free(longs);
    return zsi_oom("zs_plan: statistics", sizeof *a);
  }
  while ((A->cols >> a->shift) > (INT64_C(1) << 24)) a->shift++;
  const int64_t buckets = (A->cols >> a->shift) + 1, blocks = (A->cols >> 5) + 1;
  a->col_count = calloc((size_t)buckets, sizeof *a->col_count);
  a->stamp = calloc((size_t)blocks, sizeof *a->stamp);
  if (!a->col_count || !a->stamp) {
    free(a->col_count), free(a->stamp), free(a), free(longs);
    return zsi_oom("zs_plan: column counts", (uint64_t)(buckets + blocks) * 4);
  }
  const int64_t stride = band_stride(A);
  /* the encoder's default long rows (with its default lanes) */
  const int64_t packed_long_min = zsi_dtans_long_min(A->rows, A->nnz, ZSI_DTANS_LANE_SYMBOLS);
  uint64_t sample_nnz = 0;
  uint32_t stripe = 0;
  for (int64_t r0 = 0; r0 < A->rows; r0 += stride * BAND_ROWS) {
    const int64_t r1 = r0 + BAND_ROWS < A->rows ? r0 + BAND_ROWS : A->rows;
    for (int64_t i = r0; i < r1; i++) {
      const int64_t pn = i > r0 ? A->row_ptr[i] - A->row_ptr[i - 1] : 0;
      sample_row(a, A, i, i > r0 ? A->col_idx + A->row_ptr[i - 1] : NULL, pn);
    }
    for (int64_t s = r0; s < r1; s += 32) {
      stripe_blocks(a, A, s, s + 32 < r1 ? s + 32 : r1, ++stripe);
      packed_slice(a, A, s, s + 32 < r1 ? s + 32 : r1, (double)packed_long_min);
    }
    sample_nnz += (uint64_t)(A->row_ptr[r1] - A->row_ptr[r0]);
  }
  const double n = (double)a->deltas;
  /* Symbols: the table's deltas and the wide buckets in one distribution, plus raw low bits. */
  uint64_t counts[VALUE_SLOTS];
  for (int i = 0; i < VALUE_SLOTS; i++) counts[i] = a->deltas_seen.count[i];
  st->delta_entropy =
      n > 0 ? entropy(counts, VALUE_SLOTS, n) + entropy(a->wide, WIDE_BUCKETS, n) + a->raw_bits / n
            : 0;
  for (int w = 0; w < ZSI_AUTO_WIDTHS; w++) st->width_share[w] = n > 0 ? a->width[w] / n : 0;
  st->far_share = a->compared ? (double)a->far / (double)a->compared : 0;
  st->bandwidth = A->cols ? a->band_max / (double)A->cols : 0;
  st->blocks_per_nnz = sample_nnz ? (double)a->blocks / (double)sample_nnz : 0;
  st->sampled = (double)sample_nnz / (double)A->nnz;
  st->packed_fill = sample_nnz ? a->packed_entries / (double)sample_nnz : 1;
  st->packed_col_bits = sample_nnz ? a->packed_col_bits / (double)sample_nnz : 0;
  if (a->values.full) {
    st->distinct = ZSI_AUTO_MANY_VALUES;
  } else {
    for (int i = 0; i < VALUE_SLOTS; i++) counts[i] = a->values.count[i];
    st->distinct = a->values.distinct;
    st->value_entropy = entropy(counts, VALUE_SLOTS, (double)sample_nnz);
  }
  column_skew(a, buckets, (double)sample_nnz, st);
  transposed_fill(a, A->cols, (double)sample_nnz, st);
  /* Aᵀ sorted in windows of 4096 rows, as the GPU's deterministic SpMVT stores it where that
   * pads little: from the sample's column counts (exact where every row is sampled) */
  st->sell_fill_t_sorted =
      a->shift == 0 && sample_nnz
          ? sorted_entries(NULL, a->col_count, A->cols, longs) / (double)sample_nnz
          : st->sell_fill_t;
  free(longs);
  const double field_bits = a->packed_entries > 0 ? a->packed_field_bits / a->packed_entries : 1;
  /* Templates: the sample's distinct patterns where rows repeat them (fewer than one in eight
   * new), else as many in proportion to the rows; past the table's cap, one per row. */
  const double seen = (double)a->patterns.distinct, per_row = a->rows ? seen / (double)a->rows : 1;
  st->templates = a->patterns.full  ? (double)A->rows
                  : per_row < 0.125 ? seen
                                    : fmin((double)A->rows, per_row * (double)A->rows);
  free(a->col_count), free(a->stamp), free(a);
  return packed_order(A, packed_long_min, field_bits, st);
}
