/* cli_plan.c — `zsparse plan`: the format chooser's candidates, predictions and choice; and the
 * helper through which spmv, solve, convert and demo encode with `--format auto`. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "zsparse_auto.h"

static const char help_text[] =
    "usage: zsparse plan FILE|ZSM|gen:SPEC [--backend B] [--type f32|f64]\n"
    "                    [--workload spmv|t|pair[:N]|solve:N] [--device D] [--calibration F]\n"
    "                    [--tune model|trial[:MS]] [--options K=V,...] [--json]\n"
    "\n"
    "Reads the matrix (Matrix Market, a .zsm decoded back, or a generator spec after 'gen:'),\n"
    "measures its statistics and predicts, for every candidate format with the option sets that\n"
    "matter, its encoded bytes and the time of the workload on the backend's device; prints the\n"
    "candidates and the choice with its reason (docs/auto.md). Nothing is encoded or run (the\n"
    "backend need not be present here) unless --tune trial asks for it. `--format auto` of\n"
    "convert, spmv and solve makes the same choice for the same arguments (--options\n"
    "tune=trial:MS for a trial there).\n"
    "\n"
    "options:\n"
    "  -b, --backend B      ref, cpu, cuda, hip (default: $ZS_BACKEND, else this machine's\n"
    "                       default: cuda > hip > cpu)\n"
    "  --type f32|f64       value type (default f64; for a .zsm its type)\n"
    "  -w, --workload W     spmv (default), t (SpMVT), pair (BiCG's SpMV + SpMVT); with :N, N\n"
    "                       calls with the host encode amortised over them; solve:N = pair:N\n"
    "  --device D           device class of the constants: h100, h200, gpu (cuda, hip); cpu,\n"
    "                       ref (default: cuda h100, hip gpu)\n"
    "  --calibration F      a file of 'constant value' lines overriding the device's constants\n"
    "  --tune T             model (default: the prediction alone, deterministic) or trial[:MS]:\n"
    "                       then encode the model's choice and the next two best predicted and\n"
    "                       time them on the backend within MS ms of wall time (default 200;\n"
    "                       a band of rows when the whole cannot fit), taking the fastest\n"
    "                       measured; not deterministic. MS must be a number > 0\n"
    "  --options K=V,...    more planner options (read_gbs=G, cache_mib=M, trial_top=K; see\n"
    "                       docs/auto.md)\n"
    "  --json               one JSON object: matrix, rows, cols, nnz, type, backend, device,\n"
    "                       source, workload, stats {...}, constants {...} (the device's,\n"
    "                       docs/auto.md), candidates [{format, options,\n"
    "                       op_options, predicted_bytes, predicted_us, encode_s, bound,\n"
    "                       measured_us (null when not timed)}], choice {format, options,\n"
    "                       op_options, index}, reason, tune, trial {note, model_index,\n"
    "                       overturned, seconds} (null without a trial), plan_s (the trial\n"
    "                       included)\n";

/* Whether the option string opts has `key` (at its start or after a comma). */
static int has_key(const char *opts, const char *key) {
  const size_t n = strlen(key);
  for (const char *p = opts; p && *p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
    if (strncmp(p, key, n) == 0 && p[n] == '=') return 1;
  return 0;
}

/* "backend=B,workload=W,device=D,calibration=F,tune=T,EXTRA" from the pieces given (NULL: left
 * out); a key that EXTRA gives is EXTRA's. */
static char *plan_options(const char *backend, const char *workload, const char *device,
                          const char *calibration, const char *tune, const char *extra) {
  const char *keys[] = {"backend", "workload", "device", "calibration", "tune", NULL};
  const char *vals[] = {backend, workload, device, calibration, tune, extra};
  size_t len = 1;
  for (int i = 0; i < 6; i++) len += vals[i] ? strlen(vals[i]) + 16 : 0;
  char *s = malloc(len);
  if (!s) return NULL;
  s[0] = '\0';
  for (int i = 0; i < 6; i++) {
    if (!vals[i] || !vals[i][0] || (keys[i] && has_key(extra, keys[i]))) continue;
    if (s[0]) strcat(s, ",");
    if (keys[i]) strcat(s, keys[i]), strcat(s, "=");
    strcat(s, vals[i]);
  }
  return s;
}

zs_status zs_cli_plan_make(zs_plan **out, const zs_matrix *A, const char *backend,
                           const char *workload, const char *extra) {
  char *o = plan_options(backend, workload, NULL, NULL, NULL, extra);
  if (!o) return ZS_ERR_OUT_OF_MEMORY;
  const zs_status s = zs_plan_create(out, A, o);
  free(o);
  return s;
}

zs_status zs_cli_auto_encode(const zs_matrix *A, const char *backend, const char *workload,
                             const char *extra, zs_encoded **E, zs_cli_choice *chosen) {
  zs_plan *p = NULL;
  zs_status s = zs_cli_plan_make(&p, A, backend, workload, extra);
  if (s == ZS_OK) s = zs_plan_encode(E, p, A);
  if (s == ZS_OK && chosen) {
    zs_plan_info info;
    zs_plan_candidate c;
    zs_plan_get_info(p, &info);
    zs_plan_candidate_get(p, info.choice, &c);
    snprintf(chosen->options, sizeof chosen->options, "%s", c.options);
    snprintf(chosen->op_options, sizeof chosen->op_options, "%s", c.op_options);
  }
  zs_plan_destroy(&p);
  return s;
}

/* The matrix's statistics, or (device) the device's constants, as JSON members. */
typedef struct stat_sink {
  zs_json *j;
  int device, n;
} stat_sink;

static void stat_json(void *ctx, const char *name, double value) {
  stat_sink *k = ctx;
  const int is_device = strncmp(name, "device.", 7) == 0;
  if (is_device == k->device) zs_json_num(k->j, is_device ? name + 7 : name, value);
}

static void stat_text(void *ctx, const char *name, double value) {
  stat_sink *k = ctx;
  if (strncmp(name, "device.", 7) == 0) return;
  printf("%s%s %.4g", k->n++ % 4 ? ", " : (k->n > 1 ? "\n            " : ""), name, value);
}

static void print_json(const char *path, const zs_matrix *A, const zs_plan *p,
                       const zs_plan_info *info, double plan_s) {
  zs_json j;
  zs_json_begin(&j, stdout);
  zs_json_str(&j, "matrix", path);
  zs_json_int(&j, "rows", zs_matrix_rows(A));
  zs_json_int(&j, "cols", zs_matrix_cols(A));
  zs_json_int(&j, "nnz", zs_matrix_nnz(A));
  zs_json_str(&j, "type", zs_type_name(zs_matrix_type(A)));
  zs_json_str(&j, "backend", info->backend);
  zs_json_str(&j, "device", info->device);
  zs_json_str(&j, "source", info->source);
  zs_json_str(&j, "workload", info->workload);
  stat_sink k = {&j, 0, 0};
  zs_json_object(&j, "stats");
  zs_plan_stats(p, stat_json, &k);
  zs_json_object_end(&j);
  k.device = 1;
  zs_json_object(&j, "constants");
  zs_plan_stats(p, stat_json, &k);
  zs_json_object_end(&j);
  zs_json_array(&j, "candidates");
  for (int i = 0; i < info->candidates; i++) {
    zs_plan_candidate c;
    zs_plan_candidate_get(p, i, &c);
    zs_json_object(&j, NULL);
    zs_json_str(&j, "format", zs_format_name(c.format));
    zs_json_str(&j, "options", c.options);
    zs_json_str(&j, "op_options", c.op_options);
    zs_json_num(&j, "predicted_bytes", c.predicted_bytes);
    zs_json_num(&j, "predicted_us", c.predicted_us);
    zs_json_num(&j, "encode_s", c.encode_s);
    zs_json_str(&j, "bound", c.bound);
    if (c.measured_us > 0)
      zs_json_num(&j, "measured_us", c.measured_us);
    else
      zs_json_null(&j, "measured_us");
    zs_json_object_end(&j);
  }
  zs_json_array_end(&j);
  zs_plan_candidate c;
  zs_plan_candidate_get(p, info->choice, &c);
  zs_json_object(&j, "choice");
  zs_json_str(&j, "format", zs_format_name(c.format));
  zs_json_str(&j, "options", c.options);
  zs_json_str(&j, "op_options", c.op_options);
  zs_json_int(&j, "index", info->choice);
  zs_json_object_end(&j);
  zs_json_str(&j, "reason", info->reason);
  zs_json_str(&j, "tune", info->tune);
  if (info->trial[0]) {
    zs_json_object(&j, "trial");
    zs_json_str(&j, "note", info->trial);
    zs_json_int(&j, "model_index", info->model_choice);
    zs_json_bool(&j, "overturned", info->overturned);
    zs_json_num(&j, "seconds", info->trial_s);
    zs_json_object_end(&j);
  } else {
    zs_json_null(&j, "trial");
  }
  zs_json_num(&j, "plan_s", plan_s);
  zs_json_end(&j);
}

static void print_text(const char *path, const zs_matrix *A, const zs_plan *p,
                       const zs_plan_info *info, double plan_s) {
  const int64_t nnz = zs_matrix_nnz(A);
  printf("matrix:     %s: %lld x %lld, %lld nnz, %s\n", path, (long long)zs_matrix_rows(A),
         (long long)zs_matrix_cols(A), (long long)nnz, zs_type_name(zs_matrix_type(A)));
  printf("target:     backend %s, device %s (%s), workload %s\n", info->backend, info->device,
         info->source, info->workload);
  stat_sink k = {NULL, 0, 0};
  printf("statistics: ");
  zs_plan_stats(p, stat_text, &k);
  const int trial = info->trial[0] != '\0';
  printf("\ncandidates:\n  %-6s %-24s %-18s %10s %8s %12s %9s%s  %s\n", "format", "options",
         "op_options", "MB", "B/nnz", "predicted us", "encode s", trial ? "  measured us" : "",
         "bound");
  for (int i = 0; i < info->candidates; i++) {
    zs_plan_candidate c;
    zs_plan_candidate_get(p, i, &c);
    char measured[24] = "";
    if (trial && c.measured_us > 0)
      snprintf(measured, sizeof measured, "  %11.1f", c.measured_us);
    else if (trial)
      snprintf(measured, sizeof measured, "  %11s", "-");
    printf("%c %-6s %-24s %-18s %10.2f %8.3f %12.1f %9.3f%s  %s\n", i == info->choice ? '*' : ' ',
           zs_format_name(c.format), c.options[0] ? c.options : "-",
           c.op_options[0] ? c.op_options : "-", c.predicted_bytes / 1e6,
           nnz ? c.predicted_bytes / (double)nnz : 0.0, c.predicted_us, c.encode_s, measured,
           c.bound);
  }
  printf("reason:     %s\n", info->reason);
  if (trial) printf("trial:      %s\n", info->trial);
  printf("planned in: %.3f s\n", plan_s);
}

int zs_cli_plan(int argc, char **argv) {
  zs_cli_opt opts[] = {{"backend", 'b', 1, NULL},   {"type", 0, 1, NULL},
                       {"workload", 'w', 1, NULL},  {"device", 0, 1, NULL},
                       {"calibration", 0, 1, NULL}, {"options", 0, 1, NULL},
                       {"json", 0, 0, NULL},        {"tune", 0, 1, NULL}};
  const int n_opts = (int)(sizeof opts / sizeof *opts);
  const char *pos[1];
  int n_pos, help;
  int rc = zs_cli_parse("plan", argc, argv, opts, n_opts, pos, 1, &n_pos, &help);
  if (rc) return rc;
  if (help) {
    fputs(help_text, stdout);
    return ZS_CLI_OK;
  }
  if (n_pos != 1) {
    zs_cli_usage_error("plan", "expected one FILE, ZSM or gen:SPEC");
    return ZS_CLI_USAGE;
  }
  const char *type_s = zs_cli_get(opts, n_opts, "type");
  zs_type type = ZS_F64;
  if (type_s && zs_cli_parse_type(type_s, &type)) {
    zs_cli_usage_error("plan", "--type must be f32 or f64, not '%s'", type_s);
    return ZS_CLI_USAGE;
  }
  const char *path = pos[0];
  const char *backend = zs_cli_get(opts, n_opts, "backend");
  zs_context *ctx = NULL;
  zs_matrix *A = NULL;
  zs_plan *p = NULL;
  zs_status s = ZS_OK;
  char *o = NULL;
  if (!backend) { /* this machine's default, as spmv and solve take it */
    if ((s = zs_context_create(&ctx)) != ZS_OK) goto fail;
    backend = zs_context_default_backend(ctx);
  }
  o = plan_options(backend, zs_cli_get(opts, n_opts, "workload"),
                   zs_cli_get(opts, n_opts, "device"), zs_cli_get(opts, n_opts, "calibration"),
                   zs_cli_get(opts, n_opts, "tune"), zs_cli_get(opts, n_opts, "options"));
  if (!o) {
    fprintf(stderr, "zsparse plan: out of memory\n");
    zs_context_destroy(&ctx);
    return ZS_CLI_FAIL;
  }
  /* A bad option is a usage error, found before the matrix is read. */
  if ((s = zs_plan_check_options(o)) == ZS_ERR_INVALID_ARGUMENT) {
    zs_cli_usage_error("plan", "%s", zs_last_error());
    free(o), zs_context_destroy(&ctx);
    return ZS_CLI_USAGE;
  }
  if (s != ZS_OK) goto fail;
  if (zs_cli_is_zsm(path)) {
    zs_encoded *E = NULL;
    if ((s = zs_encoded_load(&E, path)) == ZS_OK) s = zs_decode(&A, E);
    zs_encoded_destroy(&E);
  } else {
    s = zs_cli_read_matrix(&A, path, type);
  }
  if (s != ZS_OK) goto fail;
  const double t0 = zs_cli_now();
  if ((s = zs_plan_create(&p, A, o)) != ZS_OK) goto fail;
  const double plan_s = zs_cli_now() - t0;
  zs_plan_info info;
  zs_plan_get_info(p, &info);
  if (zs_cli_get(opts, n_opts, "json"))
    print_json(path, A, p, &info, plan_s);
  else
    print_text(path, A, p, &info, plan_s);
  zs_plan_destroy(&p), zs_matrix_destroy(&A), zs_context_destroy(&ctx), free(o);
  return ZS_CLI_OK;
fail:
  zs_cli_lib_error("plan", s);
  zs_plan_destroy(&p), zs_matrix_destroy(&A), zs_context_destroy(&ctx), free(o);
  return ZS_CLI_FAIL;
}
