/* conformance.c — every SpMV/SpMVT case on every usable backend, checked against a long-double
 * product computed here from the matrix's CSR arrays and against the ref backend. */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/check_tolerance.h"
#include "tests/common/test_matrices.h"
#include "tests/common/test_random.h"
#include "zsparse.h"

static int failures, cases;

/* ---- deterministic random numbers (splitmix64) ---- */
static int64_t rng_below(uint64_t *s, int64_t n) {
  return (int64_t)(zs_test_splitmix64(s) % (uint64_t)n);
}
static uint64_t hash_str(const char *p, uint64_t h) {
  while (*p) h = (h ^ (unsigned char)*p++) * UINT64_C(0x100000001b3);
  return h;
}

static void *xmalloc(size_t n) {
  void *p = malloc(n ? n : 1);
  if (!p) {
    fprintf(stderr, "conformance: out of memory (%zu bytes)\n", n);
    exit(2);
  }
  return p;
}

/* ---- typed host vectors: values in [-1, 1], never all equal ---- */
static size_t tsize(zs_type t) { return t == ZS_F32 ? 4 : 8; }
static long double tget(zs_type t, const void *v, int64_t i) {
  return t == ZS_F32 ? (long double)((const float *)v)[i] : (long double)((const double *)v)[i];
}
static void tset(zs_type t, void *v, int64_t i, double x) {
  if (t == ZS_F32)
    ((float *)v)[i] = (float)x;
  else
    ((double *)v)[i] = x;
}
static void *random_vector(zs_type t, int64_t n, uint64_t seed) {
  void *v = xmalloc((size_t)n * tsize(t));
  for (int64_t i = 0; i < n; i++) tset(t, v, i, zs_test_unit(&seed));
  return v;
}
static double type_eps(zs_type t) { return t == ZS_F32 ? FLT_EPSILON : DBL_EPSILON; }

/* ---- backends under test: every usable one, plus each with the atomic transpose, plus GPU
 * backends with the blocked formats' format-order (atomic) SpMV too ---- */
typedef struct variant {
  char label[40];
  const char *backend, *options;
  int deterministic_n; /* SpMV must give the same bits twice */
  int deterministic_t; /* SpMVT must give the same bits twice */
  int blocked_only;    /* only for CSB and GCSB (the options exist only for them) */
  int slabs_only;      /* only for CSR and dtANS (the formats with column slabs) */
  int dtans_only;      /* only for dtANS */
  int csr_only;        /* only for CSR (its GPU kernel choices) */
  int sell_only;       /* only for SELL */
} variant;
#define MAX_VARIANTS 64
static variant variants[MAX_VARIANTS];
static int n_variants;

/* Every usable backend, or with `require` only ref and that one (exit 77 when it is not
 * usable: the GPU tests skip on machines without a GPU, never pass). */
static void find_variants(zs_context *ctx, const char *require) {
  int have_ref = 0, have_required = 0;
  for (int i = 0; i < zs_context_backend_count(ctx); i++) {
    zs_backend_info bi;
    if (zs_context_backend_info(ctx, i, &bi) != ZS_OK) continue;
    printf("backend %-5s %s: %s\n", bi.name, bi.usable ? "usable" : "not usable", bi.detail);
    if (require && strcmp(bi.name, "ref") != 0 && strcmp(bi.name, require) != 0) continue;
    if (require && strcmp(bi.name, require) == 0) {
      if (!bi.usable) {
        printf("SKIP backend '%s' is not usable here: %s\n", require, bi.detail);
        exit(77);
      }
      have_required = 1;
    }
    if (!bi.usable || n_variants + 40 > MAX_VARIANTS) continue; /* 40: the most one adds */
    if (strcmp(bi.name, "ref") == 0) have_ref = 1;
    variant *v = &variants[n_variants++];
    *v = (variant){.backend = bi.name, .deterministic_n = 1, .deterministic_t = 1};
    snprintf(v->label, sizeof v->label, "%s", bi.name);
    if (strcmp(bi.name, "ref") != 0) {
      v = &variants[n_variants++];
      *v = (variant){.backend = bi.name, .options = "transpose=atomic", .deterministic_n = 1};
      snprintf(v->label, sizeof v->label, "%s[atomic]", bi.name);
    }
    if (strcmp(bi.name, "ref") != 0) { /* the library's own option: Aᵀ encoded beside A */
      v = &variants[n_variants++];
      *v = (variant){.backend = bi.name,
                     .options = "transpose=stored",
                     .deterministic_n = 1,
                     .deterministic_t = 1};
      snprintf(v->label, sizeof v->label, "%s[stored]", bi.name);
    }
    if (strcmp(bi.name, "ref") != 0 && strcmp(bi.name, "cpu") != 0) {
      v = &variants[n_variants++];
      *v = (variant){
          .backend = bi.name, .options = "spmv=atomic,transpose=atomic", .blocked_only = 1};
      snprintf(v->label, sizeof v->label, "%s[atomic-both]", bi.name);
      /* the format-order kernels with x staged in shared memory, and without (auto picks) */
      v = &variants[n_variants++];
      *v = (variant){.backend = bi.name,
                     .options = "spmv=atomic,transpose=atomic,experimental.x_stage=on",
                     .blocked_only = 1};
      snprintf(v->label, sizeof v->label, "%s[atomic-staged]", bi.name);
      v = &variants[n_variants++];
      *v = (variant){.backend = bi.name,
                     .options = "spmv=atomic,transpose=atomic,experimental.x_stage=off",
                     .blocked_only = 1};
      snprintf(v->label, sizeof v->label, "%s[atomic-unstaged]", bi.name);
      /* the deterministic kernels with the whole warp on one block (auto picks by block size) */
      v = &variants[n_variants++];
      *v = (variant){.backend = bi.name,
                     .options = "experimental.det_walk=warp",
                     .deterministic_n = 1,
                     .deterministic_t = 1,
                     .blocked_only = 1};
      snprintf(v->label, sizeof v->label, "%s[warp-walk]", bi.name);
      v = &variants[n_variants++];
      *v = (variant){.backend = bi.name,
                     .options = "experimental.det_walk=lanes",
                     .deterministic_n = 1,
                     .deterministic_t = 1,
                     .blocked_only = 1};
      snprintf(v->label, sizeof v->label, "%s[lanes-walk]", bi.name);
      /* the warp walk with each output block's blocks split over 3 warps (chosen only when
       * output blocks are few against the GPU's warps) */
      v = &variants[n_variants++];
      *v = (variant){.backend = bi.name,
                     .options = "experimental.det_walk=warp,experimental.det_splits=3",
                     .deterministic_n = 1,
                     .deterministic_t = 1,
                     .blocked_only = 1};
      snprintf(v->label, sizeof v->label, "%s[warp-walk-split]", bi.name);
      /* the warp walk with two and four output blocks per warp (auto: two for unsplit output
       * blocks of under 128 elements; the split forced off, as these matrices are small) */
      v = &variants[n_variants++];
      *v = (variant){
          .backend = bi.name,
          .options =
              "experimental.det_walk=warp,experimental.det_splits=1,experimental.det_teams=2",
          .deterministic_n = 1,
          .deterministic_t = 1,
          .blocked_only = 1};
      snprintf(v->label, sizeof v->label, "%s[warp-walk-teams]", bi.name);
      v = &variants[n_variants++];
      *v = (variant){
          .backend = bi.name,
          .options =
              "experimental.det_walk=warp,experimental.det_splits=1,experimental.det_teams=4",
          .deterministic_n = 1,
          .deterministic_t = 1,
          .blocked_only = 1};
      snprintf(v->label, sizeof v->label, "%s[warp-walk-4-teams]", bi.name);
      /* BiCG's fused pair (transpose=atomic) in each kind of warp walk: one, two and four output
       * blocks per warp, and split output blocks */
      static const char *const pair_walks[][2] = {
          {"transpose=atomic,experimental.det_walk=warp,experimental.det_splits=1,experimental.det_"
           "teams=1",
           "pair-walk"},
          {"transpose=atomic,experimental.det_walk=warp,experimental.det_splits=1,experimental.det_"
           "teams=2",
           "pair-walk-teams"},
          {"transpose=atomic,experimental.det_walk=warp,experimental.det_splits=1,experimental.det_"
           "teams=4",
           "pair-walk-4-teams"},
          {"transpose=atomic,experimental.det_walk=warp,experimental.det_splits=3",
           "pair-walk-split"}};
      for (size_t p = 0; p < sizeof pair_walks / sizeof *pair_walks; p++) {
        v = &variants[n_variants++];
        *v = (variant){.backend = bi.name,
                       .options = pair_walks[p][0],
                       .deterministic_n = 1,
                       .blocked_only = 1};
        snprintf(v->label, sizeof v->label, "%s[%s]", bi.name, pair_walks[p][1]);
      }
      /* CSR and dtANS in column slabs (chosen only for large scattered matrices): forced here */
      v = &variants[n_variants++];
      *v = (variant){.backend = bi.name,
                     .options = "col_slabs=3",
                     .deterministic_n = 1,
                     .deterministic_t = 1,
                     .slabs_only = 1};
      snprintf(v->label, sizeof v->label, "%s[slabs]", bi.name);
      v = &variants[n_variants++];
      *v =
          (variant){.backend = bi.name, .options = "col_slabs=3,transpose=atomic", .slabs_only = 1};
      snprintf(v->label, sizeof v->label, "%s[slabs-atomic]", bi.name);
      /* dtANS with raw values: the kernel cut for 4 blocks per SM (small matrices get 3) */
      v = &variants[n_variants++];
      *v = (variant){.backend = bi.name,
                     .options = "experimental.raw_blocks=4",
                     .deterministic_n = 1,
                     .deterministic_t = 1,
                     .dtans_only = 1};
      snprintf(v->label, sizeof v->label, "%s[raw-blocks-4]", bi.name);
      /* raw values from the ticket counter, as many-slice blobs take them (f64: 3 blocks) */
      v = &variants[n_variants++];
      *v = (variant){.backend = bi.name,
                     .options = "experimental.raw_slices=tickets",
                     .deterministic_n = 1,
                     .deterministic_t = 1,
                     .dtans_only = 1};
      snprintf(v->label, sizeof v->label, "%s[raw-tickets]", bi.name);
      /* dtANS version 5's packed rows decoded 4 at a time before their gathers */
      v = &variants[n_variants++];
      *v = (variant){.backend = bi.name,
                     .options = "experimental.packed_unroll=4",
                     .deterministic_n = 1,
                     .deterministic_t = 1,
                     .dtans_only = 1};
      snprintf(v->label, sizeof v->label, "%s[packed-unroll-4]", bi.name);
      /* and their rows past 8 nonzeros taken by the whole warp (cuda; hip ignores it) */
      v = &variants[n_variants++];
      *v = (variant){.backend = bi.name,
                     .options = "experimental.packed_split=8,experimental.packed_unroll=2",
                     .deterministic_n = 1,
                     .deterministic_t = 1,
                     .dtans_only = 1};
      snprintf(v->label, sizeof v->label, "%s[packed-split-8]", bi.name);
      /* and their values by warp shuffles (cuda; others ignore it) */
      v = &variants[n_variants++];
      *v = (variant){.backend = bi.name,
                     .options = "experimental.packed_dict=shfl",
                     .deterministic_n = 1,
                     .deterministic_t = 1,
                     .dtans_only = 1};
      snprintf(v->label, sizeof v->label, "%s[packed-dict-shfl]", bi.name);
      /* CSR's kernel choices: small blocks, so that the random matrices' long rows come in
       * chunks, summed by the last chunk (fused) or a second kernel, rows reduced thread by
       * thread, and the matrix loaded with and without evict-first; then SELL's (labels
       * "sell-...") */
      static const char *const kernel_choices[][2] = {
          {"block_nnz=256,experimental.reduce=threads,experimental.long_rows=fused", "csr-t256"},
          {"block_nnz=512,experimental.long_rows=fused,experimental.evict_first=on", "csr-f512"},
          {"block_nnz=256,experimental.long_rows=kernel", "csr-k256"},
          {"experimental.reduce=threads,experimental.evict_first=off", "csr-threads"},
          /* the nonzero-split kernel: tiles of 256 items, so rows cross tiles and threads */
          {"kernel=split,block_nnz=256", "csr-split256"},
          {"kernel=split,experimental.evict_first=off", "csr-split"},
          /* its staging variants, in the tiles where they are compiled (512 items: rows
           * cross tiles and 16-byte groups cross tile starts; 1024 the default): the default
           * per value type, then each forced */
          {"kernel=split,block_nnz=1024,experimental.evict_first=on", "csr-split-auto"},
          {"kernel=split,block_nnz=1024,experimental.split_stage=plain", "csr-split-plain"},
          {"kernel=split,block_nnz=512,experimental.evict_first=on,"
           "experimental.split_stage=vector",
           "csr-split-vector"},
          {"kernel=split,block_nnz=512,experimental.evict_first=on,"
           "experimental.split_stage=early",
           "csr-split-early"},
          {"kernel=split,block_nnz=1024,experimental.evict_first=on,"
           "experimental.split_stage=vector_early",
           "csr-split-ve"},
          /* spanning rows finished by the tile that ends them (the default where compiled),
           * and by the second kernel */
          {"kernel=split,block_nnz=512,experimental.evict_first=on,"
           "experimental.split_spans=wait",
           "csr-split-wait"},
          {"kernel=split,block_nnz=1024,experimental.evict_first=on,"
           "experimental.split_stage=plain,experimental.split_spans=wait",
           "csr-split-wait-plain"},
          {"kernel=split,block_nnz=512,experimental.evict_first=on,"
           "experimental.split_spans=kernel",
           "csr-split-kernel"},
          /* SELL's predicated walks (blocks of 64 threads: slices cross blocks' ends), and
           * the deterministic SpMVT through Aᵀ as SELL sorted in windows (-t) */
          {"experimental.sell_tail=batch,experimental.sell_threads=64", "sell-batch8"},
          {"experimental.sell_tail=batch,experimental.sell_unroll=4,experimental.evict_first=off,"
           "experimental.sell_transpose=sell",
           "sell-batch4-t"},
          {"experimental.sell_unroll=16,experimental.sell_transpose=sell", "sell-batch16-t"},
          {"experimental.sell_tail=ahead,experimental.sell_threads=128", "sell-ahead8"},
          {"experimental.sell_tail=ahead,experimental.sell_unroll=4,"
           "experimental.sell_transpose=sell",
           "sell-ahead4-t"},
          /* SpMV with 2 and 4 threads a position (through Aᵀ as SELL too) */
          {"experimental.sell_lanes=2,experimental.sell_threads=64", "sell-lanes2"},
          {"experimental.sell_lanes=4,experimental.sell_unroll=4,experimental.sell_transpose=sell",
           "sell-lanes4-t"},
      };
      for (size_t c = 0; c < sizeof kernel_choices / sizeof *kernel_choices; c++) {
        const int sell = strncmp(kernel_choices[c][1], "sell", 4) == 0;
        v = &variants[n_variants++];
        *v = (variant){.backend = bi.name,
                       .options = kernel_choices[c][0],
                       .deterministic_n = 1,
                       .deterministic_t = 1,
                       .csr_only = !sell,
                       .sell_only = sell};
        snprintf(v->label, sizeof v->label, "%s[%s]", bi.name, kernel_choices[c][1]);
      }
      /* SELL with 2 and 8 entries loaded ahead, and evict-first loads forced on (the loop
       * walk and our CSR of Aᵀ: small matrices take batches and sorted SELL by default) */
      v = &variants[n_variants++];
      *v = (variant){.backend = bi.name,
                     .options =
                         "experimental.sell_unroll=8,experimental.evict_first=on,"
                         "experimental.sell_tail=loop,experimental.sell_transpose=csr",
                     .deterministic_n = 1,
                     .deterministic_t = 1,
                     .sell_only = 1};
      snprintf(v->label, sizeof v->label, "%s[sell-u8]", bi.name);
      v = &variants[n_variants++];
      *v = (variant){.backend = bi.name,
                     .options = "experimental.sell_unroll=2,transpose=atomic",
                     .deterministic_n = 1,
                     .sell_only = 1};
      snprintf(v->label, sizeof v->label, "%s[sell-u2-atomic]", bi.name);
    }
  }
  if (require && !have_required) {
    printf("FAIL backend '%s' is unknown\n", require);
    failures++;
  }
  if (!have_ref || strcmp(variants[0].backend, "ref") != 0) {
    printf("FAIL backend 'ref' is not usable (or not first): nothing to compare with\n");
    failures++;
  }
}

/* Whether a GPU backend is among the variants (cases sized for GPU tiles run only then). */
static int have_gpu_variant(void) {
  for (int i = 0; i < n_variants; i++)
    if (strcmp(variants[i].backend, "cuda") == 0 || strcmp(variants[i].backend, "hip") == 0)
      return 1;
  return 0;
}

/* A variant whose options exist for other formats only. */
static int skip_variant(const variant *v, zs_format f) {
  if (v->blocked_only) return f != ZS_FORMAT_CSB && f != ZS_FORMAT_GCSB;
  if (v->dtans_only) return f != ZS_FORMAT_DTANS;
  if (v->csr_only) return f != ZS_FORMAT_CSR;
  if (v->sell_only) return f != ZS_FORMAT_SELL;
  return v->slabs_only && f != ZS_FORMAT_CSR && f != ZS_FORMAT_DTANS;
}

/* ---- one matrix, one value type: all formats, ops, alpha/beta, backends ---- */
static const struct { double alpha, beta; } ab[] = {{1.0, 0.0}, {-0.5, 2.0}};
#define N_AB 2

typedef struct expect {
  int64_t n_in, n_out;
  void *x, *y0;       /* typed inputs */
  long double *exact; /* alpha*op(A)*x + beta*y0 */
  long double *bound; /* per-element error bound */
  long double *scale; /* |alpha| sum|a x| + |beta y0|, for the relative error */
} expect;

static void build_expect(expect *e, const zs_matrix *A, zs_op op, double alpha, double beta,
                         uint64_t seed) {
  const zs_type t = zs_matrix_type(A);
  const int64_t rows = zs_matrix_rows(A), cols = zs_matrix_cols(A);
  const int64_t *rp;
  const int32_t *ci;
  const void *v;
  zs_matrix_csr(A, &rp, &ci, &v);
  e->n_in = op == ZS_OP_N ? cols : rows, e->n_out = op == ZS_OP_N ? rows : cols;
  e->x = random_vector(t, e->n_in, seed);
  e->y0 = random_vector(t, e->n_out, seed ^ UINT64_C(0x5eed));
  long double *sum = calloc((size_t)e->n_out + 1, sizeof *sum);
  long double *abs_sum = calloc((size_t)e->n_out + 1, sizeof *abs_sum);
  int64_t *len = calloc((size_t)e->n_out + 1, sizeof *len);
  if (!sum || !abs_sum || !len) exit(2);
  for (int64_t i = 0; i < rows; i++)
    for (int64_t k = rp[i]; k < rp[i + 1]; k++) {
      const int64_t in = op == ZS_OP_N ? ci[k] : i, out = op == ZS_OP_N ? i : ci[k];
      const long double p = tget(t, v, k) * tget(t, e->x, in);
      sum[out] += p, abs_sum[out] += fabsl(p), len[out]++;
    }
  e->exact = xmalloc((size_t)e->n_out * sizeof(long double));
  e->bound = xmalloc((size_t)e->n_out * sizeof(long double));
  e->scale = xmalloc((size_t)e->n_out * sizeof(long double));
  for (int64_t i = 0; i < e->n_out; i++) {
    const long double by = beta == 0.0 ? 0.0L : (long double)beta * tget(t, e->y0, i);
    e->exact[i] = (long double)alpha * sum[i] + by;
    /* The bound `zsparse spmv --check` applies, for this output's own row length. */
    e->scale[i] = fabsl((long double)alpha) * abs_sum[i] + fabsl(by);
    e->bound[i] = zsi_check_allowed(zsi_check_tolerance(t, len[i]), (double)e->scale[i],
                                    zsi_check_floor(t, len[i], alpha));
  }
  free(sum), free(abs_sum), free(len);
}

static void free_expect(expect *e) {
  free(e->x), free(e->y0), free(e->exact), free(e->bound), free(e->scale);
}

/* Run one product on one operator; y is poisoned with NaN when beta == 0. Returns a status; on
 * success `out` holds y. */
static zs_status run_once(zs_context *ctx, zs_operator *op, const variant *vr, zs_type t,
                          zs_op which, double alpha, double beta, const expect *e, void *out,
                          char *why, size_t why_len) {
  zs_vector *x = NULL, *y = NULL;
  zs_status s = zs_vector_create(&x, ctx, vr->backend, t, e->n_in);
  if (s == ZS_OK) s = zs_vector_create(&y, ctx, vr->backend, t, e->n_out);
  if (s == ZS_OK) s = zs_vector_upload(x, e->x);
  if (s == ZS_OK && beta == 0.0)
    s = zs_vector_fill(y, NAN);
  else if (s == ZS_OK)
    s = zs_vector_upload(y, e->y0);
  if (s == ZS_OK) s = zs_spmv(op, which, alpha, x, beta, y);
  if (s == ZS_OK) s = zs_operator_sync(op);
  if (s == ZS_OK) s = zs_vector_download(y, out);
  if (s != ZS_OK) {
    snprintf(why, why_len, "%s: %s", zs_status_name(s), zs_last_error());
  } else if (e->n_in) {
    /* x is input only. */
    void *xb = xmalloc((size_t)e->n_in * tsize(t));
    if ((s = zs_vector_download(x, xb)) != ZS_OK || memcmp(xb, e->x, (size_t)e->n_in * tsize(t)))
      snprintf(why, why_len, "x was modified"), s = s ? s : ZS_ERR_INTERNAL;
    free(xb);
  }
  zs_vector_destroy(&x);
  zs_vector_destroy(&y);
  return s;
}

/* zs_spmv_pair with the inputs of two single products: en's for y = alpha A x + beta y, et's
 * for z = alpha_t Aᵀ w + beta_t z (outputs poisoned with NaN where their beta is 0). */
static zs_status run_pair(zs_context *ctx, zs_operator *op, const variant *vr, zs_type t,
                          const expect *en, double alpha, double beta, const expect *et,
                          double alpha_t, double beta_t, void *y_out, void *z_out, char *why,
                          size_t why_len) {
  zs_vector *x = NULL, *y = NULL, *w = NULL, *z = NULL;
  zs_status s = zs_vector_create(&x, ctx, vr->backend, t, en->n_in);
  if (s == ZS_OK) s = zs_vector_create(&y, ctx, vr->backend, t, en->n_out);
  if (s == ZS_OK) s = zs_vector_create(&w, ctx, vr->backend, t, et->n_in);
  if (s == ZS_OK) s = zs_vector_create(&z, ctx, vr->backend, t, et->n_out);
  if (s == ZS_OK) s = zs_vector_upload(x, en->x);
  if (s == ZS_OK) s = zs_vector_upload(w, et->x);
  if (s == ZS_OK) s = beta == 0.0 ? zs_vector_fill(y, NAN) : zs_vector_upload(y, en->y0);
  if (s == ZS_OK) s = beta_t == 0.0 ? zs_vector_fill(z, NAN) : zs_vector_upload(z, et->y0);
  if (s == ZS_OK) s = zs_spmv_pair(op, alpha, x, beta, y, alpha_t, w, beta_t, z);
  if (s == ZS_OK) s = zs_operator_sync(op);
  if (s == ZS_OK) s = zs_vector_download(y, y_out);
  if (s == ZS_OK) s = zs_vector_download(z, z_out);
  if (s != ZS_OK) snprintf(why, why_len, "%s: %s", zs_status_name(s), zs_last_error());
  zs_vector_destroy(&x), zs_vector_destroy(&y), zs_vector_destroy(&w), zs_vector_destroy(&z);
  return s;
}

/* Worst element against the exact result (and against the ref backend's y when given). */
static int compare(const expect *e, zs_type t, const void *y, const void *y_ref, double *rel,
                   char *why, size_t why_len) {
  double worst = 0;
  for (int64_t i = 0; i < e->n_out; i++) {
    const long double got = tget(t, y, i), err = fabsl(got - e->exact[i]);
    if (!(err <= e->bound[i])) {
      snprintf(why, why_len, "y[%lld] = %.17Lg, exact %.17Lg, |err| %.3Lg > bound %.3Lg",
               (long long)i, got, e->exact[i], err, e->bound[i]);
      return 0;
    }
    if (y_ref) {
      const long double d = fabsl(got - tget(t, y_ref, i));
      if (!(d <= 2 * e->bound[i])) {
        snprintf(why, why_len, "y[%lld] = %.17Lg, ref backend %.17Lg, |diff| %.3Lg > %.3Lg",
                 (long long)i, got, tget(t, y_ref, i), d, 2 * e->bound[i]);
        return 0;
      }
    }
    if (e->scale[i] > 0 && (double)(err / e->scale[i]) > worst) worst = (double)(err / e->scale[i]);
  }
  *rel = worst;
  return 1;
}

/* The formats under test: "--format NAME[:ENCODER_OPTIONS]", repeatable (default csr, coo). */
typedef struct format_case {
  zs_format format;
  const char *options; /* NULL: the encoder's defaults */
  const char *label;   /* as given on the command line */
} format_case;
static format_case formats[32];
static int n_formats;

static int add_format(const char *arg) {
  if (n_formats == (int)(sizeof formats / sizeof *formats)) return 0;
  char name[32];
  const char *colon = strchr(arg, ':');
  snprintf(name, sizeof name, "%.*s", colon ? (int)(colon - arg) : (int)strlen(arg), arg);
  format_case *c = &formats[n_formats];
  if (zs_format_from_name(name, &c->format) != ZS_OK) return 0;
  c->options = colon ? colon + 1 : NULL;
  c->label = arg;
  n_formats++;
  return 1;
}

static void run_matrix(zs_context *ctx, const char *name, const zs_matrix *A) {
  const zs_type t = zs_matrix_type(A);
  expect ex[2][N_AB];
  for (int o = 0; o < 2; o++)
    for (int a = 0; a < N_AB; a++) {
      const uint64_t seed = hash_str(name, UINT64_C(0xcbf29ce484222325)) * 31 + (uint64_t)t * 7 +
                            (uint64_t)o * 3 + (uint64_t)a;
      build_expect(&ex[o][a], A, (zs_op)o, ab[a].alpha, ab[a].beta, seed);
    }
  for (int f = 0; f < n_formats; f++) {
    const char *fname = formats[f].label;
    zs_encoded *E = NULL;
    zs_status s = zs_encode(&E, A, formats[f].format, formats[f].options);
    if (s != ZS_OK) {
      printf("FAIL %s %s %s: zs_encode: %s: %s\n", name, zs_type_name(t), fname, zs_status_name(s),
             zs_last_error());
      failures++, cases++;
      continue;
    }
    zs_operator *ops[MAX_VARIANTS] = {0};
    char create_err[MAX_VARIANTS][256] = {{0}};
    const zs_format fmt = formats[f].format;
    for (int b = 0; b < n_variants; b++)
      if (skip_variant(&variants[b], fmt))
        continue;
      else if ((s = zs_operator_create(&ops[b], ctx, E, variants[b].backend, variants[b].options)))
        snprintf(create_err[b], sizeof create_err[b], "zs_operator_create: %s: %s",
                 zs_status_name(s), zs_last_error());
    zs_encoded_destroy(&E); /* operators hold their own copies */
    for (int o = 0; o < 2; o++)
      for (int a = 0; a < N_AB; a++) {
        const expect *e = &ex[o][a];
        char line[1024];
        int n = 0, ok = 1;
        const size_t bytes = (size_t)e->n_out * tsize(t) + 1;
        void *y_ref = NULL;
        n += snprintf(line + n, sizeof line - n, "%-22s %s %s %s a=%g b=%g |", name,
                      zs_type_name(t), fname, o ? "T" : "N", ab[a].alpha, ab[a].beta);
        for (int b = 0; b < n_variants; b++) {
          if (skip_variant(&variants[b], fmt)) continue;
          char why[400] = "";
          double rel = 0;
          void *y = xmalloc(bytes), *y2 = xmalloc(bytes);
          int good = ops[b] != NULL;
          if (!good) snprintf(why, sizeof why, "%s", create_err[b]);
          if (good)
            good = run_once(ctx, ops[b], &variants[b], t, (zs_op)o, ab[a].alpha, ab[a].beta, e, y,
                            why, sizeof why) == ZS_OK;
          if (good) good = compare(e, t, y, y_ref, &rel, why, sizeof why);
          /* Same inputs, same bits, unless the variant is atomic for that op. */
          if (good && (o == 0 ? variants[b].deterministic_n : variants[b].deterministic_t)) {
            good = run_once(ctx, ops[b], &variants[b], t, (zs_op)o, ab[a].alpha, ab[a].beta, e, y2,
                            why, sizeof why) == ZS_OK;
            if (good && memcmp(y, y2, bytes - 1)) {
              snprintf(why, sizeof why, "not deterministic: two runs differ");
              good = 0;
            }
          }
          if (good) {
            n += snprintf(line + n, sizeof line - n, " %s %.2g", variants[b].label, rel);
          } else {
            ok = 0;
            printf("FAIL %s %s %s %s a=%g b=%g on %s: %s\n", name, zs_type_name(t), fname,
                   o ? "T" : "N", ab[a].alpha, ab[a].beta, variants[b].label, why);
          }
          if (b == 0 && good)
            y_ref = y;
          else
            free(y);
          free(y2);
          if (n >= (int)sizeof line) n = (int)sizeof line - 1;
        }
        free(y_ref);
        cases++;
        if (ok)
          printf("ok   %s\n", line);
        else
          failures++;
      }
    /* BiCG's pair in one call: y with the first alpha/beta, z with the other, each checked
     * like its single product (and against the ref backend's), and for the single product's
     * bits where the variant is deterministic for that op. */
    for (int a = 0; a < N_AB; a++) {
      const int at = N_AB - 1 - a;
      const expect *en = &ex[0][a], *et = &ex[1][at];
      char line[1024];
      int n = 0, ok = 1;
      const size_t ybytes = (size_t)en->n_out * tsize(t) + 1,
                   zbytes = (size_t)et->n_out * tsize(t) + 1;
      void *y_ref = NULL, *z_ref = NULL;
      n += snprintf(line + n, sizeof line - n, "%-22s %s %s pair a=%g,%g b=%g,%g |", name,
                    zs_type_name(t), fname, ab[a].alpha, ab[at].alpha, ab[a].beta, ab[at].beta);
      for (int b = 0; b < n_variants; b++) {
        if (skip_variant(&variants[b], fmt)) continue;
        char why[400] = "";
        double rel_y = 0, rel_z = 0;
        void *y = xmalloc(ybytes), *z = xmalloc(zbytes), *y2 = xmalloc(ybytes),
             *z2 = xmalloc(zbytes);
        int good = ops[b] != NULL;
        if (!good) snprintf(why, sizeof why, "%s", create_err[b]);
        if (good)
          good = run_pair(ctx, ops[b], &variants[b], t, en, ab[a].alpha, ab[a].beta, et,
                          ab[at].alpha, ab[at].beta, y, z, why, sizeof why) == ZS_OK;
        if (good && !compare(en, t, y, y_ref, &rel_y, why, sizeof why))
          good = 0, strcat(why, " (y)");
        if (good && !compare(et, t, z, z_ref, &rel_z, why, sizeof why))
          good = 0, strcat(why, " (z)");
        /* A deterministic output of the pair has the bits of its single product, fused or not
         * (whose own determinism the loop above checked): so the pair's is checked too. */
        if (good && variants[b].deterministic_n) {
          good = run_once(ctx, ops[b], &variants[b], t, ZS_OP_N, ab[a].alpha, ab[a].beta, en, y2,
                          why, sizeof why) == ZS_OK;
          if (good && memcmp(y, y2, ybytes - 1))
            snprintf(why, sizeof why, "y differs from zs_spmv's (N) bits"), good = 0;
        }
        if (good && variants[b].deterministic_t) {
          good = run_once(ctx, ops[b], &variants[b], t, ZS_OP_T, ab[at].alpha, ab[at].beta, et, z2,
                          why, sizeof why) == ZS_OK;
          if (good && memcmp(z, z2, zbytes - 1))
            snprintf(why, sizeof why, "z differs from zs_spmv's (T) bits"), good = 0;
        }
        if (good) {
          n +=
              snprintf(line + n, sizeof line - n, " %s %.2g/%.2g", variants[b].label, rel_y, rel_z);
        } else {
          ok = 0;
          printf("FAIL %s %s %s pair a=%g,%g b=%g,%g on %s: %s\n", name, zs_type_name(t), fname,
                 ab[a].alpha, ab[at].alpha, ab[a].beta, ab[at].beta, variants[b].label, why);
        }
        if (b == 0 && good)
          y_ref = y, z_ref = z;
        else
          free(y), free(z);
        free(y2), free(z2);
        if (n >= (int)sizeof line) n = (int)sizeof line - 1;
      }
      free(y_ref), free(z_ref);
      cases++;
      if (ok)
        printf("ok   %s\n", line);
      else
        failures++;
    }
    for (int b = 0; b < n_variants; b++) zs_operator_destroy(&ops[b]);
  }
  for (int o = 0; o < 2; o++)
    for (int a = 0; a < N_AB; a++) free_expect(&ex[o][a]);
}

/* ---- generated matrices ---- */
typedef struct triplets {
  int64_t rows, cols, n, cap;
  int64_t *r, *c;
  double *v;
} triplets;

static void add(triplets *T, int64_t r, int64_t c, double v) {
  if (T->n == T->cap) {
    T->cap = T->cap ? 2 * T->cap : 1024;
    T->r = realloc(T->r, (size_t)T->cap * 8), T->c = realloc(T->c, (size_t)T->cap * 8);
    T->v = realloc(T->v, (size_t)T->cap * 8);
    if (!T->r || !T->c || !T->v) exit(2);
  }
  T->r[T->n] = r, T->c[T->n] = c, T->v[T->n++] = v;
}

static void run_triplets(zs_context *ctx, const char *name, triplets *T) {
  for (int k = 0; k < 2; k++) {
    const zs_type t = k ? ZS_F64 : ZS_F32;
    void *vals = xmalloc((size_t)T->n * tsize(t));
    for (int64_t i = 0; i < T->n; i++) tset(t, vals, i, T->v[i]);
    zs_matrix *A = NULL;
    zs_status s = zs_matrix_from_coo(&A, T->rows, T->cols, T->n, T->r, T->c, vals, t, 0);
    free(vals);
    if (s != ZS_OK) {
      printf("FAIL %s %s: zs_matrix_from_coo: %s: %s\n", name, zs_type_name(t), zs_status_name(s),
             zs_last_error());
      failures++, cases++;
      continue;
    }
    run_matrix(ctx, name, A);
    zs_matrix_destroy(&A);
  }
  free(T->r), free(T->c), free(T->v);
}

/* A generator's matrix in f32 and in f64. */
static void run_generated(zs_context *ctx, const char *spec) {
  for (int k = 0; k < 2; k++) {
    zs_matrix *A = NULL;
    if (zs_matrix_generate(&A, spec, k ? ZS_F64 : ZS_F32, 0) != ZS_OK) {
      printf("FAIL %s: %s\n", spec, zs_last_error());
      failures++, cases++;
      continue;
    }
    run_matrix(ctx, spec, A);
    zs_matrix_destroy(&A);
  }
}

static void random_cases(zs_context *ctx) {
  uint64_t s = 42;
  triplets T;
#define BEGIN(R, C) (T = (triplets){.rows = (R), .cols = (C)})
  BEGIN(50, 40);
  for (int k = 0; k < 300; k++) add(&T, rng_below(&s, 50), rng_below(&s, 40), zs_test_unit(&s));
  run_triplets(ctx, "small-50x40", &T);

  BEGIN(3000, 2500); /* a few explicit zeros: they are structure */
  for (int k = 0; k < 40000; k++)
    add(&T, rng_below(&s, 3000), rng_below(&s, 2500), k % 97 ? zs_test_unit(&s) : 0.0);
  run_triplets(ctx, "medium-3000x2500", &T);

  BEGIN(2000, 2000); /* only every third row, none in the first and last 50 */
  for (int k = 0; k < 12000; k++) {
    const int64_t r = 50 + 3 * rng_below(&s, 633) + 1;
    add(&T, r, rng_below(&s, 2000), zs_test_unit(&s));
  }
  run_triplets(ctx, "empty-rows", &T);

  BEGIN(1500, 1800); /* only even columns below 1000 */
  for (int k = 0; k < 9000; k++)
    add(&T, rng_below(&s, 1500), 2 * rng_below(&s, 500), zs_test_unit(&s));
  run_triplets(ctx, "empty-cols", &T);

  BEGIN(3000, 25000); /* row 1234 holds 20000 of the entries: it spans several chunks */
  for (int64_t j = 0; j < 20000; j++) add(&T, 1234, j * 25000 / 20000, zs_test_unit(&s));
  for (int64_t r = 0; r < 3000; r++)
    for (int k = 0; r != 1234 && k < 3; k++) add(&T, r, rng_below(&s, 25000), zs_test_unit(&s));
  run_triplets(ctx, "huge-row", &T);

  BEGIN(1000, 1000); /* one full row, nothing else: every chunk lies inside it */
  for (int64_t j = 0; j < 1000; j++) add(&T, 500, j, zs_test_unit(&s));
  run_triplets(ctx, "single-row", &T);

  BEGIN(20000, 300);
  for (int k = 0; k < 80000; k++)
    add(&T, rng_below(&s, 20000), rng_below(&s, 300), zs_test_unit(&s));
  run_triplets(ctx, "tall-20000x300", &T);

  BEGIN(300, 20000);
  for (int k = 0; k < 30000; k++)
    add(&T, rng_below(&s, 300), rng_below(&s, 20000), zs_test_unit(&s));
  run_triplets(ctx, "wide-300x20000", &T);

  BEGIN(30000, 30010); /* banded: most columns belong to one thread's rows (cpu SpMVT writes
                          those straight to y), and the last 10 columns are empty */
  for (int64_t r = 0; r < 30000; r++)
    for (int k = 0; k < 5; k++) {
      const int64_t c = r - 20 + rng_below(&s, 41);
      if (c >= 0 && c < 30000) add(&T, r, c, zs_test_unit(&s));
    }
  run_triplets(ctx, "banded-30000", &T);

  /* Stencils: rows that repeat a pattern around the diagonal (dtANS version 5's templates);
   * R-MAT: power-law rows of every length, empty to longer than a GPU row block (and with 40
   * values: version 5's packed ids in registers, experimental.packed_dict=shfl). */
  static const char *const stencils[] = {"stencil3d:n=7,points=27,values=set,distinct=64,seed=5",
                                         "stencil2d:n=40,points=5,values=random,seed=6",
                                         "stencil2d:n=25,points=9,values=pattern",
                                         "rmat:scale=11,per_row=8,values=random,seed=9",
                                         "rmat:scale=10,per_row=6,values=set,distinct=40,seed=4"};
  for (size_t g = 0; g < sizeof stencils / sizeof *stencils; g++) run_generated(ctx, stencils[g]);

  /* Large enough that the split kernel is CSR's default on cuda and hip (494 K nonzeros, the row
   * lengths' coefficient of variation 5.7), staged as by default for each value type, in 547
   * tiles of 1024 items: only where a GPU backend runs. */
  if (have_gpu_variant()) run_generated(ctx, "rmat:scale=16,per_row=8,values=random,seed=10");

  BEGIN(64, 64);
  for (int64_t r = 0; r < 64; r++)
    for (int64_t c = 0; c < 64; c++) add(&T, r, c, zs_test_unit(&s));
  run_triplets(ctx, "dense-64x64", &T);

  BEGIN(500, 500); /* every entry given two or three times: from_coo sums them */
  for (int k = 0; k < 3000; k++) {
    const int64_t r = rng_below(&s, 500), c = rng_below(&s, 500);
    for (int d = 0; d < 2 + k % 2; d++) add(&T, r, c, zs_test_unit(&s));
  }
  run_triplets(ctx, "duplicates", &T);

  BEGIN(300, 200); /* values near underflow: rows of f32 subnormals (normal in f64), rows of
                      f64 subnormals (zero in f32), rows mixing them with ordinary values */
  for (int k = 0; k < 3000; k++) {
    const int64_t r = rng_below(&s, 300);
    const double scale = r < 100 ? 0x1p-140 : r < 200 ? 0x1p-1060 : k % 2 ? 1.0 : 0x1p-135;
    add(&T, r, rng_below(&s, 200), zs_test_unit(&s) * scale);
  }
  run_triplets(ctx, "subnormal", &T);

  BEGIN(0, 17);
  run_triplets(ctx, "0x17", &T);
  BEGIN(13, 0);
  run_triplets(ctx, "13x0", &T);
  BEGIN(40, 30);
  run_triplets(ctx, "no-entries-40x30", &T);
  BEGIN(1, 1);
  add(&T, 0, 0, -0.75);
  run_triplets(ctx, "1x1", &T);
#undef BEGIN
}

/* ---- the shared Matrix Market collection, listed in MANIFEST.tsv ---- */
static void shared_cases(zs_context *ctx, const char *dir) {
  char path[4096], line[4096];
  snprintf(path, sizeof path, "%s/MANIFEST.tsv", dir);
  FILE *f = fopen(path, "r");
  if (!f) {
    printf("FAIL cannot open %s\n", path);
    failures++;
    return;
  }
  int n = 0;
  while (fgets(line, sizeof line, f)) {
    char *fields[12];
    const int nf = zst_manifest_fields(line, fields);
    if (nf < 10 || strcmp(fields[0], "file") == 0) continue;
    const char *file = fields[0], *field = fields[9];
    const int64_t rows = atoll(fields[5]), cols = atoll(fields[6]);
    snprintf(path, sizeof path, "%s/%s", dir, file);
    n++;
    for (int k = 0; k < 2; k++) {
      const zs_type t = k ? ZS_F64 : ZS_F32;
      zs_matrix *A = NULL;
      const zs_status s = zs_matrix_read(&A, path, t, 0, NULL, 0);
      cases++;
      if (strcmp(field, "complex") == 0) {
        if (s == ZS_ERR_UNSUPPORTED) {
          printf("ok   %-22s %s complex: refused (%s)\n", file, zs_type_name(t), zs_last_error());
        } else {
          printf("FAIL %s: complex file read gave %s, expected ZS_ERR_UNSUPPORTED\n", path,
                 zs_status_name(s));
          failures++;
        }
        zs_matrix_destroy(&A);
        continue;
      }
      if (s != ZS_OK) {
        printf("FAIL %s %s: zs_matrix_read: %s: %s\n", path, zs_type_name(t), zs_status_name(s),
               zs_last_error());
        failures++;
        continue;
      }
      if (zs_matrix_rows(A) != rows || zs_matrix_cols(A) != cols) {
        printf("FAIL %s: read as %lldx%lld, MANIFEST.tsv says %lldx%lld\n", path,
               (long long)zs_matrix_rows(A), (long long)zs_matrix_cols(A), (long long)rows,
               (long long)cols);
        failures++;
      }
      cases--; /* run_matrix counts its own cases */
      run_matrix(ctx, file, A);
      zs_matrix_destroy(&A);
    }
  }
  fclose(f);
  if (n < 2) {
    printf("FAIL %s lists %d matrices\n", dir, n);
    failures++;
  }
}

/* ---- backend options and BLAS-1 ---- */
static void expect_status(const char *what, zs_status got, zs_status want) {
  cases++;
  if (got == want) {
    printf("ok   %s -> %s\n", what, zs_status_name(got));
  } else {
    printf("FAIL %s -> %s (%s), expected %s\n", what, zs_status_name(got), zs_last_error(),
           zs_status_name(want));
    failures++;
  }
}

static void option_cases(zs_context *ctx) {
  const int64_t r[] = {0, 1}, c[] = {1, 0};
  const double v[] = {1, 2};
  zs_matrix *A = NULL;
  zs_encoded *E = NULL;
  if (zs_matrix_from_coo(&A, 2, 2, 2, r, c, v, ZS_F64, 0) ||
      zs_encode(&E, A, ZS_FORMAT_CSR, NULL)) {
    printf("FAIL option cases: cannot build a 2x2 matrix: %s\n", zs_last_error());
    failures++;
    return;
  }
  zs_operator *op = NULL;
  expect_status("cpu transpose=sometimes",
                zs_operator_create(&op, ctx, E, "cpu", "transpose=sometimes"),
                ZS_ERR_INVALID_ARGUMENT);
  expect_status("cpu threads=3 (unknown key)", zs_operator_create(&op, ctx, E, "cpu", "threads=3"),
                ZS_ERR_INVALID_ARGUMENT);
  /* One table of options for every backend: ref takes transpose too (one sequential sum);
   * a GPU option on the cpu is refused naming the backends that have it. */
  expect_status("ref transpose=atomic", zs_operator_create(&op, ctx, E, "ref", "transpose=atomic"),
                ZS_OK);
  zs_operator_destroy(&op);
  expect_status("cpu transpose=private (not a value)",
                zs_operator_create(&op, ctx, E, "cpu", "transpose=private"),
                ZS_ERR_INVALID_ARGUMENT);
  expect_status("cpu col_slabs=2 (a GPU option)",
                zs_operator_create(&op, ctx, E, "cpu", "col_slabs=2"), ZS_ERR_INVALID_ARGUMENT);
  if (!strstr(zs_last_error(), "cuda and hip")) {
    printf("FAIL cpu col_slabs=2: the message names no backend that has it: %s\n", zs_last_error());
    failures++;
  }
  expect_status("cpu transpose=atomic,transpose=atomic (given twice)",
                zs_operator_create(&op, ctx, E, "cpu", "transpose=atomic,transpose=atomic"),
                ZS_ERR_INVALID_ARGUMENT);
  /* transpose=stored is the library's: any backend takes it, the rest still goes to the backend */
  expect_status("ref transpose=stored", zs_operator_create(&op, ctx, E, "ref", "transpose=stored"),
                ZS_OK);
  zs_operator_destroy(&op);
  expect_status("cpu transpose=stored,threads=3 (unknown key)",
                zs_operator_create(&op, ctx, E, "cpu", "transpose=stored,threads=3"),
                ZS_ERR_INVALID_ARGUMENT);
  expect_status("cpu threads=3,transpose=stored (unknown key)",
                zs_operator_create(&op, ctx, E, "cpu", "threads=3,transpose=stored"),
                ZS_ERR_INVALID_ARGUMENT);
  expect_status("ref transpose=storedx (not the library's key)",
                zs_operator_create(&op, ctx, E, "ref", "transpose=storedx"),
                ZS_ERR_INVALID_ARGUMENT);
  zs_encoded_destroy(&E);
  zs_matrix_destroy(&A);
}

/* zs_spmv_pair's argument checks on a 2 x 3 operator: x, z have 3 elements, y, w 2. */
static void pair_argument_cases(zs_context *ctx) {
  const int64_t r[] = {0, 1, 1}, c[] = {2, 0, 1};
  const double v[] = {1, 2, 3};
  zs_matrix *A = NULL;
  zs_encoded *E = NULL;
  zs_operator *op = NULL;
  zs_vector *x = NULL, *y = NULL, *w = NULL, *z = NULL, *x32 = NULL;
  if (zs_matrix_from_coo(&A, 2, 3, 3, r, c, v, ZS_F64, 0) ||
      zs_encode(&E, A, ZS_FORMAT_CSR, NULL) || zs_operator_create(&op, ctx, E, "cpu", NULL) ||
      zs_vector_create(&x, ctx, "cpu", ZS_F64, 3) || zs_vector_create(&y, ctx, "cpu", ZS_F64, 2) ||
      zs_vector_create(&w, ctx, "cpu", ZS_F64, 2) || zs_vector_create(&z, ctx, "cpu", ZS_F64, 3) ||
      zs_vector_create(&x32, ctx, "cpu", ZS_F32, 3) || zs_vector_fill(x, 1) ||
      zs_vector_fill(w, 1)) {
    printf("FAIL pair cases: cannot set up: %s\n", zs_last_error());
    failures++;
  } else {
    expect_status("pair: z aliases x", zs_spmv_pair(op, 1, x, 0, y, 1, w, 0, x),
                  ZS_ERR_INVALID_ARGUMENT);
    expect_status("pair: y aliases w", zs_spmv_pair(op, 1, x, 0, w, 1, w, 0, z),
                  ZS_ERR_INVALID_ARGUMENT);
    expect_status("pair: x and z swapped in size", zs_spmv_pair(op, 1, y, 0, x, 1, z, 0, w),
                  ZS_ERR_INVALID_ARGUMENT);
    expect_status("pair: x is f32", zs_spmv_pair(op, 1, x32, 0, y, 1, w, 0, z),
                  ZS_ERR_INVALID_ARGUMENT);
    expect_status("pair: w is NULL", zs_spmv_pair(op, 1, x, 0, y, 1, NULL, 0, z),
                  ZS_ERR_INVALID_ARGUMENT);
    expect_status("pair: NULL operator", zs_spmv_pair(NULL, 1, x, 0, y, 1, w, 0, z),
                  ZS_ERR_INVALID_ARGUMENT);
    expect_status("pair: good call", zs_spmv_pair(op, 1, x, 0, y, 1, w, 0, z), ZS_OK);
    /* y = A 1 = (1, 5), z = Aᵀ 1 = (2, 3, 1) */
    double yh[2] = {0}, zh[3] = {0};
    cases++;
    if (zs_vector_download(y, yh) || zs_vector_download(z, zh) || yh[0] != 1 || yh[1] != 5 ||
        zh[0] != 2 || zh[1] != 3 || zh[2] != 1) {
      printf("FAIL pair: y = (%g, %g), z = (%g, %g, %g), expected (1, 5), (2, 3, 1)\n", yh[0],
             yh[1], zh[0], zh[1], zh[2]);
      failures++;
    } else {
      printf("ok   pair: y = A 1 and z = Aᵀ 1 on a 2 x 3 matrix\n");
    }
  }
  zs_vector_destroy(&x), zs_vector_destroy(&y), zs_vector_destroy(&w), zs_vector_destroy(&z);
  zs_vector_destroy(&x32);
  zs_operator_destroy(&op);
  zs_encoded_destroy(&E);
  zs_matrix_destroy(&A);
}

/* The GPU backend's own option ranges (conformance --require cuda|hip): a value out of range is
 * refused, the ends of the range are taken. */
static void gpu_option_cases(zs_context *ctx, const char *backend) {
  zs_matrix *A = NULL;
  if (zs_matrix_generate(&A, "banded:rows=512,width=32,per_row=8,seed=3", ZS_F64, 0)) {
    printf("FAIL gpu option cases: cannot build a matrix: %s\n", zs_last_error());
    failures++;
    return;
  }
  const struct {
    zs_format format;
    const char *options;
    zs_status want;
    const char *encoding; /* encoder options (NULL: the defaults) */
  } gpu_cases[] = {
      {ZS_FORMAT_GCSB, "experimental.det_splits=0", ZS_ERR_INVALID_ARGUMENT, NULL},
      {ZS_FORMAT_GCSB, "experimental.det_splits=65", ZS_ERR_INVALID_ARGUMENT, NULL},
      {ZS_FORMAT_GCSB, "experimental.det_splits=3x", ZS_ERR_INVALID_ARGUMENT, NULL},
      {ZS_FORMAT_GCSB, "experimental.det_walk=sideways", ZS_ERR_INVALID_ARGUMENT, NULL},
      {ZS_FORMAT_GCSB, "experimental.det_walk=warp,experimental.det_splits=64", ZS_OK, NULL},
      {ZS_FORMAT_GCSB, "experimental.det_teams=3", ZS_ERR_INVALID_ARGUMENT, NULL},
      {ZS_FORMAT_GCSB, "experimental.det_teams=4,experimental.det_splits=1", ZS_OK, NULL},
      {ZS_FORMAT_GCSB, "experimental.det_teams=2,experimental.det_walk=warp", ZS_OK, NULL},
      {ZS_FORMAT_CSB, "experimental.det_splits=-1", ZS_ERR_INVALID_ARGUMENT, NULL},
      {ZS_FORMAT_CSB, "experimental.det_walk=warp,experimental.det_splits=1", ZS_OK, NULL},
      {ZS_FORMAT_DTANS, "experimental.raw_blocks=2", ZS_ERR_INVALID_ARGUMENT, NULL},
      {ZS_FORMAT_DTANS, "col_slabs=9", ZS_ERR_INVALID_ARGUMENT, NULL},
      {ZS_FORMAT_DTANS, "experimental.raw_blocks=3,col_slabs=8", ZS_OK, NULL},
      {ZS_FORMAT_DTANS, "experimental.raw_slices=dynamic", ZS_ERR_INVALID_ARGUMENT, NULL},
      {ZS_FORMAT_DTANS, "experimental.raw_slices=tickets,experimental.raw_blocks=4", ZS_OK, NULL},
      {ZS_FORMAT_CSR, "experimental.raw_slices=tickets", ZS_ERR_INVALID_ARGUMENT, NULL},
      /* the split kernel has no fused long rows: that pair is refused, each alone is taken */
      {ZS_FORMAT_CSR, "kernel=split,experimental.long_rows=fused", ZS_ERR_INVALID_ARGUMENT, NULL},
      {ZS_FORMAT_CSR, "kernel=split,experimental.long_rows=kernel", ZS_OK, NULL},
      {ZS_FORMAT_CSR, "kernel=rows,experimental.long_rows=fused", ZS_OK, NULL},
      /* research knobs live under experimental. only */
      {ZS_FORMAT_GCSB, "det_walk=warp", ZS_ERR_INVALID_ARGUMENT, NULL},
      {ZS_FORMAT_CCI, "experimental.kernel=slices", ZS_OK, NULL},
      {ZS_FORMAT_CCI, "kernel=slices", ZS_ERR_INVALID_ARGUMENT, NULL},
      /* renumbered columns (version 4) with the slab and raw-kernel options */
      {ZS_FORMAT_DTANS, "col_slabs=8,experimental.raw_blocks=3", ZS_OK, "col_order=frequency"},
  };
  for (size_t i = 0; i < sizeof gpu_cases / sizeof *gpu_cases; i++) {
    zs_encoded *E = NULL;
    zs_operator *op = NULL;
    char what[160];
    snprintf(what, sizeof what, "%s %s %s%s%s", backend, zs_format_name(gpu_cases[i].format),
             gpu_cases[i].options ? gpu_cases[i].options : "",
             gpu_cases[i].encoding ? " encoded with " : "",
             gpu_cases[i].encoding ? gpu_cases[i].encoding : "");
    if (zs_encode(&E, A, gpu_cases[i].format, gpu_cases[i].encoding)) {
      printf("FAIL %s: cannot encode: %s\n", what, zs_last_error());
      cases++, failures++;
      continue;
    }
    expect_status(what, zs_operator_create(&op, ctx, E, backend, gpu_cases[i].options),
                  gpu_cases[i].want);
    zs_operator_destroy(&op);
    zs_encoded_destroy(&E);
  }
  zs_matrix_destroy(&A);
}

/* Count a case; print FAIL with its reason, or ok with `detail`. */
static void report_case(const char *what, const char *why, const char *detail) {
  cases++;
  if (why[0]) {
    printf("FAIL %s: %s\n", what, why);
    failures++;
  } else {
    printf("ok   %s%s\n", what, detail);
  }
}

static void blas1_case(zs_context *ctx, const variant *vr, zs_type t, int64_t n) {
  const double eps = type_eps(t), alpha = -0.75, beta = 1.5;
  char what[96], why[256] = "";
  snprintf(what, sizeof what, "blas1 %s %s n=%lld", vr->label, zs_type_name(t), (long long)n);
  void *hx = random_vector(t, n, 11 + (uint64_t)n), *hy = random_vector(t, n, 12 + (uint64_t)n);
  void *out = xmalloc((size_t)n * tsize(t) + 1);
  zs_vector *x = NULL, *y = NULL, *z = NULL;
  double d1 = 0, d2 = 0, nrm = 0;
  long double dot = 0, dot_abs = 0, sq = 0;
  for (int64_t i = 0; i < n; i++) {
    const long double p = tget(t, hx, i) * tget(t, hy, i);
    dot += p, dot_abs += fabsl(p), sq += tget(t, hx, i) * tget(t, hx, i);
  }
  zs_status s;
  if ((s = zs_vector_create(&x, ctx, vr->backend, t, n)) ||
      (s = zs_vector_create(&y, ctx, vr->backend, t, n)) ||
      (s = zs_vector_create(&z, ctx, vr->backend, t, n)) || (s = zs_vector_upload(x, hx)) ||
      (s = zs_vector_upload(y, hy)) || (s = zs_vector_dot(x, y, &d1)) ||
      (s = zs_vector_dot(x, y, &d2)) || (s = zs_vector_nrm2(x, &nrm))) {
    snprintf(why, sizeof why, "%s: %s", zs_status_name(s), zs_last_error());
    goto done;
  }
  const long double dot_bound = (n + 2) * (long double)DBL_EPSILON * dot_abs;
  if (!(fabsl(d1 - dot) <= dot_bound)) {
    snprintf(why, sizeof why, "dot %.17g, exact %.17Lg", d1, dot);
    goto done;
  }
  if (memcmp(&d1, &d2, sizeof d1)) {
    snprintf(why, sizeof why, "dot not deterministic: %.17g then %.17g", d1, d2);
    goto done;
  }
  if (!(fabsl(nrm - sqrtl(sq)) <= (n + 4) * (long double)DBL_EPSILON * sqrtl(sq))) {
    snprintf(why, sizeof why, "nrm2 %.17g, exact %.17Lg", nrm, sqrtl(sq));
    goto done;
  }
  /* y = alpha x + beta y, then z (poisoned) = alpha x + 0 z. */
  if ((s = zs_vector_axpby(alpha, x, beta, y)) || (s = zs_vector_download(y, out))) {
    snprintf(why, sizeof why, "axpby: %s: %s", zs_status_name(s), zs_last_error());
    goto done;
  }
  for (int64_t i = 0; i < n; i++) {
    const long double ax = alpha * tget(t, hx, i), by = beta * tget(t, hy, i);
    if (!(fabsl(tget(t, out, i) - (ax + by)) <= 2 * eps * (fabsl(ax) + fabsl(by)))) {
      snprintf(why, sizeof why, "axpby y[%lld] = %.17Lg, exact %.17Lg", (long long)i,
               tget(t, out, i), ax + by);
      goto done;
    }
  }
  if ((s = zs_vector_fill(z, NAN)) || (s = zs_vector_axpby(alpha, x, 0.0, z)) ||
      (s = zs_vector_download(z, out))) {
    snprintf(why, sizeof why, "axpby beta=0: %s: %s", zs_status_name(s), zs_last_error());
    goto done;
  }
  for (int64_t i = 0; i < n; i++)
    if (!(fabsl(tget(t, out, i) - alpha * tget(t, hx, i)) <= eps * fabsl(alpha * tget(t, hx, i)))) {
      snprintf(why, sizeof why, "axpby beta=0: z[%lld] = %.17Lg (NaN leaked?)", (long long)i,
               tget(t, out, i));
      goto done;
    }
  if ((s = zs_vector_fill(z, 0.25)) || (s = zs_vector_download(z, out))) {
    snprintf(why, sizeof why, "fill: %s: %s", zs_status_name(s), zs_last_error());
    goto done;
  }
  for (int64_t i = 0; i < n; i++)
    if (tget(t, out, i) != 0.25L) {
      snprintf(why, sizeof why, "fill: z[%lld] = %.17Lg", (long long)i, tget(t, out, i));
      goto done;
    }
  if ((s = zs_vector_copy(z, x)) || (s = zs_vector_download(z, out)) ||
      memcmp(out, hx, (size_t)n * tsize(t))) {
    snprintf(why, sizeof why, "copy: %s", s ? zs_last_error() : "contents differ");
    goto done;
  }
done:;
  char detail[64];
  snprintf(detail, sizeof detail, ": dot rel err %.2Lg",
           dot_abs > 0 ? fabsl(d1 - dot) / dot_abs : 0.0L);
  report_case(what, why, detail);
  zs_vector_destroy(&x), zs_vector_destroy(&y), zs_vector_destroy(&z);
  free(hx), free(hy), free(out);
}

/* |got - (a + b)| within 2 eps of |a| + |b| at every element (one rounding, maybe fused). */
static int close_sum(zs_type t, const void *got, int64_t n, long double ca, const void *a,
                     long double cb, const void *b, const char *name, char *why, size_t len) {
  const double eps = type_eps(t);
  for (int64_t i = 0; i < n; i++) {
    const long double u = ca * tget(t, a, i), v = cb * tget(t, b, i);
    if (!(fabsl(tget(t, got, i) - (u + v)) <= 2 * eps * (fabsl(u) + fabsl(v)))) {
      snprintf(why, len, "%s[%lld] = %.17Lg, exact %.17Lg", name, (long long)i, tget(t, got, i),
               u + v);
      return 0;
    }
  }
  return 1;
}

/* The fused BiCG updates (zs_vector_residual_update / _direction_update) against long double,
 * their sums deterministic, and aliased outputs refused. */
static void fused_case(zs_context *ctx, const variant *vr, zs_type t, int64_t n) {
  const double alpha = 0.8125, beta = -1.375;
  char what[96], why[256] = "";
  snprintf(what, sizeof what, "fused blas1 %s %s n=%lld", vr->label, zs_type_name(t), (long long)n);
  enum { Q, R, T, S, P, X, Z, ZT, PT, NV };
  void *h[NV], *o[NV];
  zs_vector *v[NV] = {0};
  zs_status st = ZS_OK;
  for (int k = 0; k < NV; k++) {
    h[k] = random_vector(t, n, 31 + 7 * (uint64_t)k + (uint64_t)n);
    o[k] = xmalloc((size_t)n * tsize(t) + 1);
    if (st == ZS_OK && (st = zs_vector_create(&v[k], ctx, vr->backend, t, n)) == ZS_OK)
      st = zs_vector_upload(v[k], h[k]);
  }
  double rs[2], rr[2];
  for (int rep = 0; rep < 2 && st == ZS_OK; rep++) { /* twice from the same inputs */
    if ((st = zs_vector_upload(v[R], h[R])) == ZS_OK &&
        (st = zs_vector_upload(v[S], h[S])) == ZS_OK)
      st = zs_vector_residual_update(alpha, v[Q], v[R], v[T], v[S], &rs[rep], &rr[rep]);
  }
  if (st == ZS_OK) st = zs_vector_direction_update(alpha, v[P], v[X], beta, v[Z], v[ZT], v[PT]);
  for (int k = 0; k < NV && st == ZS_OK; k++) st = zs_vector_download(v[k], o[k]);
  if (st != ZS_OK) {
    snprintf(why, sizeof why, "%s: %s", zs_status_name(st), zs_last_error());
    goto done;
  }
  if (!close_sum(t, o[R], n, -alpha, h[Q], 1, h[R], "r", why, sizeof why) ||
      !close_sum(t, o[S], n, -alpha, h[T], 1, h[S], "s", why, sizeof why) ||
      !close_sum(t, o[X], n, alpha, h[P], 1, h[X], "x", why, sizeof why) ||
      !close_sum(t, o[P], n, 1, h[Z], beta, h[P], "p", why, sizeof why) ||
      !close_sum(t, o[PT], n, 1, h[ZT], beta, h[PT], "pt", why, sizeof why))
    goto done;
  long double dot = 0, dot_abs = 0, sq = 0; /* of the r and s it returned */
  for (int64_t i = 0; i < n; i++) {
    const long double a = tget(t, o[R], i), b = tget(t, o[S], i);
    dot += a * b, dot_abs += fabsl(a * b), sq += a * a;
  }
  const long double bound = (n + 2) * (long double)DBL_EPSILON;
  if (!(fabsl(rs[0] - dot) <= bound * dot_abs) || !(fabsl(rr[0] - sq) <= bound * sq)) {
    snprintf(why, sizeof why, "r.s %.17g (exact %.17Lg), r.r %.17g (exact %.17Lg)", rs[0], dot,
             rr[0], sq);
    goto done;
  }
  if (memcmp(rs, rs + 1, sizeof *rs) || memcmp(rr, rr + 1, sizeof *rr)) {
    snprintf(why, sizeof why, "sums not deterministic: r.s %.17g then %.17g", rs[0], rs[1]);
    goto done;
  }
  if (zs_vector_residual_update(alpha, v[Q], v[R], v[T], v[R], NULL, NULL) !=
          ZS_ERR_INVALID_ARGUMENT ||
      zs_vector_direction_update(alpha, v[P], v[X], beta, v[P], v[ZT], v[PT]) !=
          ZS_ERR_INVALID_ARGUMENT) {
    snprintf(why, sizeof why, "aliased outputs were not refused");
    goto done;
  }
done:
  report_case(what, why, "");
  for (int k = 0; k < NV; k++) zs_vector_destroy(&v[k]), free(h[k]), free(o[k]);
}

int main(int argc, char **argv) {
  const char *dir = NULL;
  const char *require = NULL;
  int random_only = 0, matrices_only = 0;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--random-only") == 0)
      random_only = 1;
    else if (strcmp(argv[i], "--matrices-only") == 0)
      matrices_only = 1;
    else if (strcmp(argv[i], "--require") == 0 && i + 1 < argc)
      require = argv[++i];
    else if (strcmp(argv[i], "--format") == 0 && i + 1 < argc) {
      if (!add_format(argv[++i])) {
        fprintf(stderr, "conformance: bad or too many --format '%s'\n", argv[i]);
        return 2;
      }
    } else
      dir = argv[i];
  }
  if ((random_only && matrices_only) || (!random_only && !dir)) {
    fprintf(stderr,
            "usage: conformance [--require BACKEND] [--format NAME[:OPTIONS]]... "
            "[--matrices-only] MATRICES_DIR | --random-only\n");
    return 2;
  }
  if (n_formats == 0) add_format("csr"), add_format("coo");
  zs_context *ctx = NULL;
  if (zs_context_create(&ctx) != ZS_OK) {
    printf("FAIL zs_context_create: %s\n", zs_last_error());
    return 1;
  }
  find_variants(ctx, require);
  /* $ZS_TEST_MATRICES wins over the folder meson passes; SKIP (77) when neither exists. */
  if (!random_only) dir = zst_matrices_dir(dir);
  if (!matrices_only) {
    option_cases(ctx);
    pair_argument_cases(ctx);
    if (require && (strcmp(require, "cuda") == 0 || strcmp(require, "hip") == 0))
      gpu_option_cases(ctx, require);
    for (int b = 0; b < n_variants; b++)
      if (!variants[b].options)
        for (int k = 0; k < 2; k++) {
          blas1_case(ctx, &variants[b], k ? ZS_F64 : ZS_F32, 100003);
          blas1_case(ctx, &variants[b], k ? ZS_F64 : ZS_F32, 5);
          blas1_case(ctx, &variants[b], k ? ZS_F64 : ZS_F32, 0);
          fused_case(ctx, &variants[b], k ? ZS_F64 : ZS_F32, 100003);
          fused_case(ctx, &variants[b], k ? ZS_F64 : ZS_F32, 7);
          fused_case(ctx, &variants[b], k ? ZS_F64 : ZS_F32, 0);
        }
    random_cases(ctx);
  }
  if (!random_only) shared_cases(ctx, dir);
  zs_context_destroy(&ctx);
  printf("%d cases, %d failed\n", cases, failures);
  return failures ? 1 : 0;
}
