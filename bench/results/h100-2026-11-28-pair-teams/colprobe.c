#define _POSIX_C_SOURCE 200809L
/* Throwaway device probe (fourteenth session, r4): SpMV of a matrix against the same matrix with its
 * columns renumbered by descending frequency (x permuted to match), dtANS and CSR, on a backend.
 * Prints sizes, median µs of REPS synchronised calls, and the products' largest difference. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zsparse.h>

#define CHECK(x)                                                                   \
  do {                                                                             \
    if ((x) != ZS_OK) {                                                            \
      fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, zs_last_error()); \
      exit(1);                                                                     \
    }                                                                              \
  } while (0)

static const int64_t *g_freq;
static int by_freq(const void *a, const void *b) {
  const int32_t i = *(const int32_t *)a, j = *(const int32_t *)b;
  if (g_freq[i] != g_freq[j]) return g_freq[i] < g_freq[j] ? 1 : -1;
  return i < j ? -1 : i > j;
}
static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}
static int cmp_d(const void *a, const void *b) {
  const double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* median µs of reps calls y = A x, and y downloaded into out */
static double run(zs_context *ctx, const char *be, const zs_matrix *A, zs_format f,
                  const char *opts, const double *xh, double *out, int reps, double *mb) {
  zs_encoded *E = NULL;
  CHECK(zs_encode(&E, A, f, opts));
  *mb = zs_encoded_bytes(E) / 1e6;
  zs_operator *op = NULL;
  CHECK(zs_operator_create(&op, ctx, E, be, NULL));
  zs_vector *x = NULL, *y = NULL;
  CHECK(zs_vector_create(&x, ctx, be, ZS_F64, zs_matrix_cols(A)));
  CHECK(zs_vector_create(&y, ctx, be, ZS_F64, zs_matrix_rows(A)));
  CHECK(zs_vector_upload(x, xh));
  double *t = malloc(reps * sizeof *t);
  for (int r = 0; r < 3; r++) CHECK(zs_spmv(op, ZS_OP_N, 1.0, x, 0.0, y));
  CHECK(zs_operator_sync(op));
  for (int r = 0; r < reps; r++) {
    const double t0 = now();
    CHECK(zs_spmv(op, ZS_OP_N, 1.0, x, 0.0, y));
    CHECK(zs_operator_sync(op));
    t[r] = 1e6 * (now() - t0);
  }
  qsort(t, reps, sizeof *t, cmp_d);
  const double med = t[reps / 2];
  CHECK(zs_vector_download(y, out));
  free(t);
  zs_vector_destroy(&x), zs_vector_destroy(&y), zs_operator_destroy(&op), zs_encoded_destroy(&E);
  return med;
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: gpuprobe SPEC BACKEND [REPS]\n");
    return 2;
  }
  const char *spec = argv[1], *be = argv[2];
  const int reps = argc > 3 ? atoi(argv[3]) : 20;
  zs_matrix *A = NULL;
  CHECK(zs_matrix_generate(&A, spec, ZS_F64, 0));
  const int64_t n = zs_matrix_rows(A), m = zs_matrix_cols(A), nnz = zs_matrix_nnz(A);
  const int64_t *rp;
  const int32_t *ci;
  const void *val;
  zs_matrix_csr(A, &rp, &ci, &val);
  int64_t *freq = calloc(m, sizeof *freq);
  for (int64_t k = 0; k < nnz; k++) freq[ci[k]]++;
  int32_t *order = malloc(m * sizeof *order), *newid = malloc(m * sizeof *newid);
  for (int64_t j = 0; j < m; j++) order[j] = (int32_t)j;
  g_freq = freq;
  qsort(order, m, sizeof *order, by_freq);
  for (int64_t j = 0; j < m; j++) newid[order[j]] = (int32_t)j;
  int64_t *ri = malloc(nnz * sizeof *ri), *cj = malloc(nnz * sizeof *cj);
  for (int64_t i = 0; i < n; i++)
    for (int64_t k = rp[i]; k < rp[i + 1]; k++) ri[k] = i, cj[k] = newid[ci[k]];
  zs_matrix *B = NULL;
  CHECK(zs_matrix_from_coo(&B, n, m, nnz, ri, cj, val, ZS_F64, 0));
  free(ri), free(cj);
  double *x = malloc(m * sizeof *x), *xp = malloc(m * sizeof *xp);
  double *ya = malloc(n * sizeof *ya), *yb = malloc(n * sizeof *yb);
  srand(42);
  for (int64_t j = 0; j < m; j++) x[j] = rand() / (double)RAND_MAX - 0.5;
  for (int64_t j = 0; j < m; j++) xp[newid[j]] = x[j];
  zs_context *ctx = NULL;
  CHECK(zs_context_create(&ctx));
  printf("%s on %s, %lld nonzeros, %d calls, median us\n", spec, be, (long long)nnz, reps);
  const struct {
    zs_format f;
    const char *opts, *label;
  } cases[] = {{ZS_FORMAT_DTANS, NULL, "dtans"}, {ZS_FORMAT_CSR, NULL, "csr"}};
  for (int c = 0; c < 2; c++) {
    double mba, mbb;
    const double ta = run(ctx, be, A, cases[c].f, cases[c].opts, x, ya, reps, &mba);
    const double tb = run(ctx, be, B, cases[c].f, cases[c].opts, xp, yb, reps, &mbb);
    double d = 0, s = 0;
    for (int64_t i = 0; i < n; i++) d = fmax(d, fabs(ya[i] - yb[i])), s = fmax(s, fabs(ya[i]));
    printf(
        "%-6s natural %8.1f us %8.1f MB | by frequency %8.1f us %8.1f MB | max |dy| / max |y| "
        "%.1e\n",
        cases[c].label, ta, mba, tb, mbb, d / s);
    fflush(stdout);
  }
  zs_context_destroy(&ctx);
  return 0;
}
