/* csb.h — CSB-baseline and GCSB: blocked formats for SpMV and SpMVT from one copy. */
#ifndef ZS_FORMAT_CSB_H
#define ZS_FORMAT_CSB_H

#include "core/zs_internal.h"
#include "formats/csb/csb_layout.h"

ZSI_HIDDEN extern const zsi_format_ops zsi_format_csb, zsi_format_gcsb;

/* Morton key of a local (row, col): row bits above col bits at every level. */
static inline uint32_t csb_spread(uint32_t v) {
  v &= 0xffff;
  v = (v | v << 8) & 0x00ff00ffu;
  v = (v | v << 4) & 0x0f0f0f0fu;
  v = (v | v << 2) & 0x33333333u;
  return (v | v << 1) & 0x55555555u;
}
static inline uint32_t csb_morton(uint32_t idx, int lb) {
  return csb_spread(idx >> lb) << 1 | csb_spread(idx & ((1u << lb) - 1));
}

/* The nonempty blocks of a matrix in row-major block order, elements in Morton order: what
 * CSB-baseline stores, and what GCSB regroups. */
typedef struct csb_blocks {
  int64_t nb;
  int64_t *block_ptr; /* nbr + 1: blocks of block row r are [block_ptr[r], block_ptr[r + 1]) */
  int32_t *block_col; /* nb */
  int64_t *block_off; /* nb + 1: elements of block b are [block_off[b], block_off[b + 1]) */
  int64_t *src;       /* nnz: the CSR position of each element */
  uint32_t *local;    /* nnz: local row << lb | local col */
} csb_blocks;

ZSI_HIDDEN zs_status csb_blocks_build(const zs_matrix *A, const csb_geom *g, csb_blocks *out);
ZSI_HIDDEN void csb_blocks_free(csb_blocks *b);

/* Encoder options for A: beta (both formats) and group (GCSB only; group == NULL refuses it).
 * The default beta depends on the value type and, for 8-byte values, on how A fills blocks. */
ZSI_HIDDEN zs_status csb_options(const char *options, const char *fmt, const zs_matrix *A,
                                 int64_t *beta, int64_t *group);

/* E's layout (csb_layout.h), sizes checked; a failure is recorded for zs_last_error. */
ZSI_HIDDEN zs_status csb_layout_of(const zs_encoded *E, csb_layout *L);

/* Check one block's elements: in bounds of the matrix and strictly ascending in Morton order.
 * `what` names the format in the message. */
ZSI_HIDDEN zs_status csb_check_block(const csb_geom *g, int64_t rows, int64_t cols, int64_t brow,
                                     int64_t bcol, const void *local, int64_t first, int64_t count,
                                     int64_t stride, const char *what, int64_t block);

/* Bytes of the same matrix in CSR (row_ptr, col_idx, values): the yardstick of the stats. */
static inline double csb_csr_bytes(const zs_encoded *E) {
  return 8.0 * (double)(E->rows + 1) + (4.0 + (double)zs_type_size(E->type)) * (double)E->nnz;
}

#endif
