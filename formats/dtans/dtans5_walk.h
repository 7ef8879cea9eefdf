/* dtans5_walk.h — a packed row's column fields and value ids read in order, as the cpu backend
 * and the GPU kernels both read them (docs/formats/dtans.md, "Packed rows"): one code, so the
 * host tests check the GPU's walk. Every field of a slice has the same width, so the position
 * in the bit string is the same in all 32 lanes; a row knows from its length how many words it
 * needs, so they are loaded ahead of the field that needs them (four column words, two id words:
 * on a GPU a stream word comes from DRAM, and waiting for one every few fields bounded the
 * kernel). DTANS5_WORD(p) loads a stream word (the GPU units make it an evict-first load). */
#ifndef ZS_DTANS5_WALK_H
#define ZS_DTANS5_WALK_H

#include "formats/dtans/dtans5_layout.h"

#ifndef DTANS5_WORD
#define DTANS5_WORD(p) (*(p))
#endif
/* How the functions below are declared: the GPU units make them device functions, always
 * inlined, beside their DTANS5_WORD. */
#ifndef DTANS5_WALK_FN
#define DTANS5_WALK_FN static inline
#endif

/* A packed row's columns: its lane's column words (word j at w[32 j]) as one bit string. */
typedef struct {
  const uint32_t *w;
  uint32_t lo, hi, a2, a3, mask; /* the words at the position, and two more loaded ahead */
  int pos, j, need, bits;        /* bit in lo, next word to load, words of the row, field width */
  int32_t col;                   /* the last column given */
} dtans5_fields;

/* Row of n fields of `bits` bits (0 … 32) whose first column is `first` + its first field. */
DTANS5_WALK_FN void dtans5_fields_start(dtans5_fields *f, const uint32_t *w, int bits,
                                        int64_t first, int64_t n) {
  f->w = w, f->bits = bits, f->mask = bits ? 0xffffffffu >> (32 - bits) : 0u;
  f->need = (int)((n * bits + 31) / 32); /* the words of the row's own fields */
  f->lo = f->need > 0 ? DTANS5_WORD(w) : 0u, f->hi = f->need > 1 ? DTANS5_WORD(w + 32) : 0u;
  f->a2 = f->need > 2 ? DTANS5_WORD(w + 64) : 0u, f->a3 = f->need > 3 ? DTANS5_WORD(w + 96) : 0u;
  f->pos = 0, f->j = 4, f->col = (int32_t)(first - 1);
}

/* The next column: the previous + 1 + the next field. */
DTANS5_WALK_FN int32_t dtans5_fields_step(dtans5_fields *f) {
  const uint64_t pair = (uint64_t)f->hi << 32 | f->lo; /* a funnel shift on GPUs */
  const uint32_t v = (uint32_t)(pair >> f->pos) & f->mask;
  f->pos += f->bits;
  if (f->pos >= 32) {
    f->pos -= 32, f->lo = f->hi, f->hi = f->a2, f->a2 = f->a3;
    f->a3 = f->j < f->need ? DTANS5_WORD(f->w + 32 * (int64_t)f->j) : 0u;
    f->j++;
  }
  return f->col += 1 + (int32_t)v;
}

/* A lane's packed value ids (p of b bits a word, word j at w[32 j]), two words ahead. */
typedef struct {
  const uint32_t *w;
  uint32_t cur, n1, n2, mask;
  int bits, per, m, j, need;
} dtans5_ids;

DTANS5_WALK_FN void dtans5_ids_start(dtans5_ids *d, const uint32_t *w, int bits, int per,
                                     int64_t n) {
  d->w = w, d->bits = bits, d->per = per, d->mask = (1u << bits) - 1u;
  d->need = (int)((n + per - 1) / per);
  d->cur = d->need > 0 ? DTANS5_WORD(w) : 0u, d->n1 = d->need > 1 ? DTANS5_WORD(w + 32) : 0u;
  d->n2 = d->need > 2 ? DTANS5_WORD(w + 64) : 0u, d->m = 0, d->j = 3;
}

DTANS5_WALK_FN uint32_t dtans5_ids_next(dtans5_ids *d) {
  const uint32_t id = d->cur & d->mask;
  d->cur >>= d->bits;
  if (++d->m == d->per) {
    d->m = 0, d->cur = d->n1, d->n1 = d->n2;
    d->n2 = d->j < d->need ? DTANS5_WORD(d->w + 32 * (int64_t)d->j) : 0u;
    d->j++;
  }
  return id;
}

/* Id k of a lane's packed values, read alone (a warp taking one long row together). */
DTANS5_WALK_FN uint32_t dtans5_id_at(const uint32_t *w, int bits, int per, int64_t k) {
  const int64_t q = k / per;
  return (w[32 * q] >> (int)(k - q * per) * bits) & ((1u << bits) - 1u);
}

#endif
