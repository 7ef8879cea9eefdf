/* test_packed_order.c — the format chooser prices version 5's packed rows in the order the
 * encoder writes them: for generated matrices (power-law R-MAT, banded, a stencil) and for
 * matrices built on either side of the rule's thresholds, the statistics' packed_order says
 * row_perm and col_perm exactly where dtans:row_kind=packed stores them, their long rows are the
 * blob's, and their ordered slices are those of the blob's row_perm. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/auto/auto.h"
#include "tests/common/blob_parts.h"
#include "tests/common/check.h"
#include "tests/common/generated.h"

/* Lane steps of slices of 32 rows taken in `order`, each as wide as its longest row of at most
 * long_min nonzeros: counted here row by row, apart from the library's histogram. */
static double slice_steps(const zs_matrix *A, const int32_t *order, int64_t long_min) {
  double steps = 0;
  for (int64_t a = 0; a < A->rows; a += 32) {
    int64_t width = 0;
    for (int64_t r = a; r < a + 32 && r < A->rows; r++) {
      const int64_t i = order[r], n = A->row_ptr[i + 1] - A->row_ptr[i];
      if (n <= long_min && n > width) width = n;
    }
    steps += 32.0 * (double)width;
  }
  return steps;
}

/* The chooser's statistics and the encoder's blob of A agree; `want`: the order the rule gives
 * (ZSI_AUTO_ORDER_* bits), so that each case is known to test the side of the rule it is on. */
static void agree(const char *name, zs_matrix *A, int want) {
  zsi_auto_stats st;
  zs_encoded *E = NULL;
  CHECK_STATUS(zsi_auto_stats_compute(A, &st), ZS_OK);
  CHECK_STATUS(zs_encode(&E, A, ZS_FORMAT_DTANS, "row_kind=packed"), ZS_OK);
  if (!E) {
    zs_matrix_destroy(&A);
    return;
  }
  const zsi_array *rperm = zsi_encoded_array(E, "row_perm");
  const int blob = (rperm ? ZSI_AUTO_ORDER_ROWS : 0) |
                   (zsi_encoded_array(E, "col_perm") ? ZSI_AUTO_ORDER_COLS : 0);
  printf("%-24s chooser %d, encoder %d, expected %d\n", name, st.packed_order, blob, want);
  CHECK(st.packed_order == blob);
  CHECK(blob == want);
  /* the long rows: the blob's threshold gives the chooser's share and longest other row */
  const int64_t long_min = zs_test_param(E, "long_min");
  int64_t long_nnz = 0, longest = 0;
  for (int64_t i = 0; i < A->rows; i++) {
    const int64_t n = A->row_ptr[i + 1] - A->row_ptr[i];
    if (n > long_min)
      long_nnz += n;
    else if (n > longest)
      longest = n;
  }
  CHECK(long_min > 0);
  CHECK(st.packed_long_share == (double)long_nnz / (double)A->nnz);
  CHECK(st.packed_row_max == longest);
  /* rows ordered: the chooser's slice entries are those of the blob's row_perm */
  if (rperm) {
    const double steps = slice_steps(A, rperm->data, long_min);
    CHECK(rperm->count == (uint64_t)A->rows);
    CHECK(st.packed_fill == steps / (double)A->nnz);
  }
  zs_encoded_destroy(&E);
  zs_matrix_destroy(&A);
}

/* 2^16 rows of 4096 columns (too few to renumber), every row 4 long but for one row of `wide`
 * in each of the first `slices` slices: their width costs the natural order 31 lanes of padding
 * each, the order by length 31 * 4 a slice. */
static zs_matrix *wide_rows(int64_t slices, int64_t wide) {
  const int64_t rows = INT64_C(1) << 16, cols = 4096;
  int64_t *ptr = malloc((size_t)(rows + 1) * sizeof *ptr);
  int32_t *col = malloc((size_t)(rows * 4 + slices * wide) * sizeof *col);
  ptr[0] = 0;
  for (int64_t i = 0; i < rows; i++) {
    const int64_t n = i % 32 == 7 && i / 32 < slices ? wide : 4, step = cols / n;
    for (int64_t k = 0; k < n; k++) col[ptr[i] + k] = (int32_t)(k * step + i % step);
    ptr[i + 1] = ptr[i] + n;
  }
  double *val = malloc((size_t)ptr[rows] * sizeof *val);
  for (int64_t k = 0; k < ptr[rows]; k++) val[k] = 1.0;
  zs_matrix *A = NULL;
  CHECK_STATUS(zs_matrix_from_csr(&A, rows, cols, ptr, col, val, ZS_F64, 0), ZS_OK);
  free(ptr), free(col), free(val);
  return A;
}

/* 2^16 rows and columns, 4 nonzeros a row, `hot` of them in the 656 columns that are the 1 %
 * fullest (hot_rows of 200 rows take one there, extra of 200 a second), the others spread
 * thinly over the other columns. */
static zs_matrix *hot_columns(int hot_rows, int extra) {
  const int64_t rows = INT64_C(1) << 16, cols = INT64_C(1) << 16, top = 656;
  int64_t *ptr = malloc((size_t)(rows + 1) * sizeof *ptr);
  int32_t *col = malloc((size_t)rows * 4 * sizeof *col);
  double *val = malloc((size_t)rows * 4 * sizeof *val);
  ptr[0] = 0;
  for (int64_t i = 0; i < rows; i++) {
    const int hot = (i % 200 < hot_rows) + (i % 200 < extra);
    int32_t *c = col + 4 * i;
    for (int k = 0; k < 4; k++)
      c[k] = k < hot ? (int32_t)((i + k * top / 2) % top)
                     : (int32_t)(top + (4 * i + k) * 7919 % (cols - top));
    for (int k = 0; k < 4; k++) val[4 * i + k] = 1.0;
    ptr[i + 1] = 4 * (i + 1);
  }
  zs_matrix *A = NULL;
  CHECK_STATUS(zs_matrix_from_csr(&A, rows, cols, ptr, col, val, ZS_F64, 0), ZS_OK);
  free(ptr), free(col), free(val);
  return A;
}

int main(void) {
  const int rows = ZSI_AUTO_ORDER_ROWS, cols = ZSI_AUTO_ORDER_COLS;
  agree("R-MAT scale 16",
        zs_test_generate_or_exit("rmat:scale=16,per_row=16,values=set,distinct=64,seed=5", ZS_F64),
        rows | cols);
  agree("R-MAT scale 17",
        zs_test_generate_or_exit("rmat:scale=17,per_row=8,values=set,distinct=64,seed=3", ZS_F64),
        rows | cols);
  agree("banded",
        zs_test_generate_or_exit(
            "banded:rows=131072,width=64,per_row=16,values=set,distinct=16,seed=5", ZS_F64),
        0);
  agree("stencil 2-D",
        zs_test_generate_or_exit("stencil2d:n=300,points=5,values=set,distinct=16", ZS_F64), 0);
  agree("stencil 3-D",
        zs_test_generate_or_exit("stencil3d:n=48,points=27,values=set,distinct=16", ZS_F64), 0);
  /* either side of the rows' rule, natural lane steps 1.49 and 1.51 times the ordered ones */
  agree("wide rows 37", wide_rows(128, 37), 0);
  agree("wide rows 38", wide_rows(128, 38), rows);
  /* either side of the columns' rule: 24.5 % and 25.5 % of the nonzeros in the 1 % fullest */
  agree("hot columns 24.5 %", hot_columns(196, 0), 0);
  agree("hot columns 25.5 %", hot_columns(200, 4), cols);
  CHECK_DONE();
}
