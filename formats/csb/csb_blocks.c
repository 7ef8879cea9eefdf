/* csb_blocks.c — what CSB-baseline and GCSB share: block geometry, options, the blocking pass of
 * the encoders and the per-block checks of validate. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "formats/csb/csb.h"

/* Rows [r0, r1) of block row br of A at 2^lb. */
static void csb_block_rows(const zs_matrix *A, int lb, int64_t br, int64_t *r0, int64_t *r1) {
  *r0 = br << lb;
  *r1 = *r0 + (INT64_C(1) << lb) < A->rows ? *r0 + (INT64_C(1) << lb) : A->rows;
}

/* Nonempty blocks of block row br at 2^lb: stamp (one entry per block column, never br before
 * this call) marks the block columns seen. */
static int64_t csb_block_row_count(const zs_matrix *A, int lb, int64_t br, int64_t *stamp) {
  int64_t r0, r1, n = 0;
  csb_block_rows(A, lb, br, &r0, &r1);
  for (int64_t k = A->row_ptr[r0]; k < A->row_ptr[r1]; k++) {
    const int64_t bc = A->col_idx[k] >> lb;
    if (stamp[bc] != br) stamp[bc] = br, n++;
  }
  return n;
}

/* Nonempty 2^lb x 2^lb blocks of A, one pass over the nonzeros. -1 when the stamps cannot be
 * allocated. */
static int64_t csb_count_blocks(const zs_matrix *A, int lb) {
  const int64_t nbc = (A->cols + (INT64_C(1) << lb) - 1) >> lb;
  const int64_t nbr = (A->rows + (INT64_C(1) << lb) - 1) >> lb;
  int64_t *stamp = zsi_alloc_array((uint64_t)(nbc ? nbc : 1), 8), blocks = 0;
  if (!stamp) return -1;
  for (int64_t c = 0; c < nbc; c++) stamp[c] = -1;
  for (int64_t br = 0; br < nbr; br++) blocks += csb_block_row_count(A, lb, br, stamp);
  zsi_free(stamp);
  return blocks;
}

/* The default beta for 8-byte values: 16 fills a 128-byte line with a block row's values, but
 * a matrix whose 16 x 16 blocks hold fewer than 4 nonzeros on average while its 32 x 32 blocks
 * hold at least 4 gets 32 (the 1 %-dense random layer 16384^2: 2.6 and 10.5 per block). There
 * the per-block costs outweigh the line (at 32 the H100's deterministic products took 10-20 %
 * less time, the cpu's half). Blocks of
 * 12.8 at 16 (the 5 %-dense layer) lost 20 % on the H100 at 32, and blocks that stay sparse at
 * 32 (Erdos-Renyi and R-MAT with 16 nonzeros per row) gain little from it: both keep 16. */
static int64_t csb_default_beta_f64(const zs_matrix *A) {
  const int64_t b16 = csb_count_blocks(A, 4);
  if (b16 < 0 || A->nnz >= 4 * b16) return 16;
  const int64_t b32 = csb_count_blocks(A, 5);
  return b32 >= 0 && A->nnz >= 4 * b32 ? 32 : 16;
}

zs_status csb_options(const char *options, const char *fmt, const zs_matrix *A, int64_t *beta,
                      int64_t *group) {
  static const char *const known_csb[] = {"beta", NULL}, *const known_gcsb[] = {"beta", "group",
                                                                                NULL};
  zs_status s = zsi_option_check(options, group ? known_gcsb : known_csb, fmt);
  if (s != ZS_OK) return s;
  /* Defaults: beta values of one row of a block fill a 128-byte line (the thesis' rule for y
   * locality), and a group's k-th elements fill the same line (coalesced loads). */
  int found;
  *beta = 128 / (int64_t)zs_type_size(A->type);
  if ((s = zsi_option_int(options, "beta", 2, CSB_BETA_MAX, beta, &found)) != ZS_OK) return s;
  if (!found && A->type == ZS_F64) *beta = csb_default_beta_f64(A);
  if (*beta & (*beta - 1))
    return zsi_error(ZS_ERR_INVALID_ARGUMENT,
                     "%s: option 'beta': %" PRId64 " is not a power of two", fmt, *beta);
  if (group) {
    *group = 32;
    if ((s = zsi_option_int(options, "group", 1, CSB_GROUP_MAX, group, &found)) != ZS_OK) return s;
  }
  return ZS_OK;
}

zs_status csb_layout_of(const zs_encoded *E, csb_layout *L) {
  zsi_view_buf vb;
  char why[ZSI_LAYOUT_WHY];
  const zs_status s = csb_layout_parse(zsi_encoded_as_view(E, &vb), L, why, sizeof why);
  return s == ZS_OK ? ZS_OK : zsi_error(s, "%s", why);
}

zs_status csb_check_block(const csb_geom *g, int64_t rows, int64_t cols, int64_t brow, int64_t bcol,
                          const void *local, int64_t first, int64_t count, int64_t stride,
                          const char *what, int64_t block) {
  const uint32_t limit = (uint32_t)(g->beta * g->beta - 1), mask = (uint32_t)g->beta - 1;
  const int64_t r0 = brow << g->lb, c0 = bcol << g->lb;
  uint32_t prev = 0;
  for (int64_t j = 0; j < count; j++) {
    const int64_t k = first + j * stride;
    const uint32_t idx = csb_idx_get(local, g->idx_size, k);
    if (idx > limit || r0 + (idx >> g->lb) >= rows || c0 + (idx & mask) >= cols)
      return zsi_error(ZS_ERR_CORRUPT,
                       "%s: local_idx[%" PRId64 "] = %" PRIu32 " (block %" PRId64 ", row %" PRId64
                       ", col %" PRId64 ") is outside the block or the %" PRId64 " x %" PRId64
                       " matrix",
                       what, k, idx, block, r0 + (idx >> g->lb), c0 + (idx & mask), rows, cols);
    const uint32_t m = csb_morton(idx, g->lb);
    if (j > 0 && m <= prev)
      return zsi_error(ZS_ERR_CORRUPT,
                       "%s: local_idx[%" PRId64 "] (block %" PRId64
                       ") is not after its predecessor in Morton order",
                       what, k, block);
    prev = m;
  }
  return ZS_OK;
}

void csb_blocks_free(csb_blocks *b) {
  zsi_free(b->block_ptr), zsi_free(b->block_col), zsi_free(b->block_off);
  zsi_free(b->src), zsi_free(b->local);
  memset(b, 0, sizeof *b);
}

typedef struct keyed {
  uint64_t key; /* block column << 32 | Morton key */
  int64_t k;    /* CSR position */
  uint32_t idx; /* local row << lb | local col */
} keyed;

static int keyed_cmp(const void *a, const void *b) {
  const uint64_t x = ((const keyed *)a)->key, y = ((const keyed *)b)->key;
  return (x > y) - (x < y);
}

/* A block row is a range of whole rows, so its elements keep their CSR positions
 * [row_ptr[r0], row_ptr[r1]) in block order too: only their order inside that range changes. */
zs_status csb_blocks_build(const zs_matrix *A, const csb_geom *g, csb_blocks *out) {
  memset(out, 0, sizeof *out);
  const int64_t nbr = g->nbr, nbc = g->nbc, nnz = A->nnz;
  const int lb = g->lb;
  const int64_t *rp = A->row_ptr;
  const int32_t *ci = A->col_idx;
  int64_t *stamp = zsi_alloc_array((uint64_t)(nbc ? nbc : 1), 8);
  if (!stamp || !(out->block_ptr = zsi_alloc_array((uint64_t)nbr + 1, 8))) {
    zsi_free(stamp);
    csb_blocks_free(out);
    return zsi_error(ZS_ERR_OUT_OF_MEMORY, "csb: block tables for %" PRId64 " block rows", nbr);
  }
  for (int64_t c = 0; c < nbc; c++) stamp[c] = -1;
  int64_t widest = 0;
  for (int64_t br = 0; br < nbr; br++) {
    int64_t r0, r1;
    csb_block_rows(A, lb, br, &r0, &r1);
    out->block_ptr[br + 1] = out->block_ptr[br] + csb_block_row_count(A, lb, br, stamp);
    if (rp[r1] - rp[r0] > widest) widest = rp[r1] - rp[r0];
  }
  zsi_free(stamp);
  const int64_t nb = out->nb = out->block_ptr[nbr];
  keyed *tmp = zsi_alloc_array((uint64_t)(widest ? widest : 1), sizeof(keyed));
  if (!tmp || !(out->block_col = zsi_alloc_array((uint64_t)(nb ? nb : 1), 4)) ||
      !(out->block_off = zsi_alloc_array((uint64_t)nb + 1, 8)) ||
      !(out->src = zsi_alloc_array((uint64_t)(nnz ? nnz : 1), 8)) ||
      !(out->local = zsi_alloc_array((uint64_t)(nnz ? nnz : 1), 4))) {
    zsi_free(tmp);
    csb_blocks_free(out);
    return zsi_error(ZS_ERR_OUT_OF_MEMORY, "csb: %" PRId64 " blocks, %" PRId64 " nonzeros", nb,
                     nnz);
  }
  const uint32_t mask = (uint32_t)g->beta - 1;
  for (int64_t br = 0; br < nbr; br++) {
    int64_t r0, r1;
    csb_block_rows(A, lb, br, &r0, &r1);
    const int64_t k0 = rp[r0], n = rp[r1] - k0;
    for (int64_t r = r0; r < r1; r++)
      for (int64_t k = rp[r]; k < rp[r + 1]; k++) {
        const uint32_t idx = (uint32_t)(r - r0) << lb | ((uint32_t)ci[k] & mask);
        tmp[k - k0].key = (uint64_t)(ci[k] >> lb) << 32 | csb_morton(idx, lb);
        tmp[k - k0].k = k, tmp[k - k0].idx = idx;
      }
    qsort(tmp, (size_t)n, sizeof *tmp, keyed_cmp);
    int64_t b = out->block_ptr[br] - 1, prev = -1;
    for (int64_t i = 0; i < n; i++) {
      const int64_t bc = (int64_t)(tmp[i].key >> 32), k = tmp[i].k;
      if (bc != prev) b++, out->block_col[b] = (int32_t)bc, out->block_off[b] = k0 + i, prev = bc;
      out->src[k0 + i] = k;
      out->local[k0 + i] = tmp[i].idx;
    }
  }
  zsi_free(tmp);
  out->block_off[nb] = nnz;
  return ZS_OK;
}
