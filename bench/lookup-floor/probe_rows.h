/* probe_rows.h — the lookup floor's probe rows, drawn on the host: 16 distinct columns of
 * PROBE_COLS a row, uniform (Erdős–Rényi) or at R-MAT's column marginal in natural column order,
 * each row from its own seed, with a value id a nonzero. Static inline C that compiles as C11
 * and as CUDA C++: zs-lookup-floor (lookup_floor.cu) times these rows and zs-packed-perm
 * (packed_perm.c) lays out the same ones, so the two cannot describe different rows. */
#ifndef ZS_BENCH_PROBE_ROWS_H
#define ZS_BENCH_PROBE_ROWS_H

#include <stdint.h>

#define PROBE_COLS (1 << 22) /* columns of the probe rows: x's length */
#define PROBE_ROW 16         /* nonzeros a row */
#define PROBE_VALUES 64      /* distinct value ids */

static inline uint64_t probe_splitmix(uint64_t *s) {
  uint64_t z = (*s += UINT64_C(0x9e3779b97f4a7c15));
  z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
  z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
  return z ^ (z >> 31);
}

/* Row r's seed: rows are drawn independently, so any prefix of rows is the same rows. */
static inline uint64_t probe_row_seed(int64_t r) {
  return UINT64_C(0x51ed2701) * (uint64_t)(r + 1);
}

/* A column uniform over PROBE_COLS. */
static inline int32_t probe_er_column(uint64_t *s) {
  return (int32_t)(probe_splitmix(s) % (uint64_t)PROBE_COLS);
}

/* A column at R-MAT's marginal: each of its 22 bits 1 with probability 0.24 (a = 0.57,
 * b = c = 0.19), drawn as 16-bit numbers below 15729, four a 64-bit draw. */
static inline int32_t probe_rmat_column(uint64_t *s) {
  uint64_t w[6];
  for (int i = 0; i < 6; i++) w[i] = probe_splitmix(s);
  int32_t c = 0;
  for (int bit = 0; bit < 22; bit++)
    c |= (int32_t)((w[bit / 4] >> 16 * (bit % 4) & 0xffff) < 15729) << bit;
  return c;
}

/* The row of `seed`: PROBE_ROW distinct columns, uniform (rmat 0) or at R-MAT's marginal
 * (rmat 1), sorted into out; fewer if 1000 draws do not find them. Returns their count. */
static inline int probe_row(int rmat, uint64_t seed, int32_t *out) {
  int n = 0;
  for (int tries = 0; n < PROBE_ROW && tries < 1000; tries++) {
    const int32_t c = rmat ? probe_rmat_column(&seed) : probe_er_column(&seed);
    int seen = 0;
    for (int k = 0; k < n; k++) seen |= out[k] == c;
    if (!seen) out[n++] = c;
  }
  for (int k = 1; k < n; k++) /* insertion sort: 16 columns */
    for (int j = k; j > 0 && out[j - 1] > out[j]; j--) {
      const int32_t t = out[j];
      out[j] = out[j - 1], out[j - 1] = t;
    }
  return n;
}

/* The value id of nonzero k of row r (a hash: ids spread over the row and the slice). */
static inline uint32_t probe_value_id(int64_t r, int k) {
  return (uint32_t)((uint64_t)(r * 40503 + (int64_t)((uint32_t)k * 2654435761u)) >> 7 &
                    (PROBE_VALUES - 1));
}

#endif
