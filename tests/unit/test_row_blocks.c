/* test_row_blocks.c — the GPU row-block plan (built on the host): every row covered once and in
 * order, blocks within their nonzero and row limits, long rows split into ordered chunks, and
 * rows longer than ZS_BLOCK_LONG_ROW never sharing a block with shorter ones. */
#include <stdint.h>
#include <stdlib.h>

#include "backends/cuda_hip/row_blocks.h"
#include "tests/common/check.h"

static void check_plan(const int64_t *ptr, int64_t rows, int64_t block_nnz) {
  zs_row_plan plan;
  CHECK(zs_row_plan_build(&plan, ptr, rows, block_nnz));
  int64_t next_row = 0, next_nnz = 0, partials = 0, long_seen = 0;
  for (int64_t b = 0; b < plan.n_blocks; b++) {
    const zs_row_block *k = &plan.blocks[b];
    CHECK(k->nnz_begin == next_nnz);
    CHECK(k->nnz_end >= k->nnz_begin && k->nnz_end - k->nnz_begin <= block_nnz);
    if (k->partial >= 0) { /* a chunk of a long row: same row until its last chunk */
      CHECK(k->row_end == k->row_begin + 1);
      CHECK(k->partial == partials);
      CHECK(k->long_row >= 0 && k->long_row < plan.n_long_rows);
      CHECK(plan.long_rows[k->long_row].row == k->row_begin);
      CHECK(partials >= plan.long_rows[k->long_row].first_partial &&
            partials <
                plan.long_rows[k->long_row].first_partial + plan.long_rows[k->long_row].chunks);
      CHECK(ptr[k->row_begin + 1] - ptr[k->row_begin] > block_nnz);
      partials++;
      next_nnz = k->nnz_end;
      if (k->nnz_end == ptr[k->row_begin + 1]) next_row = k->row_end;
      continue;
    }
    CHECK(k->row_begin == next_row);
    CHECK(k->long_row == -1);
    CHECK(k->row_end > k->row_begin && k->row_end - k->row_begin <= ZS_BLOCK_MAX_ROWS);
    CHECK(k->nnz_begin == ptr[k->row_begin] && k->nnz_end == ptr[k->row_end]);
    const int first_long = ptr[k->row_begin + 1] - ptr[k->row_begin] > ZS_BLOCK_LONG_ROW;
    for (int64_t r = k->row_begin; r < k->row_end; r++)
      CHECK((ptr[r + 1] - ptr[r] > ZS_BLOCK_LONG_ROW) == first_long);
    next_row = k->row_end;
    next_nnz = k->nnz_end;
  }
  for (int64_t i = 0; i < plan.n_long_rows; i++) {
    const zs_long_row *l = &plan.long_rows[i];
    CHECK(l->first_partial == long_seen);
    CHECK(l->chunks == (ptr[l->row + 1] - ptr[l->row] + block_nnz - 1) / block_nnz);
    long_seen += l->chunks;
  }
  CHECK(next_row == rows && next_nnz == ptr[rows]);
  CHECK(partials == plan.n_partials && long_seen == plan.n_partials);
  zs_row_plan_free(&plan);
}

int main(void) {
  enum { ROWS = 20000 };
  int64_t *ptr = malloc((ROWS + 1) * sizeof *ptr);
  uint64_t s = 99;
  for (int pass = 0; pass < 3; pass++) {
    ptr[0] = 0;
    for (int64_t i = 0; i < ROWS; i++) {
      s = s * 6364136223846793005u + 1442695040888963407u;
      const uint64_t u = s >> 33;
      /* Mostly short rows, some empty, some medium (65..500), a few longer than a block. */
      int64_t len = (int64_t)(u % 9);
      if (u % 97 == 0) len = 65 + (int64_t)(u % 436);
      if (u % 1999 == 0) len = 3000 + (int64_t)(u % 5000);
      if (pass == 1 && i % 5000 < 1200) len = 0; /* long runs of empty rows */
      ptr[i + 1] = ptr[i] + len;
    }
    check_plan(ptr, ROWS, 256);
    check_plan(ptr, ROWS, 512);
    check_plan(ptr, ROWS, 1024);
    check_plan(ptr, ROWS, 2048);
  }
  check_plan(ptr, 0, 2048);
  free(ptr);
  CHECK_DONE();
}
