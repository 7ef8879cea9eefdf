/* row_blocks.h — cutting CSR rows into blocks of bounded nonzeros (host side, plain C), the
 * work units of the GPU CSR kernels. Layout shared by host and device code. */
#ifndef ZS_ROW_BLOCKS_H
#define ZS_ROW_BLOCKS_H

#include <stdint.h>
#include <stdlib.h>

#define ZS_BLOCK_THREADS 256
/* Nonzeros per row block: ZS_BLOCK_THREADS x items, items 1, 2, 4 or 8 (operator option
 * block_nnz; chosen from the matrix by default). 16 measured slower everywhere (occupancy). */
#define ZS_BLOCK_ITEMS_DEFAULT 8
/* Bounds the row loop of a block made of many empty or very short rows. */
#define ZS_BLOCK_MAX_ROWS (4 * ZS_BLOCK_THREADS)
/* Rows longer than this never share a block with shorter ones: a block's lanes per row follow
 * its mean row length, and one long row among many short ones would be summed by a single
 * lane while the rest of the block waits. */
#define ZS_BLOCK_LONG_ROW 64

typedef struct zs_row_block {
  int64_t nnz_begin, nnz_end; /* nonzeros [nnz_begin, nnz_end) */
  int32_t row_begin, row_end; /* rows [row_begin, row_end) */
  int32_t partial;            /* >= 0: a chunk of one long row, its slot in the partials */
  int32_t long_row;           /* a chunk's long row (index into the long rows); else -1 */
} zs_row_block;

typedef struct zs_long_row {
  int32_t row, chunks, first_partial, pad;
} zs_long_row;

typedef struct zs_row_plan {
  zs_row_block *blocks;
  int64_t n_blocks;
  zs_long_row *long_rows;
  int64_t n_long_rows;
  int64_t n_partials;
} zs_row_plan;

static inline int zs_plan_push(void **arr, int64_t *n, int64_t *cap, size_t size) {
  if (*n < *cap) return 1;
  int64_t c = *cap ? 2 * *cap : 1024;
  void *p = realloc(*arr, (size_t)c * size);
  if (!p) return 0;
  *arr = p, *cap = c;
  return 1;
}

/* Build the plan for `rows` rows with offsets `ptr`, blocks of at most block_nnz nonzeros.
 * Returns 0 when out of memory. */
static inline int zs_row_plan_build(zs_row_plan *plan, const int64_t *ptr, int64_t rows,
                                    int64_t block_nnz) {
  int64_t cap_b = 0, cap_l = 0;
  plan->blocks = NULL, plan->long_rows = NULL;
  plan->n_blocks = plan->n_long_rows = plan->n_partials = 0;
  for (int64_t r = 0; r < rows;) {
    const int64_t len = ptr[r + 1] - ptr[r];
    if (len > block_nnz) {
      const int64_t chunks = (len + block_nnz - 1) / block_nnz;
      if (!zs_plan_push((void **)&plan->long_rows, &plan->n_long_rows, &cap_l, sizeof(zs_long_row)))
        return 0;
      plan->long_rows[plan->n_long_rows++] =
          (zs_long_row){(int32_t)r, (int32_t)chunks, (int32_t)plan->n_partials, 0};
      for (int64_t c = 0; c < chunks; c++) {
        if (!zs_plan_push((void **)&plan->blocks, &plan->n_blocks, &cap_b, sizeof(zs_row_block)))
          return 0;
        const int64_t b = ptr[r] + c * block_nnz;
        const int64_t e = b + block_nnz < ptr[r + 1] ? b + block_nnz : ptr[r + 1];
        const int32_t slot = (int32_t)plan->n_partials++, lr = (int32_t)(plan->n_long_rows - 1);
        plan->blocks[plan->n_blocks++] =
            (zs_row_block){b, e, (int32_t)r, (int32_t)(r + 1), slot, lr};
      }
      r++;
      continue;
    }
    const int64_t start = r;
    const int long_rows = len > ZS_BLOCK_LONG_ROW;
    while (r < rows && r - start < ZS_BLOCK_MAX_ROWS && ptr[r + 1] - ptr[start] <= block_nnz &&
           (ptr[r + 1] - ptr[r] > ZS_BLOCK_LONG_ROW) == long_rows)
      r++;
    if (!zs_plan_push((void **)&plan->blocks, &plan->n_blocks, &cap_b, sizeof(zs_row_block)))
      return 0;
    plan->blocks[plan->n_blocks++] =
        (zs_row_block){ptr[start], ptr[r], (int32_t)start, (int32_t)r, -1, -1};
  }
  return 1;
}

static inline void zs_row_plan_free(zs_row_plan *plan) {
  free(plan->blocks);
  free(plan->long_rows);
  plan->blocks = NULL, plan->long_rows = NULL;
}

#endif /* ZS_ROW_BLOCKS_H */
