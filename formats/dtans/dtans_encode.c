/* dtans_encode.c — the CSR-dtANS encoder: histograms, tables, base and digit passes, interleave. */
#include <assert.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/dtans/dtans.h"
#include "formats/dtans/dtans_order.h"

#define W32 (UINT64_C(1) << 32)

/* ---- histograms: open addressing on 64-bit keys; an empty slot has count 0 ---- */
/* Past this many distinct keys a histogram stops adding new ones and counts them as unseen:
 * such a domain is coded mostly through escapes or stored raw anyway. */
#define HIST_MAX_KEYS (1 << 22)

typedef struct hslot {
  uint64_t key, count; /* side by side: a probe touches one cache line */
} hslot;

typedef struct hist {
  hslot *slot;
  uint64_t mask, used, unseen;
} hist;

static int hist_init(hist *h, uint64_t cap) {
  h->mask = cap - 1, h->used = 0, h->unseen = 0;
  /* zsi_alloc writes every page (and asks for huge pages for large tables): calloc's lazily mapped
   * zero pages would be read first by the probes, and each later write would take a copy-on-write
   * fault that flushes the other threads' TLBs (a quarter of a random-valued encode on a 2-core
   * VM). */
  h->slot = zsi_alloc_array(cap, sizeof *h->slot);
  return h->slot != NULL;
}

static void hist_free(hist *h) {
  zsi_free(h->slot);
  h->slot = NULL;
}

/* The full 64-bit finaliser: with one multiply, keys that differ only in high bits (the values of
 * a few-valued matrix: exponent and leading mantissa bits, the rest zero) landed in few home
 * slots, and their probes were most of the value histogram's time. Which slot a key takes never
 * shows in the blob: tables are read by count and key. */
static inline uint64_t hash64(uint64_t k) {
  k ^= k >> 33;
  k *= UINT64_C(0xff51afd7ed558ccd);
  k ^= k >> 33;
  k *= UINT64_C(0xc4ceb9fe1a85ec53);
  k ^= k >> 33;
  return k;
}

static int hist_grow(hist *h);

/* Puts a key known to be absent into a table with room (a grown table, the id lookup). */
static void hist_place(hist *h, uint64_t key, uint64_t count) {
  uint64_t j = hash64(key) & h->mask;
  while (h->slot[j].count) j = (j + 1) & h->mask;
  h->slot[j].key = key, h->slot[j].count = count;
}

#define HIST_AHEAD 16
static inline void hist_prefetch(const hist *h, uint64_t key) {
  if (h->mask >= 1u << 15) __builtin_prefetch(&h->slot[hash64(key) & h->mask], 1); /* > L1/L2 */
}

static void hist_add(hist *h, uint64_t key, uint64_t n) {
  for (;;) {
    uint64_t i = hash64(key) & h->mask;
    for (; h->slot[i].count; i = (i + 1) & h->mask)
      if (h->slot[i].key == key) {
        h->slot[i].count += n;
        return;
      }
    if (h->used >= HIST_MAX_KEYS) break;
    if (2 * (h->used + 1) <= h->mask + 1) {
      h->slot[i].key = key, h->slot[i].count = n, h->used++;
      return;
    }
    if (!hist_grow(h)) break;
  }
  h->unseen += n;
}

/* One more occurrence of key: hist_add, with the common case (the key in its home slot) inline. */
static inline void hist_count(hist *h, uint64_t key) {
  hslot *s = &h->slot[hash64(key) & h->mask];
  if (s->count && s->key == key)
    s->count++;
  else
    hist_add(h, key, 1);
}

static int hist_grow(hist *h) {
  hist g;
  if (!hist_init(&g, 2 * (h->mask + 1))) {
    hist_free(&g);
    return 0;
  }
  for (uint64_t i = 0; i <= h->mask; i++)
    if (h->slot[i].count) hist_place(&g, h->slot[i].key, h->slot[i].count);
  g.used = h->used, g.unseen = h->unseen;
  hist_free(h);
  *h = g;
  return 1;
}

/* Lookup of a coded symbol's id; `escape` when absent. */
static inline int id_of(const hist *ids, uint64_t key, int escape) {
  for (uint64_t i = hash64(key) & ids->mask; ids->slot[i].count; i = (i + 1) & ids->mask)
    if (ids->slot[i].key == key) return (int)ids->slot[i].count - 1;
  return escape;
}

typedef struct sym_freq {
  uint64_t key, n;
} sym_freq;

static int by_freq(const void *a, const void *b) {
  const sym_freq *x = a, *y = b;
  if (x->n != y->n) return x->n < y->n ? 1 : -1;
  return (x->key > y->key) - (x->key < y->key);
}

/* The symbol of nonzero k of row i: its column delta (the first relative to the row index) or
 * its value's bits. */
static inline int64_t delta_of(const zs_matrix *A, int64_t i, int64_t k) {
  return A->col_idx[k] - (k == A->row_ptr[i] ? i : A->col_idx[k - 1]); /* in (-rows, cols) */
}

static inline uint64_t delta_key(const zs_matrix *A, int64_t i, int64_t k) {
  return (uint64_t)(uint32_t)(int32_t)delta_of(A, i, k);
}

/* The joint symbol of nonzero k of row i: its delta's 32 bits above its value's rank among the
 * most frequent values (`vrank`: key -> rank + 1); with raw columns the rank alone (the column is
 * stored apart, the pair's delta is 0). 0 when the value has no rank: such a nonzero is always
 * escaped. */
static inline int pair_key(const zs_matrix *A, const hist *vrank, int raw_columns, int64_t i,
                           int64_t k, uint64_t *key) {
  const int rank = id_of(vrank, dtans_value_key(A, k), -1);
  if (rank < 0) return 0;
  *key = (raw_columns ? 0 : delta_key(A, i, k) << 32) | (uint64_t)rank;
  return 1;
}

/* ---- one domain: histogram -> choice -> id lookup ---- */
typedef struct domain {
  dtans_choice choice;
  sym_freq *sorted; /* coded symbols first */
  int64_t distinct;
  uint64_t unseen;
  hist ids; /* key -> id + 1 */
  uint32_t start[DTANS_SYMBOLS];
  uint64_t magic[DTANS_SYMBOLS]; /* per id: magic_of its multiplicity (digit_pass) */
} domain;

/* Quotient by c (a multiplicity, 1 to 256) of r < 2^32 without a division: with
 * magic = floor(2^40 / c) + 1 = (2^40 + e) / c, 0 < e <= c, r·magic / 2^40 exceeds r / c by
 * r·e / (c·2^40) < 1 / c, which never reaches the next integer. */
static inline uint64_t magic_of(uint32_t c) { return (UINT64_C(1) << 40) / c + 1; }
static inline uint32_t quotient(uint32_t r, uint64_t magic, uint32_t c) {
#ifdef __SIZEOF_INT128__
  (void)c;
  return (uint32_t)(((unsigned __int128)r * magic) >> 40);
#else /* r·magic takes 73 bits */
  (void)magic;
  return r / c;
#endif
}

/* Reorders a[0 .. n) so that its first k entries are the k first in by_freq order (in any
 * order): quickselect, since only the most frequent DTANS_SYMBOLS symbols can be coded and a
 * domain of random values holds millions. by_freq is a strict order (keys are distinct), so the
 * set is unique and the result does not depend on the pivots. */
static void select_first(sym_freq *a, int64_t n, int64_t k) {
  int64_t lo = 0, hi = n - 1;
  while (lo < hi) {
    const sym_freq pivot = a[lo + (hi - lo) / 2];
    int64_t i = lo, j = hi;
    while (i <= j) {
      while (by_freq(&a[i], &pivot) < 0) i++;
      while (by_freq(&a[j], &pivot) > 0) j--;
      if (i <= j) {
        const sym_freq t = a[i];
        a[i++] = a[j], a[j--] = t;
      }
    }
    if (k - 1 <= j)
      hi = j;
    else if (k - 1 >= i)
      lo = i;
    else
      return;
  }
}

/* The domain's symbols, the DTANS_SYMBOLS most frequent first and in by_freq order (the
 * tables use no others; the rest only add to the total). */
static zs_status domain_sorted(hist *h, domain *d) {
  d->distinct = (int64_t)h->used, d->unseen = h->unseen;
  d->sorted = zsi_alloc_array(h->used ? h->used : 1, sizeof *d->sorted); /* huge pages */
  if (!d->sorted) return zsi_error(ZS_ERR_OUT_OF_MEMORY, "dtans: symbol histogram");
  int64_t n = 0;
  for (uint64_t i = 0; i <= h->mask; i++)
    if (h->slot[i].count) d->sorted[n++] = (sym_freq){h->slot[i].key, h->slot[i].count};
  const int64_t head = n < DTANS_SYMBOLS ? n : DTANS_SYMBOLS;
  if (n > head) select_first(d->sorted, n, head);
  qsort(d->sorted, (size_t)head, sizeof *d->sorted, by_freq);
  return ZS_OK;
}

static zs_status domain_choose(domain *d, double raw_bits, double dict_bytes) {
  uint64_t *freq = zsi_alloc_array((uint64_t)(d->distinct ? d->distinct : 1), sizeof *freq);
  if (!freq) return zsi_error(ZS_ERR_OUT_OF_MEMORY, "dtans: symbol frequencies");
  for (int64_t i = 0; i < d->distinct; i++) freq[i] = d->sorted[i].n;
  dtans_choose(freq, d->distinct, d->unseen, raw_bits, dict_bytes, &d->choice);
  zsi_free(freq);
  if (!hist_init(&d->ids, 2 * DTANS_SYMBOLS * 2))
    return zsi_error(ZS_ERR_OUT_OF_MEMORY, "dtans: id lookup");
  for (int i = 0; i < d->choice.coded; i++) hist_place(&d->ids, d->sorted[i].key, (uint64_t)i + 1);
  uint32_t s = 0;
  for (int i = 0; i < d->choice.entries; i++)
    d->start[i] = s, s += d->choice.counts[i], d->magic[i] = magic_of(d->choice.counts[i]);
  return ZS_OK;
}

/* The domain of the first `head` ranks of v's symbols, keyed by rank (raw columns' pairs): the
 * rest of v's occurrences are unseen. */
static zs_status domain_of_ranks(const domain *v, int64_t head, domain *d) {
  d->distinct = head, d->unseen = v->unseen;
  d->sorted = zsi_alloc_array((uint64_t)(head ? head : 1), sizeof *d->sorted);
  if (!d->sorted) return zsi_error(ZS_ERR_OUT_OF_MEMORY, "dtans: value ranks");
  for (int64_t r = 0; r < head; r++) d->sorted[r] = (sym_freq){(uint64_t)r, v->sorted[r].n};
  for (int64_t r = head; r < v->distinct; r++) d->unseen += v->sorted[r].n;
  return ZS_OK;
}

/* Values a joint domain's coded pairs name: their largest value rank (the low 32 bits of a pair
 * key) plus one. */
static int64_t pair_value_count(const domain *d) {
  int64_t n = 0;
  for (int i = 0; i < d->choice.coded; i++)
    if ((int64_t)(d->sorted[i].key & UINT32_MAX) >= n)
      n = (int64_t)(d->sorted[i].key & UINT32_MAX) + 1;
  return n;
}

static void domain_free(domain *d) {
  zsi_free(d->sorted);
  hist_free(&d->ids);
}

/* ---- per-slice encoding ---- */
typedef struct encoder {
  const zs_matrix *A;
  const uint8_t *is_long;    /* per row: stored apart as plain CSR */
  const int64_t *raw_start;  /* per slice: its first raw value */
  int coded;                 /* values coded: 4 nonzeros per segment, else 8 */
  int joint;                 /* the delta domain holds (delta, value) pairs */
  int raw_columns;           /* joint pairs of delta 0; columns stored like raw values */
  const int64_t *slice_rows; /* slice s: rows [slice_rows[s], slice_rows[s + 1]) */
  domain *dd, *vd;
  const uint16_t *did, *vid; /* ids per nonzero */
} encoder;

typedef struct lane_work {
  int64_t n, segs;    /* nonzeros and segments of the lane (all its rows) */
  const int64_t *pos; /* the lane's nonzeros: their index in the CSR arrays */
  const int32_t *row; /* and their row */
  uint8_t *flags;     /* per segment: bit h set when check h takes its word from the state */
  uint32_t *words;    /* 3 per segment */
} lane_work;

typedef struct slice_scratch {
  int64_t *pos;
  int32_t *row;
  uint8_t *flags;
  uint32_t *words;
  int64_t cap_nz, cap_segs;
} slice_scratch;

static void scratch_free(slice_scratch *sc) {
  free(sc->pos), free(sc->row), free(sc->flags), free(sc->words);
}

/* The lanes of slice s: their nonzeros in decoding order (rows l, l + 32, … of the slice). */
static int build_lanes(const encoder *e, int64_t s, slice_scratch *sc, lane_work w[DTANS_LANES],
                       int64_t *max_segs) {
  const zs_matrix *A = e->A;
  const int64_t start = e->slice_rows[s], stop = e->slice_rows[s + 1];
  const int64_t nz = A->row_ptr[stop] - A->row_ptr[start];
  int64_t segs = 0;
  for (int l = 0; l < DTANS_LANES; l++) {
    w[l].n = 0;
    for (int64_t i = start + l; i < stop; i += DTANS_LANES)
      if (!e->is_long[i]) w[l].n += A->row_ptr[i + 1] - A->row_ptr[i];
    w[l].segs = dtans_segments(w[l].n, e->coded);
    segs += w[l].segs;
  }
  if (nz >= sc->cap_nz) { /* at least one element: no pointer arithmetic on NULL */
    free(sc->pos), free(sc->row);
    sc->cap_nz = nz + 1;
    sc->pos = malloc((size_t)sc->cap_nz * sizeof *sc->pos),
    sc->row = malloc((size_t)sc->cap_nz * 4);
    if (!sc->pos || !sc->row) return sc->cap_nz = 0, 0;
  }
  if (segs >= sc->cap_segs) {
    free(sc->flags), free(sc->words);
    sc->cap_segs = segs + 1;
    sc->flags = malloc((size_t)sc->cap_segs), sc->words = malloc((size_t)sc->cap_segs * 12);
    if (!sc->flags || !sc->words) return sc->cap_segs = 0, 0;
  }
  int64_t off = 0, soff = 0;
  *max_segs = 0;
  for (int l = 0; l < DTANS_LANES; l++) {
    w[l].pos = sc->pos + off, w[l].row = sc->row + off;
    w[l].flags = sc->flags + soff, w[l].words = sc->words + 3 * soff;
    for (int64_t i = start + l; i < stop; i += DTANS_LANES)
      for (int64_t k = A->row_ptr[i]; k < A->row_ptr[i + 1] && !e->is_long[i]; k++)
        sc->pos[off] = k, sc->row[off++] = (int32_t)i;
    soff += w[l].segs;
    if (w[l].segs > *max_segs) *max_segs = w[l].segs;
  }
  return 1;
}

/* Id and domain of position k of segment j of a lane; -1 past the lane's end (padding). */
static inline int pos_id(const encoder *e, const lane_work *w, int64_t j, int k, int *domain_v) {
  const int64_t i = e->coded ? 4 * j + k / 2 : 8 * j + k;
  *domain_v = e->coded && (k & 1);
  if (i >= w->n) return -1;
  return *domain_v ? e->vid[w->pos[i]] : e->did[w->pos[i]];
}

/* Forward base pass: which of a segment's two checks take a word out of the state. */
static void base_pass(const encoder *e, lane_work *w) {
  uint64_t r = 1;
  for (int64_t j = 0; j + 1 < w->segs; j++) {
    uint8_t f = 0;
    for (int half = 0; half < 2; half++) {
      uint64_t B = 1;
      for (int k = 4 * half; k < 4 * half + 4; k++) {
        int dv;
        const int id = pos_id(e, w, j, k, &dv);
        B *= (dv ? e->vd : e->dd)->choice.counts[id];
      }
      r *= B;
      if (r >= W32) f |= (uint8_t)(1u << half), r >>= 32;
    }
    w->flags[j] = f;
  }
}

static void pack(const uint32_t slot[8], uint32_t *w) {
  uint64_t lo = 0;
  for (int k = 0; k < 5; k++) lo |= (uint64_t)slot[k] << (12 * k);
  lo |= (uint64_t)slot[5] << 60;
  w[0] = (uint32_t)lo, w[1] = (uint32_t)(lo >> 32);
  w[2] = (slot[5] >> 4) | (slot[6] << 8) | (slot[7] << 20);
}

/* Backward digit pass: each digit is what the decoder's state must give back so that the words it
 * extracts are the next segment's; the last segment's digits are free (its state is never used). */
static void digit_pass(const encoder *e, lane_work *w) {
  uint32_t slot[8];
  const int64_t last = w->segs - 1;
  for (int k = 0; k < 8; k++) {
    int dv;
    const int id = pos_id(e, w, last, k, &dv);
    slot[k] = id < 0 ? 0 : dtans_slot_of((dv ? e->vd : e->dd)->start[id], 0);
  }
  pack(slot, w->words + 3 * last);
  uint64_t d = 0;
  for (int64_t j = last - 1; j >= 0; j--) {
    const uint32_t *next = w->words + 3 * (j + 1);
    for (int half = 1; half >= 0; half--) {
      if (w->flags[j] & (1u << half)) d = (d << 32) | next[half];
      /* The four digits are d's last digits in the mixed radix of the bases (b[4h+3] lowest):
       * one division by their product B <= 2^32 leaves the rest below 2^32, whose digits take
       * multiplications, off the chain that carries d to the next half. */
      const domain *D[4];
      int id[4];
      uint64_t B = 1;
      for (int k = 0; k < 4; k++) {
        int dv;
        id[k] = pos_id(e, w, j, 4 * half + k, &dv);
        D[k] = dv ? e->vd : e->dd;
        B *= D[k]->choice.counts[id[k]];
      }
      uint32_t r = (uint32_t)(d % B);
      d /= B;
      for (int k = 3; k >= 0; k--) {
        const uint32_t c = D[k]->choice.counts[id[k]], q = quotient(r, D[k]->magic[id[k]], c);
        slot[4 * half + k] = dtans_slot_of(D[k]->start[id[k]], r - q * c);
        r = q;
      }
    }
    pack(slot, w->words + 3 * j);
  }
}

typedef struct slice_out {
  int64_t words, desc, vesc; /* counts (sizing pass) or cursors (writing pass) */
} slice_out;

/* Sizing pass: words and escapes of slice s, from the base pass alone. */
static int slice_size(const encoder *e, int64_t s, slice_scratch *sc, slice_out *o) {
  lane_work w[DTANS_LANES];
  int64_t max_segs;
  if (!build_lanes(e, s, sc, w, &max_segs)) return 0;
  *o = (slice_out){0, 0, 0};
  const int esc_d = e->dd->choice.coded, esc_v = e->vd ? e->vd->choice.coded : -1;
  for (int l = 0; l < DTANS_LANES; l++) {
    if (w[l].segs == 0) continue;
    base_pass(e, &w[l]);
    o->words += 3;
    for (int64_t j = 0; j + 1 < w[l].segs; j++)
      o->words += 3 - (w[l].flags[j] & 1) - (w[l].flags[j] >> 1);
    for (int64_t i = 0; i < w[l].n; i++) {
      o->desc += e->did[w[l].pos[i]] == esc_d;
      if (e->coded) o->vesc += e->vid[w[l].pos[i]] == esc_v;
    }
  }
  if (e->joint) o->vesc = o->desc; /* an escaped pair: its delta and its value */
  return 1;
}

/* Writing pass: the interleaved words and the escapes of slice s, at the cursors in o. */
static int slice_write(const encoder *e, int64_t s, slice_scratch *sc, slice_out *o,
                       uint32_t *stream, int32_t *desc, void *vesc, void *raw, int32_t *columns) {
  const zs_matrix *A = e->A;
  lane_work w[DTANS_LANES];
  int64_t max_segs;
  if (!build_lanes(e, s, sc, w, &max_segs)) return 0;
  for (int l = 0; l < DTANS_LANES; l++)
    if (w[l].segs > 0) base_pass(e, &w[l]), digit_pass(e, &w[l]);
  /* Interleave in the decoder's order: word k of segment 0 of every lane, then per segment the
   * two conditional loads and the unconditional one, lanes in order within each step. */
  for (int k = 0; k < 3; k++)
    for (int l = 0; l < DTANS_LANES; l++)
      if (w[l].segs > 0) stream[o->words++] = w[l].words[k];
  const size_t es = zs_type_size(A->type);
  const int esc_d = e->dd->choice.coded, esc_v = e->vd ? e->vd->choice.coded : -1;
  const int64_t per = e->coded ? 4 : 8;
  int64_t raw_at = e->raw_start[s], n[DTANS_LANES]; /* raw values: see dtans_raw_step */
  for (int l = 0; l < DTANS_LANES; l++) n[l] = w[l].n;
  for (int64_t t = 0; t < max_segs; t++) {
    int lanes = 0, rank = 0;
    const int full = raw || columns ? dtans_raw_step(n, t, &lanes) : 0;
    int64_t before = 0; /* raw values of the step's earlier lanes */
    for (int l = 0; l < DTANS_LANES; l++) {
      const int64_t lo = t * per, hi = lo + per < w[l].n ? lo + per : w[l].n;
      for (int64_t i = lo; i < hi; i++) {
        const int64_t k = w[l].pos[i];
        /* raw columns: an escaped pair counts in the offsets but has no delta stored */
        if (e->did[k] == esc_d && !e->raw_columns)
          desc[o->desc] = (int32_t)delta_key(A, w[l].row[i], k);
        o->desc += e->did[k] == esc_d;
        if ((e->coded && e->vid[k] == esc_v) || (e->joint && e->did[k] == esc_d))
          dtans_copy_value((char *)vesc + (size_t)(o->vesc++) * es,
                           (const char *)A->values + k * es, es);
        const int64_t at = raw_at + (full ? (i - lo) * lanes + rank : before + (i - lo));
        if (raw)
          dtans_copy_value((char *)raw + (size_t)at * es, (const char *)A->values + k * es, es);
        if (columns) columns[at] = A->col_idx[k];
      }
      if (hi > lo) rank++, before += hi - lo;
    }
    raw_at += before;
    for (int step = 0; step < 3; step++)
      for (int l = 0; l < DTANS_LANES; l++) {
        if (t + 1 >= w[l].segs) continue;
        if (step < 2 && (w[l].flags[t] & (1u << step))) continue;
        stream[o->words++] = w[l].words[3 * (t + 1) + step];
      }
  }
  return 1;
}

/* ---- the encoder ---- */
#define DTANS_GUIDED_START (-2) /* option guided=start */

/* The encoder's options, parsed once (-1: the default, chosen from the matrix later). */
typedef struct enc_opts {
  int mode, progress, row_order, columns, col_order, templates, row_kind;
  int64_t rpl, lane_symbols, long_min, guided, guided_floor, row_bytes;
  const int32_t *col_perm; /* col_order=frequency: the matrix's column of each encoded one */
  uint64_t rival;          /* bytes of a version 5 blob to beat (0: none; dtans_encode) */
} enc_opts;

/* Option `key` as the index of its word in names (NULL-terminated); -1 when absent or "auto". */
static zs_status option_keyword(const char *options, const char *key, const char *const *names,
                                int *out) {
  char buf[16], known[96] = "auto";
  int found;
  zs_status s = zsi_option_str(options, key, buf, sizeof buf, &found);
  *out = -1;
  if (s != ZS_OK || !found || strcmp(buf, "auto") == 0) return s;
  for (int i = 0; names[i]; i++) {
    if (strcmp(buf, names[i]) == 0) return *out = i, ZS_OK;
    snprintf(known + strlen(known), sizeof known - strlen(known), ", %s", names[i]);
  }
  return zsi_error(ZS_ERR_INVALID_ARGUMENT, "dtans: %s=%s (known: %s)", key, buf, known);
}

static zs_status parse_options(const char *options, enc_opts *o) {
  static const char *const known[] = {"values",    "progress",  "rows_per_lane", "lane_symbols",
                                      "long_rows", "guided",    "row_order",     "guided_floor",
                                      "columns",   "row_bytes", "col_order",     "templates",
                                      "row_kind",  NULL};
  zs_status s = zsi_option_check(options, known, "dtans");
  if (s != ZS_OK) return s;
  int found;
  o->progress = 0;
  /* in the order of DTANS_VALUES_*, then version 5's packed ids (DTANS5_VALUES_PACKED) */
  static const char *const value_modes[] = {"coded", "constant", "raw", "joint", "packed", NULL};
  if ((s = option_keyword(options, "values", value_modes, &o->mode)) != ZS_OK) return s;
  int64_t p = 0;
  if ((s = zsi_option_int(options, "progress", 0, 1, &p, &found)) != ZS_OK) return s;
  o->progress = (int)p;
  o->rpl = 0, o->lane_symbols = ZSI_DTANS_LANE_SYMBOLS;
  if ((s = zsi_option_int(options, "rows_per_lane", 1, DTANS_MAX_ROWS_PER_LANE, &o->rpl, &found)) ||
      (s = zsi_option_int(options, "lane_symbols", 8, INT64_C(1) << 40, &o->lane_symbols, &found)))
    return s;
  /* long_rows=N: rows with more than N nonzeros are stored apart (0: none; default: the larger
   * of lane_symbols and 16 times the average row). */
  o->long_min = -1;
  if ((s = zsi_option_int(options, "long_rows", 0, INT64_C(1) << 40, &o->long_min, &found)))
    return s;
  if (!found) o->long_min = -1;
  /* guided=P: in a matrix of at least P full slices, the last slices shrink to the symbols left
   * over P (at least 1/guided_floor of a full slice), so that warps taking slices as they finish run
   * out of work together; 0: off; start (DTANS_GUIDED_START): P is the count of slices an equal
   * cut makes, so they shrink from the first. Default (-1): 2048 for coded and joint values, else
   * off. */
  char word[64];
  o->guided = -1;
  if ((s = zsi_option_str(options, "guided", word, sizeof word, &found))) return s;
  if (found && strcmp(word, "start") == 0)
    o->guided = DTANS_GUIDED_START;
  else if (found && zsi_option_int(options, "guided", 0, INT64_C(1) << 40, &o->guided, &found))
    return zsi_error(ZS_ERR_INVALID_ARGUMENT, "dtans: guided=%s (0 to 2^40, or start)", word);
  /* guided_floor=D: the shrinking slices keep at least 1/D of a full one (default 3: with 4,
   * the few-valued 2-D stencil's stream was over the 2 % bound the format keeps). */
  o->guided_floor = 3;
  if ((s = zsi_option_int(options, "guided_floor", 1, 1024, &o->guided_floor, &found))) return s;
  /* row_bytes=1|2|4 (default: the narrowest that holds every row in the stream): bytes of a
   * row's length in row_nnz; a width too narrow for the longest row is refused. */
  o->row_bytes = 0;
  if ((s = zsi_option_int(options, "row_bytes", 1, 4, &o->row_bytes, &found))) return s;
  if (found && o->row_bytes == 3)
    return zsi_error(ZS_ERR_INVALID_ARGUMENT, "dtans: row_bytes=3 (1, 2 or 4)");
  /* columns=deltas|raw|auto: columns coded as deltas, or stored raw beside a stream that codes the
   * values alone (joint pairs of delta 0); auto: raw when that is at most as large (8-byte values
   * only, encode_rows). */
  static const char *const column_modes[] = {"deltas", "raw", NULL};
  if ((s = option_keyword(options, "columns", column_modes, &o->columns)) != ZS_OK) return s;
  /* row_order=natural|length|auto: rows encoded in their order, or ordered by length (version 3,
   * with row_perm) so that a slice's lanes get equal work; auto: by length when that cuts the
   * lockstep steps by a third or more (lockstep_cost). */
  static const char *const row_orders[] = {"natural", "length", NULL};
  if ((s = option_keyword(options, "row_order", row_orders, &o->row_order)) != ZS_OK) return s;
  /* col_order=natural|frequency|auto: columns renumbered by descending count (version 4, with
   * col_perm), so that a power-law matrix's hub columns get small, close numbers: fewer escaped
   * deltas, and gathers from a few lines of x; auto (the default): where the counts are skewed
   * (skewed_columns). */
  static const char *const col_orders[] = {"natural", "frequency", NULL};
  if ((s = option_keyword(options, "col_order", col_orders, &o->col_order)) != ZS_OK) return s;
  o->col_perm = NULL, o->rival = 0;
  /* templates=off|on|auto: version 5 (template rows) never, wherever the rows fit a dictionary
   * (dtans_encode), or where its blob is also at most 3 % larger than versions 2-4's would be. */
  static const char *const template_modes[] = {"off", "on", NULL};
  if ((s = option_keyword(options, "templates", template_modes, &o->templates)) != ZS_OK) return s;
  /* row_kind=templates|packed|auto: version 5's rows as templates only (the default), all as
   * packed column fields, or templates where two rows or more share one and packed rows for the
   * rest when the rows need more templates than version 5 holds (DTANS5_ROWS_*). */
  static const char *const row_kinds[] = {"templates", "packed", NULL};
  char kind[16];
  if ((s = option_keyword(options, "row_kind", row_kinds, &o->row_kind)) != ZS_OK) return s;
  if ((s = zsi_option_str(options, "row_kind", kind, sizeof kind, &found)) != ZS_OK) return s;
  if (!found) o->row_kind = DTANS5_ROWS_TEMPLATES;
  return ZS_OK;
}

/* Segment steps of the lockstep decode, over the ideal (nonzeros / 32 lanes / 8), for rows taken
 * in `order` (NULL: natural) and cut into slices as step 5 of the encoder cuts them by default. */
static double lockstep_cost(const zs_matrix *A, const int32_t *order, int64_t lane_symbols,
                            int64_t cap) {
  double steps = 0, nnz = 0;
  for (int64_t a = 0; a < A->rows;) {
    int64_t b = a, sym = 0, lane[DTANS_LANES] = {0};
    while (b < A->rows && sym < DTANS_LANES * lane_symbols && b - a < DTANS_LANES * 128) {
      for (int64_t r = b; r < b + DTANS_LANES && r < A->rows; r++) {
        const int64_t i = order ? order[r] : r, n = A->row_ptr[i + 1] - A->row_ptr[i];
        if (n <= cap) sym += n, lane[(r - a) & (DTANS_LANES - 1)] += n;
      }
      b += DTANS_LANES;
    }
    int64_t most = 0;
    for (int l = 0; l < DTANS_LANES; l++) most = lane[l] > most ? lane[l] : most, nnz += lane[l];
    steps += (double)((most + 7) / 8);
    a = b;
  }
  return nnz > 0 ? steps / (nnz / (8.0 * DTANS_LANES)) : 1.0;
}

/* Whether at least 99 % of a fixed sample of DISTINCT_SAMPLE values (every (nnz / sample)-th
 * nonzero) differ from each other: then a value table could code at most about 1 % of the
 * values for less than their raw bits, never paying for its escapes, so `values=auto` takes raw
 * values without building the value histogram (random-valued matrices: millions of keys, half
 * of an encode). Only for matrices of at least DISTINCT_MIN_NNZ nonzeros, so small ones (the
 * golden blobs among them) go through the full choice. Deterministic. */
#define DISTINCT_SAMPLE 65536
#define DISTINCT_MIN_NNZ (1 << 20)
static int values_look_distinct(const zs_matrix *A) {
  if (A->nnz < DISTINCT_MIN_NNZ) return 0;
  enum { SLOTS = 4 * DISTINCT_SAMPLE };
  uint64_t *key = malloc(SLOTS * sizeof *key);
  uint8_t *used = calloc(SLOTS, 1);
  int64_t distinct = 0;
  const int64_t stride = A->nnz / DISTINCT_SAMPLE;
  for (int64_t j = 0; key && used && j < DISTINCT_SAMPLE; j++) {
    const uint64_t k = dtans_value_key(A, j * stride);
    uint64_t at = hash64(k) & (SLOTS - 1);
    while (used[at] && key[at] != k) at = (at + 1) & (SLOTS - 1);
    if (!used[at]) used[at] = 1, key[at] = k, distinct++;
  }
  free(key), free(used);
  return distinct >= DISTINCT_SAMPLE - DISTINCT_SAMPLE / 100;
}

/* Deltas lie in (-rows, cols). Where one count per delta and thread takes no more memory than the
 * column indices, and no count can overflow, deltas are counted in plain arrays: no hash, and for
 * random columns no probe into a table larger than the caches (2 threads, best of 5 in three
 * alternating rounds: Erdős–Rényi 2^20 rows 0.44-0.51 -> 0.36-0.40 s, R-MAT scale 20 with 64
 * values 0.74-0.89 -> 0.63-0.77 s; stencils and banded matrices, whose few deltas a small table
 * holds in cache, within the noise). The counts enter the histogram in delta order afterwards: the
 * same histogram as hashing while it holds every key (HIST_MAX_KEYS). */
static uint32_t *delta_counts(const zs_matrix *A, int nt) {
  const int64_t span = A->rows + A->cols;
  if (A->nnz >= (INT64_C(1) << 32) || span > A->nnz / nt) return NULL;
  return zsi_alloc_array((uint64_t)nt * (uint64_t)span, sizeof(uint32_t));
}

/* The summed counts (thread 0's array) into hd, in delta order, in a table sized for them. */
static zs_status delta_hist_of_counts(const zs_matrix *A, uint32_t *dc, int nt, hist *hd) {
  const int64_t span = A->rows + A->cols;
  int64_t distinct = 0;
  ZSI_OMP(parallel for num_threads(nt) schedule(static) reduction(+ : distinct))
  for (int64_t j = 0; j < span; j++) {
    for (int t = 1; t < nt; t++) dc[j] += dc[(size_t)t * (size_t)span + (size_t)j];
    distinct += dc[j] != 0;
  }
  uint64_t cap = 1024;
  while (cap < 2 * (uint64_t)(distinct < HIST_MAX_KEYS ? distinct : HIST_MAX_KEYS)) cap *= 2;
  if (!hist_init(hd, cap)) return zsi_error(ZS_ERR_OUT_OF_MEMORY, "dtans: delta histogram");
  for (int64_t j = 0; j < span; j++)
    if (dc[j]) hist_add(hd, (uint64_t)(uint32_t)(int32_t)(j - (A->rows - 1)), dc[j]);
  return ZS_OK;
}

/* The first row ending after nonzero lo_nz: where a thread given nonzeros from lo_nz on starts. */
static int64_t first_row_after(const zs_matrix *A, int64_t lo_nz) {
  int64_t a = 0, b = A->rows;
  while (a < b) {
    const int64_t m = (a + b) / 2;
    if (A->row_ptr[m + 1] <= lo_nz)
      a = m + 1;
    else
      b = m;
  }
  return a;
}

/* Histograms of both domains over a nonzero-balanced split of the rows, merged in split order;
 * with `vrank`, the histogram of pair keys (pair_key) into hd alone. */
static zs_status histograms(const zs_matrix *A, const uint8_t *is_long, int want_values,
                            const hist *vrank, hist *hd, hist *hv) {
  const int nt = zsi_omp_threads();
  hist *part = calloc((size_t)nt * 2, sizeof *part);
  if (!part) return zsi_error(ZS_ERR_OUT_OF_MEMORY, "dtans: histograms");
  uint32_t *dc = vrank ? NULL : delta_counts(A, nt);
  const int64_t span = A->rows + A->cols, zero = A->rows - 1; /* dc's index of delta 0 */
  int failed = 0;
  ZSI_OMP(parallel num_threads(nt)) {
    const int t = zsi_omp_tid(), n = zsi_omp_nth();
    hist *d = &part[2 * t], *v = &part[2 * t + 1];
    uint32_t *c = dc ? dc + (size_t)t * (size_t)span + (size_t)zero : NULL;
    if ((!dc && !hist_init(d, 1024)) || (want_values && !hist_init(v, 1024))) {
      ZSI_OMP(atomic write)
      failed = 1;
    } else {
      const int64_t lo_nz = A->nnz * t / n, hi_nz = A->nnz * (t + 1) / n;
      for (int64_t r = first_row_after(A, lo_nz); r < A->rows; r++) {
        const int64_t from = A->row_ptr[r] > lo_nz ? A->row_ptr[r] : lo_nz;
        const int64_t to = A->row_ptr[r + 1] < hi_nz ? A->row_ptr[r + 1] : hi_nz;
        if (from >= hi_nz) break;
        for (int64_t k = from; k < to && !is_long[r] && vrank; k++) {
          uint64_t key;
          if (pair_key(A, vrank, 0, r, k, &key))
            hist_count(d, key);
          else
            d->unseen++;
        }
        for (int64_t k = from; k < to && !is_long[r] && !vrank; k++) {
          /* Random columns or values make each insert a cache miss: ask for the slots of the
           * nonzero HIST_AHEAD on (a hint: a row start or a growing table only makes it miss). */
          const int64_t f = k + HIST_AHEAD;
          if (f < A->nnz) {
            const int32_t ahead = A->col_idx[f] - A->col_idx[f - 1];
            if (c && ahead > -A->rows) /* a row start may step further back */
              __builtin_prefetch(&c[ahead], 1);
            else if (!c)
              hist_prefetch(d, (uint64_t)(uint32_t)ahead);
            if (want_values) hist_prefetch(v, dtans_value_key(A, f));
          }
          if (c)
            c[delta_of(A, r, k)]++;
          else
            hist_count(d, delta_key(A, r, k));
          if (want_values) hist_count(v, dtans_value_key(A, k));
        }
      }
    }
  }
  zs_status s = failed ? zsi_error(ZS_ERR_OUT_OF_MEMORY, "dtans: histograms") : ZS_OK;
  const int counted = dc != NULL; /* hd from the count arrays */
  if (s == ZS_OK && counted) s = delta_hist_of_counts(A, dc, nt, hd);
  zsi_free(dc);
  /* Thread 0's tables become the totals (what adding its entries first to empty tables would
   * give), the other threads' are added in thread order. */
  if (s == ZS_OK) {
    if (!counted) *hd = part[0], part[0] = (hist){0};
    if (want_values) *hv = part[1], part[1] = (hist){0};
  }
  for (int t = 1; t < nt; t++) {
    for (int dom = 0; dom < 2 && s == ZS_OK; dom++) {
      hist *src = &part[2 * t + dom], *dst = dom ? hv : hd;
      if (!src->slot) continue;
      for (uint64_t i = 0; i <= src->mask; i++)
        if (src->slot[i].count) hist_add(dst, src->slot[i].key, src->slot[i].count);
      dst->unseen += src->unseen;
    }
  }
  for (int t = 0; t < 2 * nt; t++) hist_free(&part[t]);
  free(part);
  return s;
}

/* Cuts A's rows into slices (slice_rows[0 .. return value]): 32 rows at a time until the slice
 * holds `full` symbols (per_nz a nonzero, long rows none; `left` in all) or R rows a lane
 * (R > 0). With guided = P > 0, a slice wants only the symbols left over P, down to full / D
 * (guided_floor). */
static int64_t cut_slices(const zs_matrix *A, const uint8_t *is_long, int64_t per_nz, int64_t left,
                          int64_t full, int64_t R, int64_t guided, int64_t D, int64_t *slice_rows) {
  int64_t slices = 0;
  slice_rows[0] = 0;
  for (int64_t r = 0; r < A->rows;) {
    const int64_t from = r;
    int64_t symbols = 0, want = full;
    if (guided > 0 && left / guided < want)
      want = left / guided > full / D ? left / guided : full / D;
    do {
      const int64_t end = r + DTANS_LANES < A->rows ? r + DTANS_LANES : A->rows;
      for (; r < end; r++)
        if (!is_long[r]) symbols += (A->row_ptr[r + 1] - A->row_ptr[r]) * per_nz;
    } while (r < A->rows &&
             (R ? r - from < DTANS_LANES * R
                : symbols < want && r - from < DTANS_LANES * DTANS_MAX_ROWS_PER_LANE));
    left -= symbols;
    slice_rows[++slices] = r;
  }
  return slices;
}

/* ---- joint pairs counted by index ---- */
/* The pair histogram hashes a (delta, rank) key per nonzero, and the id pass hashes it again: on
 * few-valued stencils and banded matrices half of an encode. Where every delta is in the delta
 * table's domain (none unseen, at most DTANS_SYMBOLS) and they span at most PAIR_SPAN values, a
 * delta's index comes from a plain array, and with at most PAIR_CELLS (delta, rank) cells the
 * pairs are counted in plain arrays and their ids looked up in one. The histogram holds the same
 * counts (at most PAIR_CELLS <= HIST_MAX_KEYS keys: none unseen for want of room), and the
 * tables sort it by count and key, so the blob is the same. */
#define PAIR_SPAN (INT64_C(1) << 22)
#define PAIR_CELLS (INT64_C(1) << 20)

typedef struct pair_index {
  int64_t lo, span;             /* deltas lo .. lo + span - 1 */
  uint16_t *of;                 /* per delta - lo: its index + 1 (0: no such delta) */
  int64_t n, nv;                /* deltas indexed; value ranks (the cells: n·nv) */
  int32_t delta[DTANS_SYMBOLS]; /* per index */
} pair_index;

/* Pair cell of nonzero k of row i, rank + 1 = vr (not 0). */
static inline int64_t pair_cell(const pair_index *x, const zs_matrix *A, int64_t i, int64_t k,
                                uint16_t vr) {
  return (int64_t)(x->of[delta_of(A, i, k) - x->lo] - 1) * x->nv + (vr - 1);
}

/* ---- encode_rows in phases: histograms, table choice, slicing, writing ---- */

/* What the phases of encode_rows hand on, each filling its part; plan_free frees it all. */
typedef struct enc_plan {
  const zs_matrix *A;
  const enc_opts *o;
  size_t es; /* bytes per value */
  /* histograms: the rows stored apart, and the counts of both domains */
  uint8_t *is_long;
  int64_t n_long, long_nnz, coded_nnz;
  int64_t longest; /* of the rows in the stream */
  hist hd, hv, hp, vrank;
  /* table choice */
  domain dd, vd, pd, cd;
  int mode; /* DTANS_VALUES_*; -1 (auto) until chosen */
  int coded, joint, raw_columns;
  int64_t n_pair_values; /* value_symbols of the joint mode: ranks 0 .. n - 1 */
  domain *dom;           /* the table of the stream's delta slots */
  /* slicing */
  int64_t guided, slices;
  int64_t *slice_rows, *raw_start;
  uint16_t *did, *vid; /* ids per nonzero */
  pair_index pi;       /* joint pairs by index (pair_histogram), when pi.of is set */
  uint16_t *vr;        /* with pi: each coded nonzero's value rank + 1 (0: none) */
  encoder e;
  slice_out *so; /* per slice: its sizes, then (prefix sums) its cursors */
  zsi_progress pr;
  int64_t done_slices;
} enc_plan;

/* The blob's arrays that the writing phase fills after add_arrays made them. */
typedef struct blob_out {
  zs_encoded *E;
  uint32_t len_bytes; /* of a row_nnz entry */
  void *row_nnz, *vesc, *raw, *lvals;
  uint32_t *stream;
  int64_t *sw, *sd, *sv, *srows, *lptr;
  int32_t *desc, *columns, *lrows, *lcols;
} blob_out;

static void plan_free(enc_plan *p) {
  hist_free(&p->hd), hist_free(&p->hv), hist_free(&p->hp), hist_free(&p->vrank);
  domain_free(&p->dd), domain_free(&p->vd), domain_free(&p->pd), domain_free(&p->cd);
  zsi_free(p->did), zsi_free(p->vid), zsi_free(p->vr), zsi_free(p->pi.of);
  free(p->so), free(p->is_long), free(p->raw_start), free(p->slice_rows);
}

/* Histograms: the long rows set apart, then the delta and value counts of the others. */
static zs_status count_symbols(enc_plan *p) {
  const zs_matrix *A = p->A;
  const int64_t long_min = p->o->long_min;
  /* Long rows (a power-law graph's hubs) are stored apart: a lane decoding one would hold up its
   * whole warp. */
  p->is_long = calloc((size_t)(A->rows ? A->rows : 1), 1);
  if (!p->is_long) return zsi_error(ZS_ERR_OUT_OF_MEMORY, "dtans: long-row flags");
  for (int64_t i = 0; i < A->rows; i++) {
    const int64_t n = A->row_ptr[i + 1] - A->row_ptr[i];
    if (long_min > 0 && n > long_min)
      p->is_long[i] = 1, p->n_long++, p->long_nnz += n;
    else if (n > p->longest)
      p->longest = n;
  }
  p->coded_nnz = A->nnz - p->long_nnz;
  if (p->mode < 0 && values_look_distinct(A)) p->mode = DTANS_VALUES_RAW;
  return histograms(A, p->is_long, p->mode != DTANS_VALUES_RAW, NULL, &p->hd, &p->hv);
}

/* The pair histogram (into p->hp) by index, and every coded nonzero's value rank (p->vr); *done
 * 0 when the deltas do not allow it (pair_index): the caller hashes the pairs then. */
static zs_status pair_histogram(enc_plan *p, int64_t nv, int *done) {
  const zs_matrix *A = p->A;
  const domain *dd = &p->dd;
  pair_index *x = &p->pi;
  *done = 0;
  if (dd->unseen || dd->distinct > DTANS_SYMBOLS || dd->distinct == 0 || nv == 0 ||
      dd->distinct * nv > PAIR_CELLS || A->nnz >= (INT64_C(1) << 32))
    return ZS_OK;
  int64_t lo = INT32_MAX, hi = INT32_MIN;
  for (int64_t j = 0; j < dd->distinct; j++) {
    const int32_t delta = (int32_t)(uint32_t)dd->sorted[j].key;
    lo = delta < lo ? delta : lo, hi = delta > hi ? delta : hi;
  }
  if (hi - lo >= PAIR_SPAN) return ZS_OK;
  const int nt = zsi_omp_threads();
  const int64_t cells = dd->distinct * nv;
  x->lo = lo, x->span = hi - lo + 1, x->n = dd->distinct, x->nv = nv;
  x->of = zsi_alloc_array((uint64_t)x->span, sizeof *x->of);
  p->vr = zsi_alloc_array((uint64_t)(A->nnz ? A->nnz : 1), sizeof *p->vr);
  uint32_t *count = zsi_alloc_array((uint64_t)nt * (uint64_t)cells, sizeof *count);
  uint64_t *unseen = calloc((size_t)nt, sizeof *unseen);
  if (!x->of || !p->vr || !count || !unseen) {
    zsi_free(count), free(unseen);
    return zsi_error(ZS_ERR_OUT_OF_MEMORY, "dtans: pair counts");
  }
  for (int64_t j = 0; j < x->n; j++) {
    x->delta[j] = (int32_t)(uint32_t)dd->sorted[j].key;
    x->of[x->delta[j] - lo] = (uint16_t)(j + 1);
  }
  const uint8_t *is_long = p->is_long;
  uint16_t *vr = p->vr;
  ZSI_OMP(parallel num_threads(nt)) {
    const int t = zsi_omp_tid(), n = zsi_omp_nth();
    uint32_t *c = count + (size_t)t * (size_t)cells;
    const int64_t lo_nz = A->nnz * t / n, hi_nz = A->nnz * (t + 1) / n;
    for (int64_t r = first_row_after(A, lo_nz); r < A->rows; r++) {
      const int64_t from = A->row_ptr[r] > lo_nz ? A->row_ptr[r] : lo_nz;
      const int64_t to = A->row_ptr[r + 1] < hi_nz ? A->row_ptr[r + 1] : hi_nz;
      if (from >= hi_nz) break;
      for (int64_t k = from; k < to && !is_long[r]; k++) {
        const uint16_t rank1 = (uint16_t)(id_of(&p->vrank, dtans_value_key(A, k), -1) + 1);
        vr[k] = rank1;
        if (rank1)
          c[pair_cell(x, A, r, k, rank1)]++;
        else
          unseen[t]++;
      }
    }
  }
  int64_t distinct = 0;
  for (int64_t j = 0; j < cells; j++) {
    for (int t = 1; t < nt; t++) count[j] += count[(size_t)t * (size_t)cells + (size_t)j];
    distinct += count[j] != 0;
  }
  uint64_t cap = 1024;
  while (cap < 2 * (uint64_t)distinct) cap *= 2;
  zs_status s = ZS_OK;
  if (!hist_init(&p->hp, cap)) s = zsi_error(ZS_ERR_OUT_OF_MEMORY, "dtans: pair histogram");
  for (int64_t j = 0; j < cells && s == ZS_OK; j++)
    if (count[j])
      hist_add(&p->hp, (uint64_t)(uint32_t)x->delta[j / nv] << 32 | (uint64_t)(j % nv), count[j]);
  for (int t = 0; t < nt && s == ZS_OK; t++) p->hp.unseen += unseen[t];
  zsi_free(count), free(unseen);
  *done = s == ZS_OK;
  return s;
}

/* Table choice: the tables of both domains, the joint and raw-column tables where they may pay,
 * and the value mode with the smallest expected size. */
static zs_status choose_tables(enc_plan *p) {
  const zs_matrix *A = p->A;
  const enc_opts *o = p->o;
  const double es = (double)p->es;
  const int64_t coded_nnz = p->coded_nnz;
  domain *dd = &p->dd, *vd = &p->vd, *pd = &p->pd, *cd = &p->cd;
  int mode = p->mode;
  zs_status s;
  if ((s = domain_sorted(&p->hd, dd)) != ZS_OK || (s = domain_choose(dd, 32, 4)) != ZS_OK) return s;
  if (mode != DTANS_VALUES_RAW &&
      ((s = domain_sorted(&p->hv, vd)) != ZS_OK || (s = domain_choose(vd, 8.0 * es, es)) != ZS_OK))
    return s;
  if (mode == DTANS_VALUES_CONSTANT && !(vd->distinct == 1 && vd->unseen == 0))
    return zsi_error(ZS_ERR_INVALID_ARGUMENT,
                     "dtans: values=constant, but the matrix has %" PRId64 " distinct values",
                     vd->distinct + (int64_t)vd->unseen);
  /* Joint pairs, tried when every value and every delta is among the DTANS_SYMBOLS most
   * frequent of its domain (random values or random columns make more pairs than a table
   * holds, and the pass would only cost time: few-valued Erdős–Rényi encoding 37 -> 13 M
   * nonzeros/s): a stencil's few deltas times its values fit one table, 8 nonzeros per segment
   * instead of 4 and no 4-bit floor on the delta. */
  double joint_bits = INFINITY;
  const int constant_values = coded_nnz > 0 && vd->distinct == 1 && vd->unseen == 0;
  const int64_t head = vd->distinct < DTANS_SYMBOLS ? vd->distinct : DTANS_SYMBOLS;
  const int try_joint =
      mode == DTANS_VALUES_JOINT ||
      (mode < 0 && coded_nnz > 0 && !constant_values && vd->unseen == 0 &&
       vd->distinct <= DTANS_SYMBOLS && dd->unseen == 0 && dd->distinct <= DTANS_SYMBOLS);
  /* Raw columns: joint pairs of delta 0 (the values alone) beside the columns as they are, tried
   * where values are not raw and not one constant. Rows that step to random columns escape nearly
   * every delta (Erdős–Rényi, R-MAT): 32 raw bits behind an escape symbol, 4 nonzeros a segment
   * with coded values, against 32 bits and 8 nonzeros a segment here. columns=auto tries them
   * for 8-byte values only: on the H100 they made few-valued Erdős–Rényi's f64 SpMV faster and
   * its f32 SpMV slower (docs/performance.md). */
  const int try_raw_columns =
      (o->columns == 1 || (o->columns < 0 && p->es == 8)) && coded_nnz > 0 && vd->unseen == 0 &&
      head > 0 &&
      (mode == DTANS_VALUES_JOINT || (mode < 0 && !constant_values && o->columns == 1) ||
       (mode < 0 && !constant_values && vd->choice.bits < 8.0 * es * (double)coded_nnz));
  if (o->columns == 1 && coded_nnz > 0 && !try_raw_columns)
    return zsi_error(ZS_ERR_INVALID_ARGUMENT,
                     "dtans: columns=raw needs values a table can code (values=auto or joint, "
                     "not raw or constant, and a value histogram that kept every value)");
  if (try_joint || try_raw_columns) {
    if (!hist_init(&p->vrank, 4 * DTANS_SYMBOLS))
      return zsi_error(ZS_ERR_OUT_OF_MEMORY, "dtans: value ranks");
    for (int64_t r = 0; r < head; r++) hist_place(&p->vrank, vd->sorted[r].key, (uint64_t)r + 1);
  }
  if (try_joint && o->columns != 1) {
    int indexed;
    if ((s = pair_histogram(p, head, &indexed)) != ZS_OK ||
        (!indexed && (s = histograms(A, p->is_long, 0, &p->vrank, &p->hp, NULL)) != ZS_OK) ||
        (s = domain_sorted(&p->hp, pd)) != ZS_OK ||
        (s = domain_choose(pd, 32 + 8.0 * es, 4 + 2)) != ZS_OK)
      return s;
    p->n_pair_values = pair_value_count(pd);
    joint_bits = pd->choice.bits + 8.0 * es * (double)p->n_pair_values;
  }
  /* The raw-column pairs' histogram is the value histogram by rank: no pass over the matrix. An
   * escaped pair stores its value alone; each coded nonzero adds its 32-bit column. */
  int64_t n_column_values = 0;
  double raw_columns_bits = INFINITY;
  if (try_raw_columns) {
    if ((s = domain_of_ranks(vd, head, cd)) != ZS_OK ||
        (s = domain_choose(cd, 8.0 * es, 4 + 2)) != ZS_OK)
      return s;
    n_column_values = pair_value_count(cd);
    raw_columns_bits =
        cd->choice.bits + 8.0 * es * (double)n_column_values + 32.0 * (double)coded_nnz;
  }
  int raw_columns = o->columns == 1 && coded_nnz > 0;
  double chosen_bits = joint_bits; /* of the value mode taken (values=joint: the joint table) */
  if (mode < 0 && !raw_columns) {
    const double raw_bits = 8.0 * es * (double)coded_nnz;
    const double split =
        dd->choice.bits + (vd->choice.bits < raw_bits ? vd->choice.bits : raw_bits);
    if (constant_values)
      mode = DTANS_VALUES_CONSTANT, chosen_bits = dd->choice.bits;
    else if (joint_bits <= split * 1.1)
      /* Joint even when a little larger: a joint segment decodes 8 nonzeros where a coded one
       * decodes 4, and the kernels are bound by decoding (on the H100 the few-valued banded
       * matrix, 5.4 % larger as joint, ran its SpMV in 4-8 % less time). */
      mode = DTANS_VALUES_JOINT, chosen_bits = joint_bits;
    else {
      mode = vd->choice.bits < raw_bits ? DTANS_VALUES_CODED : DTANS_VALUES_RAW;
      chosen_bits = split;
    }
  }
  /* columns=auto: raw columns when they are at most as large as that mode */
  if (try_raw_columns && o->columns < 0 && raw_columns_bits <= chosen_bits) raw_columns = 1;
  if (raw_columns) mode = DTANS_VALUES_JOINT;
  if ((mode == DTANS_VALUES_CONSTANT || mode == DTANS_VALUES_JOINT) && coded_nnz == 0)
    mode = DTANS_VALUES_RAW;
  p->mode = mode;
  p->coded = mode == DTANS_VALUES_CODED, p->joint = mode == DTANS_VALUES_JOINT;
  p->raw_columns = raw_columns;
  if (raw_columns) p->n_pair_values = n_column_values;
  p->dom = raw_columns ? cd : p->joint ? pd : dd;
  return ZS_OK;
}

/* Slicing: 32 rows at a time until a lane has about lane_symbols symbols (or rows_per_lane=R
 * rows each), which spreads a lane's fixed costs (three initial words, the unused state at its
 * end) over many rows and keeps the lanes of dense and sparse regions equally busy. In a matrix
 * of at least `guided` full slices the last ones are smaller: a GPU's warps take slices in order
 * as they finish, and equal slices would leave most warps idle in the last round. */
static zs_status cut_rows(enc_plan *p) {
  const zs_matrix *A = p->A;
  const int64_t R = p->o->rpl;
  p->slice_rows = malloc(((size_t)A->rows / DTANS_LANES + 2) * sizeof *p->slice_rows);
  if (!p->slice_rows) return zsi_error(ZS_ERR_OUT_OF_MEMORY, "dtans: slice table");
  const int64_t per_nz = p->coded ? 2 : 1, full = DTANS_LANES * p->o->lane_symbols;
  const int64_t symbols = p->coded_nnz * per_nz;
  int64_t guided = p->o->guided;
  /* Raw and constant values: the GPU kernel runs a quarter more warps and reads the raw values
   * beside the stream; measured on the H100, smaller last slices only slowed it, while coded and
   * joint ones gained. */
  if (guided == -1) guided = p->coded || p->joint ? 2048 : 0;
  if (R > 0) guided = 0;              /* rows_per_lane: uniform slices */
  if (guided == DTANS_GUIDED_START) { /* as many as the equal cut: they shrink from the first */
    guided = cut_slices(A, p->is_long, per_nz, symbols, full, R, 0, 1, p->slice_rows);
    if (guided < 2) guided = 0;
  } else if (guided > 0 && symbols / guided < full)
    guided = 0; /* too small to fill a GPU anyway */
  p->guided = guided;
  p->slices = cut_slices(A, p->is_long, per_nz, symbols, full, R, guided, p->o->guided_floor,
                         p->slice_rows);
  return ZS_OK;
}

/* Each slice's pass, in parallel with progress: sizing (b NULL) into so[sl + 1], or writing at
 * the cursors so[sl] into b's arrays. Returns 0 when a thread's scratch could not be had. */
static int slice_pass(enc_plan *p, const blob_out *b) {
  const int progress = p->o->progress;
  const int64_t slices = p->slices;
  int failed = 0;
  ZSI_OMP(parallel num_threads(zsi_omp_threads())) {
    slice_scratch sc = {NULL, NULL, NULL, NULL, 0, 0};
    ZSI_OMP(for schedule(dynamic, 64))
    for (int64_t sl = 0; sl < slices; sl++) {
      int ok;
      if (b) {
        slice_out cur = p->so[sl];
        ok = slice_write(&p->e, sl, &sc, &cur, b->stream, b->desc, b->vesc, b->raw, b->columns);
      } else {
        ok = slice_size(&p->e, sl, &sc, &p->so[sl + 1]);
      }
      if (!ok) {
        ZSI_OMP(atomic write)
        failed = 1;
      }
      if (progress && sl % 4096 == 0) {
        ZSI_OMP(atomic)
        p->done_slices += 4096;
        zsi_progress_update(&p->pr, (uint64_t)p->done_slices);
      }
    }
    scratch_free(&sc);
  }
  return !failed;
}

/* Slicing, continued: the symbol ids of every nonzero, where each slice's raw values start, and
 * each slice's words and escapes (the sizing pass), summed into cursors. */
static zs_status size_slices(enc_plan *p) {
  const zs_matrix *A = p->A;
  const int coded = p->coded, joint = p->joint, raw_columns = p->raw_columns;
  const uint8_t *is_long = p->is_long;
  const domain *dom = p->dom, *dd = &p->dd, *vd = &p->vd;
  const hist *vrank = &p->vrank;
  /* Ids per nonzero (the escape id is `coded`, one past the coded symbols). */
  uint16_t *did = p->did = zsi_alloc_array((uint64_t)(A->nnz ? A->nnz : 1), 2); /* huge pages */
  uint16_t *vid = p->vid = coded ? zsi_alloc_array((uint64_t)(A->nnz ? A->nnz : 1), 2) : NULL;
  if (!did || (coded && !vid))
    return zsi_error(ZS_ERR_OUT_OF_MEMORY, "dtans: symbol ids of %" PRId64 " nonzeros", A->nnz);
  /* A joint pair's id from plain arrays where they can hold it: by value rank (raw columns), or
   * by pair cell (pair_index); the rank itself from vr where pair_histogram kept it. */
  const uint16_t esc = (uint16_t)dom->choice.coded, *vr = p->vr;
  const pair_index *x = &p->pi;
  const int64_t ranks = joint ? (vd->distinct < DTANS_SYMBOLS ? vd->distinct : DTANS_SYMBOLS) : 0;
  const int64_t cells = joint && !raw_columns && x->of ? x->n * x->nv : 0;
  uint16_t *by_rank = raw_columns ? malloc((size_t)(ranks ? ranks : 1) * 2) : NULL;
  uint16_t *by_cell = cells ? malloc((size_t)cells * 2) : NULL;
  if ((raw_columns && !by_rank) || (cells && !by_cell)) {
    free(by_rank), free(by_cell);
    return zsi_error(ZS_ERR_OUT_OF_MEMORY, "dtans: pair ids");
  }
  for (int64_t r = 0; r < ranks && by_rank; r++) by_rank[r] = (uint16_t)id_of(&dom->ids, r, esc);
  for (int64_t j = 0; j < cells; j++) by_cell[j] = esc;
  for (int i = 0; i < dom->choice.coded && by_cell; i++) { /* a coded pair's delta and rank */
    const int64_t delta = (int32_t)(uint32_t)(dom->sorted[i].key >> 32);
    by_cell[(int64_t)(x->of[delta - x->lo] - 1) * x->nv +
            (int64_t)(dom->sorted[i].key & UINT32_MAX)] = (uint16_t)i;
  }
  ZSI_OMP(parallel for num_threads(zsi_omp_threads()) schedule(dynamic, 4096))
  for (int64_t i = 0; i < A->rows; i++)
    for (int64_t k = A->row_ptr[i]; k < A->row_ptr[i + 1] && !is_long[i]; k++) {
      if (joint) {
        const int rank1 = vr ? vr[k] : id_of(vrank, dtans_value_key(A, k), -1) + 1;
        if (!rank1)
          did[k] = esc; /* a value without a rank is always escaped */
        else if (by_rank)
          did[k] = by_rank[rank1 - 1];
        else if (by_cell)
          did[k] = by_cell[pair_cell(x, A, i, k, (uint16_t)rank1)];
        else
          did[k] =
              (uint16_t)id_of(&dom->ids, delta_key(A, i, k) << 32 | (uint64_t)(rank1 - 1), esc);
      } else {
        did[k] = (uint16_t)id_of(&dd->ids, delta_key(A, i, k), dd->choice.coded);
      }
      if (coded) vid[k] = (uint16_t)id_of(&vd->ids, dtans_value_key(A, k), vd->choice.coded);
    }
  free(by_rank), free(by_cell);

  /* Raw values are in decoding order: a slice's start is the coded nonzeros before it. */
  const int64_t slices = p->slices, *slice_rows = p->slice_rows;
  int64_t *raw_start = p->raw_start = malloc(((size_t)slices + 1) * sizeof *raw_start);
  if (!raw_start) return zsi_error(ZS_ERR_OUT_OF_MEMORY, "dtans: slice offsets");
  raw_start[0] = 0;
  for (int64_t sl = 0; sl < slices; sl++) {
    raw_start[sl + 1] = raw_start[sl];
    for (int64_t i = slice_rows[sl]; i < slice_rows[sl + 1]; i++)
      if (!is_long[i]) raw_start[sl + 1] += A->row_ptr[i + 1] - A->row_ptr[i];
  }
  p->e = (encoder){
      A,   is_long, raw_start, coded, joint, raw_columns, slice_rows, p->dom, coded ? &p->vd : NULL,
      did, vid};
  slice_out *so = p->so = calloc((size_t)slices + 1, sizeof *so);
  if (!so) return zsi_error(ZS_ERR_OUT_OF_MEMORY, "dtans: slice sizes");
  zsi_progress_begin(&p->pr, "dtans encode", 2 * (uint64_t)slices, p->o->progress);
  if (!slice_pass(p, NULL)) return zsi_error(ZS_ERR_OUT_OF_MEMORY, "dtans: slice scratch");
  for (int64_t sl = 0; sl < slices; sl++) {
    so[sl + 1].words += so[sl].words, so[sl + 1].desc += so[sl].desc;
    so[sl + 1].vesc += so[sl].vesc;
  }
  return ZS_OK;
}

/* Bytes of a blob's arrays: what version 5 and versions 2-4 are compared by. */
static uint64_t blob_bytes(const zs_encoded *E) {
  uint64_t b = 0;
  for (int i = 0; i < E->n_arrays; i++) b += E->arrays[i].count * E->arrays[i].elem_size;
  return b;
}

/* row_nnz in 1, 2 or 4 bytes a row: the narrowest whose all-ones value (the long-row mark) is
 * above every row in the stream (2-D stencil: 1 byte, against 4, a third of its few-valued blob). */
static uint32_t row_bytes(const enc_plan *p) {
  return p->longest < UINT8_MAX ? 1 : p->longest < UINT16_MAX ? 2 : 4;
}

/* The blob's bytes (the sum blob_bytes takes) once its stream holds `words` words: the arrays that
 * step 3 of the table choice does not price, plus what it prices beside the slots (escapes and
 * dictionaries, which it counts exactly). With the slots' cross-entropy (ce_bits / 32) in place of
 * words, a lower bound of the blob: a lane's words are 3 per segment less the words its base pass
 * takes out of the state, and it takes out at most the bits its bases multiply to, so 32 words
 * hold at least every slot's 12 bits less log2 of its multiplicity. `perm`: row_perm is stored. */
static double planned_bytes(const enc_plan *p, int perm, double words) {
  const double es = (double)p->es, ns1 = (double)p->slices + 1, nnz = (double)p->coded_nnz;
  const domain *priced[2] = {p->dom, p->coded ? &p->vd : NULL};
  double b = 4.0 * words;
  for (int d = 0; d < 2; d++)
    if (priced[d]) b += (priced[d]->choice.bits - priced[d]->choice.ce_bits) / 8;
  b += (double)(p->o->row_bytes ? (uint32_t)p->o->row_bytes : row_bytes(p)) * (double)p->A->rows;
  b += 24.0 * ns1 + (p->coded ? 8.0 * ns1 : 0); /* slice_words, _rows, _delta_escapes (_value_) */
  if (p->raw_columns) b += 4.0 * nnz;
  if (p->joint) b += (double)p->n_pair_values * es;
  if (p->mode == DTANS_VALUES_CONSTANT) b += es;
  if (p->mode == DTANS_VALUES_RAW) b += nnz * es;
  b += 4.0 * (double)p->n_long + 8.0 * ((double)p->n_long + 1) + (4.0 + es) * (double)p->long_nnz;
  if (perm) b += 4.0 * (double)p->A->rows;
  if (p->o->col_perm) b += 4.0 * (double)p->A->cols;
  return b;
}

/* Whether a version 5 blob of `rival` bytes is kept against this one of `bytes`: when it is at
 * most 3 % larger (integer arithmetic: the choice must not depend on rounding). */
static int rival_kept(uint64_t rival, uint64_t bytes) { return 100 * rival <= 103 * bytes; }

/* Writing: the blob and its arrays, the tables filled in; the streams are written after. */
static zs_status add_arrays(const enc_plan *p, blob_out *b) {
  const zs_matrix *A = p->A;
  const size_t es = p->es;
  const int64_t ns = p->slices, longest = p->longest;
  const slice_out *so = p->so;
  const domain *dom = p->dom, *vd = &p->vd;
  if (p->o->row_bytes && (uint32_t)p->o->row_bytes < row_bytes(p))
    return zsi_error(ZS_ERR_INVALID_ARGUMENT,
                     "dtans: row_bytes=%d cannot hold a row of %" PRId64 " nonzeros in the stream",
                     (int)p->o->row_bytes, longest);
  b->len_bytes = p->o->row_bytes ? (uint32_t)p->o->row_bytes : row_bytes(p);
  int32_t *dsym;
  uint16_t *dcnt, *vcnt;
  void *vsym;
  zs_encoded *E = NULL;
  zs_status s;
  if ((s = zsi_encoded_new(&b->E, ZS_FORMAT_DTANS, A->type, A->rows, A->cols, A->nnz)) != ZS_OK)
    return s;
  E = b->E;
  if ((s = zsi_encoded_add_array(E, "row_nnz", b->len_bytes, (uint64_t)A->rows, &b->row_nnz)) ||
      (s = zsi_encoded_add_array(E, "slice_words", 8, (uint64_t)ns + 1, (void **)&b->sw)) ||
      (s = zsi_encoded_add_array(E, "slice_rows", 8, (uint64_t)ns + 1, (void **)&b->srows)) ||
      (s = zsi_encoded_add_array(E, "stream", 4, (uint64_t)so[ns].words, (void **)&b->stream)) ||
      (s = zsi_encoded_add_array(E, "delta_counts", 2, (uint64_t)dom->choice.entries,
                                 (void **)&dcnt)) ||
      (s = zsi_encoded_add_array(E, "delta_symbols", 4, (uint64_t)dom->choice.coded,
                                 (void **)&dsym)) ||
      (s = zsi_encoded_add_array(E, "slice_delta_escapes", 8, (uint64_t)ns + 1, (void **)&b->sd)) ||
      (s = zsi_encoded_add_array(E, "delta_escapes", 4, p->raw_columns ? 0 : (uint64_t)so[ns].desc,
                                 (void **)&b->desc)))
    return s;
  if (p->raw_columns &&
      (s = zsi_encoded_add_array(E, "columns", 4, (uint64_t)p->coded_nnz, (void **)&b->columns)))
    return s;
  if (p->coded) {
    if ((s = zsi_encoded_add_array(E, "value_counts", 2, (uint64_t)vd->choice.entries,
                                   (void **)&vcnt)) ||
        (s = zsi_encoded_add_array(E, "value_symbols", (uint32_t)es, (uint64_t)vd->choice.coded,
                                   &vsym)) ||
        (s = zsi_encoded_add_array(E, "slice_value_escapes", 8, (uint64_t)ns + 1,
                                   (void **)&b->sv)) ||
        (s = zsi_encoded_add_array(E, "value_escapes", (uint32_t)es, (uint64_t)so[ns].vesc,
                                   &b->vesc)))
      return s;
    memcpy(vcnt, vd->choice.counts, (size_t)vd->choice.entries * 2);
    for (int i = 0; i < vd->choice.coded; i++)
      memcpy((char *)vsym + (size_t)i * es, &vd->sorted[i].key, es); /* little-endian low bytes */
  } else if (p->joint) {
    uint16_t *pv;
    if ((s = zsi_encoded_add_array(E, "pair_values", 2, (uint64_t)dom->choice.coded,
                                   (void **)&pv)) ||
        (s = zsi_encoded_add_array(E, "value_symbols", (uint32_t)es, (uint64_t)p->n_pair_values,
                                   &vsym)) ||
        (s = zsi_encoded_add_array(E, "value_escapes", (uint32_t)es, (uint64_t)so[ns].vesc,
                                   &b->vesc)))
      return s;
    for (int i = 0; i < dom->choice.coded; i++) pv[i] = (uint16_t)(dom->sorted[i].key & UINT32_MAX);
    for (int64_t r = 0; r < p->n_pair_values; r++)
      memcpy((char *)vsym + (size_t)r * es, &vd->sorted[r].key, es);
  } else if (p->mode == DTANS_VALUES_CONSTANT) {
    if ((s = zsi_encoded_add_array(E, "value_symbols", (uint32_t)es, 1, &vsym))) return s;
    memcpy(vsym, &vd->sorted[0].key, es); /* the one value of the coded rows */
  } else {
    if ((s = zsi_encoded_add_array(E, "values", (uint32_t)es, (uint64_t)p->coded_nnz, &b->raw)))
      return s;
  }
  memcpy(dcnt, dom->choice.counts, (size_t)dom->choice.entries * 2);
  for (int i = 0; i < dom->choice.coded; i++)
    dsym[i] = (int32_t)(uint32_t)(p->joint ? dom->sorted[i].key >> 32 : dom->sorted[i].key);
  if ((s = zsi_encoded_add_array(E, "long_rows", 4, (uint64_t)p->n_long, (void **)&b->lrows)) ||
      (s = zsi_encoded_add_array(E, "long_ptr", 8, (uint64_t)p->n_long + 1, (void **)&b->lptr)) ||
      (s = zsi_encoded_add_array(E, "long_cols", 4, (uint64_t)p->long_nnz, (void **)&b->lcols)) ||
      (s = zsi_encoded_add_array(E, "long_values", (uint32_t)es, (uint64_t)p->long_nnz, &b->lvals)))
    return s;
  return ZS_OK;
}

/* Writing, continued: row_nnz, the long rows as CSR, the slice tables. */
static void write_rows(const enc_plan *p, const blob_out *b) {
  const zs_matrix *A = p->A;
  const size_t es = p->es;
  for (int64_t i = 0, k = 0; i < A->rows; i++) {
    const int64_t n = A->row_ptr[i + 1] - A->row_ptr[i];
    const uint32_t len = p->is_long[i] ? DTANS_LONG : (uint32_t)n; /* all ones in any width */
    if (b->len_bytes == 1)
      ((uint8_t *)b->row_nnz)[i] = (uint8_t)len;
    else if (b->len_bytes == 2)
      ((uint16_t *)b->row_nnz)[i] = (uint16_t)len;
    else
      ((uint32_t *)b->row_nnz)[i] = len;
    if (!p->is_long[i]) continue;
    b->lrows[k] = (int32_t)i, b->lptr[k + 1] = b->lptr[k] + n;
    memcpy(b->lcols + b->lptr[k], A->col_idx + A->row_ptr[i], (size_t)n * 4);
    memcpy((char *)b->lvals + (size_t)b->lptr[k] * es,
           (const char *)A->values + (size_t)A->row_ptr[i] * es, (size_t)n * es);
    k++;
  }
  memcpy(b->srows, p->slice_rows, ((size_t)p->slices + 1) * sizeof *b->srows);
  for (int64_t sl = 0; sl <= p->slices; sl++) {
    b->sw[sl] = p->so[sl].words, b->sd[sl] = p->so[sl].desc;
    if (b->sv) b->sv[sl] = p->so[sl].vesc;
  }
}

/* Writing, last: the orders, and the parameters with what the tables promise (the
 * cross-entropy bound of the stream and the predicted size). */
static zs_status add_params(const enc_plan *p, const int32_t *perm, const blob_out *b) {
  const zs_matrix *A = p->A;
  const enc_opts *o = p->o;
  const double es = (double)p->es;
  const domain *dom = p->dom, *vd = &p->vd;
  const int coded = p->coded, joint = p->joint;
  const int64_t ns = p->slices;
  zs_encoded *E = b->E;
  zs_status s;
  const double bound = dom->choice.ce_bits + (coded ? vd->choice.ce_bits : 0);
  double predicted =
      dom->choice.bits / 8 + (double)b->len_bytes * (double)A->rows + 16.0 * (double)(ns + 1);
  if (coded) predicted += vd->choice.bits / 8 + 8.0 * (double)(ns + 1);
  if (joint) predicted += (double)p->n_pair_values * es;
  if (p->mode == DTANS_VALUES_RAW) predicted += (double)p->coded_nnz * es;
  if (p->raw_columns) predicted += 4.0 * (double)p->coded_nnz;
  predicted += (double)p->long_nnz * (4.0 + es) + 12.0 * (double)p->n_long;
  int32_t *rperm, *cperm;
  if (perm && (s = zsi_encoded_add_array(E, "row_perm", 4, (uint64_t)A->rows, (void **)&rperm)))
    return s;
  if (perm) {
    memcpy(rperm, perm, (size_t)A->rows * sizeof *rperm);
    predicted += 4.0 * (double)A->rows;
  }
  if (o->col_perm &&
      (s = zsi_encoded_add_array(E, "col_perm", 4, (uint64_t)A->cols, (void **)&cperm)))
    return s;
  if (o->col_perm) {
    memcpy(cperm, o->col_perm, (size_t)A->cols * sizeof *cperm);
    predicted += 4.0 * (double)A->cols;
  }
  const int64_t version = o->col_perm ? DTANS_VERSION_COL_ORDER
                          : perm      ? DTANS_VERSION_ROW_ORDER
                                      : DTANS_VERSION;
  if ((s = zsi_encoded_add_param(E, "version", version)) ||
      (s = zsi_encoded_add_param(E, "table_log", DTANS_TABLE_LOG)) ||
      (s = zsi_encoded_add_param(E, "max_multiplicity", DTANS_M)) ||
      (s = zsi_encoded_add_param(E, "lanes", DTANS_LANES)) ||
      (s = zsi_encoded_add_param(E, "slices", ns)) ||
      (s = zsi_encoded_add_param(E, "first_column", 1)) ||
      (s = zsi_encoded_add_param(E, "value_mode", p->mode)) ||
      (p->raw_columns && (s = zsi_encoded_add_param(E, "column_mode", DTANS_COLUMNS_RAW))) ||
      (s = zsi_encoded_add_param(E, "delta_real", dom->choice.coded)) ||
      (s = zsi_encoded_add_param(E, "delta_escape", dom->choice.escape)) ||
      (coded && (s = zsi_encoded_add_param(E, "value_real", vd->choice.coded))) ||
      (joint && (s = zsi_encoded_add_param(E, "value_real", p->n_pair_values))) ||
      (coded && (s = zsi_encoded_add_param(E, "value_escape", vd->choice.escape))) ||
      (s = zsi_encoded_add_param(E, "coded_symbols", p->coded_nnz * (coded ? 2 : 1))) ||
      (s = zsi_encoded_add_param(E, "long_min", o->long_min)) ||
      (p->guided > 0 && (s = zsi_encoded_add_param(E, "guided", p->guided))) ||
      (s = zsi_encoded_add_param(E, "bound_bits", (int64_t)ceil(bound))) ||
      (s = zsi_encoded_add_param(E, "predicted_bytes", (int64_t)ceil(predicted))))
    return s;
  return ZS_OK;
}

/* Encode A's rows in their order; perm (NULL: none) says which row of the caller's matrix each
 * one is, and goes into the blob as row_perm (version 3). */
static zs_status encode_rows(const zs_matrix *A, const enc_opts *o, const int32_t *perm,
                             zs_encoded **out) {
  enc_plan p;
  memset(&p, 0, sizeof p);
  p.A = A, p.o = o, p.es = zs_type_size(A->type), p.mode = o->mode;
  blob_out b;
  memset(&b, 0, sizeof b);
  *out = NULL;
  zs_status s = count_symbols(&p);
  if (s == ZS_OK) s = choose_tables(&p);
  if (s == ZS_OK) s = cut_rows(&p);
  /* Against a rival (templates=auto): kept on the lower bound, before any slice is coded; else
   * on the exact size the sizing pass gives, before the digit pass and the writing. */
  const double ce = p.dom ? p.dom->choice.ce_bits + (p.coded ? p.vd.choice.ce_bits : 0) : 0;
  if (s == ZS_OK && o->rival &&
      rival_kept(o->rival, (uint64_t)(planned_bytes(&p, perm != NULL, ce / 32) * (1 - 1e-9))))
    return plan_free(&p), ZS_OK;
  if (s == ZS_OK) s = size_slices(&p);
  uint64_t planned = 0; /* the exact size, now that the words are counted */
  if (s == ZS_OK)
    planned = (uint64_t)llround(planned_bytes(&p, perm != NULL, p.so[p.slices].words));
  if (s == ZS_OK && o->rival && rival_kept(o->rival, planned)) {
    zsi_progress_end(&p.pr);
    return plan_free(&p), ZS_OK;
  }
  if (s == ZS_OK) s = add_arrays(&p, &b);
  if (s == ZS_OK) {
    write_rows(&p, &b);
    if (!slice_pass(&p, &b)) s = zsi_error(ZS_ERR_OUT_OF_MEMORY, "dtans: slice scratch");
    zsi_progress_end(&p.pr);
  }
  if (s == ZS_OK) s = add_params(&p, perm, &b);
  assert(s != ZS_OK || blob_bytes(b.E) == planned); /* the exact choice needs planned_bytes */
  plan_free(&p);
  if (s != ZS_OK) {
    zs_encoded_destroy(&b.E);
    return s;
  }
  *out = b.E;
  return ZS_OK;
}

/* The row length from which rows count as equal when ordered by length: the long-row threshold,
 * or the longest row when it is shorter. */
static int64_t length_cap(const zs_matrix *A, const enc_opts *o) {
  int64_t longest = 0;
  for (int64_t i = 0; i < A->rows; i++)
    if (A->row_ptr[i + 1] - A->row_ptr[i] > longest) longest = A->row_ptr[i + 1] - A->row_ptr[i];
  return o->long_min > 0 && o->long_min < longest ? o->long_min : longest;
}

/* The rows in their order, or by length (row_order), and the columns renumbered through `map`
 * (col_order; NULL: kept), in one copy of the matrix when either applies; then encode_rows. */
static zs_status encode_ordered(const zs_matrix *A, const enc_opts *op, const int32_t *map,
                                zs_encoded **out) {
  const enc_opts o = *op;
  zs_status s;
  int32_t *perm = NULL;
  if (o.row_order != 0 && A->rows >= 2 && A->nnz > 0) {
    /* The rows ordered by length, and whether that pays (auto): R-MAT's degree follows the low
     * bits of the row index, so lanes taken by row mod 32 differ several-fold.
     * Row lengths alone decide, so renumbered columns change nothing here. */
    const int64_t cap = length_cap(A, &o);
    if (!(perm = zsi_dtans_rows_by_length(A, cap)))
      return zsi_error(ZS_ERR_OUT_OF_MEMORY, "dtans: row order");
    if (o.row_order < 0 && !(lockstep_cost(A, NULL, o.lane_symbols, cap) >
                             1.5 * lockstep_cost(A, perm, o.lane_symbols, cap)))
      free(perm), perm = NULL;
  }
  if (!perm && !map) return encode_rows(A, &o, NULL, out);
  zs_matrix *P = NULL;
  if ((s = dtans_ordered_copy(A, perm, map, &P)) == ZS_OK) s = encode_rows(P, &o, perm, out);
  zs_matrix_destroy(&P);
  free(perm);
  return s;
}

/* Columns by descending count, ties in column order: perm[c'] is the matrix's column of encoded
 * column c', map[c] the encoded column of the matrix's column c. A counting sort: with_count[n]
 * (how many columns hold n nonzeros, n = 0 … most) becomes where the columns of count n start. */
static void columns_by_count(const zs_matrix *A, const uint32_t *count, int64_t *with_count,
                             int64_t most, int32_t *perm, int32_t *map) {
  for (int64_t n = most, at = 0; n >= 0; n--) {
    const int64_t columns = with_count[n];
    with_count[n] = at, at += columns;
  }
  for (int64_t c = 0; c < A->cols; c++) {
    const int64_t at = with_count[count[c]]++;
    perm[at] = (int32_t)c, map[c] = (int32_t)at;
  }
}

/* col_order=auto: whether the rule of dtans_order.h renumbers the columns, from the nonzeros in
 * the 1 % fullest columns. */
static int skewed_columns(const zs_matrix *A, const int64_t *with_count, int64_t most) {
  int64_t top = (A->cols + 99) / 100, held = 0;
  for (int64_t n = most; n > 0 && top > 0; n--) {
    const int64_t take = with_count[n] < top ? with_count[n] : top;
    held += take * n, top -= take;
  }
  return zsi_dtans_columns_by_count(A->cols, (double)held / (double)A->nnz);
}

/* The columns by count (perm: the matrix's column of each encoded one, map: the inverse) when
 * col_order asks (frequency) or allows and the columns are skewed (auto); both NULL otherwise. */
static zs_status column_order(const zs_matrix *A, int col_order, int32_t **perm, int32_t **map) {
  *perm = NULL, *map = NULL;
  const int natural = col_order == 0 || (col_order < 0 && A->cols < ZSI_DTANS_ORDER_MIN);
  if (natural || A->cols < 2 || A->nnz == 0) return ZS_OK;
  /* Each column's count (4 bytes: a column holds at most rows < 2^31 nonzeros; the pages are new
   * ones), then how many columns hold each count. */
  uint32_t *count = calloc((size_t)A->cols, sizeof *count);
  if (!count) return zsi_error(ZS_ERR_OUT_OF_MEMORY, "dtans: column counts");
  int64_t most = 0;
  for (int64_t k = 0; k < A->nnz; k++) count[A->col_idx[k]]++;
  for (int64_t c = 0; c < A->cols; c++) most = (int64_t)count[c] > most ? (int64_t)count[c] : most;
  int64_t *with_count = calloc((size_t)most + 1, sizeof *with_count);
  zs_status s = with_count ? ZS_OK : zsi_error(ZS_ERR_OUT_OF_MEMORY, "dtans: column counts");
  for (int64_t c = 0; s == ZS_OK && c < A->cols; c++) with_count[count[c]]++;
  if (s == ZS_OK && (col_order > 0 || skewed_columns(A, with_count, most))) {
    *perm = malloc((size_t)A->cols * sizeof **perm), *map = malloc((size_t)A->cols * sizeof **map);
    if (*perm && *map) columns_by_count(A, count, with_count, most, *perm, *map);
  }
  if (s == ZS_OK && *perm != *map && !(*perm && *map)) { /* one of them not allocated */
    free(*perm), free(*map);
    *perm = NULL, *map = NULL;
    s = zsi_error(ZS_ERR_OUT_OF_MEMORY, "dtans: column order");
  }
  free(count), free(with_count);
  return s;
}

/* Versions 2-4: the columns in their order or renumbered (col_order), then encode_ordered. */
static zs_status encode_streams(const zs_matrix *A, enc_opts o, zs_encoded **out) {
  int32_t *perm, *map;
  zs_status s = column_order(A, o.col_order, &perm, &map);
  if (s == ZS_OK) {
    /* col_order=frequency: renumbered as the rows are copied; col_perm undoes it */
    o.col_perm = perm;
    s = encode_ordered(A, &o, map, out);
  }
  free(perm), free(map);
  return s;
}

/* Version 5 takes a matrix whose rows (but the long ones) fit this many templates: their ids are
 * then at most 2 bytes a row. */
#define DTANS5_MAX_TEMPLATES 65535

/* Version 5 with the rows by length (row_order=length) and the columns by count
 * (col_order=frequency), their permutations added to the blob as row_perm and col_perm. With
 * packed rows alone (row_kind=packed) `auto` orders the rows by the rule of dtans_order.h
 * (2^16 rows or more where a slice waits for its longest row: R-MAT), and the columns as
 * versions 2-4 do (col_order=auto: 2^16 columns or more, skewed); otherwise it keeps version 5's
 * order. */
static zs_status encode_v5(const zs_matrix *A, const enc_opts *o, zs_encoded **out) {
  const int packed_only = o->row_kind == DTANS5_ROWS_PACKED;
  int rows = o->row_order == 1 && A->rows >= 2 && A->nnz > 0;
  zs_status s = ZS_OK;
  if (o->row_order < 0 && packed_only) {
    zsi_dtans5_slices sl;
    if ((s = zsi_dtans5_slices_measure(A, o->long_min, 0, &sl)) != ZS_OK) return s;
    rows = sl.rows_by_length;
  }
  const int cols = o->col_order == 1 ? 1 : o->col_order < 0 && packed_only ? -1 : 0;
  if (!rows && !cols)
    return dtans5_encode(A, o->long_min, o->mode, DTANS5_MAX_TEMPLATES, o->row_kind, out);
  int32_t *rperm = rows ? zsi_dtans_rows_by_length(A, length_cap(A, o)) : NULL;
  int32_t *cperm = NULL, *map = NULL;
  if (rows && !rperm) s = zsi_error(ZS_ERR_OUT_OF_MEMORY, "dtans: row order");
  if (s == ZS_OK) s = column_order(A, cols, &cperm, &map);
  zs_matrix *P = NULL;
  if (s == ZS_OK && (rperm || cperm)) s = dtans_ordered_copy(A, rperm, map, &P);
  if (s == ZS_OK)
    s = dtans5_encode(P ? P : A, o->long_min, o->mode, DTANS5_MAX_TEMPLATES, o->row_kind, out);
  void *to;
  if (s == ZS_OK && *out && rperm &&
      (s = zsi_encoded_add_array(*out, "row_perm", 4, (uint64_t)A->rows, &to)) == ZS_OK)
    memcpy(to, rperm, (size_t)A->rows * 4);
  if (s == ZS_OK && *out && cperm &&
      (s = zsi_encoded_add_array(*out, "col_perm", 4, (uint64_t)A->cols, &to)) == ZS_OK)
    memcpy(to, cperm, (size_t)A->cols * 4);
  if (s != ZS_OK) zs_encoded_destroy(out);
  zs_matrix_destroy(&P);
  free(rperm), free(cperm), free(map);
  return s;
}

/* Version 5 needs values that are constant, raw or packed, and rows and columns in their order
 * unless its rows are packed ones; NULL when the options allow it, else the option that rules it
 * out. */
static const char *templates_excluded(const enc_opts *o) {
  if (o->mode == DTANS_VALUES_CODED || o->mode == DTANS_VALUES_JOINT) return "values=coded|joint";
  if (o->columns == 1) return "columns=raw";
  /* rows and columns in another order: with packed rows only (templates follow the diagonal) */
  if (o->row_kind == DTANS5_ROWS_TEMPLATES && o->row_order == 1) return "row_order=length";
  if (o->row_kind == DTANS5_ROWS_TEMPLATES && o->col_order == 1) return "col_order=frequency";
  return NULL;
}

/* An option that shapes only the streams of versions 2-4 (their slices, lanes, row lengths):
 * given one, templates=auto keeps those versions. */
static int stream_options(const char *options) {
  static const char *const keys[] = {"rows_per_lane", "lane_symbols", "guided",
                                     "guided_floor",  "row_bytes",    NULL};
  for (int i = 0; keys[i]; i++) {
    char buf[32];
    int found = 0;
    if (zsi_option_str(options, keys[i], buf, sizeof buf, &found) == ZS_OK && found) return 1;
  }
  return 0;
}

zs_status dtans_encode(const zs_matrix *A, const char *options, zs_encoded **out) {
  enc_opts o;
  zs_status s = parse_options(options, &o);
  if (s != ZS_OK) return s;
  if (o.long_min < 0) o.long_min = zsi_dtans_long_min(A->rows, A->nnz, o.lane_symbols);
  const char *excluded = templates_excluded(&o);
  const int packed = o.mode == DTANS5_VALUES_PACKED || o.row_kind == DTANS5_ROWS_PACKED;
  if (packed && (o.templates == 0 || excluded))
    return zsi_error(ZS_ERR_INVALID_ARGUMENT,
                     "dtans: values=packed and row_kind=packed are version 5's, not with %s",
                     o.templates == 0 ? "templates=off" : excluded);
  if (o.templates == 1 && excluded)
    return zsi_error(ZS_ERR_INVALID_ARGUMENT, "dtans: templates=on cannot be combined with %s",
                     excluded);
  if (o.templates == 0 || excluded || (o.templates < 0 && !packed && stream_options(options)))
    return encode_streams(A, o, out);
  zs_encoded *E5 = NULL, *E4 = NULL;
  if ((s = encode_v5(A, &o, &E5)) != ZS_OK) return s;
  if (!E5 && packed)
    return zsi_error(ZS_ERR_INVALID_ARGUMENT,
                     "dtans: values=packed, but the rows need more than %d templates",
                     DTANS5_MAX_TEMPLATES);
  if (E5 && (o.templates == 1 || packed)) return *out = E5, ZS_OK;
  /* auto: version 5 where its blob is at most 3 % larger than versions 2-4's (rival_kept); they
   * stop, E4 NULL, as soon as their bounds or their sizing pass show it is */
  o.rival = E5 ? blob_bytes(E5) : 0;
  s = encode_streams(A, o, &E4);
  if (s != ZS_OK || E4) zs_encoded_destroy(&E5);
  if (s != ZS_OK) return s;
  *out = E4 ? E4 : E5;
  return ZS_OK;
}
