/* test_gen.c — zs_matrix_generate: exact small cases, structural invariants, determinism and
 * errors, checked against independent reference constructions. Argument: the group to run. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/common/check.h"
#include "tests/common/generated.h"
#include "tests/common/same_matrix.h"
#include "tests/common/typed_element.h"
#include "zsparse.h"

#ifdef _OPENMP
#include <omp.h>
#endif

static double val(const zs_matrix *A, int64_t k) {
  const void *v;
  zs_matrix_csr(A, NULL, NULL, &v);
  return zs_test_element(v, zs_matrix_type(A), k);
}

/* Columns strictly ascending and inside the matrix. */
static int canonical(const zs_matrix *A) {
  const int64_t *rp;
  const int32_t *ci;
  zs_matrix_csr(A, &rp, &ci, NULL);
  if (rp[0] != 0 || rp[zs_matrix_rows(A)] != zs_matrix_nnz(A)) return 0;
  for (int64_t i = 0; i < zs_matrix_rows(A); i++)
    for (int64_t k = rp[i]; k < rp[i + 1]; k++)
      if (ci[k] < 0 || ci[k] >= zs_matrix_cols(A) || (k > rp[i] && ci[k] <= ci[k - 1])) return 0;
  return 1;
}

/* Position of (i, j) or -1, by binary search. */
static int64_t find(const zs_matrix *A, int64_t i, int64_t j) {
  const int64_t *rp;
  const int32_t *ci;
  zs_matrix_csr(A, &rp, &ci, NULL);
  int64_t lo = rp[i], hi = rp[i + 1];
  while (lo < hi) {
    const int64_t mid = lo + (hi - lo) / 2;
    if (ci[mid] < j)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < rp[i + 1] && ci[lo] == j ? lo : -1;
}

/* A == A^T, structure and values, bit for bit. */
static int symmetric(const zs_matrix *A) {
  const int64_t *rp;
  const int32_t *ci;
  zs_matrix_csr(A, &rp, &ci, NULL);
  if (zs_matrix_rows(A) != zs_matrix_cols(A)) return 0;
  for (int64_t i = 0; i < zs_matrix_rows(A); i++)
    for (int64_t k = rp[i]; k < rp[i + 1]; k++) {
      const int64_t t = find(A, ci[k], i);
      if (t < 0 || val(A, t) != val(A, k)) return 0;
    }
  return 1;
}

static int64_t row_len(const zs_matrix *A, int64_t i) {
  const int64_t *rp;
  zs_matrix_csr(A, &rp, NULL, NULL);
  return rp[i + 1] - rp[i];
}

/* Compare with a dense reference ref[i*n + j] (0 = no entry). */
static int equals_dense(const zs_matrix *A, const double *ref, int64_t n) {
  if (zs_matrix_rows(A) != n || zs_matrix_cols(A) != n) return 0;
  for (int64_t i = 0; i < n; i++)
    for (int64_t j = 0; j < n; j++) {
      const int64_t k = find(A, i, j);
      const double a = k < 0 ? 0.0 : val(A, k);
      if (a != ref[i * n + j]) {
        fprintf(stderr, "  entry (%lld, %lld): generated %g, expected %g\n", (long long)i,
                (long long)j, a, ref[i * n + j]);
        return 0;
      }
    }
  return 1;
}

/* ---- stencils ------------------------------------------------------------------------------ */

static void test_stencil_exact(void) {
  /* 3x3 grid, node = 3*y + x: the 2-D 5-point Laplacian written out by hand. */
  static const double lap[81] = {
      4,  -1, 0,  -1, 0,  0,  0,  0,  0,  /* (0,0) */
      -1, 4,  -1, 0,  -1, 0,  0,  0,  0,  /* (1,0) */
      0,  -1, 4,  0,  0,  -1, 0,  0,  0,  /* (2,0) */
      -1, 0,  0,  4,  -1, 0,  -1, 0,  0,  /* (0,1) */
      0,  -1, 0,  -1, 4,  -1, 0,  -1, 0,  /* (1,1) */
      0,  0,  -1, 0,  -1, 4,  0,  0,  -1, /* (2,1) */
      0,  0,  0,  -1, 0,  0,  4,  -1, 0,  /* (0,2) */
      0,  0,  0,  0,  -1, 0,  -1, 4,  -1, /* (1,2) */
      0,  0,  0,  0,  0,  -1, 0,  -1, 4,  /* (2,2) */
  };
  for (int t = 0; t < 2; t++) {
    zs_matrix *A = zs_test_generate("stencil2d:n=3,points=5", t ? ZS_F32 : ZS_F64);
    if (!A) continue;
    CHECK(zs_matrix_nnz(A) == 33);
    CHECK(equals_dense(A, lap, 9));
    zs_matrix_destroy(&A);
  }

  /* 9-, 7- and 27-point stencils and elasticity against a pairwise dense construction. */
  static const struct {
    const char *spec;
    int dims, full, block;
  } cases[] = {{"stencil2d:n=4,points=9", 2, 1, 1},
               {"stencil2d:nx=5,ny=3", 2, 0, 1},
               {"stencil3d:n=3,points=7", 3, 0, 1},
               {"stencil3d:nx=3,ny=2,nz=4,points=27", 3, 1, 1},
               {"elasticity3d:nx=2,ny=3,nz=2", 3, 1, 3}};
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    zs_matrix *A = zs_test_generate(cases[c].spec, ZS_F64);
    if (!A) continue;
    int nx, ny, nz;
    if (sscanf(cases[c].spec, "stencil2d:n=%d", &nx) == 1)
      ny = nx, nz = 1;
    else if (sscanf(cases[c].spec, "stencil2d:nx=%d,ny=%d", &nx, &ny) == 2)
      nz = 1;
    else if (sscanf(cases[c].spec, "stencil3d:n=%d", &nx) == 1)
      ny = nz = nx;
    else if (sscanf(cases[c].spec, "stencil3d:nx=%d,ny=%d,nz=%d", &nx, &ny, &nz) == 3) {
    } else if (sscanf(cases[c].spec, "elasticity3d:nx=%d,ny=%d,nz=%d", &nx, &ny, &nz) == 3) {
    } else
      nx = ny = nz = 0;
    const int nodes = nx * ny * nz, b = cases[c].block, n = nodes * b;
    const double diag = cases[c].full ? (cases[c].dims == 2 ? 8 : 26) : 2 * cases[c].dims;
    double *ref = calloc((size_t)n * n, sizeof *ref);
    for (int p = 0; p < nodes; p++)
      for (int q = 0; q < nodes; q++) {
        const int d[3] = {q % nx - p % nx, q / nx % ny - p / nx % ny,
                          q / (nx * ny) - p / (nx * ny)};
        const int l1 = abs(d[0]) + abs(d[1]) + abs(d[2]);
        if (abs(d[0]) > 1 || abs(d[1]) > 1 || abs(d[2]) > 1 || (!cases[c].full && l1 > 1)) continue;
        for (int a = 0; a < b; a++)
          for (int e = 0; e < b; e++) {
            double v;
            if (b == 1)
              v = p == q ? diag : -1;
            else if (p == q)
              v = a == e ? 208 : -1;
            else
              v = -(2 + (a == e) + d[a] * d[e]);
            ref[(size_t)(p * b + a) * n + q * b + e] = v;
          }
      }
    if (!equals_dense(A, ref, n)) {
      fprintf(stderr, "  case %s\n", cases[c].spec);
      check_failures++;
    }
    free(ref);
    zs_matrix_destroy(&A);
  }
}

/* Valid offsets along one axis at coordinate x of n: {-1, 0, 1} clipped. */
static int axis(int x, int n) { return 1 + (x > 0) + (x < n - 1); }

static void test_stencil_rows(void) {
  const int n = 6;
  static const struct {
    const char *spec;
    int dims, full, block;
    long long nnz; /* closed form at n = 6 */
  } cases[] = {
      {"stencil2d:n=6", 2, 0, 1, 5 * 36 - 4 * 6},            /* 5n^2 - 4n */
      {"stencil2d:n=6,points=9", 2, 1, 1, 16 * 16},          /* (3n-2)^2 */
      {"stencil3d:n=6,points=7", 3, 0, 1, 7 * 216 - 6 * 36}, /* 7n^3 - 6n^2 */
      {"stencil3d:n=6,points=27", 3, 1, 1, 16 * 16 * 16},    /* (3n-2)^3 */
      {"elasticity3d:n=6", 3, 1, 3, 9LL * 16 * 16 * 16},     /* 9 (3n-2)^3 */
  };
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    zs_matrix *A = zs_test_generate(cases[c].spec, ZS_F64);
    if (!A) continue;
    CHECK(canonical(A));
    CHECK(zs_matrix_nnz(A) == cases[c].nnz);
    CHECK(symmetric(A));
    const int nz = cases[c].dims == 3 ? n : 1, b = cases[c].block;
    int64_t interior = -1, corner = -1;
    for (int z = 0; z < nz; z++)
      for (int y = 0; y < n; y++)
        for (int x = 0; x < n; x++) {
          const int ax = axis(x, n), ay = axis(y, n), az = cases[c].dims == 3 ? axis(z, n) : 1;
          const int expect =
              b * (cases[c].full ? ax * ay * az : 1 + (ax - 1) + (ay - 1) + (az - 1));
          for (int a = 0; a < b; a++) {
            const int64_t r = ((int64_t)(z * n + y) * n + x) * b + a;
            if (row_len(A, r) != expect) {
              fprintf(stderr, "  %s row %lld: %lld entries, expected %d\n", cases[c].spec,
                      (long long)r, (long long)row_len(A, r), expect);
              check_failures++;
            }
            if (x == 1 && y == 1 && (z == 1 || nz == 1)) interior = row_len(A, r);
            if (x == 0 && y == 0 && z == 0) corner = row_len(A, r);
          }
        }
    /* The counts the docs promise, spelt out. */
    static const int want_interior[] = {5, 9, 7, 27, 81}, want_corner[] = {3, 4, 4, 8, 24};
    CHECK(interior == want_interior[c]);
    CHECK(corner == want_corner[c]);
    zs_matrix_destroy(&A);
  }
  /* Non-square 2-D grid: 5 nx ny - 2 nx - 2 ny. */
  zs_matrix *A = zs_test_generate("stencil2d:nx=7,ny=4", ZS_F32);
  if (A) CHECK(zs_matrix_rows(A) == 28 && zs_matrix_nnz(A) == 5 * 28 - 2 * 7 - 2 * 4);
  zs_matrix_destroy(&A);
  /* Interior rows of the Laplacians sum to zero. */
  A = zs_test_generate("stencil3d:n=5,points=27", ZS_F64);
  if (A) {
    const int64_t r = (2 * 5 + 2) * 5 + 2;
    const int64_t *rp;
    zs_matrix_csr(A, &rp, NULL, NULL);
    double sum = 0;
    for (int64_t k = rp[r]; k < rp[r + 1]; k++) sum += val(A, k);
    CHECK(sum == 0.0);
  }
  zs_matrix_destroy(&A);
}

/* ---- values ------------------------------------------------------------------------------- */

static void test_values(void) {
  /* set: at most `distinct` values, all of the form +-k/8 with 1 <= k <= distinct/2 (rounded up). */
  const char *set_specs[] = {"erdos_renyi:rows=500,per_row=8,values=set,distinct=5",
                             "stencil3d:n=8,values=set,distinct=3", "rmat:scale=9,values=set"};
  const int set_d[] = {5, 3, 16};
  for (int c = 0; c < 3; c++) {
    zs_matrix *A = zs_test_generate(set_specs[c], ZS_F64);
    if (!A) continue;
    double seen[64];
    int nseen = 0, ok = 1;
    for (int64_t k = 0; k < zs_matrix_nnz(A); k++) {
      const double v = val(A, k), m = fabs(v) * 8;
      if (m != floor(m) || m < 1 || m > (set_d[c] + 1) / 2 || (v < 0 && m > set_d[c] / 2)) ok = 0;
      int j = 0;
      while (j < nseen && seen[j] != v) j++;
      if (j == nseen && nseen < 64) seen[nseen++] = v;
    }
    CHECK(ok);
    CHECK(nseen == set_d[c]); /* thousands of draws hit every value */
    zs_matrix_destroy(&A);
  }
  /* pattern: all ones. */
  const char *pat_specs[] = {"banded:rows=300,values=pattern", "stencil2d:n=9,values=pattern",
                             "watts_strogatz:n=100,values=pattern"};
  for (int c = 0; c < 3; c++) {
    zs_matrix *A = zs_test_generate(pat_specs[c], ZS_F32);
    if (!A) continue;
    int ok = 1;
    for (int64_t k = 0; k < zs_matrix_nnz(A); k++) ok &= val(A, k) == 1.0;
    CHECK(ok && zs_matrix_nnz(A) > 0);
    zs_matrix_destroy(&A);
  }
  /* random: in (-1, 1), never 0, spread out; the f32 value is the f64 value's numerator cut to
   * its top 24 bits (kept odd), exactly as docs/generators.md says. */
  zs_matrix *A = zs_test_generate("erdos_renyi:rows=1000,per_row=20,seed=7", ZS_F64);
  zs_matrix *B = zs_test_generate("erdos_renyi:rows=1000,per_row=20,seed=7", ZS_F32);
  if (A && B) {
    CHECK(zs_matrix_nnz(A) == zs_matrix_nnz(B));
    int in_range = 1, relation = 1;
    double sum = 0, lo = 1, hi = -1;
    for (int64_t k = 0; k < zs_matrix_nnz(A); k++) {
      const double a = val(A, k), b = val(B, k);
      in_range &= a > -1 && a < 1 && a != 0 && b > -1 && b < 1 && b != 0;
      const uint64_t n64 = (uint64_t)ldexp(a + 1, 52), n32 = (uint64_t)ldexp(b + 1, 23);
      relation &= ldexp((double)n64, -52) - 1 == a && (n64 & 1) && ((n64 >> 29) | 1) == n32;
      sum += a, lo = a < lo ? a : lo, hi = a > hi ? a : hi;
    }
    CHECK(in_range);
    CHECK(relation);
    CHECK(fabs(sum / (double)zs_matrix_nnz(A)) < 0.05); /* mean of 20000 uniforms: sd 0.004 */
    CHECK(lo < -0.99 && hi > 0.99);
  }
  zs_matrix_destroy(&A);
  zs_matrix_destroy(&B);
  /* Stencils with random values stay symmetric; other seeds give other values, same structure. */
  A = zs_test_generate("elasticity3d:n=3,values=random", ZS_F64);
  B = zs_test_generate("elasticity3d:n=3,values=random,seed=2", ZS_F64);
  if (A && B) {
    CHECK(symmetric(A));
    CHECK(zs_matrix_nnz(A) == zs_matrix_nnz(B) && !zs_test_same_matrix(A, B));
  }
  zs_matrix_destroy(&A);
  zs_matrix_destroy(&B);
}

/* ---- random kinds ----------------------------------------------------------------------------- */

static void test_random_kinds(void) {
  /* erdos_renyi: exactly per_row distinct columns in range, rectangular. */
  zs_matrix *A = zs_test_generate("erdos_renyi:rows=2000,cols=300,per_row=17", ZS_F64);
  if (A) {
    CHECK(zs_matrix_rows(A) == 2000 && zs_matrix_cols(A) == 300 && zs_matrix_nnz(A) == 2000 * 17);
    CHECK(canonical(A));
    int ok = 1;
    for (int64_t i = 0; i < 2000; i++) ok &= row_len(A, i) == 17;
    CHECK(ok);
    /* Columns roughly uniform: the mean column is near 149.5 (sd of the mean ~0.5). */
    const int32_t *ci;
    zs_matrix_csr(A, NULL, &ci, NULL);
    double s = 0;
    for (int64_t k = 0; k < zs_matrix_nnz(A); k++) s += ci[k];
    CHECK(fabs(s / (double)zs_matrix_nnz(A) - 149.5) < 3);
  }
  zs_matrix_destroy(&A);
  /* per_row above the linear-scan limit (hash-set path), and per_row == cols (every column). */
  A = zs_test_generate("erdos_renyi:rows=50,cols=1000,per_row=700", ZS_F64);
  if (A) {
    int ok = canonical(A) && zs_matrix_nnz(A) == 50 * 700;
    for (int64_t i = 0; i < 50; i++) ok &= row_len(A, i) == 700;
    CHECK(ok);
  }
  zs_matrix_destroy(&A);
  A = zs_test_generate("erdos_renyi:rows=10,cols=90,per_row=90", ZS_F64);
  if (A) CHECK(canonical(A) && zs_matrix_nnz(A) == 900);
  zs_matrix_destroy(&A);
  /* p-mode: nnz ~ Binomial(rows*cols, p): 4e6 * 0.01 = 40000, sd 199. */
  A = zs_test_generate("erdos_renyi:rows=2000,p=0.01", ZS_F64);
  if (A) CHECK(canonical(A) && fabs((double)zs_matrix_nnz(A) - 40000) < 1200);
  zs_matrix_destroy(&A);
  A = zs_test_generate("erdos_renyi:rows=20,cols=30,p=1", ZS_F64);
  if (A) CHECK(canonical(A) && zs_matrix_nnz(A) == 600);
  zs_matrix_destroy(&A);

  /* banded: min(per_row, clipped band) columns with |i - j| <= width/2. */
  A = zs_test_generate("banded:rows=1000,width=65,per_row=20", ZS_F64);
  if (A) {
    CHECK(canonical(A));
    const int64_t *rp;
    const int32_t *ci;
    zs_matrix_csr(A, &rp, &ci, NULL);
    int ok = 1;
    for (int64_t i = 0; i < 1000; i++) {
      const int64_t lo = i - 32 < 0 ? 0 : i - 32, hi = i + 32 > 999 ? 999 : i + 32;
      const int64_t want = hi - lo + 1 < 20 ? hi - lo + 1 : 20;
      ok &= row_len(A, i) == want;
      for (int64_t k = rp[i]; k < rp[i + 1]; k++) ok &= llabs(ci[k] - i) <= 32;
    }
    CHECK(ok);
    CHECK(row_len(A, 0) == 20); /* band clipped to 33 columns, still >= 20 */
  }
  zs_matrix_destroy(&A);
  A = zs_test_generate("banded:rows=100,width=10,per_row=11",
                       ZS_F64); /* the full band: tridiag-like */
  if (A) {
    CHECK(canonical(A));
    CHECK(row_len(A, 0) == 6 && row_len(A, 50) == 11 && row_len(A, 99) == 6);
    CHECK(zs_matrix_nnz(A) == 100 * 11 - 2 * (5 + 4 + 3 + 2 + 1));
  }
  zs_matrix_destroy(&A);

  /* watts_strogatz: p = 0 is the ring lattice exactly. */
  A = zs_test_generate("watts_strogatz:n=50,k=6,p=0", ZS_F64);
  if (A) {
    CHECK(zs_matrix_nnz(A) == 50 * 6 && canonical(A) && symmetric(A));
    int ok = 1;
    for (int64_t i = 0; i < 50; i++)
      for (int64_t j = 0; j < 50; j++) {
        const int64_t d = llabs(i - j), ring = d < 50 - d ? d : 50 - d;
        ok &= (find(A, i, j) >= 0) == (ring >= 1 && ring <= 3);
      }
    CHECK(ok);
  }
  zs_matrix_destroy(&A);
  A = zs_test_generate("watts_strogatz:n=2000,k=10,p=0.3", ZS_F64);
  if (A) {
    CHECK(canonical(A) && symmetric(A));
    int no_self = 1, far = 0;
    for (int64_t i = 0; i < 2000; i++) {
      no_self &= find(A, i, i) < 0;
      const int64_t *rp;
      const int32_t *ci;
      zs_matrix_csr(A, &rp, &ci, NULL);
      for (int64_t k = rp[i]; k < rp[i + 1]; k++) {
        const int64_t d = llabs(ci[k] - i), ring = d < 2000 - d ? d : 2000 - d;
        far += ring > 5;
      }
    }
    CHECK(no_self);
    /* ~30% of the 10000 edges rewired, each counted twice: ~6000 far entries. */
    CHECK(far > 5000 && far < 7000);
    CHECK(zs_matrix_nnz(A) <= 2000 * 10 && zs_matrix_nnz(A) > 2000 * 10 - 100);
  }
  zs_matrix_destroy(&A);

  /* barabasi_albert: 2 m (n - m) entries, symmetric, no loops, every degree >= m. */
  A = zs_test_generate("barabasi_albert:n=3000,m=3", ZS_F64);
  if (A) {
    CHECK(zs_matrix_nnz(A) == 2 * 3 * (3000 - 3) && canonical(A) && symmetric(A));
    int ok = 1;
    int64_t maxdeg = 0;
    for (int64_t i = 0; i < 3000; i++) {
      ok &= find(A, i, i) < 0 && row_len(A, i) >= 3;
      if (row_len(A, i) > maxdeg) maxdeg = row_len(A, i);
    }
    CHECK(ok);
    CHECK(maxdeg > 40); /* preferential attachment grows hubs (uniform attachment gives ~15) */
  }
  zs_matrix_destroy(&A);

  /* rmat: 2^scale square, duplicates merged, skewed toward row 0. */
  A = zs_test_generate("rmat:scale=12,per_row=8", ZS_F64);
  if (A) {
    CHECK(zs_matrix_rows(A) == 4096 && zs_matrix_cols(A) == 4096);
    CHECK(canonical(A)); /* strictly ascending: no duplicates */
    CHECK(zs_matrix_nnz(A) <= 8 * 4096 && zs_matrix_nnz(A) > 8 * 4096 / 2);
    CHECK(row_len(A, 0) > 8 * 8);
  }
  zs_matrix_destroy(&A);
  A = zs_test_generate("rmat:scale=10,per_row=4,a=1,b=0,c=0", ZS_F64); /* every edge is (0, 0) */
  if (A) CHECK(zs_matrix_nnz(A) == 1 && find(A, 0, 0) == 0);
  zs_matrix_destroy(&A);
  A = zs_test_generate("rmat:scale=5,per_row=4,a=0,b=0,c=0",
                       ZS_F64); /* d = 1: every edge is (31, 31) */
  if (A) CHECK(zs_matrix_nnz(A) == 1 && find(A, 31, 31) == 0);
  zs_matrix_destroy(&A);
  /* Uniform quadrants: 4 * 2^14 draws from 2^28 cells, a handful of collisions at most. */
  A = zs_test_generate("rmat:scale=14,per_row=4,a=0.25,b=0.25,c=0.25", ZS_F64);
  if (A) CHECK(zs_matrix_nnz(A) > 4 * 16384 - 20 && row_len(A, 0) < 15);
  zs_matrix_destroy(&A);
}

/* ---- determinism --------------------------------------------------------------------------- */

static void set_threads(int t) {
#ifdef _OPENMP
  omp_set_num_threads(t);
#else
  (void)t;
#endif
}

static void test_determinism(void) {
  static const char *specs[] = {"stencil2d:n=200,points=9",
                                "stencil3d:n=24,points=27,values=random",
                                "elasticity3d:n=16,values=set",
                                "erdos_renyi:rows=30000,per_row=9",
                                "erdos_renyi:rows=40000,cols=5000,p=0.001",
                                "banded:rows=20000,width=160,per_row=70",
                                "watts_strogatz:n=20000,k=8,p=0.2",
                                "barabasi_albert:n=20000,m=5",
                                "rmat:scale=14,per_row=8"};
  for (size_t c = 0; c < sizeof specs / sizeof specs[0]; c++) {
    set_threads(1);
    zs_matrix *A = zs_test_generate(specs[c], ZS_F64);
    zs_matrix *B = zs_test_generate(specs[c], ZS_F64);
    set_threads(2);
    zs_matrix *C = zs_test_generate(specs[c], ZS_F64);
    zs_matrix *D = zs_test_generate(specs[c], ZS_F32);
    set_threads(1);
    zs_matrix *E = zs_test_generate(specs[c], ZS_F32);
    if (!zs_test_same_matrix(A, B) || !zs_test_same_matrix(A, C) || !zs_test_same_matrix(D, E)) {
      fprintf(stderr, "  %s differs between runs or thread counts\n", specs[c]);
      check_failures++;
    }
    if (A && !canonical(A)) {
      fprintf(stderr, "  %s is not canonical\n", specs[c]);
      check_failures++;
    }
    zs_matrix_destroy(&A), zs_matrix_destroy(&B), zs_matrix_destroy(&C);
    zs_matrix_destroy(&D), zs_matrix_destroy(&E);
  }
}

/* ---- pinned output --------------------------------------------------------------------------- */

/* Whole small matrices computed by tests/gen/pin.py, an independent Python implementation of
 * the scheme in docs/generators.md: the docs reproduce the library, and an unintended change of
 * the RNG (which would silently change every benchmark matrix) fails here. */
static void test_pinned(void) {
  static const struct {
    const char *spec;
    int n;
    struct {
      int i, j;
      double v;
    } e[12];
  } cases[] = {{"erdos_renyi:rows=3,cols=50,per_row=4,seed=9",
                12,
                {{0, 16, -0.12702073285147786},
                 {0, 32, 0.6578209045734897},
                 {0, 37, 0.6477350196522373},
                 {0, 45, -0.4352570341227022},
                 {1, 4, -0.49464964335013817},
                 {1, 28, 0.3534613277267826},
                 {1, 39, -0.9953732185056212},
                 {1, 48, -0.31819253549932003},
                 {2, 20, -0.1364091824155682},
                 {2, 41, 0.8002401314335372},
                 {2, 42, 0.843151696000384},
                 {2, 48, 0.4414100988977523}}},
               {"banded:rows=4,width=6,per_row=2,values=set,distinct=7",
                8,
                {{0, 0, -0.25},
                 {0, 3, 0.375},
                 {1, 1, 0.25},
                 {1, 3, 0.375},
                 {2, 1, 0.125},
                 {2, 3, -0.375},
                 {3, 1, 0.375},
                 {3, 2, 0.375}}},
               {"rmat:scale=3,per_row=1,seed=5",
                8,
                {{0, 0, 0.7670629616307016},
                 {0, 4, 0.3018235006112364},
                 {1, 0, 0.8071079508733454},
                 {1, 4, -0.9371857891102711},
                 {1, 5, 0.8907587230324883},
                 {4, 0, 0.5857978166947027},
                 {4, 3, 0.4237187465200487},
                 {6, 1, -0.9776978925951771}}},
               {"stencil2d:n=2,values=random,seed=4",
                12,
                {{0, 0, -0.765339207852427},
                 {0, 1, 0.27709317695163826},
                 {0, 2, -0.40862019530837723},
                 {1, 0, 0.27709317695163826},
                 {1, 1, -0.9827371261437043},
                 {1, 3, 0.9563410396817871},
                 {2, 0, -0.40862019530837723},
                 {2, 2, -0.9130034114478651},
                 {2, 3, -0.7523525849817536},
                 {3, 1, 0.9563410396817871},
                 {3, 2, -0.7523525849817536},
                 {3, 3, 0.6153262479457091}}}};
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    zs_matrix *A = zs_test_generate(cases[c].spec, ZS_F64);
    if (!A) continue;
    int ok = zs_matrix_nnz(A) == cases[c].n;
    for (int k = 0; k < cases[c].n && ok; k++) {
      const int64_t p = find(A, cases[c].e[k].i, cases[c].e[k].j);
      ok = p >= 0 && val(A, p) == cases[c].e[k].v;
    }
    if (!ok) {
      fprintf(stderr, "  %s differs from the documented scheme\n", cases[c].spec);
      check_failures++;
    }
    zs_matrix_destroy(&A);
  }
}

/* ---- errors -------------------------------------------------------------------------------- */

static void expect_error(const char *spec, zs_status want, const char *needle) {
  zs_matrix *A = (zs_matrix *)&check_failures; /* must stay untouched */
  const zs_status s = zs_matrix_generate(&A, spec, ZS_F64, 0);
  if (s != want || A != (zs_matrix *)&check_failures || !strstr(zs_last_error(), needle)) {
    fprintf(stderr, "  '%s': got %s '%s', expected %s mentioning '%s'\n", spec, zs_status_name(s),
            zs_last_error(), zs_status_name(want), needle);
    check_failures++;
  }
}

static void test_errors(void) {
  expect_error("stencil4d:n=3", ZS_ERR_INVALID_ARGUMENT, "stencil4d");
  expect_error("", ZS_ERR_INVALID_ARGUMENT, "unknown generator");
  expect_error("stencil2d:n=3,pointz=5", ZS_ERR_INVALID_ARGUMENT, "pointz");
  expect_error("rmat:scale=4,nx=3", ZS_ERR_INVALID_ARGUMENT, "nx");
  expect_error("stencil2d:points=7", ZS_ERR_INVALID_ARGUMENT, "not 5 or 9");
  expect_error("stencil3d:points=9", ZS_ERR_INVALID_ARGUMENT, "not 7 or 27");
  expect_error("stencil3d:points=28", ZS_ERR_INVALID_ARGUMENT, "[7, 27]");
  expect_error("stencil2d:n=0", ZS_ERR_INVALID_ARGUMENT, "[1, 2147483647]");
  expect_error("stencil2d:n=abc", ZS_ERR_INVALID_ARGUMENT, "not an integer");
  expect_error("stencil2d:values=gaussian", ZS_ERR_INVALID_ARGUMENT, "gaussian");
  expect_error("erdos_renyi:values=stencil", ZS_ERR_INVALID_ARGUMENT, "stencil");
  expect_error("stencil2d:distinct=4", ZS_ERR_INVALID_ARGUMENT, "values=set");
  expect_error("banded:values=set,distinct=5000", ZS_ERR_INVALID_ARGUMENT, "[1, 4096]");
  expect_error("erdos_renyi:rows=10,per_row=11", ZS_ERR_INVALID_ARGUMENT, "exceeds cols");
  expect_error("erdos_renyi:rows=10,per_row=2,p=0.5", ZS_ERR_INVALID_ARGUMENT, "not both");
  expect_error("erdos_renyi:p=0", ZS_ERR_INVALID_ARGUMENT, "(0, 1]");
  expect_error("erdos_renyi:p=1.5", ZS_ERR_INVALID_ARGUMENT, "(0, 1]");
  expect_error("erdos_renyi:p=x", ZS_ERR_INVALID_ARGUMENT, "not a number");
  expect_error("banded:width=10,per_row=12", ZS_ERR_INVALID_ARGUMENT, "per_row 12");
  expect_error("watts_strogatz:n=10,k=3", ZS_ERR_INVALID_ARGUMENT, "even");
  expect_error("watts_strogatz:n=10,k=10", ZS_ERR_INVALID_ARGUMENT, "below n");
  expect_error("barabasi_albert:n=5,m=5", ZS_ERR_INVALID_ARGUMENT, "below n");
  expect_error("rmat:scale=32", ZS_ERR_INVALID_ARGUMENT, "[1, 31]");
  expect_error("rmat:a=0.6,b=0.3,c=0.2", ZS_ERR_INVALID_ARGUMENT, "exceeds 1");
  expect_error("stencil3d:n=100000", ZS_ERR_OVERFLOW, "2^31-1");
  expect_error("stencil2d:n=46341", ZS_ERR_OVERFLOW, "46341 x 46341");
  expect_error("elasticity3d:n=900", ZS_ERR_OVERFLOW, "3 unknowns");
  expect_error("stencil3d:nx=2000000000,ny=2000000000,nz=2000000000", ZS_ERR_OVERFLOW,
               "exceeds the row limit");
  zs_matrix *A = NULL;
  CHECK(zs_matrix_generate(NULL, "stencil2d", ZS_F64, 0) == ZS_ERR_INVALID_ARGUMENT);
  CHECK(zs_matrix_generate(&A, NULL, ZS_F64, 0) == ZS_ERR_INVALID_ARGUMENT);
  CHECK(zs_matrix_generate(&A, "stencil2d", (zs_type)3, 0) == ZS_ERR_INVALID_ARGUMENT);
  CHECK(A == NULL);
  /* Defaults alone are valid specs. */
  const char *defaults[] = {"stencil2d",      "stencil3d",       "elasticity3d", "erdos_renyi",
                            "watts_strogatz", "barabasi_albert", "rmat",         "banded"};
  for (int c = 0; c < 8; c++) {
    A = zs_test_generate(defaults[c], ZS_F32);
    if (A) CHECK(canonical(A) && zs_matrix_nnz(A) > 0);
    zs_matrix_destroy(&A);
  }
}

int main(int argc, char **argv) {
  static const struct {
    const char *name;
    void (*fn)(void);
  } groups[] = {
      {"stencil", test_stencil_exact}, {"rows", test_stencil_rows},       {"values", test_values},
      {"random", test_random_kinds},   {"determinism", test_determinism}, {"pinned", test_pinned},
      {"errors", test_errors}};
  int ran = 0;
  for (size_t g = 0; g < sizeof groups / sizeof groups[0]; g++) {
    if (argc > 1 && strcmp(argv[1], groups[g].name) != 0) continue;
    groups[g].fn();
    ran++;
  }
  if (!ran) {
    fprintf(stderr, "unknown test group '%s'\n", argv[1]);
    return 2;
  }
  CHECK_DONE();
}
