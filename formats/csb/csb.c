/* csb.c — CSB-baseline: nonempty beta x beta blocks in row-major order, Morton order inside a
 * block, 16-bit local row|col while beta <= 256 (docs/formats/csb.md). */
#include <inttypes.h>
#include <string.h>

#include "formats/csb/csb.h"

static zs_status csb_encode(const zs_matrix *A, const char *options, zs_encoded **out) {
  int64_t beta;
  zs_status s = csb_options(options, "csb", A, &beta, NULL);
  if (s != ZS_OK) return s;
  csb_geom g;
  csb_geom_init(&g, A->rows, A->cols, beta);
  csb_blocks B;
  if ((s = csb_blocks_build(A, &g, &B)) != ZS_OK) return s;
  const size_t es = zs_type_size(A->type);
  zs_encoded *E = NULL;
  void *v, *li, *bp, *bc, *bo;
  if ((s = zsi_encoded_new(&E, ZS_FORMAT_CSB, A->type, A->rows, A->cols, A->nnz)) != ZS_OK ||
      (s = zsi_encoded_add_param(E, "beta", beta)) != ZS_OK ||
      (s = zsi_encoded_add_array(E, "values", (uint32_t)es, (uint64_t)A->nnz, &v)) != ZS_OK ||
      (s = zsi_encoded_add_array(E, "local_idx", g.idx_size, (uint64_t)A->nnz, &li)) != ZS_OK ||
      (s = zsi_encoded_add_array(E, "block_ptr", 8, (uint64_t)g.nbr + 1, &bp)) != ZS_OK ||
      (s = zsi_encoded_add_array(E, "block_col", 4, (uint64_t)B.nb, &bc)) != ZS_OK ||
      (s = zsi_encoded_add_array(E, "block_offset", 8, (uint64_t)B.nb + 1, &bo)) != ZS_OK) {
    zs_encoded_destroy(&E);
    csb_blocks_free(&B);
    return s;
  }
  for (int64_t k = 0; k < A->nnz; k++) {
    memcpy((char *)v + k * es, (const char *)A->values + B.src[k] * es, es);
    if (g.idx_size == 2)
      ((uint16_t *)li)[k] = (uint16_t)B.local[k];
    else
      ((uint32_t *)li)[k] = B.local[k];
  }
  memcpy(bp, B.block_ptr, ((size_t)g.nbr + 1) * 8);
  if (B.nb) memcpy(bc, B.block_col, (size_t)B.nb * 4);
  memcpy(bo, B.block_off, ((size_t)B.nb + 1) * 8);
  csb_blocks_free(&B);
  *out = E;
  return ZS_OK;
}

static zs_status csb_validate(const zs_encoded *E) {
  csb_layout L;
  zs_status s = csb_layout_of(E, &L);
  if (s != ZS_OK) return s;
  const csb_geom g = L.geom;
  const void *li = L.local_idx;
  const int64_t *bp = L.block_ptr, *bo = L.block_offset;
  const int32_t *bc = L.block_col;
  if (bp[0] != 0)
    return zsi_error(ZS_ERR_CORRUPT, "csb: block_ptr[0] is %" PRId64 ", not 0", bp[0]);
  for (int64_t r = 0; r < g.nbr; r++)
    if (bp[r + 1] < bp[r] || bp[r + 1] - bp[r] > g.nbc)
      return zsi_error(ZS_ERR_CORRUPT,
                       "csb: block_ptr[%" PRId64 "] = %" PRId64
                       " is out of order or gives a block row more than %" PRId64 " blocks",
                       r + 1, bp[r + 1], g.nbc);
  const int64_t nb = L.n_blocks;
  if (bo[0] != 0)
    return zsi_error(ZS_ERR_CORRUPT, "csb: block_offset[0] is %" PRId64 ", not 0", bo[0]);
  for (int64_t b = 0; b < nb; b++)
    if (bo[b + 1] <= bo[b] || bo[b + 1] > E->nnz)
      return zsi_error(ZS_ERR_CORRUPT,
                       "csb: block_offset[%" PRId64 "] = %" PRId64
                       " is not above its predecessor or beyond nnz %" PRId64
                       " (blocks are never empty)",
                       b + 1, bo[b + 1], E->nnz);
  if (bo[nb] != E->nnz)
    return zsi_error(ZS_ERR_CORRUPT, "csb: block_offset ends at %" PRId64 ", nnz is %" PRId64,
                     bo[nb], E->nnz);
  for (int64_t r = 0; r < g.nbr; r++)
    for (int64_t b = bp[r]; b < bp[r + 1]; b++) {
      if (bc[b] < 0 || bc[b] >= g.nbc || (b > bp[r] && bc[b] <= bc[b - 1]))
        return zsi_error(ZS_ERR_CORRUPT,
                         "csb: block_col[%" PRId64 "] = %" PRId32 " (block row %" PRId64
                         ") is outside [0, %" PRId64 ") or not ascending",
                         b, bc[b], r, g.nbc);
      if ((s = csb_check_block(&g, E->rows, E->cols, r, bc[b], li, bo[b], bo[b + 1] - bo[b], 1,
                               "csb", b)) != ZS_OK)
        return s;
    }
  return ZS_OK;
}

/* Blocks of a block row ascend in column and a row's elements ascend in column inside a block
 * (Morton order with the row fixed), so appending each element to its row gives sorted rows. */
static zs_status csb_decode(const zs_encoded *E, zs_matrix **out) {
  csb_layout L;
  zs_status s = csb_layout_of(E, &L);
  if (s != ZS_OK) return s;
  const csb_geom g = L.geom;
  const void *v = L.values, *li = L.local_idx;
  const int64_t *bp = L.block_ptr, *bo = L.block_offset;
  const int32_t *bc = L.block_col;
  const size_t es = L.value_bytes;
  const uint32_t mask = (uint32_t)g.beta - 1;
  zs_matrix *A;
  if ((s = zsi_matrix_alloc(&A, E->rows, E->cols, E->nnz, E->type)) != ZS_OK) return s;
  for (int64_t r = 0; r < g.nbr; r++)
    for (int64_t b = bp[r]; b < bp[r + 1]; b++)
      for (int64_t k = bo[b]; k < bo[b + 1]; k++)
        A->row_ptr[(r << g.lb) + (csb_idx_get(li, g.idx_size, k) >> g.lb) + 1]++;
  for (int64_t i = 0; i < E->rows; i++) A->row_ptr[i + 1] += A->row_ptr[i];
  int64_t *next = zsi_alloc_array((uint64_t)(E->rows ? E->rows : 1), 8);
  if (!next) {
    zs_matrix_destroy(&A);
    return zsi_error(ZS_ERR_OUT_OF_MEMORY, "csb: decoding %" PRId64 " rows", E->rows);
  }
  memcpy(next, A->row_ptr, (size_t)E->rows * 8);
  for (int64_t r = 0; r < g.nbr; r++)
    for (int64_t b = bp[r]; b < bp[r + 1]; b++)
      for (int64_t k = bo[b]; k < bo[b + 1]; k++) {
        const uint32_t idx = csb_idx_get(li, g.idx_size, k);
        const int64_t p = next[(r << g.lb) + (idx >> g.lb)]++;
        A->col_idx[p] = (int32_t)(((int64_t)bc[b] << g.lb) + (idx & mask));
        memcpy((char *)A->values + p * es, (const char *)v + k * es, es);
      }
  zsi_free(next);
  *out = A;
  return ZS_OK;
}

static void csb_stats(const zs_encoded *E, zs_stat_fn emit, void *ctx) {
  zsi_view_buf vb;
  csb_layout L;
  if (csb_layout_parse(zsi_encoded_as_view(E, &vb), &L, NULL, 0) != ZS_OK) return;
  const double nb = (double)L.n_blocks, bytes = (double)zs_encoded_bytes(E);
  const int64_t beta = L.geom.beta;
  const double csr = csb_csr_bytes(E);
  emit(ctx, "beta", (double)beta);
  emit(ctx, "blocks", nb);
  emit(ctx, "nnz_per_block", nb > 0 ? (double)E->nnz / nb : 0);
  emit(ctx, "padding_slots", 0);
  emit(ctx, "padding_overhead", 0);
  emit(ctx, "bytes_per_nnz", E->nnz ? bytes / (double)E->nnz : 0);
  emit(ctx, "csr_bytes", csr);
  emit(ctx, "bytes_vs_csr", csr > 0 ? bytes / csr : 0);
}

const zsi_format_ops zsi_format_csb = {ZS_FORMAT_CSB, "csb",      csb_encode,
                                       csb_validate,  csb_decode, csb_stats};
