/* cli_calibrate.c — `zsparse calibrate`: time a few products on the backend and write the
 * format chooser's constants they correct as a calibration file (docs/auto.md). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "core/io/safe_output.h"
#include "zsparse_auto.h"

static const char help_text[] =
    "usage: zsparse calibrate [--backend B] [--type f32|f64] [--rows N] [-o FILE] [--json]\n"
    "\n"
    "Times SpMV on the backend for generated matrices of N rows (default 1048576) and sets the\n"
    "format chooser's constants from them, starting from the device class's built-in ones:\n"
    "read_gbs from CSR on a banded matrix (x gathered in order); the fixed cost of a product\n"
    "from CSR on a tiny matrix (64 rows): its difference from the prediction is added to every\n"
    "format's launch constant (csr_launch_us, csr_small_launch_us, sell_launch_us,\n"
    "coo_launch_us, gcsb_launch_us, cci_launch_us, dtans_launch_us); gather_ps from CSR on a\n"
    "random matrix (every gather scattered), or gather_far_ps where the model prices that\n"
    "matrix's gathers as far (x's hot part over 40 % of cache_mib: the cpu at the default\n"
    "rows); dtans_decode_ps and dtans_row_ps (scaled together) from CSR-dtANS on a\n"
    "few-valued 27-point stencil; and, where the model prices\n"
    "mispredicted row ends (cpu), row_miss_ps from CSR on 65536 rows of random lengths\n"
    "against the same rows sorted by length, and row_miss_min, the mispredicted rows a\n"
    "branch predictor learns, from the same on 8192, 16384 and 32768 rows (between the\n"
    "largest whose row ends cost under half that price and the next). Each time is the\n"
    "median of 10 samples after a warm-up, a sample 16 products issued back to back and\n"
    "synchronised once (the rate a solver's loop sees, which the constants describe; the row\n"
    "ends: 9 rounds of 10 samples of each order, alternately, and the median of the rounds'\n"
    "differences).\n"
    "Writes 'constant value' lines to FILE (default $XDG_CACHE_HOME/zsparse/calibration-B.txt,\n"
    "else ~/.cache/zsparse/calibration-B.txt; replaced whole by a rename), which plan takes\n"
    "with --calibration FILE and --format auto with --options calibration=FILE. Never\n"
    "required: without a file the built-in constants apply.\n"
    "\n"
    "options:\n"
    "  -b, --backend B   ref, cpu, cuda, hip (default: $ZS_BACKEND, else cuda > hip > cpu)\n"
    "  --type f32|f64    value type of the products (default f64)\n"
    "  --rows N          rows of the timed matrices, 4096..2^27 (default 1048576)\n"
    "  -o, --output FILE where to write (the directory must exist, except the default's)\n"
    "  --json            one JSON object: backend, device, file, constants {name: value},\n"
    "                    times_us {band, tiny, random, dtans, lengths_random, lengths_sorted}\n";

/* The median microseconds of `repeat` SpMVs of A in `format` (default options) on the backend,
 * and the plan the chooser makes for A there. */
static zs_status time_matrix(zs_context *ctx, const char *backend, const zs_matrix *A,
                             zs_format format, int repeat, zs_plan **plan, double *us) {
  zs_encoded *E = NULL;
  zs_operator *op = NULL;
  zs_status s = zs_cli_plan_make(plan, A, backend, "spmv", NULL);
  if (s == ZS_OK) s = zs_encode(&E, A, format, NULL);
  if (s == ZS_OK) s = zs_operator_create(&op, ctx, E, backend, NULL);
  /* back to back, as a solver's loop issues them and the model's constants describe: a
   * product of a few us on a GPU is otherwise its launch's and synchronisation's latency */
  zs_cli_measure m = {.op = ZS_OP_N, .repeat = repeat, .batch = 16, .check = 0, .seed = 1};
  if (s == ZS_OK) s = zs_cli_measure_run("calibrate", ctx, op, E, A, &m);
  *us = 1e6 * m.time_median_s;
  zs_operator_destroy(&op), zs_encoded_destroy(&E);
  return s;
}

/* The same, of the generator's `spec`. */
static zs_status time_spmv(zs_context *ctx, const char *backend, const char *spec, zs_type type,
                           zs_format format, zs_plan **plan, double *us) {
  zs_matrix *A = NULL;
  zs_status s = zs_matrix_generate(&A, spec, type, 0);
  if (s == ZS_OK) s = time_matrix(ctx, backend, A, format, 10, plan, us);
  zs_matrix_destroy(&A);
  return s;
}

static int by_value(const void *a, const void *b) {
  const double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* The two matrices' SpMV in CSR, alternately, in ROUNDS rounds of 10 products each: their
 * medians over the rounds, and the median of the rounds' differences (u - s). A machine whose
 * speed drifts, or a neighbour's burst, moves one round, not the difference. */
enum { ROUNDS = 9 };
static zs_status time_pair(zs_context *ctx, const char *backend, const zs_matrix *U,
                           const zs_matrix *S, double *t_u, double *t_s, double *diff) {
  const zs_matrix *A[2] = {U, S};
  zs_encoded *E[2] = {NULL, NULL};
  zs_operator *op[2] = {NULL, NULL};
  double t[2][ROUNDS], d[ROUNDS];
  zs_status s = ZS_OK;
  for (int k = 0; k < 2 && s == ZS_OK; k++)
    if ((s = zs_encode(&E[k], A[k], ZS_FORMAT_CSR, NULL)) == ZS_OK)
      s = zs_operator_create(&op[k], ctx, E[k], backend, NULL);
  for (int r = 0; r < ROUNDS && s == ZS_OK; r++) {
    for (int k = 0; k < 2 && s == ZS_OK; k++) {
      zs_cli_measure m = {.op = ZS_OP_N, .repeat = 10, .batch = 16, .check = 0, .seed = 1};
      s = zs_cli_measure_run("calibrate", ctx, op[k], E[k], A[k], &m);
      t[k][r] = 1e6 * m.time_median_s;
    }
    d[r] = t[0][r] - t[1][r];
  }
  if (s == ZS_OK) {
    qsort(t[0], ROUNDS, sizeof(double), by_value), qsort(t[1], ROUNDS, sizeof(double), by_value);
    qsort(d, ROUNDS, sizeof(double), by_value);
    *t_u = t[0][ROUNDS / 2], *t_s = t[1][ROUNDS / 2], *diff = d[ROUNDS / 2];
  }
  for (int k = 0; k < 2; k++) zs_operator_destroy(&op[k]), zs_encoded_destroy(&E[k]);
  return s;
}

/* A with its rows in order of length (stable): the same rows, nonzeros and gathers, whose
 * lengths change only where a length ends, so a branch predictor foresees every row end. */
static zs_status rows_by_length(const zs_matrix *A, zs_matrix **out) {
  const int64_t rows = zs_matrix_rows(A), nnz = zs_matrix_nnz(A);
  const size_t vs = zs_matrix_type(A) == ZS_F64 ? 8 : 4;
  const int64_t *ptr;
  const int32_t *col;
  const void *val;
  zs_matrix_csr(A, &ptr, &col, &val);
  int64_t max_len = 0;
  for (int64_t i = 0; i < rows; i++)
    if (ptr[i + 1] - ptr[i] > max_len) max_len = ptr[i + 1] - ptr[i];
  int64_t *start = calloc((size_t)max_len + 2, sizeof *start);
  int64_t *p = malloc(((size_t)rows + 1) * sizeof *p),
          *order = malloc((size_t)rows * sizeof *order + 1);
  int32_t *c = malloc((size_t)nnz * sizeof *c + 1);
  char *v = malloc((size_t)nnz * vs + 1);
  zs_status s;
  if (start && p && order && c && v) {
    /* counting sort of the rows by length: start[L], then the next new row of length L */
    for (int64_t i = 0; i < rows; i++) start[ptr[i + 1] - ptr[i] + 1]++;
    for (int64_t L = 1; L <= max_len + 1; L++) start[L] += start[L - 1];
    for (int64_t i = 0; i < rows; i++) order[start[ptr[i + 1] - ptr[i]]++] = i;
    p[0] = 0;
    for (int64_t r = 0; r < rows; r++) {
      const int64_t i = order[r], len = ptr[i + 1] - ptr[i];
      memcpy(c + p[r], col + ptr[i], (size_t)len * sizeof *c);
      memcpy(v + (size_t)p[r] * vs, (const char *)val + (size_t)ptr[i] * vs, (size_t)len * vs);
      p[r + 1] = p[r] + len;
    }
    s = zs_matrix_from_csr(out, rows, zs_matrix_cols(A), p, c, v, zs_matrix_type(A), 0);
  } else {
    s = zsi_error(ZS_ERR_OUT_OF_MEMORY, "calibrate: out of memory sorting %lld rows by length",
                  (long long)rows);
  }
  free(start), free(p), free(order), free(c), free(v);
  return s;
}

/* The plan's prediction for its first candidate in `format` with default options. */
static double predicted(const zs_plan *p, zs_format format) {
  zs_plan_info info;
  zs_plan_get_info(p, &info);
  for (int i = 0; i < info.candidates; i++) {
    zs_plan_candidate c;
    zs_plan_candidate_get(p, i, &c);
    if (c.format == format && !c.options[0] && !c.op_options[0]) return c.predicted_us;
  }
  return 0;
}

typedef struct figure {
  const char *name;
  double value;
} figure;

static void find_figure(void *ctx, const char *name, double value) {
  figure *f = ctx;
  if (strcmp(name, f->name) == 0) f->value = value;
}

/* A statistic or device constant ("device.read_gbs") of a plan. */
static double figure_of(const zs_plan *p, const char *name) {
  figure f = {name, 0};
  zs_plan_stats(p, find_figure, &f);
  return f.value;
}

/* Row ends: Poisson lengths of mean 10 on ROWS rows (x and the matrix fit a cache, so the row
 * ends are what the two orders differ by) timed against the same rows sorted by length. A branch
 * predictor learns the row ends of a small enough matrix, repeated product after product: the
 * model prices none below row_miss_min mispredicted rows. The largest size sets row_miss_ps; the
 * smaller ones set row_miss_min, the geometric mean of the misses of the largest size whose row
 * ends cost under half the full price and of the next (2-core AMD EPYC: free up to 16384 rows,
 * 15 000 misses, about 2 ns each from 32768). */
#define LENGTHS_ROWS 65536
static const int64_t length_rows[] = {8192, 16384, 32768};
enum { N_LENGTHS = sizeof length_rows / sizeof *length_rows };

typedef struct lengths_run {
  double misses;  /* rows whose length the predictor cannot foresee (len_misses x rows) */
  double pred_us; /* the model's time of the random order over the sorted one (built-in) */
  double t_u, t_s, cost_us; /* the two orders' times and the median of their differences */
} lengths_run;

/* One size: timed where `always`, else only where the model prices its row ends. */
static zs_status time_lengths(zs_context *ctx, const char *backend, zs_type type, int64_t rows,
                              int always, lengths_run *r) {
  char spec[96];
  snprintf(spec, sizeof spec, "erdos_renyi:rows=%lld,p=%.17g,seed=1", (long long)rows,
           10.0 / (double)rows);
  zs_matrix *U = NULL, *S = NULL;
  zs_plan *pu = NULL, *ps = NULL;
  zs_status s = zs_matrix_generate(&U, spec, type, 0);
  if (s == ZS_OK) s = zs_cli_plan_make(&pu, U, backend, "spmv", NULL);
  if (s == ZS_OK) s = rows_by_length(U, &S);
  if (s == ZS_OK) s = zs_cli_plan_make(&ps, S, backend, "spmv", NULL);
  if (s == ZS_OK) {
    r->misses = figure_of(pu, "len_misses") * (double)rows;
    r->pred_us = predicted(pu, ZS_FORMAT_CSR) - predicted(ps, ZS_FORMAT_CSR);
    if (always || r->pred_us > 0) s = time_pair(ctx, backend, U, S, &r->t_u, &r->t_s, &r->cost_us);
  }
  zs_plan_destroy(&pu), zs_plan_destroy(&ps), zs_matrix_destroy(&U), zs_matrix_destroy(&S);
  return s;
}

/* The default file: $XDG_CACHE_HOME/zsparse or ~/.cache/zsparse, created. */
static int default_path(const char *backend, char *out, size_t len) {
  const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
  char dir[3000];
  if (xdg && *xdg)
    snprintf(dir, sizeof dir, "%s", xdg);
  else if (home && *home)
    snprintf(dir, sizeof dir, "%s/.cache", home);
  else
    return -1;
  mkdir(dir, 0700);
  snprintf(dir + strlen(dir), sizeof dir - strlen(dir), "/zsparse");
  if (mkdir(dir, 0700) != 0 && errno != EEXIST) return -1;
  snprintf(out, len, "%s/calibration-%s.txt", dir, backend);
  return 0;
}

int zs_cli_calibrate(int argc, char **argv) {
  zs_cli_opt opts[] = {{"backend", 'b', 1, NULL},
                       {"type", 0, 1, NULL},
                       {"rows", 0, 1, NULL},
                       {"output", 'o', 1, NULL},
                       {"json", 0, 0, NULL}};
  const int n_opts = (int)(sizeof opts / sizeof *opts);
  const char *pos[1];
  int n_pos, help;
  int rc = zs_cli_parse("calibrate", argc, argv, opts, n_opts, pos, 0, &n_pos, &help);
  if (rc) return rc;
  if (help) {
    fputs(help_text, stdout);
    return ZS_CLI_OK;
  }
  zs_type type = ZS_F64;
  const char *type_s = zs_cli_get(opts, n_opts, "type"), *rows_s = zs_cli_get(opts, n_opts, "rows");
  int64_t rows = 1048576;
  if (type_s && zs_cli_parse_type(type_s, &type)) {
    zs_cli_usage_error("calibrate", "--type must be f32 or f64, not '%s'", type_s);
    return ZS_CLI_USAGE;
  }
  if (rows_s && zs_cli_parse_int(rows_s, 4096, INT64_C(1) << 27, &rows)) {
    zs_cli_usage_error("calibrate", "--rows must be an integer in [4096, 2^27], not '%s'", rows_s);
    return ZS_CLI_USAGE;
  }
  zs_context *ctx = NULL;
  zs_status s = zs_context_create(&ctx);
  if (s != ZS_OK) {
    zs_cli_lib_error("calibrate", s);
    return ZS_CLI_FAIL;
  }
  const char *backend = zs_cli_get(opts, n_opts, "backend");
  if (!backend) backend = zs_context_default_backend(ctx);
  char path[4096];
  const char *out = zs_cli_get(opts, n_opts, "output");
  if (out)
    snprintf(path, sizeof path, "%s", out);
  else if (default_path(backend, path, sizeof path) != 0) {
    fprintf(stderr, "zsparse calibrate: no cache directory ($XDG_CACHE_HOME, $HOME): use -o\n");
    zs_context_destroy(&ctx);
    return ZS_CLI_FAIL;
  }
  char band[160], tiny[] = "banded:rows=64,width=8,per_row=4,seed=1", random[160], st27[160];
  snprintf(band, sizeof band, "banded:rows=%lld,width=16,per_row=12,seed=1", (long long)rows);
  snprintf(random, sizeof random, "erdos_renyi:rows=%lld,per_row=12,seed=1", (long long)rows);
  int n3 = 8;
  while ((int64_t)(n3 + 8) * (n3 + 8) * (n3 + 8) <= rows) n3 += 8;
  snprintf(st27, sizeof st27, "stencil3d:n=%d,points=27,values=set,distinct=64,seed=1", n3);
  zs_plan *pb = NULL, *pt = NULL, *pr = NULL, *pd = NULL;
  double t_band = 0, t_tiny = 0, t_random = 0, t_dtans = 0;
  if ((s = time_spmv(ctx, backend, band, type, ZS_FORMAT_CSR, &pb, &t_band)) ||
      (s = time_spmv(ctx, backend, tiny, type, ZS_FORMAT_CSR, &pt, &t_tiny)) ||
      (s = time_spmv(ctx, backend, random, type, ZS_FORMAT_CSR, &pr, &t_random)) ||
      (s = time_spmv(ctx, backend, st27, type, ZS_FORMAT_DTANS, &pd, &t_dtans)))
    zs_cli_lib_error("calibrate", s);
  /* the row ends only where the model prices them (the built-in prediction differs) */
  lengths_run big = {0}, small[N_LENGTHS] = {{0}};
  if (s == ZS_OK && figure_of(pb, "device.row_miss_ps") > 0) {
    s = time_lengths(ctx, backend, type, LENGTHS_ROWS, 0, &big);
    for (int i = 0; i < N_LENGTHS && s == ZS_OK && big.pred_us > 0; i++)
      s = time_lengths(ctx, backend, type, length_rows[i], 1, &small[i]);
    if (s != ZS_OK) zs_cli_lib_error("calibrate", s);
  }
  if (s != ZS_OK) {
    zs_plan_destroy(&pb), zs_plan_destroy(&pt), zs_plan_destroy(&pr), zs_plan_destroy(&pd);
    zs_context_destroy(&ctx);
    return ZS_CLI_FAIL;
  }
  /* The model's terms at the built-in constants, rescaled to the measured times. The tiny
   * product's excess over its prediction is a fixed cost every product pays (a parallel
   * region's fork and join on the cpu, the runtime's launch on a GPU), so every format's launch
   * constant moves by it. */
  const double shift = t_tiny > 0 ? t_tiny - predicted(pt, ZS_FORMAT_CSR) : 0;
  const double launch = figure_of(pb, "device.csr_launch_us") + shift;
  const double bw = figure_of(pb, "device.read_gbs");
  const double p_band = predicted(pb, ZS_FORMAT_CSR) - figure_of(pb, "device.csr_launch_us");
  const double read_gbs = t_band > launch ? bw * p_band / (t_band - launch) : bw;
  const double scatter = figure_of(pr, "far_share") * figure_of(pr, "nnz");
  /* the random matrix's gathers are priced at gather_ps where x's hot part fits 40 % of the
   * cache, else at gather_far_ps (auto_model.c, x_fits): they calibrate that one (the cpu's at
   * the default rows: x of 8 MB against 16 MB) */
  const double x_hot = figure_of(pr, "hot_cols") * (type == ZS_F64 ? 8.0 : 4.0);
  const int far = x_hot > 0.4 * figure_of(pr, "device.cache_mib") * 1048576.0;
  const char *const gather_name = far ? "gather_far_ps" : "gather_ps";
  char gather_figure[64];
  snprintf(gather_figure, sizeof gather_figure, "device.%s", gather_name);
  const double g_old = figure_of(pr, gather_figure);
  const double bytes_us = (predicted(pr, ZS_FORMAT_CSR) - figure_of(pr, "device.csr_launch_us") -
                           scatter * g_old * 1e-6) *
                          bw / read_gbs;
  const double g = t_random - launch - bytes_us;
  const double gather_ps = scatter > 0 && g > 0 ? g / scatter * 1e6 : g_old;
  const double d_launch = figure_of(pd, "device.dtans_launch_us");
  const double p_d = predicted(pd, ZS_FORMAT_DTANS) - d_launch;
  const double scale =
      p_d > 0 && t_dtans > d_launch + shift ? (t_dtans - d_launch - shift) / p_d : 1.0;
  /* the unsorted rows' extra time over the sorted ones' is their mispredicted row ends; the
   * built-in constant predicted big.pred_us of it (none where the sorted rows ran slower) */
  const double miss_old = figure_of(pb, "device.row_miss_ps");
  const double row_miss_ps =
      big.pred_us > 0 ? miss_old * fmax(big.cost_us, 0) / big.pred_us : miss_old;
  double row_miss_min = figure_of(pb, "device.row_miss_min");
  if (big.pred_us > 0 && row_miss_ps > 0) {
    int free_up_to = -1; /* the sizes before the first whose row ends cost half the full price */
    while (free_up_to + 1 < N_LENGTHS &&
           small[free_up_to + 1].cost_us * 1e6 < 0.5 * row_miss_ps * small[free_up_to + 1].misses)
      free_up_to++;
    const double below = free_up_to >= 0 ? small[free_up_to].misses : 0.5 * small[0].misses;
    const double above = free_up_to + 1 < N_LENGTHS ? small[free_up_to + 1].misses : big.misses;
    row_miss_min = sqrt(below * above);
  }
  static const char *const launches[] = {"csr_launch_us",  "csr_small_launch_us", "sell_launch_us",
                                         "coo_launch_us",  "gcsb_launch_us",      "cci_launch_us",
                                         "dtans_launch_us"};
  enum { n_launches = sizeof launches / sizeof *launches };
  figure constants[n_launches + 6] = {
      {"read_gbs", read_gbs},
      {gather_name, gather_ps},
      {"dtans_decode_ps", figure_of(pd, "device.dtans_decode_ps") * scale},
      {"dtans_row_ps", figure_of(pd, "device.dtans_row_ps") * scale},
      {"row_miss_ps", row_miss_ps},
      {"row_miss_min", row_miss_min},
  };
  for (int i = 0; i < n_launches; i++) {
    char name[64];
    snprintf(name, sizeof name, "device.%s", launches[i]);
    constants[6 + i] = (figure){launches[i], fmax(figure_of(pb, name) + shift, 0)};
  }
  const int n_constants = (int)(sizeof constants / sizeof *constants);
  zs_plan_info info;
  zs_plan_get_info(pb, &info);
  /* the file's whole text, then one safe write: a unique temporary renamed over the file once
   * complete, so an interrupted or failed write leaves the old calibration, and a planted link
   * is never followed */
  char text[4096];
  size_t len = (size_t)snprintf(text, sizeof text,
                                "# zsparse calibrate: backend %s, device class %s, %s, %lld rows\n",
                                backend, info.device, zs_type_name(type), (long long)rows);
  for (int i = 0; i < n_constants && len < sizeof text; i++)
    len += (size_t)snprintf(text + len, sizeof text - len, "%s %.6g\n", constants[i].name,
                            constants[i].value);
  s = zsi_output_write_all(path, 0, text, len < sizeof text ? len : sizeof text - 1);
  const int ok = s == ZS_OK;
  if (!ok) {
    zs_cli_lib_error("calibrate", s);
  } else if (zs_cli_get(opts, n_opts, "json")) {
    zs_json j;
    zs_json_begin(&j, stdout);
    zs_json_str(&j, "backend", backend);
    zs_json_str(&j, "device", info.device);
    zs_json_str(&j, "file", path);
    zs_json_object(&j, "constants");
    for (int i = 0; i < n_constants; i++) zs_json_num(&j, constants[i].name, constants[i].value);
    zs_json_object_end(&j);
    zs_json_object(&j, "times_us");
    zs_json_num(&j, "band", t_band);
    zs_json_num(&j, "tiny", t_tiny);
    zs_json_num(&j, "random", t_random);
    zs_json_num(&j, "dtans", t_dtans);
    if (big.pred_us > 0) {
      zs_json_num(&j, "lengths_random", big.t_u);
      zs_json_num(&j, "lengths_sorted", big.t_s);
    }
    zs_json_object_end(&j);
    zs_json_end(&j);
  } else {
    printf(
        "calibrated %s (device class %s): band %.1f us, tiny %.1f us, random %.1f us, dtans "
        "%.1f us\n",
        backend, info.device, t_band, t_tiny, t_random, t_dtans);
    if (big.pred_us > 0)
      printf("  row lengths: in random order %.1f us, sorted %.1f us\n", big.t_u, big.t_s);
    for (int i = 0; i < n_constants; i++)
      printf("  %-16s %.6g\n", constants[i].name, constants[i].value);
    printf("written to %s (use: zsparse plan ... --calibration %s)\n", path, path);
  }
  zs_plan_destroy(&pb), zs_plan_destroy(&pt), zs_plan_destroy(&pr), zs_plan_destroy(&pd);
  zs_context_destroy(&ctx);
  return ok ? ZS_CLI_OK : ZS_CLI_FAIL;
}
