/* Huge pages and a CSR SpMV loop, in one process: the same 2-D 5-point stencil (n^2 rows) held
 * twice, once in 4 KiB pages (64-byte aligned, MADV_NOHUGEPAGE) and once in 2 MiB pages (2 MiB
 * aligned, MADV_HUGEPAGE), and y = A x timed on each copy in turn, so that the machine's swings
 * fall on both alike. Build: gcc -O2 -fopenmp hp_ab.c -o hp_ab; run: ./hp_ab [n] [rounds]. */
#define _GNU_SOURCE
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

static void *get(size_t bytes, int huge) {
  void *p = NULL;
  const size_t align = huge ? (size_t)2 << 20 : 64;
  bytes = (bytes + align - 1) / align * align;
  if (posix_memalign(&p, align, bytes)) exit(1);
  madvise(p, bytes, huge ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
  memset(p, 0, bytes);
  return p;
}

typedef struct {
  int64_t *ptr;
  int32_t *col;
  double *val, *x, *y;
} csr;

static void build(csr *A, int64_t n, int huge) {
  const int64_t rows = n * n;
  A->ptr = get((size_t)(rows + 1) * 8, huge), A->col = get((size_t)rows * 5 * 4, huge);
  A->val = get((size_t)rows * 5 * 8, huge), A->x = get((size_t)rows * 8, huge);
  A->y = get((size_t)rows * 8, huge);
  int64_t k = 0;
  for (int64_t i = 0; i < rows; i++) {
    const int64_t r = i / n, c = i % n;
    A->ptr[i] = k;
    const int64_t nb[5] = {r > 0 ? i - n : -1, c > 0 ? i - 1 : -1, i, c + 1 < n ? i + 1 : -1,
                           r + 1 < n ? i + n : -1};
    for (int j = 0; j < 5; j++)
      if (nb[j] >= 0) A->col[k] = (int32_t)nb[j], A->val[k++] = j == 2 ? 4.0 : -1.0;
    A->x[i] = 1.0 + (double)(i % 7);
  }
  A->ptr[rows] = k;
}

static double spmv(const csr *A, int64_t rows) {
  const double t0 = omp_get_wtime();
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < rows; i++) {
    double s = 0;
    for (int64_t k = A->ptr[i]; k < A->ptr[i + 1]; k++) s += A->val[k] * A->x[A->col[k]];
    A->y[i] = s;
  }
  return omp_get_wtime() - t0;
}

static int cmp(const void *a, const void *b) {
  const double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
  const int64_t n = argc > 1 ? atoll(argv[1]) : 2048, rows = n * n;
  const int rounds = argc > 2 ? atoi(argv[2]) : 200;
  csr A[2];
  build(&A[0], n, 0), build(&A[1], n, 1);
  FILE *f = fopen("/proc/self/smaps_rollup", "r");
  char line[256];
  while (f && fgets(line, sizeof line, f))
    if (!strncmp(line, "AnonHugePages:", 14)) printf("this process: %s", line);
  if (f) fclose(f);
  double *t[2] = {malloc(sizeof(double) * rounds), malloc(sizeof(double) * rounds)};
  int small_wins = 0;
  for (int r = 0; r < rounds; r++) {
    const int first = r & 1; /* alternate which copy goes first */
    t[first][r] = spmv(&A[first], rows), t[!first][r] = spmv(&A[!first], rows);
    small_wins += t[0][r] < t[1][r];
  }
  if (memcmp(A[0].y, A[1].y, (size_t)rows * 8)) return puts("results differ"), 1;
  for (int h = 0; h < 2; h++) qsort(t[h], (size_t)rounds, sizeof(double), cmp);
  for (int h = 0; h < 2; h++)
    printf("%s: median %.2f ms, quartiles %.2f / %.2f, fastest %.2f\n",
           h ? "2 MiB pages" : "4 KiB pages", 1e3 * t[h][rounds / 2], 1e3 * t[h][rounds / 4],
           1e3 * t[h][3 * rounds / 4], 1e3 * t[h][0]);
  printf("4 KiB pages faster in %d of %d rounds\n", small_wins, rounds);
  return 0;
}
