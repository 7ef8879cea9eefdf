/* dtans_table.c — choosing a domain's coded symbols and multiplicities, and the slot table. */
#include <math.h>
#include <string.h>

#include "formats/dtans/dtans.h"

void dtans_build_table(const uint16_t *counts, int entries, dtans_slot *table) {
  uint32_t words[DTANS_K];
  dtans_table_words(counts, entries, words);
  for (int i = 0; i < DTANS_K; i++)
    table[i] =
        (dtans_slot){(uint16_t)(words[i] >> 16), (uint8_t)words[i], (uint8_t)(words[i] >> 8)};
}

/* A max-heap of ids keyed by the gain of one more slot, w·log2((c+1)/c). */
typedef struct gain_heap {
  int n;
  int id[DTANS_SYMBOLS];
  double gain[DTANS_SYMBOLS];
} gain_heap;

static void heap_sift_down(gain_heap *h, int i) {
  for (;;) {
    int l = 2 * i + 1, r = l + 1, m = i;
    if (l < h->n && h->gain[l] > h->gain[m]) m = l;
    if (r < h->n && h->gain[r] > h->gain[m]) m = r;
    if (m == i) return;
    const int ti = h->id[i];
    const double tg = h->gain[i];
    h->id[i] = h->id[m], h->gain[i] = h->gain[m];
    h->id[m] = ti, h->gain[m] = tg;
    i = m;
  }
}

static double slot_gain(double w, int c) { return c >= DTANS_M ? -1 : w * log2((c + 1.0) / c); }

/* Optimal multiplicities in [1, M] summing to at most K for the weights w[0..n): every id starts
 * at one slot and each further slot goes where it saves the most bits (the cost is separable and
 * convex, so greedy is optimal). Returns the slots left over when every id is at M. */
static int allocate(const double *w, int n, uint16_t *c, gain_heap *h) {
  int left = DTANS_K - n;
  h->n = n;
  for (int i = 0; i < n; i++) c[i] = 1, h->id[i] = i, h->gain[i] = slot_gain(w[i], 1);
  for (int i = n / 2 - 1; i >= 0; i--) heap_sift_down(h, i);
  while (left > 0 && h->n > 0 && h->gain[0] >= 0) {
    const int i = h->id[0];
    c[i]++, left--;
    h->gain[0] = slot_gain(w[i], c[i]);
    heap_sift_down(h, 0);
  }
  return left;
}

typedef struct scratch {
  double w[DTANS_SYMBOLS];
  gain_heap heap;
} scratch;

/* Predicted bits when the `m` most frequent symbols are coded; fills c when c_out is set. */
static double evaluate(const uint64_t *freq, int64_t distinct, uint64_t total, int m,
                       double raw_bits, double dict_bytes, scratch *sc, dtans_choice *c_out) {
  uint64_t coded_mass = 0;
  for (int i = 0; i < m; i++) coded_mass += freq[i];
  const uint64_t escaped = total - coded_mass;
  const int escape = (int64_t)m < distinct || escaped > 0;
  const int ids = m + escape;
  if (ids > DTANS_SYMBOLS) return INFINITY;
  for (int i = 0; i < m; i++) sc->w[i] = (double)freq[i];
  if (escape) sc->w[m] = (double)escaped;
  uint16_t counts[DTANS_SYMBOLS];
  int left = allocate(sc->w, ids, counts, &sc->heap);
  /* Slots no symbol can take (all at M) go to never-used fillers of at most M each. */
  int entries = ids;
  while (left > 0) {
    const int f = left > DTANS_M ? DTANS_M : left;
    counts[entries++] = (uint16_t)f;
    left -= f;
  }
  double ce = 0;
  for (int i = 0; i < ids; i++) ce += sc->w[i] * (DTANS_TABLE_LOG - log2(counts[i]));
  const double bits = ce + (double)escaped * raw_bits + 8.0 * (m * dict_bytes + 2.0 * entries);
  if (c_out) {
    c_out->coded = m, c_out->escape = escape, c_out->entries = entries;
    c_out->bits = bits, c_out->ce_bits = ce;
    memcpy(c_out->counts, counts, (size_t)entries * sizeof *counts);
  }
  return bits;
}

void dtans_choose(const uint64_t *freq, int64_t distinct, uint64_t unseen, double raw_bits,
                  double dict_bytes, dtans_choice *c) {
  static _Thread_local scratch sc;
  uint64_t total = unseen;
  for (int64_t i = 0; i < distinct; i++) total += freq[i];
  const int hi = (int)(distinct < DTANS_SYMBOLS ? distinct : DTANS_SYMBOLS - 1);
  /* The cost is close to unimodal in m: scan a geometric grid, then refine around the best. */
  int best = 0;
  double best_bits = evaluate(freq, distinct, total, 0, raw_bits, dict_bytes, &sc, NULL);
  const int all = distinct <= DTANS_SYMBOLS && unseen == 0 ? (int)distinct : -1;
  if (all > 0) {
    const double b = evaluate(freq, distinct, total, all, raw_bits, dict_bytes, &sc, NULL);
    if (b < best_bits) best_bits = b, best = all;
  }
  for (int m = 1; m <= hi; m = m < 8 ? m + 1 : m + m / 4) {
    const double b = evaluate(freq, distinct, total, m, raw_bits, dict_bytes, &sc, NULL);
    if (b < best_bits) best_bits = b, best = m;
  }
  for (int step = best / 8 > 1 ? best / 8 : 1; step >= 1; step /= 2)
    for (int moved = 1; moved;) {
      moved = 0;
      for (int dir = -1; dir <= 1; dir += 2) {
        const int m = best + dir * step;
        if (m < 0 || m > hi) continue;
        const double b = evaluate(freq, distinct, total, m, raw_bits, dict_bytes, &sc, NULL);
        if (b < best_bits) best_bits = b, best = m, moved = 1;
      }
    }
  evaluate(freq, distinct, total, best, raw_bits, dict_bytes, &sc, c);
}
