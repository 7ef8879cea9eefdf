/* zs_bench_auto.c — zs-bench-auto: every candidate format and option set of a list, timed on one
 * backend through the public API, each product checked; one CSV line per candidate. */
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../bench_clock.h"
#include "zsparse.h"

#ifdef ZS_BENCH_HAVE_RSB
#include <rsb.h>
#endif

#define MAX_CANDIDATES 256
#define SPEC_MAX 256

static const char kUsage[] =
    "usage: zs-bench-auto [options] SOURCE\n"
    "\n"
    "Times every candidate of a list (format, encoder options, operator options) on one backend,\n"
    "for SpMV (op N) and BiCG's pair (op P: y = A x and z = A^T w in one zs_spmv_pair call), and\n"
    "appends one CSV line per (candidate, op) to --csv. Each candidate is checked first: one\n"
    "product over outputs filled with NaN against a long double host reference; row i passes\n"
    "when |y_i - ref_i| <= 16 eps min(len_max + 2, 1024) sum_j |a_ij x_j| (as `zsparse spmv\n"
    "--check`). A failed check is reported (ok = 0) and its time is kept out of every best.\n"
    "\n"
    "SOURCE   gen:SPEC (a generator spec, docs/generators.md) or a .mtx / .mtx.gz file\n"
    "\n"
    "options:\n"
    "  --candidates FILE  lines `BACKENDS SPEC`: BACKENDS is all, cpu, gpu (cuda and hip) or a\n"
    "                     backend name; SPEC is FORMAT[:ENCODER_OPTIONS][@OPERATOR_OPTIONS];\n"
    "                     `#` starts a comment. Candidates whose operator options name\n"
    "                     `transpose` are timed for the pair only (SpMV does not read them)\n"
    "  --candidate SPEC   one more candidate (repeatable; every backend)\n"
    "  --backend B        ref, cpu, cuda, hip (default: the context's default backend)\n"
    "  --type f64|f32     value type (default f64)\n"
    "  --ops LIST         N, P or N,P (default N,P)\n"
    "  --case NAME        the case's name in the CSV (default: SOURCE)\n"
    "  --csv FILE         append the lines to FILE (a header first when it is empty)\n"
    "  --reps N           timed samples per candidate (default 15); the median is reported\n"
    "  --warmup N         untimed products first (default 3)\n"
    "  --sample-ms T      a sample times back-to-back products for at least T ms, then\n"
    "                     divides (default 2): launch latency is paid once per sample;\n"
    "                     one untimed product starts a sample of several\n"
    "  --seed S           seed of x and w (default 42)\n"
    "  --jobs N           encode the candidates' encoder settings on N host threads at once\n"
    "                     (default 1); operators are then created, checked and timed one\n"
    "                     after another as with 1, so only the set-up is shortened\n"
    "  --rsb              also time librsb (cpu peer) on the same CSR: N, and N + T for P\n"
    "  --load-only        only read or generate SOURCE and print `load_s SECONDS` (the part of\n"
    "                     `zsparse plan`'s wall time that is not the model's)\n"
    "  --help\n"
    "\n"
    "Columns: case, source, backend, type, op, rows, cols, nnz, library, candidate, bytes (the\n"
    "format's arrays), encode_s, time_us (median per product or pair), batch, reps, ok,\n"
    "max_rel_err, status (ok, check, unsupported, error), message.\n"
    "Exit status: 0 every supported candidate passed, 1 a check or a run failed, 2 usage.\n";

/* The median of v[0..n), sorting v in place. */
static double median_sort(double *v, int n) {
  qsort(v, (size_t)n, sizeof *v, cmp_double);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* Deterministic uniform values in [-1, 1] (splitmix64). */
static double next_uniform(uint64_t *s) {
  uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return (double)(z >> 11) * 0x1p-52 - 1.0;
}

/* ---- options --------------------------------------------------------------------------------- */

typedef struct options {
  const char *source, *backend, *csv, *case_name, *candidates;
  zs_type type;
  int op_n, op_p, reps, warmup, rsb, load_only, jobs;
  double sample_ms;
  uint64_t seed;
  char *extra[MAX_CANDIDATES];
  int n_extra;
} options;

static int parse_int(const char *s, int lo, int hi, int *out) {
  char *end;
  const long v = strtol(s, &end, 10);
  if (*s == '\0' || *end != '\0' || v < lo || v > hi) return -1;
  *out = (int)v;
  return 0;
}

static int usage_error(const char *what, const char *arg) {
  fprintf(stderr, "zs-bench-auto: %s%s%s (see --help)\n", what, arg ? ": " : "", arg ? arg : "");
  return 2;
}

/* 0 ok, 1 --help printed, 2 usage error (printed). */
static int parse_args(int argc, char **argv, options *o) {
  *o = (options){.type = ZS_F64,
                 .op_n = 1,
                 .op_p = 1,
                 .reps = 15,
                 .warmup = 3,
                 .sample_ms = 2,
                 .seed = 42,
                 .jobs = 1};
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (strcmp(a, "--help") == 0) {
      fputs(kUsage, stdout);
      return 1;
    }
    if (strcmp(a, "--rsb") == 0 || strcmp(a, "--load-only") == 0) {
      *(a[2] == 'r' ? &o->rsb : &o->load_only) = 1;
      continue;
    }
    if (a[0] != '-') {
      if (o->source) return usage_error("more than one SOURCE", a);
      o->source = a;
      continue;
    }
    if (i + 1 >= argc) return usage_error("option needs a value", a);
    const char *v = argv[++i];
    if (strcmp(a, "--candidates") == 0) {
      o->candidates = v;
    } else if (strcmp(a, "--candidate") == 0) {
      if (o->n_extra == MAX_CANDIDATES) return usage_error("too many --candidate", v);
      o->extra[o->n_extra++] = (char *)v;
    } else if (strcmp(a, "--backend") == 0) {
      o->backend = v;
    } else if (strcmp(a, "--type") == 0) {
      if (strcmp(v, "f64") && strcmp(v, "f32")) return usage_error("--type is f64 or f32", v);
      o->type = strcmp(v, "f64") == 0 ? ZS_F64 : ZS_F32;
    } else if (strcmp(a, "--ops") == 0) {
      o->op_n = strcmp(v, "N") == 0 || strcmp(v, "N,P") == 0 || strcmp(v, "P,N") == 0;
      o->op_p = strcmp(v, "P") == 0 || strcmp(v, "N,P") == 0 || strcmp(v, "P,N") == 0;
      if (!o->op_n && !o->op_p) return usage_error("--ops is N, P or N,P", v);
    } else if (strcmp(a, "--case") == 0) {
      o->case_name = v;
    } else if (strcmp(a, "--csv") == 0) {
      o->csv = v;
    } else if (strcmp(a, "--reps") == 0) {
      if (parse_int(v, 1, 100000, &o->reps)) return usage_error("--reps is 1..100000", v);
    } else if (strcmp(a, "--jobs") == 0) {
      if (parse_int(v, 1, 256, &o->jobs)) return usage_error("--jobs is 1..256", v);
    } else if (strcmp(a, "--warmup") == 0) {
      if (parse_int(v, 0, 100000, &o->warmup)) return usage_error("--warmup is 0..100000", v);
    } else if (strcmp(a, "--sample-ms") == 0) {
      char *end;
      o->sample_ms = strtod(v, &end);
      if (*end || !(o->sample_ms >= 0 && o->sample_ms <= 1e4))
        return usage_error("--sample-ms is 0..10000", v);
    } else if (strcmp(a, "--seed") == 0) {
      char *end;
      o->seed = strtoull(v, &end, 10);
      if (*v == '\0' || *end) return usage_error("--seed is a decimal integer", v);
    } else {
      return usage_error("unknown option", a);
    }
  }
  if (!o->source) return usage_error("no SOURCE", NULL);
  if (!o->case_name) o->case_name = o->source;
  return 0;
}

/* ---- candidates ------------------------------------------------------------------------------ */

typedef struct candidate {
  char spec[SPEC_MAX];    /* as written */
  char encoder[SPEC_MAX]; /* FORMAT[:ENCODER_OPTIONS] */
  char fmt[32];
  const char *enc_opts; /* inside encoder, or NULL */
  const char *op_opts;  /* inside spec, or NULL */
  int transpose_only;   /* op options name transpose: pair only */
} candidate;

/* Whether `backends` (all, cpu, gpu or a name) includes backend b. */
static int backend_matches(const char *backends, const char *b) {
  if (strcmp(backends, "all") == 0 || strcmp(backends, b) == 0) return 1;
  return strcmp(backends, "gpu") == 0 && (strcmp(b, "cuda") == 0 || strcmp(b, "hip") == 0);
}

/* Splits spec into its parts; -1 (message printed, naming where) when it is malformed. */
static int candidate_init(candidate *c, const char *spec, const char *where) {
  if (strlen(spec) >= SPEC_MAX) {
    fprintf(stderr, "zs-bench-auto: %s: candidate longer than %d bytes\n", where, SPEC_MAX - 1);
    return -1;
  }
  memset(c, 0, sizeof *c);
  strcpy(c->spec, spec);
  strcpy(c->encoder, spec);
  char *at = strchr(c->encoder, '@');
  if (at) {
    *at = '\0';
    c->op_opts = c->spec + (at - c->encoder) + 1;
    c->transpose_only = strstr(c->op_opts, "transpose=") != NULL;
  }
  const size_t n = strcspn(c->encoder, ":");
  zs_format f;
  if (n == 0 || n >= sizeof c->fmt) {
    fprintf(stderr, "zs-bench-auto: %s: no format name in candidate '%s'\n", where, spec);
    return -1;
  }
  memcpy(c->fmt, c->encoder, n);
  if (zs_format_from_name(c->fmt, &f) != ZS_OK) {
    fprintf(stderr, "zs-bench-auto: %s: unknown format '%s' in candidate '%s'\n", where, c->fmt,
            spec);
    return -1;
  }
  if (c->encoder[n] == ':') c->enc_opts = c->encoder + n + 1;
  return 0;
}

/* Reads the candidate file's lines for backend b into cs; returns the count, -1 on error. */
static int read_candidates(const char *path, const char *b, candidate *cs, int n) {
  FILE *f = fopen(path, "r");
  if (!f) {
    fprintf(stderr, "zs-bench-auto: cannot open candidate file %s\n", path);
    return -1;
  }
  char line[1024], where[1100];
  int lineno = 0;
  while (fgets(line, sizeof line, f)) {
    lineno++;
    line[strcspn(line, "#\r\n")] = '\0';
    char backends[64], spec[SPEC_MAX + 1], tail[2];
    const int k = sscanf(line, "%63s %256s %1s", backends, spec, tail);
    if (k <= 0) continue;
    snprintf(where, sizeof where, "%s:%d", path, lineno);
    if (k != 2) {
      fprintf(stderr, "zs-bench-auto: %s: expected `BACKENDS SPEC`\n", where);
      fclose(f);
      return -1;
    }
    if (!backend_matches(backends, b)) continue;
    if (n == MAX_CANDIDATES) {
      fprintf(stderr, "zs-bench-auto: %s: more than %d candidates\n", where, MAX_CANDIDATES);
      fclose(f);
      return -1;
    }
    if (candidate_init(&cs[n], spec, where)) {
      fclose(f);
      return -1;
    }
    n++;
  }
  fclose(f);
  return n;
}

/* ---- the host reference ------------------------------------------------------------------- */

typedef struct reference {
  double *y, *ymag; /* A x and sum |a x| per row */
  double *z, *zmag; /* Aᵀ w and sum |a w| per column */
  int64_t len_max;  /* the longest row or column */
} reference;

static int reference_init(reference *r, const zs_matrix *A, const double *x, const double *w) {
  const int64_t *rp;
  const int32_t *ci;
  const void *vals;
  zs_matrix_csr(A, &rp, &ci, &vals);
  const int64_t rows = zs_matrix_rows(A), cols = zs_matrix_cols(A);
  const int f64 = zs_matrix_type(A) == ZS_F64;
  long double *acc = calloc((size_t)(cols ? cols : 1), sizeof *acc);
  int64_t *col_len = calloc((size_t)(cols ? cols : 1), sizeof *col_len);
  r->y = malloc((size_t)(rows ? rows : 1) * sizeof *r->y);
  r->ymag = malloc((size_t)(rows ? rows : 1) * sizeof *r->ymag);
  r->z = calloc((size_t)(cols ? cols : 1), sizeof *r->z);
  r->zmag = calloc((size_t)(cols ? cols : 1), sizeof *r->zmag);
  if (!acc || !col_len || !r->y || !r->ymag || !r->z || !r->zmag) {
    free(acc);
    free(col_len);
    return -1;
  }
  r->len_max = 0;
  for (int64_t i = 0; i < rows; i++) {
    long double s = 0, m = 0;
    for (int64_t p = rp[i]; p < rp[i + 1]; p++) {
      const double a = f64 ? ((const double *)vals)[p] : (double)((const float *)vals)[p];
      s += (long double)a * x[ci[p]];
      m += fabsl((long double)a * x[ci[p]]);
      acc[ci[p]] += (long double)a * w[i];
      r->zmag[ci[p]] += fabs(a * w[i]);
      col_len[ci[p]]++;
    }
    r->y[i] = (double)s, r->ymag[i] = (double)m;
    if (rp[i + 1] - rp[i] > r->len_max) r->len_max = rp[i + 1] - rp[i];
  }
  for (int64_t j = 0; j < cols; j++) {
    r->z[j] = (double)acc[j];
    if (col_len[j] > r->len_max) r->len_max = col_len[j];
  }
  free(acc);
  free(col_len);
  return 0;
}

static void reference_free(reference *r) { free(r->y), free(r->ymag), free(r->z), free(r->zmag); }

/* The largest error of got[0..n) against ref relative to mag (NaN and Inf count as infinite). */
static double max_rel_err(const double *got, const double *ref, const double *mag, int64_t n) {
  double worst = 0;
  for (int64_t i = 0; i < n; i++) {
    const double e = fabs(got[i] - ref[i]) / (mag[i] + 1e-300);
    if (!(e <= worst)) worst = isfinite(e) ? e : INFINITY;
  }
  return worst;
}

/* ---- slots: one (candidate, op) each, prepared and checked, then timed in rounds ------------ */

typedef struct slot {
  char name[SPEC_MAX];
  const char *library; /* zsparse, librsb */
  int pair;
  int (*call)(struct slot *s); /* one product (or pair), queued; 0 ok */
  int (*sync)(struct slot *s); /* wait for queued work; 0 ok */
  /* zsparse */
  zs_operator *op;
  zs_vector *x, *y, *w, *z;
  /* librsb (void: the header is optional) */
  void *rsb, *hx, *hy, *hw, *hz;
  zs_type type;
  /* results */
  double encode_s, max_err, *t;
  uint64_t bytes;
  int batch, ok, live; /* live: checked (or failed only its check) and to be timed */
  const char *status;  /* ok, check, unsupported, error */
  char message[512];
} slot;

typedef struct problem {
  const options *o;
  zs_context *ctx;
  const char *backend;
  const zs_matrix *A;
  int64_t rows, cols;
  double *x, *w; /* f64 values already rounded to the type */
  reference ref;
  double tol;
} problem;

static void fail(slot *s, const char *status, const char *what) {
  s->status = status, s->ok = 0, s->live = 0;
  snprintf(s->message, sizeof s->message, "%s: %s", what, zs_last_error());
}

static int zs_call(slot *s) {
  const zs_status st = s->pair ? zs_spmv_pair(s->op, 1.0, s->x, 0.0, s->y, 1.0, s->w, 0.0, s->z)
                               : zs_spmv(s->op, ZS_OP_N, 1.0, s->x, 0.0, s->y);
  return st != ZS_OK;
}

static int zs_sync(slot *s) { return zs_operator_sync(s->op) != ZS_OK; }

/* Host copy of a f64 array in type t (a new buffer); NaNs when v is NULL. */
static void *typed_copy(const double *v, int64_t n, zs_type t) {
  void *out = malloc((size_t)(n ? n : 1) * zs_type_size(t));
  if (out)
    for (int64_t i = 0; i < n; i++) {
      const double e = v ? v[i] : NAN;
      if (t == ZS_F64)
        ((double *)out)[i] = e;
      else
        ((float *)out)[i] = (float)e;
    }
  return out;
}

/* n elements of type t at host as f64 into out. */
static void to_f64(const void *host, zs_type t, int64_t n, double *out) {
  for (int64_t i = 0; i < n; i++)
    out[i] = t == ZS_F64 ? ((const double *)host)[i] : (double)((const float *)host)[i];
}

/* The slot's outputs (y, and z for the pair) against the reference: max_err, status. */
static void check(const problem *p, slot *s, const void *y, const void *z) {
  const int64_t n = p->rows > p->cols ? p->rows : p->cols;
  double *got = malloc((size_t)(n ? n : 1) * sizeof *got);
  if (!got) {
    fail(s, "error", "check");
    return;
  }
  to_f64(y, s->type, p->rows, got);
  s->max_err = max_rel_err(got, p->ref.y, p->ref.ymag, p->rows);
  if (s->pair) {
    to_f64(z, s->type, p->cols, got);
    const double ez = max_rel_err(got, p->ref.z, p->ref.zmag, p->cols);
    if (!(ez <= s->max_err)) s->max_err = ez;
  }
  free(got);
  if (!(s->max_err <= p->tol)) {
    s->status = "check", s->ok = 0;
    snprintf(s->message, sizeof s->message, "max_rel_err %.3g over tolerance %.3g", s->max_err,
             p->tol);
  }
}

/* Operator and vectors of candidate c on E, one product over NaN outputs, checked. */
static void prepare_zsparse(const problem *p, const zs_encoded *E, const candidate *c, slot *s) {
  const zs_type t = p->o->type;
  s->call = zs_call, s->sync = zs_sync, s->library = "zsparse", s->bytes = zs_encoded_bytes(E);
  zs_status st = zs_operator_create(&s->op, p->ctx, E, p->backend, c->op_opts);
  if (st != ZS_OK) {
    /* a format without kernels here is no failure of the run; a refused option is (the
     * candidate file names the backends each option is for) */
    fail(s, st == ZS_ERR_UNSUPPORTED ? "unsupported" : "error", "zs_operator_create");
    return;
  }
  void *hx = typed_copy(p->x, p->cols, t), *hw = typed_copy(p->w, p->rows, t);
  void *hy = typed_copy(NULL, p->rows, t), *hz = typed_copy(NULL, p->cols, t);
  if (!hx || !hw || !hy || !hz || zs_vector_create(&s->x, p->ctx, p->backend, t, p->cols) ||
      zs_vector_create(&s->y, p->ctx, p->backend, t, p->rows) ||
      (s->pair && (zs_vector_create(&s->w, p->ctx, p->backend, t, p->rows) ||
                   zs_vector_create(&s->z, p->ctx, p->backend, t, p->cols))) ||
      zs_vector_upload(s->x, hx) || zs_vector_upload(s->y, hy) ||
      (s->pair && (zs_vector_upload(s->w, hw) || zs_vector_upload(s->z, hz)))) {
    fail(s, "error", "vectors");
  } else if (zs_call(s) || zs_sync(s)) {
    fail(s, "error", s->pair ? "zs_spmv_pair" : "zs_spmv");
  } else if (zs_vector_download(s->y, hy) || (s->pair && zs_vector_download(s->z, hz))) {
    fail(s, "error", "zs_vector_download");
  } else {
    check(p, s, hy, hz);
  }
  free(hx), free(hw), free(hy), free(hz);
}

static void release(slot *s) {
  zs_vector_destroy(&s->x), zs_vector_destroy(&s->y), zs_vector_destroy(&s->w);
  zs_vector_destroy(&s->z), zs_operator_destroy(&s->op);
#ifdef ZS_BENCH_HAVE_RSB
  if (s->rsb) rsb_mtx_free(s->rsb);
#endif
  s->rsb = NULL;
  free(s->hx), free(s->hy), free(s->hw), free(s->hz), free(s->t);
  s->hx = s->hy = s->hw = s->hz = NULL, s->t = NULL;
}

/* ---- librsb, the cpu peer ------------------------------------------------------------------- */

#ifdef ZS_BENCH_HAVE_RSB
static int rsb_call(slot *s) {
  const double a64 = 1, b64 = 0;
  const float a32 = 1, b32 = 0;
  const void *al = s->type == ZS_F64 ? (const void *)&a64 : (const void *)&a32;
  const void *be = s->type == ZS_F64 ? (const void *)&b64 : (const void *)&b32;
  if (rsb_spmv(RSB_TRANSPOSITION_N, al, s->rsb, s->hx, 1, be, s->hy, 1) != RSB_ERR_NO_ERROR)
    return 1;
  return s->pair && rsb_spmv(RSB_TRANSPOSITION_T, al, s->rsb, s->hw, 1, be, s->hz, 1);
}

static int rsb_sync(slot *s) {
  (void)s; /* librsb returns when the product is done */
  return 0;
}

/* librsb assembled from A's CSR (32-bit indices: its default build), checked like a candidate. */
static void prepare_rsb(const problem *p, slot *s) {
  const int64_t *rp;
  const int32_t *ci;
  const void *vals;
  zs_matrix_csr(p->A, &rp, &ci, &vals);
  const zs_type t = p->o->type;
  const int64_t nnz = zs_matrix_nnz(p->A);
  s->call = rsb_call, s->sync = rsb_sync, s->library = "librsb";
  snprintf(s->name, sizeof s->name, "%s", s->pair ? "librsb N + T" : "librsb");
  s->bytes = (uint64_t)nnz * (4 + zs_type_size(t)) + (uint64_t)(p->rows + 1) * 4;
  if (nnz > INT32_MAX || p->rows >= INT32_MAX) {
    s->status = "unsupported", s->ok = 0, s->live = 0;
    snprintf(s->message, sizeof s->message, "librsb: nnz or rows over its 32-bit indices");
    return;
  }
  rsb_coo_idx_t *rp32 = malloc((size_t)(p->rows + 1) * sizeof *rp32);
  s->hx = typed_copy(p->x, p->cols, t), s->hw = typed_copy(p->w, p->rows, t);
  s->hy = typed_copy(NULL, p->rows, t), s->hz = typed_copy(NULL, p->cols, t);
  if (!rp32 || !s->hx || !s->hw || !s->hy || !s->hz) {
    free(rp32);
    fail(s, "error", "librsb: out of host memory");
    return;
  }
  for (int64_t i = 0; i <= p->rows; i++) rp32[i] = (rsb_coo_idx_t)rp[i];
  rsb_err_t err = RSB_ERR_NO_ERROR;
  const double t0 = now_s();
  s->rsb = rsb_mtx_alloc_from_csr_const(
      vals, rp32, ci, (rsb_nnz_idx_t)nnz,
      t == ZS_F64 ? RSB_NUMERICAL_TYPE_DOUBLE : RSB_NUMERICAL_TYPE_FLOAT, (rsb_coo_idx_t)p->rows,
      (rsb_coo_idx_t)p->cols, 1, 1, RSB_FLAG_DEFAULT_RSB_MATRIX_FLAGS, &err);
  s->encode_s = now_s() - t0;
  free(rp32);
  if (!s->rsb || err != RSB_ERR_NO_ERROR || rsb_call(s)) {
    s->status = "error", s->ok = 0, s->live = 0;
    snprintf(s->message, sizeof s->message, "librsb: assembly or product failed");
    return;
  }
  check(p, s, s->hy, s->hz);
}
#endif

/* ---- timing ---------------------------------------------------------------------------------- */

/* Warm-up calls, then the batch: back-to-back calls in one sample, doubled until a sample lasts
 * at least sample_ms, so that launch latency is paid once per sample. Measured on batches, not
 * on one call, so that one lucky (or unlucky) call on a busy machine does not set it. */
static int calibrate(slot *s, const options *o) {
  for (int i = 0; i < o->warmup; i++)
    if (s->call(s) || s->sync(s)) return -1;
  for (s->batch = 1;; s->batch *= 2) {
    const double t0 = now_s();
    for (int k = 0; k < s->batch; k++)
      if (s->call(s)) return -1;
    if (s->sync(s)) return -1;
    if (1e3 * (now_s() - t0) >= o->sample_ms || s->batch >= 8192) break;
  }
  s->t = malloc((size_t)o->reps * sizeof *s->t);
  return s->t ? 0 : -1;
}

/* One sample: seconds per call, or -1. A sample of several calls starts with one untimed: the
 * slot timed before this one left the caches holding its data (on a GPU, dirty L2 lines to write
 * back), which this slot's first call would otherwise pay for; a call long enough to fill a
 * sample alone pays little of it, and is not run twice. */
static double sample(slot *s) {
  if (s->batch > 1 && (s->call(s) || s->sync(s))) return -1;
  const double t0 = now_s();
  for (int k = 0; k < s->batch; k++)
    if (s->call(s)) return -1;
  if (s->sync(s)) return -1;
  return (now_s() - t0) / s->batch;
}

/* Every live slot timed in reps rounds, one sample each per round, so that a busy spell of the
 * machine (or drift of the GPU's clocks) falls on all candidates alike, not on a few. Round r
 * starts at slot r mod n, so that no slot always follows the same one. */
static void time_rounds(slot *ss, int n, const options *o) {
  for (int i = 0; i < n; i++)
    if (ss[i].live && calibrate(&ss[i], o)) fail(&ss[i], "error", "warm-up");
  for (int r = 0; r < o->reps; r++)
    for (int k = 0; k < n; k++) {
      slot *s = &ss[(r + k) % n];
      if (s->live && (s->t[r] = sample(s)) < 0) fail(s, "error", "timed product");
    }
}

/* ---- output --------------------------------------------------------------------------------- */

/* s as one CSV field: quoted, inner quotes doubled, when it holds a comma, quote or newline. */
static void put_field(FILE *f, const char *s) {
  if (!strpbrk(s, ",\"\r\n")) {
    fputs(s, f);
    return;
  }
  fputc('"', f);
  for (; *s; s++) {
    if (*s == '"') fputc('"', f);
    fputc(*s == '\n' || *s == '\r' ? ' ' : *s, f);
  }
  fputc('"', f);
}

/* One CSV line (when csv is open) and one line on stderr; the median is taken here. */
static void report(FILE *csv, const problem *p, slot *s) {
  const int timed = s->t && (s->live || strcmp(s->status, "check") == 0);
  const double us = timed ? 1e6 * median_sort(s->t, p->o->reps) : -1;
  fprintf(stderr, "  %s %-46s %12.2f us  %s%s%s\n", s->pair ? "P" : "N", s->name, us, s->status,
          s->message[0] ? ": " : "", s->message);
  if (!csv) return;
  put_field(csv, p->o->case_name), fputc(',', csv), put_field(csv, p->o->source);
  fprintf(csv, ",%s,%s,%s,%" PRId64 ",%" PRId64 ",%" PRId64 ",%s,", p->backend,
          zs_type_name(p->o->type), s->pair ? "P" : "N", p->rows, p->cols, zs_matrix_nnz(p->A),
          s->library);
  put_field(csv, s->name);
  fprintf(csv, ",%" PRIu64 ",%.4f,", s->bytes, s->encode_s);
  if (us >= 0)
    fprintf(csv, "%.3f,%d,%d,", us, s->batch, p->o->reps);
  else
    fputs(",,,", csv);
  fprintf(csv, "%d,", s->ok);
  if (s->max_err >= 0) fprintf(csv, "%.3g", s->max_err);
  fprintf(csv, ",%s,", s->status);
  put_field(csv, s->message);
  fputc('\n', csv);
  fflush(csv);
}

/* ---- main ------------------------------------------------------------------------------------ */

static int load(const options *o, zs_matrix **A) {
  const zs_status s = strncmp(o->source, "gen:", 4) == 0
                          ? zs_matrix_generate(A, o->source + 4, o->type, 0)
                          : zs_matrix_read(A, o->source, o->type, 0, NULL, 0);
  if (s != ZS_OK)
    fprintf(stderr, "zs-bench-auto: %s: %s: %s\n", o->source, zs_status_name(s), zs_last_error());
  return s != ZS_OK;
}

static slot *new_slot(slot *ss, int *n, const char *name, int pair, zs_type t) {
  slot *s = &ss[(*n)++];
  memset(s, 0, sizeof *s);
  const size_t len = strnlen(name, sizeof s->name - 1); /* specs are shorter (SPEC_MAX) */
  memcpy(s->name, name, len);
  s->name[len] = '\0';
  s->pair = pair, s->type = t, s->ok = 1, s->live = 1, s->status = "ok", s->max_err = -1;
  return s;
}

/* One encoder setting, encoded on a host thread: the blob, its status, seconds and the message
 * of a failure (zs_last_error belongs to the thread that failed). */
typedef struct encoding {
  const problem *p;
  const candidate *c;
  zs_encoded *E;
  zs_status status;
  double seconds;
  char message[256];
} encoding;

static void encode_one(encoding *e) {
  zs_format f;
  zs_format_from_name(e->c->fmt, &f);
  const double t0 = now_s();
  e->status = zs_encode(&e->E, e->p->A, f, e->c->enc_opts);
  e->seconds = now_s() - t0;
  if (e->status != ZS_OK) snprintf(e->message, sizeof e->message, "%s", zs_last_error());
}

typedef struct encode_work {
  encoding *e;
  int n, stride, first;
} encode_work;

static void *encode_thread(void *arg) {
  const encode_work *w = arg;
  for (int i = w->first; i < w->n; i += w->stride) encode_one(&w->e[i]);
  return NULL;
}

/* Every setting of e[0..n) encoded, on up to `jobs` threads (the calling one among them). */
static void encode_all(encoding *e, int n, int jobs) {
  pthread_t tid[256];
  encode_work w[256];
  const int k = jobs < n ? jobs : n > 0 ? n : 1;
  int started = 1; /* threads 1 .. started-1 run; the calling one is 0 */
  for (int t = 1; t < k; t++, started++) {
    w[t] = (encode_work){e, n, k, t};
    if (pthread_create(&tid[t], NULL, encode_thread, &w[t]) != 0) break;
  }
  /* the calling thread takes its own share and that of every thread that did not start */
  for (int t = 0; t < k; t++) {
    if (t != 0 && t < started) continue;
    w[0] = (encode_work){e, n, k, t};
    encode_thread(&w[0]);
  }
  for (int t = 1; t < started; t++) pthread_join(tid[t], NULL);
}

/* The slots of every candidate of encoding e (an encoder setting): an operator per (candidate,
 * op) on its one blob. */
static void prepare_encoder(const problem *p, const candidate *cs, int nc, const encoding *e,
                            slot *ss, int *n) {
  const int first = (int)(e->c - cs);
  for (int pair = 0; pair <= 1; pair++) {
    if (!(pair ? p->o->op_p : p->o->op_n)) continue;
    for (int i = first; i < nc; i++) {
      if (strcmp(cs[i].encoder, cs[first].encoder) != 0 || (!pair && cs[i].transpose_only))
        continue;
      slot *s = new_slot(ss, n, cs[i].spec, pair, p->o->type);
      s->encode_s = e->seconds, s->library = "zsparse";
      if (e->status != ZS_OK) {
        s->status = e->status == ZS_ERR_UNSUPPORTED ? "unsupported" : "error";
        s->ok = 0, s->live = 0;
        snprintf(s->message, sizeof s->message, "zs_encode: %s", e->message);
      } else {
        prepare_zsparse(p, e->E, &cs[i], s);
      }
    }
  }
}

int main(int argc, char **argv) {
  options o;
  const int pa = parse_args(argc, argv, &o);
  if (pa) return pa == 1 ? 0 : 2;
#ifndef ZS_BENCH_HAVE_RSB
  if (o.rsb) fprintf(stderr, "zs-bench-auto: --rsb: librsb not built in; not timed\n");
#endif
  static candidate cs[MAX_CANDIDATES];
  static slot ss[2 * MAX_CANDIDATES + 2];
  problem p = {.o = &o};
  zs_matrix *A = NULL;
  int nc = 0, ns = 0, failures = 0, rc = 1;
  FILE *csv = NULL;
  if (zs_context_create(&p.ctx) != ZS_OK) {
    fprintf(stderr, "zs-bench-auto: zs_context_create: %s\n", zs_last_error());
    return 1;
  }
  p.backend = o.backend ? o.backend : zs_context_default_backend(p.ctx);
  if (o.candidates && (nc = read_candidates(o.candidates, p.backend, cs, 0)) < 0) goto out;
  for (int i = 0; i < o.n_extra; i++) {
    if (nc == MAX_CANDIDATES || candidate_init(&cs[nc], o.extra[i], "--candidate")) goto out;
    nc++;
  }
  const double t_load = now_s();
  if (load(&o, &A)) goto out;
  if (o.load_only) {
    printf("load_s %.4f\nnnz %" PRId64 "\n", now_s() - t_load, zs_matrix_nnz(A));
    rc = 0;
    goto out;
  }
  p.A = A, p.rows = zs_matrix_rows(A), p.cols = zs_matrix_cols(A);
  p.x = malloc((size_t)(p.cols ? p.cols : 1) * sizeof *p.x);
  p.w = malloc((size_t)(p.rows ? p.rows : 1) * sizeof *p.w);
  if (!p.x || !p.w) goto out;
  uint64_t seed = o.seed;
  /* x and w hold values of the type, so the reference multiplies what the kernels read */
  for (int64_t i = 0; i < p.cols; i++) p.x[i] = (float)next_uniform(&seed);
  for (int64_t i = 0; i < p.rows; i++) p.w[i] = (float)next_uniform(&seed);
  if (reference_init(&p.ref, A, p.x, p.w)) goto out;
  const double eps = o.type == ZS_F64 ? 0x1p-52 : 0x1p-23;
  p.tol = 16 * eps * (double)(p.ref.len_max + 2 < 1024 ? p.ref.len_max + 2 : 1024);
  if (o.csv) {
    csv = fopen(o.csv, "a");
    if (!csv) {
      fprintf(stderr, "zs-bench-auto: cannot append to %s\n", o.csv);
      goto out;
    }
    if (ftell(csv) == 0)
      fputs(
          "case,source,backend,type,op,rows,cols,nnz,library,candidate,bytes,encode_s,time_us,"
          "batch,reps,ok,max_rel_err,status,message\n",
          csv);
  }
  fprintf(stderr, "%s: %s, %" PRId64 " x %" PRId64 ", %" PRId64 " nonzeros, %s on %s\n",
          o.case_name, o.source, p.rows, p.cols, zs_matrix_nnz(A), zs_type_name(o.type), p.backend);
  static encoding enc[MAX_CANDIDATES];
  int ne = 0;
  for (int i = 0; i < nc; i++) { /* each encoder setting once */
    int seen = 0;
    for (int j = 0; j < i && !seen; j++) seen = strcmp(cs[j].encoder, cs[i].encoder) == 0;
    if (!seen) enc[ne++] = (encoding){.p = &p, .c = &cs[i]};
  }
  encode_all(enc, ne, o.jobs);
  for (int i = 0; i < ne; i++) {
    prepare_encoder(&p, cs, nc, &enc[i], ss, &ns);
    zs_encoded_destroy(&enc[i].E); /* operators hold their own copies */
  }
#ifdef ZS_BENCH_HAVE_RSB
  const int rsb_ok =
      o.rsb && strcmp(p.backend, "cpu") == 0 && rsb_lib_init(RSB_NULL_INIT_OPTIONS) == 0;
  if (rsb_ok) {
    zs_topology topo;
    zs_context_topology(p.ctx, &topo);
    const rsb_int_t threads = topo.threads > 0 ? topo.threads : 1; /* as many as zsparse's */
    rsb_lib_set_opt(RSB_IO_WANT_EXECUTING_THREADS, &threads);
    for (int pair = 0; pair <= 1; pair++)
      if (pair ? o.op_p : o.op_n) prepare_rsb(&p, new_slot(ss, &ns, "librsb", pair, o.type));
  }
#endif
  time_rounds(ss, ns, &o);
  for (int i = 0; i < ns; i++) {
    report(csv, &p, &ss[i]);
    failures += strcmp(ss[i].status, "ok") != 0 && strcmp(ss[i].status, "unsupported") != 0;
    release(&ss[i]);
  }
#ifdef ZS_BENCH_HAVE_RSB
  if (rsb_ok) rsb_lib_exit(RSB_NULL_EXIT_OPTIONS);
#endif
  rc = failures ? 1 : 0;
out:
  if (csv) fclose(csv);
  reference_free(&p.ref);
  free(p.x), free(p.w);
  zs_matrix_destroy(&A);
  zs_context_destroy(&p.ctx);
  return rc;
}
