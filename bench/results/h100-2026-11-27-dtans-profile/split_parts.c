/* split_parts.c — writes the column parts that the tried column-parts change
 * (column-parts-tried.diff) made of a .zsm: K parts, part k = columns [k w, (k + 1) w), each
 * encoded in the file's format with its default options, as PREFIX.k.zsm. Used on the dev
 * machine for the CPU comparison in bench/NOTES.md (2026-11-27). Build from the repo root:
 * cc -O2 -Iinclude bench/results/h100-2026-11-27-dtans-profile/split_parts.c -Lbuild -lzsparse */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "zsparse.h"

int main(int argc, char **argv) {
  if (argc != 4) return fprintf(stderr, "usage: split_parts IN.zsm K PREFIX\n"), 2;
  const int K = atoi(argv[2]);
  zs_encoded *E = NULL;
  zs_matrix *A = NULL;
  if (zs_encoded_load(&E, argv[1]) || zs_decode(&A, E))
    return fprintf(stderr, "split_parts: %s\n", zs_last_error()), 1;
  const int64_t *ptr;
  const int32_t *col;
  const void *val;
  zs_matrix_csr(A, &ptr, &col, &val);
  const int64_t rows = zs_matrix_rows(A), cols = zs_matrix_cols(A), w = (cols + K - 1) / K;
  const size_t es = zs_matrix_type(A) == ZS_F64 ? 8 : 4;
  int64_t *p = malloc((size_t)(rows + 1) * 8);
  int32_t *c = malloc((size_t)zs_matrix_nnz(A) * 4);
  char *v = malloc((size_t)zs_matrix_nnz(A) * es);
  for (int k = 0; k < K; k++) {
    int64_t at = 0;
    p[0] = 0;
    for (int64_t i = 0; i < rows; i++) {
      for (int64_t j = ptr[i]; j < ptr[i + 1]; j++)
        if (col[j] >= k * w && col[j] < (k + 1) * w) {
          c[at] = col[j];
          memcpy(v + at * es, (const char *)val + j * es, es);
          at++;
        }
      p[i + 1] = at;
    }
    zs_matrix *P = NULL;
    zs_encoded *EP = NULL;
    char path[512];
    snprintf(path, sizeof path, "%s.%d.zsm", argv[3], k);
    if (zs_matrix_from_csr(&P, rows, cols, p, c, v, zs_matrix_type(A), 0) ||
        zs_encode(&EP, P, zs_encoded_format(E), NULL) || zs_encoded_save(EP, path))
      return fprintf(stderr, "split_parts: %s\n", zs_last_error()), 1;
    printf("%s: %lld nnz\n", path, (long long)at);
    zs_matrix_destroy(&P), zs_encoded_destroy(&EP);
  }
  return 0;
}
