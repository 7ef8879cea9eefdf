/* csb_layout.h — the typed layout of a CSB-baseline or GCSB blob (docs/formats/csb.md): block
 * geometry, limits and the one parser from a zsb_encoded_view that the reference decoder and every
 * backend read it through. Header-only C11, compiles as C++17. */
#ifndef ZS_CSB_LAYOUT_H
#define ZS_CSB_LAYOUT_H

#include "formats/format_layout.h"

/* Limits of the options (docs/formats/csb.md). local_idx is 16 bits while beta <= 256. */
#define CSB_BETA_MAX 32768
#define CSB_GROUP_MAX 4096

/* Block geometry of a matrix: beta = 1 << lb, nbr x nbc blocks. */
typedef struct csb_geom {
  int lb;
  int64_t beta, nbr, nbc;
  uint32_t idx_size;  /* local_idx element: 2 while beta <= 256, else 4 */
  uint32_t bidx_size; /* GCSB block_index element: 4 while nbr * nbc <= 2^32, else 8 */
} csb_geom;

static inline void csb_geom_init(csb_geom *g, int64_t rows, int64_t cols, int64_t beta) {
  int lb = 0;
  while ((INT64_C(1) << lb) < beta) lb++;
  g->lb = lb, g->beta = beta;
  g->nbr = (rows + beta - 1) >> lb, g->nbc = (cols + beta - 1) >> lb;
  g->idx_size = beta <= 256 ? 2 : 4;
  /* nbr, nbc < 2^31, so the product fits a uint64 */
  g->bidx_size = (uint64_t)g->nbr * (uint64_t)g->nbc <= (UINT64_C(1) << 32) ? 4 : 8;
}

/* Pointers alias the view's arrays. Sizes are checked here; contents (offsets, block order,
 * Morton order, padding) by the format's validate. */
typedef struct csb_layout {
  zs_format format; /* ZS_FORMAT_CSB or ZS_FORMAT_GCSB */
  int64_t rows, cols, nnz;
  zs_type type;
  uint32_t value_bytes;  /* 4 (f32) or 8 (f64) */
  csb_geom geom;         /* from parameter beta */
  int64_t group_size;    /* GCSB: blocks per group; CSB: 0 */
  int64_t n_blocks;      /* nonempty blocks */
  uint64_t slots;        /* values and local_idx: nnz (CSB) or with GCSB's padding */
  const void *values;    /* slots, of type */
  const void *local_idx; /* slots of geom.idx_size bytes: local row << lb | local col */
  /* CSB: blocks in row-major block order */
  const int64_t *block_ptr;    /* nbr + 1: blocks of block row r */
  const int32_t *block_col;    /* n_blocks */
  const int64_t *block_offset; /* n_blocks + 1: slots of block b */
  /* GCSB: blocks by nnz descending, in groups of group_size, a group's elements interleaved */
  const void *block_index; /* n_blocks of geom.bidx_size bytes: brow * nbc + bcol */
  int64_t n_groups;
  const int64_t *group_offset; /* n_groups + 1: slots of group q */
} csb_layout;

/* Parse `v` (CSB-baseline or GCSB) into L. Returns ZS_OK or ZS_ERR_CORRUPT with a message
 * starting "csb: " or "gcsb: " in why (why_len bytes; may be NULL). */
static inline zs_status csb_layout_parse(const zsb_encoded_view *v, csb_layout *L, char *why,
                                         size_t why_len) {
  const int gcsb = v->format == ZS_FORMAT_GCSB;
  ZSI_LAYOUT_OPEN(c, s, v, L, gcsb ? "gcsb" : "csb", why, why_len);
  L->format = v->format;
  const uint32_t es = L->value_bytes;
  int64_t beta = 0;
  if ((s = zsi_layout_param(&c, "beta", 2, CSB_BETA_MAX, ZSI_LAYOUT_REQUIRED, &beta)) ||
      (gcsb && (s = zsi_layout_param(&c, "group_size", 1, CSB_GROUP_MAX, ZSI_LAYOUT_REQUIRED,
                                     &L->group_size))))
    return s;
  if (beta & (beta - 1))
    return zsi_layout_fail(&c, ZS_ERR_CORRUPT,
                           "parameter 'beta' = %" PRId64 " is not a power of two", beta);
  csb_geom *g = &L->geom;
  csb_geom_init(g, v->rows, v->cols, beta);
  if (!gcsb) {
    L->slots = (uint64_t)v->nnz;
    if ((s = zsi_layout_array(&c, "values", es, L->slots, 1, &L->values, NULL)) ||
        (s = zsi_layout_array(&c, "local_idx", g->idx_size, L->slots, 1, &L->local_idx, NULL)) ||
        (s = zsi_layout_array(&c, "block_ptr", 8, (uint64_t)g->nbr + 1, 1,
                              (const void **)&L->block_ptr, NULL)))
      return s;
    const int64_t nb = L->n_blocks = L->block_ptr[g->nbr];
    if (nb < 0 || nb > v->nnz)
      return zsi_layout_fail(&c, ZS_ERR_CORRUPT,
                             "block_ptr ends at %" PRId64 " blocks, not in [0, %" PRId64
                             "] nonzeros (blocks are never empty)",
                             nb, v->nnz);
    if ((s = zsi_layout_array(&c, "block_col", 4, (uint64_t)nb, 1, (const void **)&L->block_col,
                              NULL)))
      return s;
    return zsi_layout_array(&c, "block_offset", 8, (uint64_t)nb + 1, 1,
                            (const void **)&L->block_offset, NULL);
  }
  const zsb_array *bia = zsb_find_array(v, "block_index"), *va = zsb_find_array(v, "values");
  if (!bia) return zsi_layout_fail(&c, ZS_ERR_CORRUPT, "array 'block_index' is missing");
  if (!va) return zsi_layout_fail(&c, ZS_ERR_CORRUPT, "array 'values' is missing");
  if (bia->count > (uint64_t)v->nnz)
    return zsi_layout_fail(&c, ZS_ERR_CORRUPT,
                           "block_index has %" PRIu64 " blocks, more than the %" PRId64
                           " nonzeros (blocks are never empty)",
                           bia->count, v->nnz);
  const int64_t nb = L->n_blocks = (int64_t)bia->count;
  L->n_groups = (nb + L->group_size - 1) / L->group_size;
  if (va->count > (UINT64_C(1) << 62))
    return zsi_layout_fail(&c, ZS_ERR_CORRUPT, "values has %" PRIu64 " slots, limit 2^62",
                           va->count);
  L->slots = va->count;
  if ((s = zsi_layout_array(&c, "values", es, L->slots, 1, &L->values, NULL)) ||
      (s = zsi_layout_array(&c, "local_idx", g->idx_size, L->slots, 1, &L->local_idx, NULL)) ||
      (s = zsi_layout_array(&c, "block_index", g->bidx_size, (uint64_t)nb, 1, &L->block_index,
                            NULL)))
    return s;
  return zsi_layout_array(&c, "group_offset", 8, (uint64_t)L->n_groups + 1, 1,
                          (const void **)&L->group_offset, NULL);
}

/* Element k of local_idx (2 or 4 bytes) and of block_index (4 or 8 bytes). */
static inline uint32_t csb_idx_get(const void *a, uint32_t size, int64_t k) {
  return size == 2 ? ((const uint16_t *)a)[k] : ((const uint32_t *)a)[k];
}
static inline uint64_t csb_bidx_get(const void *a, uint32_t size, int64_t k) {
  return size == 4 ? ((const uint32_t *)a)[k] : ((const uint64_t *)a)[k];
}

#endif
