/* zs-bench-cpu.c — CPU SpMV/SpMVT benchmark: zsparse cpu formats vs librsb vs a read probe. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_clock.h"
#include "zsparse.h"

#ifdef _OPENMP
#include <omp.h>
#endif
#ifdef ZS_BENCH_HAVE_RSB
#include <rsb.h>
#endif

#define MAX_FORMATS 12
/* per type: at most 4 kernels a format (N, T, P and one more), librsb's 2 */
#define MAX_KERNELS (2 * (4 * MAX_FORMATS + 2))

static int max_threads(void) {
#ifdef _OPENMP
  return omp_get_max_threads();
#else
  return 1;
#endif
}

static double median(const double *v, int n) {
  double *s = malloc((size_t)n * sizeof *s);
  if (!s) return NAN;
  memcpy(s, v, (size_t)n * sizeof *s);
  qsort(s, (size_t)n, sizeof *s, cmp_double);
  const double m = n % 2 ? s[n / 2] : 0.5 * (s[n / 2 - 1] + s[n / 2]);
  free(s);
  return m;
}

/* s as one CSV field, RFC 4180: in double quotes with inner quotes doubled when it holds a comma,
 * a quote or a line break (kernel names such as "zsparse cpu csr, atomic T"), as it is otherwise.
 * Written into buf (cap bytes, at least 2 * strlen(s) + 3 to hold any s), which is returned. */
static const char *csv_field(char *buf, size_t cap, const char *s) {
  if (!strpbrk(s, ",\"\r\n")) {
    snprintf(buf, cap, "%s", s);
    return buf;
  }
  size_t o = 0;
  buf[o++] = '"';
  for (; *s && o + 3 < cap; s++) {
    if (*s == '"') buf[o++] = '"';
    buf[o++] = *s;
  }
  buf[o++] = '"';
  buf[o] = '\0';
  return buf;
}

/* ---- read-bandwidth probe: sum of one large f64 array ---------------------------------- */

typedef struct probe {
  double *a;
  int64_t n;
  volatile double sink; /* keeps the sums alive */
} probe;

/* First touch with the same static schedule the probe uses, so pages sit near their reader. */
static int probe_init(probe *p, int64_t bytes) {
  p->n = bytes / (int64_t)sizeof(double);
  p->a = aligned_alloc(64, (size_t)p->n * sizeof(double));
  if (!p->a) return -1;
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < p->n; i++) p->a[i] = 1.0 + (double)(i & 1023) * 1e-3;
  return 0;
}

/* The array is read as PROBE_STREAMS concurrent sequential streams (each thread walks its part of
 * every segment at once), a cache line of each per step. On this 2-vCPU guest one stream per core
 * reached only 4.6 GB/s (1 thread) / 8.6 GB/s (2) against 8.9 / 17.3 with 8 streams: a single
 * stream measures the prefetcher, not the memory, and a CSR kernel reads ~7 streams (row_ptr,
 * col_idx, values, 3 neighbourhoods of x, y). Returns seconds. */
#define PROBE_STREAMS 8
static double probe_run(probe *p, int threads) {
  const double *a = p->a;
  const int64_t seg = p->n / PROBE_STREAMS / 8 * 8;
  double total = 0.0;
  const double t0 = now_s();
#pragma omp parallel for schedule(static) num_threads(threads) reduction(+ : total)
  for (int64_t i = 0; i < seg; i += 8) {
    double s = 0.0;
    for (int k = 0; k < PROBE_STREAMS; k++) {
      const double *b = a + k * seg + i;
      s += ((b[0] + b[1]) + (b[2] + b[3])) + ((b[4] + b[5]) + (b[6] + b[7]));
    }
    total += s;
  }
  const double t = now_s() - t0;
  p->sink = total;
  (void)threads;
  return t;
}

/* ---- the matrix ---------------------------------------------------------------------------- */

/* A 5-point 2-D Laplacian on an n x n grid, used only when zs_matrix_generate cannot build the
 * requested matrix (the generator may be missing in older builds). */
static zs_status laplacian_5pt(zs_matrix **out, int64_t n) {
  const int64_t rows = n * n, nnz_max = 5 * rows;
  int64_t *rp = malloc((size_t)(rows + 1) * sizeof *rp);
  int32_t *ci = malloc((size_t)nnz_max * sizeof *ci);
  double *v = malloc((size_t)nnz_max * sizeof *v);
  zs_status st = ZS_ERR_OUT_OF_MEMORY;
  if (rp && ci && v) {
    int64_t k = 0;
    for (int64_t i = 0; i < n; i++) {
      for (int64_t j = 0; j < n; j++) {
        const int64_t r = i * n + j;
        rp[r] = k;
        if (i > 0) ci[k] = (int32_t)(r - n), v[k++] = -1.0;
        if (j > 0) ci[k] = (int32_t)(r - 1), v[k++] = -1.0;
        ci[k] = (int32_t)r, v[k++] = 4.0;
        if (j < n - 1) ci[k] = (int32_t)(r + 1), v[k++] = -1.0;
        if (i < n - 1) ci[k] = (int32_t)(r + n), v[k++] = -1.0;
      }
    }
    rp[rows] = k;
    st = zs_matrix_from_csr(out, rows, rows, rp, ci, v, ZS_F64, 0);
  }
  free(rp);
  free(ci);
  free(v);
  return st;
}

/* ---- kernels ------------------------------------------------------------------------------- */

typedef struct kernel {
  char name[64]; /* "zsparse cpu csr", "librsb" */
  zs_type type;
  zs_op op;
  int pair; /* zs_spmv_pair: y = A x (zx, zy) and z = Aᵀ w (zw, zz) in one call; op is N */
  int available;
  char why[256]; /* why not available */
  int (*run)(struct kernel *k);
  int (*result)(struct kernel *k, double *y); /* last output, as f64 */
  /* zsparse */
  zs_operator *zop;
  zs_vector *zx, *zy, *zw, *zz;
  /* librsb */
  void *rsb_mtx;
  void *hx, *hy; /* host vectors of the kernel's type */
  int64_t nx, ny;
  uint64_t bytes; /* the format's arrays (CSR's for librsb) */
  /* measurements */
  double *t, *t_probe;
  double max_err;
} kernel;

static int zs_kernel_run(kernel *k) {
  const zs_status s = k->pair ? zs_spmv_pair(k->zop, 1.0, k->zx, 0.0, k->zy, 1.0, k->zw, 0.0, k->zz)
                              : zs_spmv(k->zop, k->op, 1.0, k->zx, 0.0, k->zy);
  if (s != ZS_OK) return -1;
  return zs_operator_sync(k->zop) == ZS_OK ? 0 : -1;
}

static int to_f64(zs_type type, const void *src, int64_t n, double *dst) {
  for (int64_t i = 0; i < n; i++)
    dst[i] = type == ZS_F64 ? ((const double *)src)[i] : (double)((const float *)src)[i];
  return 0;
}

/* v's n elements as f64 */
static int zs_vector_result(const zs_vector *v, zs_type type, int64_t n, double *out) {
  void *tmp = malloc((size_t)(n ? n : 1) * zs_type_size(type));
  if (!tmp || zs_vector_download(v, tmp) != ZS_OK) {
    free(tmp);
    return -1;
  }
  to_f64(type, tmp, n, out);
  free(tmp);
  return 0;
}

static int zs_kernel_result(kernel *k, double *y) {
  return zs_vector_result(k->zy, k->type, k->ny, y);
}

#ifdef ZS_BENCH_HAVE_RSB
static int rsb_kernel_run(kernel *k) {
  const double a64 = 1.0, b64 = 0.0;
  const float a32 = 1.0f, b32 = 0.0f;
  const void *alpha = k->type == ZS_F64 ? (const void *)&a64 : (const void *)&a32;
  const void *beta = k->type == ZS_F64 ? (const void *)&b64 : (const void *)&b32;
  const rsb_trans_t tr = k->op == ZS_OP_N ? RSB_TRANSPOSITION_N : RSB_TRANSPOSITION_T;
  return rsb_spmv(tr, alpha, k->rsb_mtx, k->hx, 1, beta, k->hy, 1) == RSB_ERR_NO_ERROR ? 0 : -1;
}

static int rsb_kernel_result(kernel *k, double *y) { return to_f64(k->type, k->hy, k->ny, y); }
#endif

/* ---- reference products (independent of both libraries) ---------------------------------- */

/* y = op(A) x in f64 from A's own values (already rounded to the kernel's type), plus the
 * magnitude sum |a||x| per output element, which scales the tolerance. */
static void reference(const zs_matrix *A, zs_op op, const double *x, double *y, double *mag) {
  const int64_t *rp;
  const int32_t *ci;
  const void *vals;
  zs_matrix_csr(A, &rp, &ci, &vals);
  const zs_type t = zs_matrix_type(A);
  const int64_t rows = zs_matrix_rows(A), ny = op == ZS_OP_N ? rows : zs_matrix_cols(A);
  for (int64_t i = 0; i < ny; i++) y[i] = mag[i] = 0.0;
  for (int64_t i = 0; i < rows; i++) {
    for (int64_t p = rp[i]; p < rp[i + 1]; p++) {
      const double a = t == ZS_F64 ? ((const double *)vals)[p] : (double)((const float *)vals)[p];
      const int64_t out = op == ZS_OP_N ? i : ci[p], in = op == ZS_OP_N ? ci[p] : i;
      y[out] += a * x[in];
      mag[out] += fabs(a * x[in]);
    }
  }
}

/* ---- SpMV + SpMVT per operator (BiCG's two products) --------------------------------------- */

/* Median ms of the available kernel `name` of type t, op (pair: BiCG's pair), or -1. */
static double kernel_ms(const kernel *ks, int nk, int runs, const char *name, zs_type t, zs_op op,
                        int pair) {
  for (int i = 0; i < nk; i++)
    if (ks[i].available && ks[i].type == t && ks[i].pair == pair && (pair || ks[i].op == op) &&
        strcmp(ks[i].name, name) == 0)
      return 1e3 * median(ks[i].t, runs);
  return -1;
}

/* SpMV + SpMVT of the kernels `name` of type t (medians added), or -1 where either is missing. */
static double two_products_ms(const kernel *ks, int nk, int runs, const char *name, zs_type t) {
  const double n = kernel_ms(ks, nk, runs, name, t, ZS_OP_N, 0);
  const double tt = kernel_ms(ks, nk, runs, name, t, ZS_OP_T, 0);
  return n > 0 && tt > 0 ? n + tt : -1;
}

/* A median in ms, or an empty cell where it is missing. */
static const char *ms_cell(char *buf, size_t cap, double ms) {
  if (ms > 0)
    snprintf(buf, cap, "%.3f", ms);
  else
    snprintf(buf, cap, "-");
  return buf;
}

/* A ratio of two medians, or an empty cell where either is missing. */
static const char *ratio_cell(char *buf, size_t cap, double num, double den) {
  if (num > 0 && den > 0)
    snprintf(buf, cap, "%.2fx", num / den);
  else
    snprintf(buf, cap, "-");
  return buf;
}

/* For each zsparse operator with both products: SpMV + SpMVT (medians added), its pair in one
 * call, the pair of its transpose=atomic operator where there is one, and speed-ups of the
 * better of these over librsb's and our CSR's N + T of the same run (> 1: faster). */
static void print_two_products(const kernel *ks, int nk, int runs) {
  printf(
      "\nSpMV + SpMVT (the two medians added) and BiCG's pair (one call), against librsb's and "
      "our CSR's N + T of this run:\n\n");
  printf(
      "| operator | type | N + T ms | pair ms | pair ms, transpose=atomic | speed-up over "
      "librsb N + T | over csr N + T |\n");
  printf("|---|---|---:|---:|---:|---|---|\n");
  const zs_type types[2] = {ZS_F64, ZS_F32};
  for (int ti = 0; ti < 2; ti++) {
    const zs_type t = types[ti];
    const double rsb = two_products_ms(ks, nk, runs, "librsb", t);
    const double csr = two_products_ms(ks, nk, runs, "zsparse cpu csr", t);
    for (int i = 0; i < nk; i++) {
      const kernel *k = &ks[i];
      /* once per operator: at its SpMV row */
      if (k->type != t || k->pair || k->op != ZS_OP_N || strncmp(k->name, "zsparse ", 8) != 0)
        continue;
      const double both = two_products_ms(ks, nk, runs, k->name, t);
      if (both < 0) continue;
      const double pair = kernel_ms(ks, nk, runs, k->name, t, ZS_OP_N, 1);
      char atomic_name[sizeof k->name + 24], cells[6][32];
      snprintf(atomic_name, sizeof atomic_name, "%.63s, transpose=atomic", k->name);
      const double pair_atomic = kernel_ms(ks, nk, runs, atomic_name, t, ZS_OP_N, 1);
      double best = both;
      if (pair > 0 && pair < best) best = pair;
      if (pair_atomic > 0 && pair_atomic < best) best = pair_atomic;
      printf("| %s | %s | %.3f | %s | %s | %s (N + T), %s (best) | %s (N + T), %s (best) |\n",
             k->name + 8, zs_type_name(t), both, ms_cell(cells[0], sizeof cells[0], pair),
             ms_cell(cells[1], sizeof cells[1], pair_atomic),
             ratio_cell(cells[2], sizeof cells[2], rsb, both),
             ratio_cell(cells[3], sizeof cells[3], rsb, best),
             ratio_cell(cells[4], sizeof cells[4], csr, both),
             ratio_cell(cells[5], sizeof cells[5], csr, best));
    }
  }
}

/* The format of a --format argument NAME[:OPTIONS]; *colon: where its options start, or NULL. */
static zs_status format_of(const char *arg, zs_format *fmt, const char **colon) {
  char name[32];
  *colon = strchr(arg, ':');
  snprintf(name, sizeof name, "%.*s", *colon ? (int)(*colon - arg) : (int)strlen(arg), arg);
  return zs_format_from_name(name, fmt);
}

/* ---- encoding speed ------------------------------------------------------------------------ */

/* Seconds of CPU time the process has used: with one thread, what an encode cost its core, not
 * counting the time other tenants of a shared machine held it. */
static double cpu_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Encode A `runs` times (once when not timed), keeping the last blob in *E; when timed, one line:
 * the median, fastest and first time in M nonzeros/s, the median CPU time, with the blob's bytes per nonzero and, where
 * the blob has one, its stream version (what an encoder's automatic choice took). */
static zs_status timed_encodes(zs_encoded **E, const zs_matrix *A, zs_format fmt,
                               const char *options, const char *label, int runs, int timed) {
  double te[100], tc[100];
  zs_status s = ZS_OK;
  for (int r = 0; r < (timed ? runs : 1) && s == ZS_OK; r++) {
    zs_encoded_destroy(E);
    const double t = now_s(), c = cpu_s();
    s = zs_encode(E, A, fmt, options);
    te[r] = now_s() - t, tc[r] = cpu_s() - c;
  }
  if (s != ZS_OK || !timed) return s;
  const double nnz = (double)zs_matrix_nnz(A);
  int64_t version = 0;
  for (int i = 0; i < zs_encoded_param_count(*E); i++) {
    const char *name;
    int64_t value;
    if (zs_encoded_param_info(*E, i, &name, &value) == ZS_OK && !strcmp(name, "version"))
      version = value;
  }
  char tail[64] = "";
  if (version) snprintf(tail, sizeof tail, ", version %" PRId64, version);
  const double bpn = (double)zs_encoded_bytes(*E) / (nnz > 0 ? nnz : 1);
  if (runs == 1) {
    printf("encode %s %s: %.3f s, %.1f M nonzeros/s (%.3f B/nnz%s)\n", label,
           zs_type_name(zs_matrix_type(A)), te[0], nnz / te[0] * 1e-6, bpn, tail);
    return s;
  }
  double fastest = te[0];
  for (int r = 1; r < runs; r++) fastest = te[r] < fastest ? te[r] : fastest;
  const double med = median(te, runs);
  const double cpu = median(tc, runs);
  printf(
      "encode %s %s: median of %d %.3f s, %.1f M nonzeros/s (fastest %.3f s, %.1f; first "
      "%.3f s, %.1f; cpu %.3f s, %.1f; %.3f B/nnz%s)\n",
      label, zs_type_name(zs_matrix_type(A)), runs, med, nnz / med * 1e-6, fastest,
      nnz / fastest * 1e-6, te[0], nnz / te[0] * 1e-6, cpu, nnz / cpu * 1e-6, bpn, tail);
  return s;
}

/* ---- main ---------------------------------------------------------------------------------- */

static void usage(FILE *f) {
  fprintf(f,
          "usage: zs-bench-cpu [--matrix SPEC] [--runs N] [--warmup N] [--probe-mib M] "
          "[--csv FILE] [--encode-runs N] [--encode-only] [--format NAME[:OPTIONS]]...\n"
          "  --matrix SPEC   zs_matrix_generate spec (default stencil2d:n=2048,points=5);\n"
          "                  falls back to a built-in 5-point Laplacian for stencil2d specs\n"
          "  --runs N        timed runs per kernel, medians reported (default 20, at least 10)\n"
          "  --warmup N      untimed runs per kernel first (default 3)\n"
          "  --probe-mib M   read-probe array size in MiB (default 512: several times any L3)\n"
          "  --csv FILE      also write the CSV table to FILE\n"
          "  --encode-runs N encode each format (but csr) N times and print the median, the\n"
          "                  fastest and the first time, in M nonzeros/s, with the blob's\n"
          "                  bytes per nonzero and stream version (default 1)\n"
          "  --encode-only   time the encoders alone (f64, then f32), no kernels; with\n"
          "                  ZS_NUM_THREADS=1 under taskset, one core's rate\n"
          "                  (bench/encode-rate.sh runs the generated suite so)\n"
          "  --format F      a zsparse format to time on the cpu backend, with encoder options\n"
          "                  after a colon (repeatable; default csr). csr also runs its\n"
          "                  transpose=atomic SpMVT. Each default operator also runs BiCG's\n"
          "                  pair (op P: zs_spmv_pair, y = A x and z = A^T w, both checked);\n"
          "                  csb and gcsb also run it with transpose=atomic (one sweep)\n"
          "After the kernels, a table gives each operator's SpMV + SpMVT (medians added) and\n"
          "pairs, with speed-ups over librsb's and our CSR's N + T of the same run.\n"
          "Threads: OMP_NUM_THREADS (probe, librsb) and ZS_NUM_THREADS (zsparse; set to the same\n"
          "value when unset). Pin with OMP_PROC_BIND=close OMP_PLACES=cores.\n");
}

int main(int argc, char **argv) {
  const char *spec = "stencil2d:n=2048,points=5", *csv_path = NULL;
  int runs = 20, warmup = 3, encode_runs = 1, encode_only = 0;
  int64_t probe_mib = 512;
  const char *format_args[MAX_FORMATS];
  int n_formats = 0;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      usage(stdout);
      return 0;
    } else if (!strcmp(a, "--matrix") && v) {
      spec = v, i++;
    } else if (!strcmp(a, "--runs") && v) {
      runs = atoi(v), i++;
    } else if (!strcmp(a, "--warmup") && v) {
      warmup = atoi(v), i++;
    } else if (!strcmp(a, "--probe-mib") && v) {
      probe_mib = atoll(v), i++;
    } else if (!strcmp(a, "--encode-only")) {
      encode_only = 1;
    } else if (!strcmp(a, "--encode-runs") && v) {
      encode_runs = atoi(v), i++;
    } else if (!strcmp(a, "--csv") && v) {
      csv_path = v, i++;
    } else if (!strcmp(a, "--format") && v && n_formats < MAX_FORMATS) {
      format_args[n_formats++] = v, i++;
    } else {
      fprintf(stderr, "zs-bench-cpu: bad argument '%s'\n", a);
      usage(stderr);
      return 2;
    }
  }
  if (n_formats == 0) format_args[n_formats++] = "csr";
  if (runs < 10 || warmup < 0 || probe_mib < 1 || encode_runs < 1 || encode_runs > 100) {
    fprintf(stderr,
            "zs-bench-cpu: need --runs >= 10, --warmup >= 0, --probe-mib >= 1, "
            "--encode-runs 1 to 100\n");
    return 2;
  }

  const int nthreads = max_threads();
  char nt_str[16];
  snprintf(nt_str, sizeof nt_str, "%d", nthreads);
  setenv("ZS_NUM_THREADS", nt_str, 0); /* an explicit ZS_NUM_THREADS wins */
  if (!getenv("OMP_PROC_BIND") || !getenv("OMP_PLACES"))
    fprintf(stderr,
            "zs-bench-cpu: note: OMP_PROC_BIND/OMP_PLACES unset; the reference numbers "
            "use OMP_PROC_BIND=close OMP_PLACES=cores\n");

  /* Matrix: the generator, or the built-in Laplacian for a stencil2d spec it cannot build. */
  zs_matrix *A64 = NULL, *A32 = NULL;
  const char *source = "zs_matrix_generate";
  double t0 = now_s();
  if (zs_matrix_generate(&A64, spec, ZS_F64, 1) != ZS_OK) {
    const char *gen_err = zs_last_error();
    long n = 0;
    if (sscanf(spec, "stencil2d:n=%ld,points=5", &n) == 1 && n > 1 && n <= 40000) {
      fprintf(stderr, "zs-bench-cpu: generator failed (%s); using the built-in 5-point Laplacian\n",
              gen_err);
      source = "built-in 5-point Laplacian";
      if (laplacian_5pt(&A64, n) != ZS_OK) {
        fprintf(stderr, "zs-bench-cpu: %s\n", zs_last_error());
        return 1;
      }
    } else {
      fprintf(stderr, "zs-bench-cpu: cannot generate '%s': %s\n", spec, gen_err);
      return 1;
    }
  }
  if (zs_matrix_convert(&A32, A64, ZS_F32) != ZS_OK) {
    fprintf(stderr, "zs-bench-cpu: f32 conversion: %s\n", zs_last_error());
    return 1;
  }
  const double t_matrix = now_s() - t0;
  const int64_t rows = zs_matrix_rows(A64), cols = zs_matrix_cols(A64), nnz = zs_matrix_nnz(A64);
  if (encode_only) {
    printf("matrix %s: %" PRId64 " x %" PRId64 ", %" PRId64 " nonzeros; threads %s\n", spec, rows,
           cols, nnz, getenv("ZS_NUM_THREADS"));
    for (int ti = 0; ti < 2; ti++)
      for (int fi = 0; fi < n_formats; fi++) {
        const char *colon;
        zs_format fmt;
        zs_encoded *E = NULL;
        if (format_of(format_args[fi], &fmt, &colon) != ZS_OK ||
            timed_encodes(&E, ti ? A32 : A64, fmt, colon ? colon + 1 : NULL, format_args[fi],
                          encode_runs, 1) != ZS_OK) {
          fprintf(stderr, "zs-bench-cpu: %s: %s\n", format_args[fi], zs_last_error());
          return 1;
        }
        zs_encoded_destroy(&E);
      }
    zs_matrix_destroy(&A64), zs_matrix_destroy(&A32);
    return 0;
  }

  zs_context *ctx = NULL;
  if (zs_context_create(&ctx) != ZS_OK) {
    fprintf(stderr, "zs-bench-cpu: context: %s\n", zs_last_error());
    return 1;
  }
  zs_topology topo;
  zs_context_topology(ctx, &topo);

  probe pr;
  if (probe_init(&pr, probe_mib << 20) != 0) {
    fprintf(stderr, "zs-bench-cpu: cannot allocate a %" PRId64 " MiB probe array\n", probe_mib);
    return 1;
  }

  /* Random x in [-1, 1): never all ones, so a wrong column index shows in the result. */
  const int64_t nmax = rows > cols ? rows : cols;
  double *x64 = malloc((size_t)nmax * sizeof *x64);
  float *x32 = malloc((size_t)nmax * sizeof *x32);
  double *yref = malloc((size_t)nmax * sizeof *yref), *mag = malloc((size_t)nmax * sizeof *mag);
  double *yout = malloc((size_t)nmax * sizeof *yout);
  if (!x64 || !x32 || !yref || !mag || !yout) return 1;
  uint64_t s = 0x9e3779b97f4a7c15ull;
  for (int64_t i = 0; i < nmax; i++) {
    s ^= s << 13, s ^= s >> 7, s ^= s << 17;
    x64[i] = (double)(s >> 11) * 0x1.0p-52 - 1.0;
    x32[i] = (float)x64[i];
  }

  kernel ks[MAX_KERNELS];
  int nk = 0;
  const zs_type types[2] = {ZS_F64, ZS_F32};
  const zs_op ops[2] = {ZS_OP_N, ZS_OP_T};
  uint64_t csr_bytes[3] = {0, 0, 0}; /* by zs_type */

  /* zsparse cpu backend: each format's default operator (SpMV, deterministic SpMVT), and one
   * with transpose=atomic: CSR's for its atomic SpMVT, CSB's and GCSB's for the pair in one
   * sweep (their SpMVT is the same either way). */
  for (int ti = 0; ti < 2; ti++) {
    const zs_matrix *A = types[ti] == ZS_F64 ? A64 : A32;
    zs_encoded *Ecsr = NULL;
    if (zs_encode(&Ecsr, A, ZS_FORMAT_CSR, NULL) == ZS_OK)
      csr_bytes[types[ti]] = zs_encoded_bytes(Ecsr);
    zs_encoded_destroy(&Ecsr);
    for (int fi = 0; fi < n_formats; fi++) {
      const char *colon;
      zs_format fmt;
      if (format_of(format_args[fi], &fmt, &colon) != ZS_OK) {
        fprintf(stderr, "zs-bench-cpu: %s\n", zs_last_error());
        return 2;
      }
      const int blocked = fmt == ZS_FORMAT_CSB || fmt == ZS_FORMAT_GCSB;
      for (int variant = 0; variant < (fmt == ZS_FORMAT_CSR || blocked ? 2 : 1); variant++) {
        const char *options = variant ? "transpose=atomic" : NULL;
        zs_encoded *E = NULL;
        zs_operator *op = NULL;
        char why[256] = "";
        uint64_t bytes = 0;
        /* the encoder's speed: the operator keeps the last encoding */
        const int timed = !variant && fmt != ZS_FORMAT_CSR;
        const zs_status es = timed_encodes(&E, A, fmt, colon ? colon + 1 : NULL, format_args[fi],
                                           encode_runs, timed);
        if (es != ZS_OK) {
          snprintf(why, sizeof why, "encode: %s", zs_last_error());
        } else {
          bytes = zs_encoded_bytes(E);
          if (zs_operator_create(&op, ctx, E, "cpu", options) != ZS_OK)
            snprintf(why, sizeof why, "operator: %s", zs_last_error());
        }
        zs_encoded_destroy(&E);
        /* oi 0, 1, 2: N, T and BiCG's pair (zs_spmv_pair, "P"); with transpose=atomic only T
         * (CSR) or only P (CSB, GCSB) */
        const int oi_first = !variant ? 0 : blocked ? 2 : 1, oi_last = !variant ? 2 : oi_first;
        for (int oi = oi_first; oi <= oi_last; oi++) {
          kernel *k = &ks[nk++];
          memset(k, 0, sizeof *k);
          snprintf(k->name, sizeof k->name, "zsparse cpu %.32s%s", format_args[fi],
                   !variant  ? ""
                   : blocked ? ", transpose=atomic"
                             : ", atomic T");
          k->pair = oi == 2;
          k->type = types[ti], k->op = k->pair ? ZS_OP_N : ops[oi], k->bytes = bytes;
          k->nx = k->op == ZS_OP_N ? cols : rows, k->ny = k->op == ZS_OP_N ? rows : cols;
          k->run = zs_kernel_run, k->result = zs_kernel_result;
          if (!op) {
            snprintf(k->why, sizeof k->why, "%s", why);
            continue;
          }
          k->zop = op;
          if (zs_vector_create(&k->zx, ctx, "cpu", k->type, k->nx) != ZS_OK ||
              zs_vector_create(&k->zy, ctx, "cpu", k->type, k->ny) != ZS_OK ||
              zs_vector_upload(k->zx, k->type == ZS_F64 ? (const void *)x64 : (const void *)x32) !=
                  ZS_OK ||
              (k->pair &&
               (zs_vector_create(&k->zw, ctx, "cpu", k->type, rows) != ZS_OK ||
                zs_vector_create(&k->zz, ctx, "cpu", k->type, cols) != ZS_OK ||
                zs_vector_upload(
                    k->zw, k->type == ZS_F64 ? (const void *)x64 : (const void *)x32) != ZS_OK))) {
            snprintf(k->why, sizeof k->why, "vectors: %s", zs_last_error());
            continue;
          }
          k->available = 1;
        }
      }
    }
  }

  /* librsb, assembled from the same CSR arrays (32-bit indices: its default build). */
  double t_rsb_assembly[3] = {0, 0, 0};
#ifdef ZS_BENCH_HAVE_RSB
  int rsb_ok = rsb_lib_init(RSB_NULL_INIT_OPTIONS) == RSB_ERR_NO_ERROR;
  if (rsb_ok) {
    const rsb_int_t nt = nthreads;
    rsb_lib_set_opt(RSB_IO_WANT_EXECUTING_THREADS, &nt);
  }
  for (int ti = 0; ti < 2; ti++) {
    const zs_matrix *A = types[ti] == ZS_F64 ? A64 : A32;
    struct rsb_mtx_t *m = NULL;
    char why[256] = "";
    if (!rsb_ok) {
      snprintf(why, sizeof why, "rsb_lib_init failed");
    } else if (nnz > INT32_MAX) {
      snprintf(why, sizeof why, "nnz %" PRId64 " exceeds librsb's 32-bit indices", nnz);
    } else {
      const int64_t *rp;
      const int32_t *ci;
      const void *vals;
      zs_matrix_csr(A, &rp, &ci, &vals);
      rsb_coo_idx_t *rp32 = malloc((size_t)(rows + 1) * sizeof *rp32);
      if (rp32) {
        for (int64_t i = 0; i <= rows; i++) rp32[i] = (rsb_coo_idx_t)rp[i];
        rsb_err_t err = RSB_ERR_NO_ERROR;
        const double ta = now_s();
        m = rsb_mtx_alloc_from_csr_const(
            vals, rp32, ci, (rsb_nnz_idx_t)nnz,
            types[ti] == ZS_F64 ? RSB_NUMERICAL_TYPE_DOUBLE : RSB_NUMERICAL_TYPE_FLOAT,
            (rsb_coo_idx_t)rows, (rsb_coo_idx_t)cols, 1, 1, RSB_FLAG_DEFAULT_RSB_MATRIX_FLAGS,
            &err);
        t_rsb_assembly[types[ti]] = now_s() - ta;
        if (!m) {
          char msg[128] = "";
          rsb_strerror_r(err, msg, sizeof msg);
          snprintf(why, sizeof why, "rsb_mtx_alloc_from_csr_const: %s", msg);
        }
        free(rp32);
      } else {
        snprintf(why, sizeof why, "out of memory");
      }
    }
    for (int oi = 0; oi < 2; oi++) {
      kernel *k = &ks[nk++];
      memset(k, 0, sizeof *k);
      snprintf(k->name, sizeof k->name, "librsb");
      k->type = types[ti], k->op = ops[oi], k->bytes = csr_bytes[types[ti]];
      k->nx = ops[oi] == ZS_OP_N ? cols : rows, k->ny = ops[oi] == ZS_OP_N ? rows : cols;
      k->run = rsb_kernel_run, k->result = rsb_kernel_result;
      if (!m) {
        snprintf(k->why, sizeof k->why, "%s", why);
        continue;
      }
      const size_t es = zs_type_size(k->type);
      k->rsb_mtx = m;
      k->hx = malloc((size_t)k->nx * es);
      k->hy = calloc((size_t)k->ny, es);
      if (!k->hx || !k->hy) {
        snprintf(k->why, sizeof k->why, "out of memory");
        continue;
      }
      memcpy(k->hx, k->type == ZS_F64 ? (const void *)x64 : (const void *)x32, (size_t)k->nx * es);
      k->available = 1;
    }
  }
#endif

  /* Warm-up, then rounds: each kernel's run is preceded by an N-thread read probe, so every
   * kernel has a bandwidth figure taken moments before it (the host drifts with its tenants). */
  double *p1 = malloc((size_t)runs * sizeof *p1), *pn = malloc((size_t)runs * sizeof *pn);
  for (int i = 0; i < nk; i++) {
    ks[i].t = calloc((size_t)runs, sizeof(double));
    ks[i].t_probe = calloc((size_t)runs, sizeof(double));
    if (!ks[i].t || !ks[i].t_probe) return 1;
  }
  if (!p1 || !pn) return 1;
  for (int w = 0; w < warmup; w++) {
    probe_run(&pr, 1);
    probe_run(&pr, nthreads);
    for (int i = 0; i < nk; i++) {
      if (ks[i].available && ks[i].run(&ks[i]) != 0) {
        snprintf(ks[i].why, sizeof ks[i].why, "run failed: %s", zs_last_error());
        ks[i].available = 0;
      }
    }
  }
  const double t_bench0 = now_s();
  for (int r = 0; r < runs; r++) {
    p1[r] = probe_run(&pr, 1);
    pn[r] = probe_run(&pr, nthreads);
    for (int i = 0; i < nk; i++) {
      kernel *k = &ks[i];
      if (!k->available) continue;
      k->t_probe[r] = probe_run(&pr, nthreads);
      const double ts = now_s();
      if (k->run(k) != 0) {
        snprintf(k->why, sizeof k->why, "run failed: %s", zs_last_error());
        k->available = 0;
        continue;
      }
      k->t[r] = now_s() - ts;
    }
  }
  const double t_bench = now_s() - t_bench0;

  /* Check every kernel's last output against the independent reference. */
  int wrong = 0;
  for (int ti = 0; ti < 2; ti++) {
    for (int oi = 0; oi < 2; oi++) {
      const zs_matrix *A = types[ti] == ZS_F64 ? A64 : A32;
      double *xin = malloc((size_t)nmax * sizeof *xin);
      if (!xin) return 1;
      for (int64_t i = 0; i < nmax; i++) xin[i] = types[ti] == ZS_F64 ? x64[i] : (double)x32[i];
      reference(A, ops[oi], xin, yref, mag);
      free(xin);
      /* f32 kernels accumulate in f32 (a few ulps per term); f64 kernels within a few ulps. */
      const double tol = types[ti] == ZS_F64 ? 1e-13 : 2e-6;
      for (int i = 0; i < nk; i++) {
        kernel *k = &ks[i];
        /* the pair is checked twice: its y against A x, its z (x's size) against Aᵀ x */
        if (!k->available || k->type != types[ti] || (!k->pair && k->op != ops[oi])) continue;
        const int z_of_pair = k->pair && ops[oi] == ZS_OP_T;
        const int64_t n_out = z_of_pair ? k->nx : k->ny;
        if ((z_of_pair ? zs_vector_result(k->zz, k->type, n_out, yout) : k->result(k, yout)) != 0) {
          snprintf(k->why, sizeof k->why, "result download failed");
          k->available = 0;
          continue;
        }
        double e = 0.0;
        for (int64_t j = 0; j < n_out; j++) {
          const double d = fabs(yout[j] - yref[j]) / (mag[j] > 0 ? mag[j] : 1.0);
          if (!(d <= e)) e = d; /* NaN propagates */
        }
        if (!(e <= k->max_err)) k->max_err = e;
        if (!(e <= tol)) {
          wrong = 1;
          fprintf(stderr, "zs-bench-cpu: %s %s %s: max relative error %.3g exceeds %.1g\n", k->name,
                  zs_type_name(k->type),
                  k->pair            ? (z_of_pair ? "P (z)" : "P (y)")
                  : k->op == ZS_OP_N ? "N"
                                     : "T",
                  e, tol);
        }
      }
    }
  }

  /* Report. */
  const double probe_bytes =
      (double)(pr.n / PROBE_STREAMS / 8 * 8) * PROBE_STREAMS * sizeof(double);
  const double p1_med = median(p1, runs), pn_med = median(pn, runs);
  printf("# zs-bench-cpu\n\n");
  printf("matrix: %s (%s), %" PRId64 " x %" PRId64 ", nnz %" PRId64 ", built in %.2f s\n", spec,
         source, rows, cols, nnz, t_matrix);
  printf(
      "threads: %d (OpenMP), zsparse cpu backend %d; topology: %d package(s), %d cores, "
      "%d PUs, %d NUMA node(s), hwloc %s\n",
      nthreads, topo.threads, topo.packages, topo.cores, topo.pus, topo.numa_nodes,
      topo.hwloc ? "yes" : "no");
  printf("OMP_PROC_BIND=%s OMP_PLACES=%s\n", getenv("OMP_PROC_BIND") ? getenv("OMP_PROC_BIND") : "",
         getenv("OMP_PLACES") ? getenv("OMP_PLACES") : "");
  printf("runs: %d timed after %d warm-up, medians; probe array %" PRId64
         " MiB; timed phase %.1f s\n",
         runs, warmup, probe_mib, t_bench);
#ifdef ZS_BENCH_HAVE_RSB
  printf("librsb: assembly %.2f s (f64), %.2f s (f32), no autotuning\n", t_rsb_assembly[ZS_F64],
         t_rsb_assembly[ZS_F32]);
#else
  printf("librsb: not built in (librsb-dev not found at configure time)\n");
#endif
  printf(
      "GB/s = (format bytes + x + y) / median time; librsb stores its own layout and is "
      "charged CSR's bytes.\n\n");

  printf(
      "| kernel | type | op | threads | median ms | GB/s | Gnnz/s | adjacent probe GB/s | "
      "of probe | max rel err |\n");
  printf("|---|---|---|---:|---:|---:|---:|---:|---:|---:|\n");
  printf("| read probe, 8 streams | f64 | sum | 1 | %.3f | %.2f | | | | |\n", 1e3 * p1_med,
         probe_bytes / p1_med * 1e-9);
  printf("| read probe, 8 streams | f64 | sum | %d | %.3f | %.2f | | | | |\n", nthreads,
         1e3 * pn_med, probe_bytes / pn_med * 1e-9);

  FILE *csv = csv_path ? fopen(csv_path, "w") : NULL;
  if (csv_path && !csv) {
    fprintf(stderr, "zs-bench-cpu: cannot write %s: %s\n", csv_path, strerror(errno));
  }
  char csv_buf[MAX_KERNELS + 2][320];
  char csv_name[2 * sizeof ks[0].name + 1];
  int ncsv = 0;
  snprintf(csv_buf[ncsv++], sizeof csv_buf[0],
           "read probe 8 streams,f64,sum,1,%.6f,%.3f,,,,,%" PRId64 ",%" PRId64, 1e3 * p1_med,
           probe_bytes / p1_med * 1e-9, rows, nnz);
  snprintf(csv_buf[ncsv++], sizeof csv_buf[0],
           "read probe 8 streams,f64,sum,%d,%.6f,%.3f,,,,,%" PRId64 ",%" PRId64, nthreads,
           1e3 * pn_med, probe_bytes / pn_med * 1e-9, rows, nnz);
  for (int i = 0; i < nk; i++) {
    kernel *k = &ks[i];
    const char *op = k->pair ? "P" : k->op == ZS_OP_N ? "N" : "T";
    if (!k->available) {
      printf("| %s | %s | %s | %d | n/a | | | | | %s |\n", k->name, zs_type_name(k->type), op,
             nthreads, k->why);
      snprintf(csv_buf[ncsv++], sizeof csv_buf[0], "%s,%s,%s,%d,,,,,,,%" PRId64 ",%" PRId64,
               csv_field(csv_name, sizeof csv_name, k->name), zs_type_name(k->type), op, nthreads,
               rows, nnz);
      continue;
    }
    const size_t es = zs_type_size(k->type);
    /* the pair reads the format once and four vectors */
    const double bytes =
        (double)k->bytes + (k->pair ? 2.0 : 1.0) * (double)(k->nx + k->ny) * (double)es;
    const double tm = median(k->t, runs), tp = median(k->t_probe, runs);
    double *ratio = malloc((size_t)runs * sizeof *ratio);
    if (!ratio) return 1;
    for (int r = 0; r < runs; r++) ratio[r] = (bytes / k->t[r]) / (probe_bytes / k->t_probe[r]);
    const double rmed = median(ratio, runs);
    free(ratio);
    printf("| %s | %s | %s | %d | %.3f | %.2f | %.3f | %.2f | %.0f %% | %.1e |\n", k->name,
           zs_type_name(k->type), op, nthreads, 1e3 * tm, bytes / tm * 1e-9,
           (double)nnz / tm * 1e-9, probe_bytes / tp * 1e-9, 100.0 * rmed, k->max_err);
    snprintf(csv_buf[ncsv++], sizeof csv_buf[0],
             "%s,%s,%s,%d,%.6f,%.3f,%.4f,%.3f,%.4f,%.3e,%" PRId64 ",%" PRId64,
             csv_field(csv_name, sizeof csv_name, k->name), zs_type_name(k->type), op, nthreads,
             1e3 * tm, bytes / tm * 1e-9, (double)nnz / tm * 1e-9, probe_bytes / tp * 1e-9, rmed,
             k->max_err, rows, nnz);
  }
  print_two_products(ks, nk, runs);
  const char *csv_head =
      "kernel,type,op,threads,median_ms,gbps,gnnz_per_s,probe_gbps,ratio_to_probe,max_rel_err,"
      "rows,nnz";
  printf("\n```csv\n%s\n", csv_head);
  for (int i = 0; i < ncsv; i++) printf("%s\n", csv_buf[i]);
  printf("```\n");
  if (csv) {
    fprintf(csv, "%s\n", csv_head);
    for (int i = 0; i < ncsv; i++) fprintf(csv, "%s\n", csv_buf[i]);
    fclose(csv);
  }

  /* Cleanup: operators are shared by the N and T kernels of one type. */
  for (int i = 0; i < nk; i++) {
    kernel *k = &ks[i];
    zs_vector_destroy(&k->zx);
    zs_vector_destroy(&k->zy);
    zs_vector_destroy(&k->zw);
    zs_vector_destroy(&k->zz);
    if (k->zop && (i + 1 >= nk || ks[i + 1].zop != k->zop)) zs_operator_destroy(&k->zop);
#ifdef ZS_BENCH_HAVE_RSB
    if (k->rsb_mtx && (i + 1 >= nk || ks[i + 1].rsb_mtx != k->rsb_mtx)) rsb_mtx_free(k->rsb_mtx);
#endif
    free(k->hx);
    free(k->hy);
    free(k->t);
    free(k->t_probe);
  }
#ifdef ZS_BENCH_HAVE_RSB
  if (rsb_ok) rsb_lib_exit(RSB_NULL_EXIT_OPTIONS);
#endif
  zs_context_destroy(&ctx);
  zs_matrix_destroy(&A64);
  zs_matrix_destroy(&A32);
  free(pr.a);
  free(x64);
  free(x32);
  free(yref);
  free(mag);
  free(yout);
  free(p1);
  free(pn);
  return wrong ? 1 : 0;
}
