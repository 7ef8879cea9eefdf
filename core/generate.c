/* generate.c — deterministic matrix generators (stencils, elasticity, random graphs) behind
 * zs_matrix_generate; the normative description is docs/generators.md. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/zs_internal.h"
#include "core/zs_omp.h"

/* ---- counter-based random numbers ------------------------------------------------------- */
/* Every random draw is a pure function of (seed, stream, a, b): rows and edges can then be
 * generated in any order, on any number of threads, and give the same bits. */

enum { STREAM_STRUCTURE = 1, STREAM_VALUES = 2 };

static inline uint64_t mix(uint64_t z) { /* splitmix64 step: add the gamma, then finalise */
  z += UINT64_C(0x9E3779B97F4A7C15);
  z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
  z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
  return z ^ (z >> 31);
}
static inline uint64_t stream_key(uint64_t seed, uint64_t stream) {
  return mix(mix(seed) ^ stream);
}
static inline uint64_t draw(uint64_t key, uint64_t a, uint64_t b) { return mix(mix(key ^ a) ^ b); }

/* floor(h * n / 2^64): an integer in [0, n) without division. */
#ifdef __SIZEOF_INT128__
__extension__ typedef unsigned __int128 zsi_u128;
static inline uint64_t bounded(uint64_t h, uint64_t n) {
  return (uint64_t)(((zsi_u128)h * n) >> 64);
}
#else
static inline uint64_t bounded(uint64_t h, uint64_t n) {
  const uint64_t hl = h & 0xffffffffu, hh = h >> 32, nl = n & 0xffffffffu, nh = n >> 32;
  const uint64_t ll = hl * nl, hln = hh * nl, lhn = hl * nh, hhn = hh * nh;
  const uint64_t cross = (ll >> 32) + (hln & 0xffffffffu) + lhn;
  return hhn + (hln >> 32) + (cross >> 32);
}
#endif
/* A double in [0, 1) with 53 random bits. */
static inline double unit(uint64_t h) { return (double)(h >> 11) * 0x1p-53; }

/* ---- generator description ---------------------------------------------------------------- */

typedef enum { VAL_STENCIL, VAL_RANDOM, VAL_SET, VAL_PATTERN } val_mode;

typedef struct gen {
  const char *kind;
  zs_type type;
  val_mode vmode;
  int symmetric; /* values keyed by (min(i,j), max(i,j)) */
  int64_t distinct;
  uint64_t skey, vkey; /* stream keys for structure and values */
  /* stencils and elasticity */
  int64_t nx, ny, nz;
  int dims, block, npts; /* neighbour table built by stencil_table */
  int8_t d[27][3];
  int64_t delta[27];
  double cf[3][81]; /* coefficient of neighbour k, unknown b, for row unknown a: cf[a][k*block+b] */
  /* random kinds */
  int64_t rows, cols, per_row, half_width;
  double p;
  int use_p;
} gen;

typedef struct scratch {
  int64_t *table; /* open-addressing set for Floyd sampling of long rows */
  int64_t cap;
} scratch;

/* Row generator: with cols == NULL return the row length only; otherwise write the row's
 * columns in ascending order (and, when coef != NULL, the stencil coefficients). */
typedef int64_t (*row_fn)(const gen *g, int64_t i, int32_t *cols, double *coef, scratch *s);

/* ---- values ------------------------------------------------------------------------------ */

/* Value of entry (i, j); rkey = mix(vkey ^ i), hoisted by the caller (draw(vkey, i, j) ==
 * mix(rkey ^ j)). */
static double value_of(const gen *g, uint64_t rkey, int64_t i, int64_t j) {
  if (g->vmode == VAL_PATTERN) return 1.0;
  const uint64_t h =
      g->symmetric && i > j ? draw(g->vkey, (uint64_t)j, (uint64_t)i) : mix(rkey ^ (uint64_t)j);
  if (g->vmode == VAL_SET) {
    const uint64_t idx = bounded(h, (uint64_t)g->distinct);
    const double v = (double)((idx >> 1) + 1) * 0.125;
    return (idx & 1) ? -v : v;
  }
  /* Odd numerators keep the value off zero and make it exact in the target type. */
  if (g->type == ZS_F32) return (double)((h >> 40) | 1) * 0x1p-23 - 1.0;
  return (double)((h >> 11) | 1) * 0x1p-52 - 1.0;
}

static void row_values(const gen *g, int64_t i, const int32_t *cols, int64_t len,
                       const double *coef, void *values, int64_t at) {
  const uint64_t rkey = mix(g->vkey ^ (uint64_t)i);
  if (g->type == ZS_F64) {
    double *v = (double *)values + at;
    for (int64_t k = 0; k < len; k++) v[k] = coef ? coef[k] : value_of(g, rkey, i, cols[k]);
  } else {
    float *v = (float *)values + at;
    for (int64_t k = 0; k < len; k++)
      v[k] = (float)(coef ? coef[k] : value_of(g, rkey, i, cols[k]));
  }
}

/* ---- small helpers ------------------------------------------------------------------------ */

/* Quicksort with a three-way partition (R-MAT rows repeat columns a lot), insertion sort for
 * short ranges; recursion only into the smaller side. */
static void sort_i32(int32_t *v, int64_t n) {
  while (n > 24) {
    const int32_t a = v[0], b = v[n / 2], c = v[n - 1];
    const int32_t pivot = a < b ? (b < c ? b : (a < c ? c : a)) : (a < c ? a : (b < c ? c : b));
    int64_t lt = 0, i = 0, gt = n; /* [0,lt) < pivot, [lt,i) == pivot, [gt,n) > pivot */
    while (i < gt) {
      const int32_t x = v[i];
      if (x < pivot)
        v[i++] = v[lt], v[lt++] = x;
      else if (x > pivot)
        v[i] = v[--gt], v[gt] = x;
      else
        i++;
    }
    if (lt < n - gt) {
      sort_i32(v, lt);
      v += gt, n -= gt;
    } else {
      sort_i32(v + gt, n - gt);
      n = lt;
    }
  }
  for (int64_t k = 1; k < n; k++) {
    const int32_t x = v[k];
    int64_t j = k;
    for (; j > 0 && v[j - 1] > x; j--) v[j] = v[j - 1];
    v[j] = x;
  }
}

/* ---- stencils and elasticity -------------------------------------------------------------- */

/* Neighbour table, visited with dz outermost and dx innermost: ascending column order, because
 * node index = (z*ny + y)*nx + x. `full` takes the whole 3x3(x3) box, otherwise the axis
 * neighbours only; `block` unknowns per node (1, or 3 for elasticity). */
static void stencil_table(gen *g, int dims, int full, int block) {
  g->npts = 0;
  g->block = block;
  for (int dz = dims == 3 ? -1 : 0; dz <= (dims == 3 ? 1 : 0); dz++)
    for (int dy = -1; dy <= 1; dy++)
      for (int dx = -1; dx <= 1; dx++) {
        if (!full && abs(dx) + abs(dy) + abs(dz) > 1) continue;
        const int k = g->npts++;
        g->d[k][0] = (int8_t)dx, g->d[k][1] = (int8_t)dy, g->d[k][2] = (int8_t)dz;
        g->delta[k] = (dz * g->ny + dy) * g->nx + dx;
        for (int a = 0; a < block; a++)
          for (int b = 0; b < block; b++) {
            const int d[3] = {dx, dy, dz}, self = !(dx | dy | dz);
            double c;
            if (block == 1)
              c = self ? (double)((full ? (dims == 3 ? 27 : 9) : 2 * dims + 1) - 1) : -1.0;
            else if (self)
              c = a == b ? 208.0 : -1.0;
            else
              c = -(2.0 + (a == b) + d[a] * d[b]);
            g->cf[a][k * block + b] = c;
          }
      }
}

/* Rows of a stencil (block 1) or of elasticity (row = 3*node + a, every neighbouring node
 * coupling through a full 3x3 block). Interior nodes take a branch-free path. */
static int64_t row_stencil(const gen *g, int64_t r, int32_t *cols, double *coef, scratch *s) {
  (void)s;
  const int64_t bl = g->block;
  const uint32_t node = (uint32_t)(r / bl), a = (uint32_t)(r % bl);
  const uint32_t nx = (uint32_t)g->nx, ny = (uint32_t)g->ny, nz = (uint32_t)g->nz;
  const uint32_t x = node % nx, t = node / nx, y = t % ny, z = t / ny;
  const int interior = x - 1 < nx - 2 && y - 1 < ny - 2 && (g->dims == 2 || z - 1 < nz - 2);
  if (interior) {
    const int64_t len = g->npts * bl;
    if (cols) {
      for (int k = 0; k < g->npts; k++)
        for (int64_t b = 0; b < bl; b++)
          cols[k * bl + b] = (int32_t)((node + g->delta[k]) * bl + b);
      if (coef) memcpy(coef, g->cf[a], (size_t)len * sizeof *coef);
    }
    return len;
  }
  int64_t len = 0;
  for (int k = 0; k < g->npts; k++) {
    const int dx = g->d[k][0], dy = g->d[k][1], dz = g->d[k][2];
    if ((dx < 0 && x == 0) || (dx > 0 && x + 1 == nx) || (dy < 0 && y == 0) ||
        (dy > 0 && y + 1 == ny) || (dz < 0 && z == 0) || (dz > 0 && z + 1 == nz))
      continue;
    for (int64_t b = 0; b < bl; b++, len++) {
      if (!cols) continue;
      cols[len] = (int32_t)((node + g->delta[k]) * bl + b);
      if (coef) coef[len] = g->cf[a][k * bl + b];
    }
  }
  return len;
}

/* ---- uniform random rows (erdos_renyi, banded) -------------------------------------------- */

/* Floyd's algorithm: k distinct integers from [lo, lo + n), draw j keyed by (row, j); then sort. */
static void floyd(const gen *g, int64_t row, int64_t lo, int64_t n, int64_t k, int32_t *out,
                  scratch *s) {
  const uint64_t rkey = mix(g->skey ^ (uint64_t)row); /* draw(skey, row, j) == mix(rkey ^ j) */
  if (k <= 64) { /* keep out[0..m) sorted: find the insertion point, shift to insert */
    for (int64_t j = n - k, m = 0; j < n; j++, m++) {
      int64_t t = lo + (int64_t)bounded(mix(rkey ^ (uint64_t)j), (uint64_t)j + 1);
      int64_t a = 0; /* insertion point, by a branch-free count (rows are short) */
      for (int64_t q = 0; q < m; q++) a += out[q] < t;
      if (a < m && out[a] == t) a = m, t = lo + j; /* j exceeds every earlier pick: append */
      for (int64_t q = m; q > a; q--) out[q] = out[q - 1];
      out[a] = (int32_t)t;
    }
    return;
  }
  for (int64_t t = 0; t < s->cap; t++) s->table[t] = -1;
  const int64_t mask = s->cap - 1;
  for (int64_t j = n - k, m = 0; j < n; j++, m++) {
    const int64_t t = (int64_t)bounded(mix(rkey ^ (uint64_t)j), (uint64_t)j + 1);
    int present = 0;
    int64_t h = (int64_t)(mix((uint64_t)t) & (uint64_t)mask);
    for (; s->table[h] >= 0; h = (h + 1) & mask)
      if (s->table[h] == t) present = 1;
    if (present) { /* take j instead; j was never drawn before (all draws are < j) */
      h = (int64_t)(mix((uint64_t)j) & (uint64_t)mask);
      while (s->table[h] >= 0) h = (h + 1) & mask;
      s->table[h] = j;
    } else {
      s->table[h] = t;
    }
    out[m] = (int32_t)(lo + (present ? j : t));
  }
  sort_i32(out, k);
}

/* Columns of row i in p-mode: every column independently with probability p, by geometric
 * skips (the gap after column c is keyed by (i, c + 1)). */
static int64_t row_bernoulli(const gen *g, int64_t i, int32_t *cols) {
  int64_t len = 0;
  if (g->p >= 1.0) {
    for (int64_t c = 0; c < g->cols; c++)
      if (cols)
        cols[len++] = (int32_t)c;
      else
        len++;
    return len;
  }
  const double lq = log1p(-g->p);
  for (int64_t c = -1;;) {
    const double u = 1.0 - unit(draw(g->skey, (uint64_t)i, (uint64_t)(c + 1))); /* (0, 1] */
    const double gap = floor(log(u) / lq);
    if (gap >= (double)(g->cols - 1 - c)) break;
    c += 1 + (int64_t)gap;
    if (cols) cols[len] = (int32_t)c;
    len++;
  }
  return len;
}

static int64_t row_erdos(const gen *g, int64_t i, int32_t *cols, double *coef, scratch *s) {
  (void)coef;
  if (g->use_p) return row_bernoulli(g, i, cols);
  if (cols) floyd(g, i, 0, g->cols, g->per_row, cols, s);
  return g->per_row;
}

static int64_t row_banded(const gen *g, int64_t i, int32_t *cols, double *coef, scratch *s) {
  (void)coef;
  const int64_t lo = i - g->half_width < 0 ? 0 : i - g->half_width;
  const int64_t hi = i + g->half_width >= g->rows ? g->rows - 1 : i + g->half_width;
  const int64_t n = hi - lo + 1, k = g->per_row < n ? g->per_row : n;
  if (cols) floyd(g, i, lo, n, k, cols, s);
  return k;
}

/* ---- row-parallel driver ------------------------------------------------------------------ */

enum { BLOCK = 8192 };

/* Cheap canonical-form check (ascending, distinct, in range): a generator bug must surface as
 * an error, never as a malformed matrix. */
static zs_status check_canonical(const zs_matrix *A, const char *kind) {
  int64_t bad = -1;
  ZSI_OMP(parallel for num_threads(zsi_omp_threads()) schedule(static) reduction(max : bad))
  for (int64_t i = 0; i < A->rows; i++) {
    for (int64_t k = A->row_ptr[i]; k < A->row_ptr[i + 1]; k++)
      if (A->col_idx[k] < 0 || A->col_idx[k] >= A->cols ||
          (k > A->row_ptr[i] && A->col_idx[k] <= A->col_idx[k - 1]))
        bad = bad > i ? bad : i;
  }
  if (bad >= 0)
    return zsi_error(ZS_ERR_INTERNAL, "generator %s produced a malformed row %" PRId64, kind, bad);
  return ZS_OK;
}

static zs_status prefix_sum(int64_t *rp, int64_t rows, const char *kind) {
  rp[0] = 0;
  for (int64_t i = 0; i < rows; i++) {
    if (rp[i + 1] > ZS_MAX_NNZ - rp[i])
      return zsi_error(ZS_ERR_OVERFLOW, "%s: nonzero count exceeds the limit 2^62", kind);
    rp[i + 1] += rp[i];
  }
  return ZS_OK;
}

static zs_status build_rows(const gen *g, row_fn fn, int64_t rows, int64_t cols, int64_t sample_k,
                            int progress, zs_matrix **out) {
  int64_t *rp = zsi_alloc_array((uint64_t)rows + 1, sizeof *rp);
  if (!rp)
    return zsi_error(ZS_ERR_OUT_OF_MEMORY, "%s: row_ptr for %" PRId64 " rows", g->kind, rows);
  const int64_t nblocks = (rows + BLOCK - 1) / BLOCK;
  const int64_t table_cap =
      sample_k > 64 ? (int64_t)1 << (64 - __builtin_clzll((uint64_t)sample_k * 2)) : 0;
  int failed = 0;
  ZSI_OMP(parallel num_threads(zsi_omp_threads())) {
    scratch s = {NULL, table_cap};
    if (table_cap && !(s.table = malloc((size_t)table_cap * sizeof *s.table))) {
      ZSI_OMP(atomic write)
      failed = 1;
    }
    ZSI_OMP(for schedule(dynamic, 1))
    for (int64_t b = 0; b < nblocks; b++) {
      const int64_t end = (b + 1) * BLOCK < rows ? (b + 1) * BLOCK : rows;
      for (int64_t i = b * BLOCK; i < end; i++) rp[i + 1] = fn(g, i, NULL, NULL, &s);
    }
    free(s.table);
  }
  if (failed) {
    zsi_free(rp);
    return zsi_error(ZS_ERR_OUT_OF_MEMORY, "%s: sampling scratch", g->kind);
  }
  zs_status st = prefix_sum(rp, rows, g->kind);
  zs_matrix *A = NULL;
  if (st == ZS_OK) st = zsi_matrix_alloc(&A, rows, cols, rp[rows], g->type);
  if (st != ZS_OK) {
    zsi_free(rp);
    return zsi_error_prefix(st, "%s", g->kind);
  }
  zsi_free(A->row_ptr);
  A->row_ptr = rp;

  zsi_progress pr;
  zsi_progress_begin(&pr, g->kind, (uint64_t)rows, progress);
  int64_t done = 0;
  ZSI_OMP(parallel num_threads(zsi_omp_threads())) {
    scratch s = {NULL, table_cap};
    double coef[96];
    if (table_cap && !(s.table = malloc((size_t)table_cap * sizeof *s.table))) {
      ZSI_OMP(atomic write)
      failed = 1;
    }
    ZSI_OMP(for schedule(dynamic, 1))
    for (int64_t b = 0; b < nblocks; b++) {
      if (table_cap && !s.table) continue;
      const int64_t end = (b + 1) * BLOCK < rows ? (b + 1) * BLOCK : rows;
      for (int64_t i = b * BLOCK; i < end; i++) {
        const int64_t at = rp[i];
        double *c = g->vmode == VAL_STENCIL ? coef : NULL;
        const int64_t len = fn(g, i, A->col_idx + at, c, &s);
        row_values(g, i, A->col_idx + at, len, c, A->values, at);
      }
      if (progress) {
        int64_t now;
        ZSI_OMP(atomic capture)
        now = done += end - b * BLOCK;
        if (zsi_omp_tid() == 0) zsi_progress_update(&pr, (uint64_t)now);
      }
    }
    free(s.table);
  }
  zsi_progress_end(&pr);
  if (failed) {
    zs_matrix_destroy(&A);
    return zsi_error(ZS_ERR_OUT_OF_MEMORY, "%s: sampling scratch", g->kind);
  }
  if ((st = check_canonical(A, g->kind)) != ZS_OK) {
    zs_matrix_destroy(&A);
    return st;
  }
  *out = A;
  return ZS_OK;
}

/* ---- edge-list driver (watts_strogatz, barabasi_albert, rmat) ------------------------------ */

/* Bucket the edges by row, sort each row, merge duplicates, then key the values by (i, j). With
 * `mirror`, each edge (u, v) also gives (v, u). The result does not depend on edge order. */
static zs_status build_edges(const gen *g, int64_t n, int64_t nedges, const int32_t *src,
                             const int32_t *dst, int mirror, int progress, zs_matrix **out) {
  uint64_t total;
  if (!zsi_mul_u64((uint64_t)nedges, mirror ? 2 : 1, &total) || total > (uint64_t)ZS_MAX_NNZ)
    return zsi_error(ZS_ERR_OVERFLOW, "%s: %" PRId64 " edges exceed the nonzero limit", g->kind,
                     nedges);
  int64_t *pos = zsi_alloc_array((uint64_t)n + 1, sizeof *pos);
  int64_t *len = zsi_alloc_array((uint64_t)n + 1, sizeof *len);
  int32_t *tmp = zsi_alloc_array(total, sizeof *tmp);
  if (!pos || !len || !tmp) {
    zsi_free(pos), zsi_free(len), zsi_free(tmp);
    return zsi_error(ZS_ERR_OUT_OF_MEMORY, "%s: bucketing %" PRIu64 " entries", g->kind, total);
  }
  zsi_progress pr;
  zsi_progress_begin(&pr, g->kind, 3, progress);
  for (int64_t e = 0; e < nedges; e++) {
    pos[src[e] + 1]++;
    if (mirror) pos[dst[e] + 1]++;
  }
  for (int64_t i = 0; i < n; i++) pos[i + 1] += pos[i];
  memcpy(len, pos, (size_t)n * sizeof *len); /* len doubles as the scatter cursor here */
  for (int64_t e = 0; e < nedges; e++) {
    tmp[len[src[e]]++] = dst[e];
    if (mirror) tmp[len[dst[e]]++] = src[e];
  }
  zsi_progress_update(&pr, 1);
  ZSI_OMP(parallel for num_threads(zsi_omp_threads()) schedule(dynamic, 1024))
  for (int64_t i = 0; i < n; i++) {
    int32_t *r = tmp + pos[i];
    const int64_t m = pos[i + 1] - pos[i];
    sort_i32(r, m);
    int64_t w = 0;
    for (int64_t k = 0; k < m; k++)
      if (w == 0 || r[w - 1] != r[k]) r[w++] = r[k];
    len[i] = w;
  }
  zsi_progress_update(&pr, 2);
  int64_t nnz = 0;
  for (int64_t i = 0; i < n; i++) nnz += len[i];
  zs_matrix *A;
  zs_status st = zsi_matrix_alloc(&A, n, n, nnz, g->type);
  if (st != ZS_OK) {
    zsi_free(pos), zsi_free(len), zsi_free(tmp);
    return zsi_error_prefix(st, "%s", g->kind);
  }
  for (int64_t i = 0; i < n; i++) A->row_ptr[i + 1] = A->row_ptr[i] + len[i];
  ZSI_OMP(parallel for num_threads(zsi_omp_threads()) schedule(dynamic, 1024))
  for (int64_t i = 0; i < n; i++) {
    const int64_t at = A->row_ptr[i];
    memcpy(A->col_idx + at, tmp + pos[i], (size_t)len[i] * sizeof *tmp);
    row_values(g, i, A->col_idx + at, len[i], NULL, A->values, at);
  }
  zsi_free(pos), zsi_free(len), zsi_free(tmp);
  zsi_progress_update(&pr, 3);
  zsi_progress_end(&pr);
  if ((st = check_canonical(A, g->kind)) != ZS_OK) {
    zs_matrix_destroy(&A);
    return st;
  }
  *out = A;
  return ZS_OK;
}

/* Ring lattice (each node joined to its k/2 successors), each lattice edge rewired with
 * probability p to a uniform target other than its source; independent per edge. */
static zs_status gen_watts_strogatz(const gen *g, int64_t n, int64_t k, int progress,
                                    zs_matrix **out) {
  const int64_t half = k / 2, nedges = n * half;
  int32_t *src = zsi_alloc_array((uint64_t)nedges, sizeof *src);
  int32_t *dst = zsi_alloc_array((uint64_t)nedges, sizeof *dst);
  if (!src || !dst) {
    zsi_free(src), zsi_free(dst);
    return zsi_error(ZS_ERR_OUT_OF_MEMORY, "watts_strogatz: %" PRId64 " edges", nedges);
  }
  ZSI_OMP(parallel for num_threads(zsi_omp_threads()) schedule(static))
  for (int64_t e = 0; e < nedges; e++) {
    const int64_t i = e / half, j = e % half + 1;
    int64_t t = (i + j) % n;
    if (unit(draw(g->skey, (uint64_t)e, 0)) < g->p) {
      for (uint64_t attempt = 1;; attempt++) {
        t = (int64_t)bounded(draw(g->skey, (uint64_t)e, attempt), (uint64_t)n);
        if (t != i) break;
      }
    }
    src[e] = (int32_t)i, dst[e] = (int32_t)t;
  }
  zs_status st = build_edges(g, n, nedges, src, dst, 1, progress, out);
  zsi_free(src), zsi_free(dst);
  return st;
}

/* Preferential attachment: node t >= m joins m distinct earlier nodes, drawn uniformly from the
 * list of edge endpoints so far (probability proportional to degree). Node m joins 0..m-1. */
static zs_status gen_barabasi_albert(const gen *g, int64_t n, int64_t m, int progress,
                                     zs_matrix **out) {
  const int64_t nedges = m * (n - m);
  int32_t *src = zsi_alloc_array((uint64_t)nedges, sizeof *src);
  int32_t *dst = zsi_alloc_array((uint64_t)nedges, sizeof *dst);
  int32_t *ends = zsi_alloc_array((uint64_t)nedges * 2, sizeof *ends);
  int64_t *mark = zsi_alloc_array((uint64_t)n, sizeof *mark);
  if (!src || !dst || !ends || !mark) {
    zsi_free(src), zsi_free(dst), zsi_free(ends), zsi_free(mark);
    return zsi_error(ZS_ERR_OUT_OF_MEMORY, "barabasi_albert: %" PRId64 " edges", nedges);
  }
  for (int64_t v = 0; v < n; v++) mark[v] = -1;
  int64_t nends = 0, e = 0;
  for (int64_t t = m; t < n; t++) {
    const int64_t first = e;
    for (uint64_t attempt = 0; e - first < m; attempt++) {
      const int64_t v = t == m
                            ? (int64_t)attempt
                            : ends[bounded(draw(g->skey, (uint64_t)t, attempt), (uint64_t)nends)];
      if (mark[v] == t) continue;
      mark[v] = t;
      src[e] = (int32_t)t, dst[e] = (int32_t)v, e++;
    }
    for (int64_t q = first; q < e; q++) ends[nends++] = (int32_t)t, ends[nends++] = dst[q];
  }
  zsi_free(ends), zsi_free(mark);
  zs_status st = build_edges(g, n, nedges, src, dst, 1, progress, out);
  zsi_free(src), zsi_free(dst);
  return st;
}

/* R-MAT: edge e descends `scale` levels of the quadrant tree; level l uses 16 bits of draw
 * (e, l / 4), compared with the cumulative thresholds t[0..2] (probabilities in 1/65536). */
static zs_status gen_rmat(const gen *g, int scale, int64_t per_row, const uint32_t t[3],
                          int progress, zs_matrix **out) {
  const int64_t n = (int64_t)1 << scale;
  if (per_row > ZS_MAX_NNZ / n)
    return zsi_error(ZS_ERR_OVERFLOW, "rmat: %" PRId64 " x 2^%d edges exceed the nonzero limit",
                     per_row, scale);
  const int64_t nedges = per_row * n;
  int32_t *src = zsi_alloc_array((uint64_t)nedges, sizeof *src);
  int32_t *dst = zsi_alloc_array((uint64_t)nedges, sizeof *dst);
  if (!src || !dst) {
    zsi_free(src), zsi_free(dst);
    return zsi_error(ZS_ERR_OUT_OF_MEMORY, "rmat: %" PRId64 " edges", nedges);
  }
  ZSI_OMP(parallel for num_threads(zsi_omp_threads()) schedule(static))
  for (int64_t e = 0; e < nedges; e++) {
    uint64_t r = 0, c = 0, h = 0;
    const uint64_t ekey = mix(g->skey ^ (uint64_t)e); /* draw(skey, e, w) == mix(ekey ^ w) */
    for (int l = 0; l < scale; l++) {
      if (l % 4 == 0) h = mix(ekey ^ (uint64_t)(l / 4));
      const uint32_t u = (uint32_t)(h >> (48 - 16 * (l % 4))) & 0xffffu;
      const int q = (u >= t[0]) + (u >= t[1]) + (u >= t[2]);
      r = r << 1 | (uint64_t)(q >> 1);
      c = c << 1 | (uint64_t)(q & 1);
    }
    src[e] = (int32_t)r, dst[e] = (int32_t)c;
  }
  zs_status st = build_edges(g, n, nedges, src, dst, 0, progress, out);
  zsi_free(src), zsi_free(dst);
  return st;
}

/* ---- spec parsing ------------------------------------------------------------------------- */

static zs_status opt_int(const char *opts, const char *kind, const char *key, int64_t lo,
                         int64_t hi, int64_t def, int64_t *out, int *found) {
  int f;
  *out = def;
  zs_status s = zsi_option_int(opts, key, lo, hi, out, &f);
  if (found) *found = f;
  if (s != ZS_OK) return zsi_error_prefix(s, "generator %s", kind);
  return ZS_OK;
}

static zs_status opt_double(const char *opts, const char *kind, const char *key, double lo,
                            double hi, int lo_open, double def, double *out, int *found) {
  int f;
  double v = def;
  *out = def;
  zs_status s = zsi_option_double(opts, key, &v, &f);
  if (found) *found = f;
  if (s != ZS_OK) return zsi_error_prefix(s, "generator %s", kind);
  if (!f) return ZS_OK;
  if (v > hi || v < lo || (lo_open && v == lo))
    return zsi_error(ZS_ERR_INVALID_ARGUMENT, "generator %s: option '%s': %g is outside %c%g, %g]",
                     kind, key, v, lo_open ? '(' : '[', lo, hi);
  *out = v;
  return ZS_OK;
}

/* Common keys: seed, values, distinct. */
static zs_status parse_common(const char *opts, gen *g, int stencil_kind) {
  int64_t seed;
  zs_status s = opt_int(opts, g->kind, "seed", 0, INT64_MAX, 1, &seed, NULL);
  if (s != ZS_OK) return s;
  g->skey = stream_key((uint64_t)seed, STREAM_STRUCTURE);
  g->vkey = stream_key((uint64_t)seed, STREAM_VALUES);
  char v[32];
  int found, dfound;
  if ((s = zsi_option_str(opts, "values", v, sizeof v, &found)) != ZS_OK)
    return zsi_error_prefix(s, "generator %s", g->kind);
  g->vmode = stencil_kind ? VAL_STENCIL : VAL_RANDOM;
  if (found) {
    if (strcmp(v, "random") == 0)
      g->vmode = VAL_RANDOM;
    else if (strcmp(v, "set") == 0)
      g->vmode = VAL_SET;
    else if (strcmp(v, "pattern") == 0)
      g->vmode = VAL_PATTERN;
    else if (stencil_kind && strcmp(v, "stencil") == 0)
      g->vmode = VAL_STENCIL;
    else
      return zsi_error(ZS_ERR_INVALID_ARGUMENT,
                       "generator %s: option 'values': '%s' is not one of random, set, pattern%s",
                       g->kind, v, stencil_kind ? ", stencil" : "");
  }
  if ((s = opt_int(opts, g->kind, "distinct", 1, 4096, 16, &g->distinct, &dfound)) != ZS_OK)
    return s;
  if (dfound && g->vmode != VAL_SET)
    return zsi_error(ZS_ERR_INVALID_ARGUMENT, "generator %s: option 'distinct' needs values=set",
                     g->kind);
  return ZS_OK;
}

/* Grid sizes from n or nx/ny/nz; rows = nx*ny*nz*per_node must stay within 2^31-1. */
static zs_status parse_grid(const char *opts, gen *g, int dims, int64_t def, int64_t per_node,
                            int64_t *rows) {
  int64_t n;
  zs_status s = opt_int(opts, g->kind, "n", 1, ZS_MAX_DIM, def, &n, NULL);
  if (s == ZS_OK) s = opt_int(opts, g->kind, "nx", 1, ZS_MAX_DIM, n, &g->nx, NULL);
  if (s == ZS_OK) s = opt_int(opts, g->kind, "ny", 1, ZS_MAX_DIM, n, &g->ny, NULL);
  g->nz = 1;
  if (s == ZS_OK && dims == 3) s = opt_int(opts, g->kind, "nz", 1, ZS_MAX_DIM, n, &g->nz, NULL);
  if (s != ZS_OK) return s;
  uint64_t r;
  if (!zsi_mul_u64((uint64_t)g->nx, (uint64_t)g->ny, &r) || !zsi_mul_u64(r, (uint64_t)g->nz, &r) ||
      !zsi_mul_u64(r, (uint64_t)per_node, &r) || r > (uint64_t)ZS_MAX_DIM)
    return zsi_error(ZS_ERR_OVERFLOW,
                     "generator %s: grid %" PRId64 " x %" PRId64 " x %" PRId64 " (x%" PRId64
                     " unknowns per node) exceeds the row limit 2^31-1",
                     g->kind, g->nx, g->ny, g->nz, per_node);
  *rows = (int64_t)r;
  return ZS_OK;
}

#define COMMON_KEYS "seed", "values", "distinct"

typedef struct kind_info {
  const char *name;
  const char *const *keys;
} kind_info;

static const char *const keys_s2[] = {"n", "nx", "ny", "points", COMMON_KEYS, NULL};
static const char *const keys_s3[] = {"n", "nx", "ny", "nz", "points", COMMON_KEYS, NULL};
static const char *const keys_el[] = {"n", "nx", "ny", "nz", COMMON_KEYS, NULL};
static const char *const keys_er[] = {"rows", "cols", "per_row", "p", COMMON_KEYS, NULL};
static const char *const keys_ws[] = {"n", "k", "p", COMMON_KEYS, NULL};
static const char *const keys_ba[] = {"n", "m", COMMON_KEYS, NULL};
static const char *const keys_rm[] = {"scale", "per_row", "a", "b", "c", COMMON_KEYS, NULL};
static const char *const keys_bd[] = {"rows", "width", "per_row", COMMON_KEYS, NULL};

static const kind_info kinds[] = {
    {"stencil2d", keys_s2},   {"stencil3d", keys_s3},      {"elasticity3d", keys_el},
    {"erdos_renyi", keys_er}, {"watts_strogatz", keys_ws}, {"barabasi_albert", keys_ba},
    {"rmat", keys_rm},        {"banded", keys_bd},
};
enum { N_KINDS = sizeof kinds / sizeof kinds[0] };

static zs_status generate(const char *kind, const char *opts, zs_type type, int progress,
                          zs_matrix **out) {
  gen g;
  memset(&g, 0, sizeof g);
  g.kind = kind;
  g.type = type;
  int64_t rows, v;
  zs_status s;
  if (strcmp(kind, "stencil2d") == 0 || strcmp(kind, "stencil3d") == 0) {
    const int dims = kind[7] == '2' ? 2 : 3;
    if ((s = parse_common(opts, &g, 1)) != ZS_OK) return s;
    if ((s = parse_grid(opts, &g, dims, dims == 2 ? 64 : 32, 1, &rows)) != ZS_OK) return s;
    const int64_t star = dims == 2 ? 5 : 7, box = dims == 2 ? 9 : 27;
    if ((s = opt_int(opts, kind, "points", star, box, star, &v, NULL)) != ZS_OK) return s;
    if (v != star && v != box)
      return zsi_error(ZS_ERR_INVALID_ARGUMENT,
                       "generator %s: option 'points': %" PRId64 " is not %" PRId64 " or %" PRId64,
                       kind, v, star, box);
    g.dims = dims;
    stencil_table(&g, dims, v == box, 1);
    g.symmetric = 1;
    return build_rows(&g, row_stencil, rows, rows, 0, progress, out);
  }
  if (strcmp(kind, "elasticity3d") == 0) {
    if ((s = parse_common(opts, &g, 1)) != ZS_OK) return s;
    if ((s = parse_grid(opts, &g, 3, 16, 3, &rows)) != ZS_OK) return s;
    g.dims = 3;
    stencil_table(&g, 3, 1, 3);
    g.symmetric = 1;
    return build_rows(&g, row_stencil, rows, rows, 0, progress, out);
  }
  if ((s = parse_common(opts, &g, 0)) != ZS_OK) return s;
  if (strcmp(kind, "erdos_renyi") == 0) {
    int kfound;
    if ((s = opt_int(opts, kind, "rows", 1, ZS_MAX_DIM, 4096, &g.rows, NULL)) != ZS_OK ||
        (s = opt_int(opts, kind, "cols", 1, ZS_MAX_DIM, g.rows, &g.cols, NULL)) != ZS_OK ||
        (s = opt_int(opts, kind, "per_row", 0, ZS_MAX_DIM, 16, &g.per_row, &kfound)) != ZS_OK ||
        (s = opt_double(opts, kind, "p", 0.0, 1.0, 1, 0.0, &g.p, &g.use_p)) != ZS_OK)
      return s;
    if (kfound && g.use_p)
      return zsi_error(ZS_ERR_INVALID_ARGUMENT, "generator %s: give per_row or p, not both", kind);
    if (!g.use_p && g.per_row > g.cols)
      return zsi_error(ZS_ERR_INVALID_ARGUMENT,
                       "generator %s: per_row %" PRId64 " exceeds cols %" PRId64, kind, g.per_row,
                       g.cols);
    return build_rows(&g, row_erdos, g.rows, g.cols, g.use_p ? 0 : g.per_row, progress, out);
  }
  if (strcmp(kind, "banded") == 0) {
    int64_t width;
    if ((s = opt_int(opts, kind, "rows", 1, ZS_MAX_DIM, 4096, &g.rows, NULL)) != ZS_OK ||
        (s = opt_int(opts, kind, "width", 0, ZS_MAX_DIM, 64, &width, NULL)) != ZS_OK ||
        (s = opt_int(opts, kind, "per_row", 0, ZS_MAX_DIM, 20, &g.per_row, NULL)) != ZS_OK)
      return s;
    g.half_width = width / 2;
    g.cols = g.rows;
    if (g.per_row > 2 * g.half_width + 1)
      return zsi_error(ZS_ERR_INVALID_ARGUMENT,
                       "generator %s: per_row %" PRId64 " exceeds the band's %" PRId64
                       " columns (2*(width/2)+1)",
                       kind, g.per_row, 2 * g.half_width + 1);
    return build_rows(&g, row_banded, g.rows, g.rows, g.per_row, progress, out);
  }
  if (strcmp(kind, "watts_strogatz") == 0) {
    int64_t n, k;
    if ((s = opt_int(opts, kind, "n", 3, ZS_MAX_DIM, 4096, &n, NULL)) != ZS_OK ||
        (s = opt_int(opts, kind, "k", 2, ZS_MAX_DIM, 6, &k, NULL)) != ZS_OK ||
        (s = opt_double(opts, kind, "p", 0.0, 1.0, 0, 0.1, &g.p, NULL)) != ZS_OK)
      return s;
    if (k % 2 != 0 || k >= n)
      return zsi_error(ZS_ERR_INVALID_ARGUMENT,
                       "generator %s: k = %" PRId64 " must be even and below n = %" PRId64, kind, k,
                       n);
    g.symmetric = 1;
    return gen_watts_strogatz(&g, n, k, progress, out);
  }
  if (strcmp(kind, "barabasi_albert") == 0) {
    int64_t n, m;
    if ((s = opt_int(opts, kind, "n", 2, ZS_MAX_DIM, 4096, &n, NULL)) != ZS_OK ||
        (s = opt_int(opts, kind, "m", 1, ZS_MAX_DIM, 4, &m, NULL)) != ZS_OK)
      return s;
    if (m >= n)
      return zsi_error(ZS_ERR_INVALID_ARGUMENT,
                       "generator %s: m = %" PRId64 " must be below n = %" PRId64, kind, m, n);
    g.symmetric = 1;
    return gen_barabasi_albert(&g, n, m, progress, out);
  }
  if (strcmp(kind, "rmat") == 0) {
    int64_t scale, per_row;
    double a, b, c;
    if ((s = opt_int(opts, kind, "scale", 1, 31, 12, &scale, NULL)) != ZS_OK ||
        (s = opt_int(opts, kind, "per_row", 1, ZS_MAX_DIM, 16, &per_row, NULL)) != ZS_OK ||
        (s = opt_double(opts, kind, "a", 0.0, 1.0, 0, 0.57, &a, NULL)) != ZS_OK ||
        (s = opt_double(opts, kind, "b", 0.0, 1.0, 0, 0.19, &b, NULL)) != ZS_OK ||
        (s = opt_double(opts, kind, "c", 0.0, 1.0, 0, 0.19, &c, NULL)) != ZS_OK)
      return s;
    if (a + b + c > 1.0)
      return zsi_error(ZS_ERR_INVALID_ARGUMENT,
                       "generator %s: a + b + c = %g exceeds 1 (d = 1 - a - b - c)", kind,
                       a + b + c);
    const uint32_t t[3] = {(uint32_t)lround(a * 65536.0), (uint32_t)lround((a + b) * 65536.0),
                           (uint32_t)lround((a + b + c) * 65536.0)};
    return gen_rmat(&g, (int)scale, per_row, t, progress, out);
  }
  return zsi_error(ZS_ERR_INTERNAL, "generator %s has no builder", kind);
}

zs_status zs_matrix_generate(zs_matrix **out, const char *spec, zs_type type, int progress) {
  if (!out || !spec)
    return zsi_error(ZS_ERR_INVALID_ARGUMENT, "zs_matrix_generate: out or spec is NULL");
  if (type != ZS_F32 && type != ZS_F64)
    return zsi_error(ZS_ERR_INVALID_ARGUMENT,
                     "zs_matrix_generate: value type %d is neither "
                     "f32 nor f64",
                     (int)type);
  const char *colon = strchr(spec, ':');
  const size_t klen = colon ? (size_t)(colon - spec) : strlen(spec);
  const char *opts = colon ? colon + 1 : "";
  for (int i = 0; i < N_KINDS; i++) {
    if (strlen(kinds[i].name) != klen || memcmp(kinds[i].name, spec, klen) != 0) continue;
    char what[64];
    snprintf(what, sizeof what, "generator %s", kinds[i].name);
    zs_status s = zsi_option_check(opts, kinds[i].keys, what);
    if (s != ZS_OK) return s;
    zs_matrix *A = NULL;
    if ((s = generate(kinds[i].name, opts, type, progress, &A)) != ZS_OK) return s;
    *out = A;
    return ZS_OK;
  }
  return zsi_error(ZS_ERR_INVALID_ARGUMENT,
                   "unknown generator '%.*s' (known: stencil2d, stencil3d, elasticity3d, "
                   "erdos_renyi, watts_strogatz, barabasi_albert, rmat, banded)",
                   (int)(klen > 64 ? 64 : klen), spec);
}
