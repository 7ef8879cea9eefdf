/* cli_calibrate.c — `zsparse calibrate`: time a few products on the backend and write the
 * format chooser's constants they correct as a calibration file (docs/auto.md). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "zsparse_auto.h"

static const char help_text[] =
    "usage: zsparse calibrate [--backend B] [--type f32|f64] [--rows N] [-o FILE] [--json]\n"
    "\n"
    "Times SpMV on the backend for four generated matrices of N rows (default 1048576; 64 for\n"
    "the fixed cost) and sets the format chooser's constants from them, starting from the\n"
    "device class's built-in ones: read_gbs from CSR on a banded matrix (x gathered in order),\n"
    "csr_launch_us from a tiny matrix, gather_ps from CSR on a random matrix (every gather\n"
    "scattered), dtans_decode_ps and dtans_row_ps (scaled together) from CSR-dtANS on a\n"
    "few-valued 27-point stencil. Each product is the median of 10 after a warm-up.\n"
    "Writes 'constant value' lines to FILE (default $XDG_CACHE_HOME/zsparse/calibration-B.txt,\n"
    "else ~/.cache/zsparse/calibration-B.txt), which plan takes with --calibration FILE and\n"
    "--format auto with --options calibration=FILE. Never required: without a file the\n"
    "built-in constants apply.\n"
    "\n"
    "options:\n"
    "  -b, --backend B   ref, cpu, cuda, hip (default: $ZS_BACKEND, else cuda > hip > cpu)\n"
    "  --type f32|f64    value type of the products (default f64)\n"
    "  --rows N          rows of the timed matrices, 4096..2^27 (default 1048576)\n"
    "  -o, --output FILE where to write (the directory must exist, except the default's)\n"
    "  --json            one JSON object: backend, device, file, constants {name: value},\n"
    "                    times_us {band, tiny, random, dtans}\n";

/* The median microseconds of SpMV of `spec` in `format` (default options) on the backend, and
 * the plan the chooser makes for it there. */
static zs_status time_spmv(zs_context *ctx, const char *backend, const char *spec, zs_type type,
                           zs_format format, zs_plan **plan, double *us) {
  zs_matrix *A = NULL;
  zs_encoded *E = NULL;
  zs_operator *op = NULL;
  zs_status s = zs_matrix_generate(&A, spec, type, 0);
  if (s == ZS_OK) s = zs_cli_plan_make(plan, A, backend, "spmv", NULL);
  if (s == ZS_OK) s = zs_encode(&E, A, format, NULL);
  if (s == ZS_OK) s = zs_operator_create(&op, ctx, E, backend, NULL);
  zs_cli_measure m = {.op = ZS_OP_N, .repeat = 10, .check = 0, .seed = 1};
  if (s == ZS_OK) s = zs_cli_measure_run("calibrate", ctx, op, E, A, &m);
  *us = 1e6 * m.time_median_s;
  zs_operator_destroy(&op), zs_encoded_destroy(&E), zs_matrix_destroy(&A);
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
      (s = time_spmv(ctx, backend, st27, type, ZS_FORMAT_DTANS, &pd, &t_dtans))) {
    zs_cli_lib_error("calibrate", s);
    zs_plan_destroy(&pb), zs_plan_destroy(&pt), zs_plan_destroy(&pr), zs_plan_destroy(&pd);
    zs_context_destroy(&ctx);
    return ZS_CLI_FAIL;
  }
  /* The model's terms at the built-in constants, rescaled to the measured times. */
  const double launch = t_tiny > 0 ? t_tiny : figure_of(pb, "device.csr_launch_us");
  const double bw = figure_of(pb, "device.read_gbs");
  const double p_band = predicted(pb, ZS_FORMAT_CSR) - figure_of(pb, "device.csr_launch_us");
  const double read_gbs = t_band > launch ? bw * p_band / (t_band - launch) : bw;
  const double scatter = figure_of(pr, "far_share") * figure_of(pr, "nnz");
  const double g_old = figure_of(pr, "device.gather_ps");
  const double bytes_us = (predicted(pr, ZS_FORMAT_CSR) - figure_of(pr, "device.csr_launch_us") -
                           scatter * g_old * 1e-6) *
                          bw / read_gbs;
  const double g = t_random - launch - bytes_us;
  const double gather_ps = scatter > 0 && g > 0 ? g / scatter * 1e6 : g_old;
  const double d_launch = figure_of(pd, "device.dtans_launch_us");
  const double p_d = predicted(pd, ZS_FORMAT_DTANS) - d_launch;
  const double scale = p_d > 0 && t_dtans > d_launch ? (t_dtans - d_launch) / p_d : 1.0;
  const figure constants[] = {
      {"read_gbs", read_gbs},
      {"csr_launch_us", launch},
      {"gather_ps", gather_ps},
      {"dtans_decode_ps", figure_of(pd, "device.dtans_decode_ps") * scale},
      {"dtans_row_ps", figure_of(pd, "device.dtans_row_ps") * scale},
  };
  const int n_constants = (int)(sizeof constants / sizeof *constants);
  zs_plan_info info;
  zs_plan_get_info(pb, &info);
  FILE *f = fopen(path, "w");
  int ok = f != NULL;
  if (f) {
    fprintf(f, "# zsparse calibrate: backend %s, device class %s, %s, %lld rows\n", backend,
            info.device, zs_type_name(type), (long long)rows);
    for (int i = 0; i < n_constants; i++)
      fprintf(f, "%s %.6g\n", constants[i].name, constants[i].value);
    ok = fclose(f) == 0;
  }
  if (!ok) {
    fprintf(stderr, "zsparse calibrate: cannot write %s: %s\n", path, strerror(errno));
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
    zs_json_object_end(&j);
    zs_json_end(&j);
  } else {
    printf(
        "calibrated %s (device class %s): band %.1f us, tiny %.1f us, random %.1f us, dtans "
        "%.1f us\n",
        backend, info.device, t_band, t_tiny, t_random, t_dtans);
    for (int i = 0; i < n_constants; i++)
      printf("  %-16s %.6g\n", constants[i].name, constants[i].value);
    printf("written to %s (use: zsparse plan ... --calibration %s)\n", path, path);
  }
  zs_plan_destroy(&pb), zs_plan_destroy(&pt), zs_plan_destroy(&pr), zs_plan_destroy(&pd);
  zs_context_destroy(&ctx);
  return ok ? ZS_CLI_OK : ZS_CLI_FAIL;
}
