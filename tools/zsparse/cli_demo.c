/* cli_demo.c — `zsparse demo`: every known format on the best backend, sizes, speed and checks. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "zsparse_auto.h"

#define DEMO_SPEC "stencil2d:n=1024,points=5"
#define DEMO_MSG 256

static const char help_text[] =
    "usage: zsparse demo [--backend B] [--spec SPEC] [--type f32|f64] [--repeat K] [--json]\n"
    "\n"
    "Generates a matrix (default " DEMO_SPEC
    ": the 2-D 5-point Laplacian on a\n"
    "1024 x 1024 grid, 1048576 rows, about 5.2M nonzeros), encodes it first as --format auto\n"
    "chooses for SpMV on the backend (zsparse plan: the format, its options and operator\n"
    "options; the row 'auto', with the choice and its reason under the table), then in every\n"
    "sparse format with its default options, runs SpMV (y = A x) and SpMVT (y = A^T x) on the\n"
    "backend and checks both against the host long double reference exactly as `zsparse spmv\n"
    "--check` does. Prints one row per format: bytes per nonzero and size relative to CSR; median "
    "SpMV\n"
    "and SpMVT time in ms, each with its speed-up against CSR on the same backend (CSR's time\n"
    "/ the format's: above 1 is faster); the larger max_rel_err of the two; ok/FAIL. A format\n"
    "whose defaults are made for GPUs is marked and footnoted. Formats that cannot run here\n"
    "(not sparse-matrix formats, or no kernel on the backend) are named under the table with\n"
    "the reason; the line 'auto:' says what --format auto chooses for SpMV here (zsparse\n"
    "plan). A format whose decoded matrix differs from the input (a lossy format) is checked\n"
    "against its decoded matrix and marked 'lossy'. Exits 1 when any check or run fails.\n"
    "\n"
    "options:\n"
    "  -b, --backend B    backend (default: $ZS_BACKEND, else the best usable: cuda > hip > cpu)\n"
    "  --spec SPEC        generator spec (see zsparse gen --help; default " DEMO_SPEC
    ")\n"
    "  --type f32|f64     value type (default f64)\n"
    "  -r, --repeat K     timed repetitions per product (default 10)\n"
    "  --json             one JSON object: spec, type, backend, rows, cols, nnz, formats[{format,\n"
    "                     status (ok|FAIL|skipped), reason, note, bytes, bytes_per_nnz,\n"
    "                     size_vs_csr, exact, spmv{time_median_s, speedup_vs_csr, gbps,\n"
    "                     max_rel_err, tolerance, ok}, spmvt{...}}], auto{format, options,\n"
    "                     op_options, reason, status, bytes, bytes_per_nnz, size_vs_csr,\n"
    "                     spmv{...}, spmvt{...}} (what --format auto runs: zsparse plan),\n"
    "                     ok (gbps counts encoded bytes + x + y per product)\n";

/* Formats whose default options are chosen for GPUs, and what to use on a CPU instead (the
 * table breaks the line after its first "; "). */
static const struct {
  zs_format format;
  const char *note;
} gpu_defaults[] = {
    {ZS_FORMAT_CCI,
     "cci's default slices=8 (a row's codes in 8 streams, one per GPU thread) is "
     "its GPU layout; on a CPU slices=1 is smaller and faster: "
     "zsparse spmv FILE -f cci --options slices=1"},
};

static const char *gpu_default_note(zs_format f) {
  for (size_t i = 0; i < sizeof gpu_defaults / sizeof *gpu_defaults; i++)
    if (gpu_defaults[i].format == f) return gpu_defaults[i].note;
  return NULL;
}

typedef struct demo_row {
  zs_format format;
  const char *status; /* "ok", "FAIL", "skipped" */
  char reason[DEMO_MSG];
  uint64_t bytes;
  int exact;
  zs_cli_measure n, t;
} demo_row;

static int same_matrix(const zs_matrix *A, const zs_matrix *B) {
  if (zs_matrix_rows(A) != zs_matrix_rows(B) || zs_matrix_cols(A) != zs_matrix_cols(B) ||
      zs_matrix_nnz(A) != zs_matrix_nnz(B) || zs_matrix_type(A) != zs_matrix_type(B))
    return 0;
  const int64_t *ra, *rb;
  const int32_t *ca, *cb;
  const void *va, *vb;
  zs_matrix_csr(A, &ra, &ca, &va);
  zs_matrix_csr(B, &rb, &cb, &vb);
  const size_t rows = (size_t)zs_matrix_rows(A), nnz = (size_t)zs_matrix_nnz(A);
  return memcmp(ra, rb, (rows + 1) * sizeof *ra) == 0 && memcmp(ca, cb, nnz * sizeof *ca) == 0 &&
         memcmp(va, vb, nnz * zs_type_size(zs_matrix_type(A))) == 0;
}

static void set_reason(demo_row *r, const char *status, zs_status s) {
  r->status = status;
  const char *msg = zs_last_error();
  snprintf(r->reason, sizeof r->reason, "%s", msg && *msg ? msg : zs_status_name(s));
}

/* Encode (with the plan's choice when plan is given, else r->format's defaults), upload and
 * measure one format; fills r. Returns 0, or 1 for a failure. */
static int demo_format(zs_context *ctx, const char *backend, const zs_matrix *A, int repeat,
                       const zs_plan *plan, const char *op_options, demo_row *r) {
  zs_encoded *E = NULL;
  zs_matrix *D = NULL;
  zs_operator *op = NULL;
  const zs_matrix *ref = A;
  int failed = 0;
  zs_status s = plan ? zs_plan_encode(&E, plan, A) : zs_encode(&E, A, r->format, NULL);
  if (s != ZS_OK) {
    set_reason(r, s == ZS_ERR_UNSUPPORTED ? "skipped" : "FAIL", s);
    return s != ZS_ERR_UNSUPPORTED;
  }
  r->bytes = zs_encoded_bytes(E);
  if ((s = zs_decode(&D, E)) != ZS_OK) {
    set_reason(r, "FAIL", s);
    failed = 1;
    goto done;
  }
  r->exact = same_matrix(A, D);
  if (!r->exact) ref = D;
  if ((s = zs_operator_create(&op, ctx, E, backend, op_options)) != ZS_OK) {
    set_reason(r, s == ZS_ERR_UNSUPPORTED ? "skipped" : "FAIL", s);
    failed = s != ZS_ERR_UNSUPPORTED;
    goto done;
  }
  r->n = (zs_cli_measure){.op = ZS_OP_N, .repeat = repeat, .check = 1, .seed = 1};
  r->t = (zs_cli_measure){.op = ZS_OP_T, .repeat = repeat, .check = 1, .seed = 2};
  if ((s = zs_cli_measure_run("demo", ctx, op, E, ref, &r->n)) != ZS_OK ||
      (s = zs_cli_measure_run("demo", ctx, op, E, ref, &r->t)) != ZS_OK) {
    set_reason(r, "FAIL", s);
    failed = 1;
    goto done;
  }
  failed = !r->n.check_ok || !r->t.check_ok;
  r->status = failed ? "FAIL" : "ok";
done:
  zs_operator_destroy(&op);
  zs_matrix_destroy(&D);
  zs_encoded_destroy(&E);
  return failed;
}

/* CSR's median time / this one's, on the same backend; 0 when either is missing. */
static double speedup(const zs_cli_measure *csr, const zs_cli_measure *m) {
  return csr->time_median_s > 0.0 && m->time_median_s > 0.0 ? csr->time_median_s / m->time_median_s
                                                            : 0.0;
}

/* One row of the table. */
static void print_row(const demo_row *r, const char *name, int64_t nnz, uint64_t csr_bytes,
                      const demo_row *csr) {
  if (strcmp(r->status, "ok") == 0 || (r->n.repeat && r->t.repeat && !r->reason[0])) {
    const double err = r->n.max_rel_err > r->t.max_rel_err ? r->n.max_rel_err : r->t.max_rel_err;
    printf("%-9s %7.3f %7.3f   %9.3f %8.2fx   %9.3f %8.2fx %12.2e  %s%s\n", name,
           nnz ? (double)r->bytes / (double)nnz : 0.0,
           csr_bytes ? (double)r->bytes / (double)csr_bytes : 0.0, 1e3 * r->n.time_median_s,
           csr ? speedup(&csr->n, &r->n) : 0.0, 1e3 * r->t.time_median_s,
           csr ? speedup(&csr->t, &r->t) : 0.0, err, r->status, r->exact ? "" : " (lossy)");
  } else {
    printf("%-9s %s: %s\n", name, r->status, r->reason);
  }
  fflush(stdout);
}

static void json_measure(zs_json *j, const char *key, const zs_cli_measure *m,
                         const zs_cli_measure *csr) {
  zs_json_object(j, key);
  zs_json_num(j, "time_median_s", m->time_median_s);
  zs_json_num(j, "speedup_vs_csr", speedup(csr, m));
  zs_json_num(j, "gbps", m->gbps);
  zs_json_num(j, "max_rel_err", m->max_rel_err);
  zs_json_num(j, "tolerance", m->tolerance);
  zs_json_bool(j, "ok", m->check_ok);
  zs_json_object_end(j);
}

int zs_cli_demo(int argc, char **argv) {
  zs_cli_opt opts[] = {{"backend", 'b', 1, NULL},
                       {"spec", 0, 1, NULL},
                       {"type", 0, 1, NULL},
                       {"repeat", 'r', 1, NULL},
                       {"json", 0, 0, NULL}};
  const int n_opts = (int)(sizeof opts / sizeof *opts);
  const char *pos[1];
  int n_pos, help;
  int rc = zs_cli_parse("demo", argc, argv, opts, n_opts, pos, 0, &n_pos, &help);
  if (rc) return rc;
  if (help) {
    fputs(help_text, stdout);
    return ZS_CLI_OK;
  }
  const char *spec = zs_cli_get(opts, n_opts, "spec");
  const char *type_s = zs_cli_get(opts, n_opts, "type");
  const char *repeat_s = zs_cli_get(opts, n_opts, "repeat");
  const int json = zs_cli_get(opts, n_opts, "json") != NULL;
  if (!spec) spec = DEMO_SPEC;
  zs_type type = ZS_F64;
  if (type_s && zs_cli_parse_type(type_s, &type)) {
    zs_cli_usage_error("demo", "--type must be f32 or f64, not '%s'", type_s);
    return ZS_CLI_USAGE;
  }
  int64_t repeat = 10;
  if (repeat_s && zs_cli_parse_int(repeat_s, 1, 1000000, &repeat)) {
    zs_cli_usage_error("demo", "--repeat must be an integer in [1, 1000000], not '%s'", repeat_s);
    return ZS_CLI_USAGE;
  }

  zs_context *ctx = NULL;
  zs_matrix *A = NULL;
  zs_status s = zs_context_create(&ctx);
  if (s == ZS_OK) s = zs_matrix_generate(&A, spec, type, zs_cli_progress());
  if (s != ZS_OK) {
    zs_cli_lib_error("demo", s);
    zs_context_destroy(&ctx);
    return ZS_CLI_FAIL;
  }
  const char *backend = zs_cli_get(opts, n_opts, "backend");
  if (!backend) backend = zs_context_default_backend(ctx);
  const int64_t nnz = zs_matrix_nnz(A);

  demo_row rows[16];
  int n_rows = 0, failures = 0;
  if (!json) {
    zs_topology topo;
    zs_context_topology(ctx, &topo);
    printf("zsparse demo: %s -> %lld x %lld, %lld nnz, %s; backend %s", spec,
           (long long)zs_matrix_rows(A), (long long)zs_matrix_cols(A), (long long)nnz,
           zs_type_name(type), backend);
    if (strcmp(backend, "cpu") == 0) printf(" (%d threads)", topo.threads);
    printf("; median of %d runs\n\n", (int)repeat);
    printf("%-9s %15s   %19s   %19s\n", "", "----- size -----", "------ SpMV ------",
           "------ SpMVT -----");
    printf("%-9s %7s %7s   %9s %9s   %9s %9s %12s  %s\n", "format", "B/nnz", "vs CSR", "ms",
           "speed-up", "ms", "speed-up", "max_rel_err", "check");
    fflush(stdout);
  }
  uint64_t csr_bytes = 0;
  const demo_row *csr = NULL;
  int n_notes = 0;
  /* What auto chooses here for SpMV, timed first; its row is printed once CSR's is known. */
  zs_plan *plan = NULL;
  zs_plan_info pi = {0};
  zs_plan_candidate pc = {0};
  demo_row auto_row;
  memset(&auto_row, 0, sizeof auto_row);
  auto_row.status = "FAIL";
  if ((s = zs_cli_plan_make(&plan, A, backend, "spmv", NULL)) == ZS_OK) {
    zs_plan_get_info(plan, &pi);
    zs_plan_candidate_get(plan, pi.choice, &pc);
    auto_row.format = pc.format;
    failures += demo_format(ctx, backend, A, (int)repeat, plan, pc.op_options, &auto_row);
  } else {
    set_reason(&auto_row, "FAIL", s);
    failures++;
  }
  for (int f = 1; zs_format_name((zs_format)f) && n_rows < 16; f++) {
    demo_row *r = &rows[n_rows++];
    memset(r, 0, sizeof *r);
    r->format = (zs_format)f;
    failures += demo_format(ctx, backend, A, (int)repeat, NULL, NULL, r);
    if (r->format == ZS_FORMAT_CSR) csr_bytes = r->bytes, csr = r;
    if (json) continue;
    if (r->format == ZS_FORMAT_CSR) print_row(&auto_row, "auto", nnz, csr_bytes, csr);
    /* Rows that did not run are listed under the table, not as formats. */
    if (strcmp(r->status, "skipped") == 0) continue;
    char name[16];
    const int noted = gpu_default_note(r->format) != NULL;
    snprintf(name, sizeof name, "%s%s", zs_format_name(r->format), noted ? " *" : "");
    n_notes += noted;
    print_row(r, name, nnz, csr_bytes, csr);
  }
  if (json) {
    zs_json j;
    zs_json_begin(&j, stdout);
    zs_json_str(&j, "spec", spec);
    zs_json_str(&j, "type", zs_type_name(type));
    zs_json_str(&j, "backend", backend);
    zs_json_int(&j, "rows", zs_matrix_rows(A));
    zs_json_int(&j, "cols", zs_matrix_cols(A));
    zs_json_int(&j, "nnz", nnz);
    zs_json_int(&j, "repeat", repeat);
    zs_json_array(&j, "formats");
    for (int i = 0; i < n_rows; i++) {
      const demo_row *r = &rows[i];
      zs_json_object(&j, NULL);
      zs_json_str(&j, "format", zs_format_name(r->format));
      zs_json_str(&j, "status", r->status);
      zs_json_str(&j, "reason", r->reason[0] ? r->reason : NULL);
      if (r->bytes) {
        zs_json_int(&j, "bytes", (int64_t)r->bytes);
        zs_json_num(&j, "bytes_per_nnz", nnz ? (double)r->bytes / (double)nnz : 0.0);
        zs_json_num(&j, "size_vs_csr", csr_bytes ? (double)r->bytes / (double)csr_bytes : 0.0);
        zs_json_bool(&j, "exact", r->exact);
      }
      zs_json_str(&j, "note", gpu_default_note(r->format));
      if (r->n.repeat) json_measure(&j, "spmv", &r->n, csr ? &csr->n : &r->n);
      if (r->t.repeat) json_measure(&j, "spmvt", &r->t, csr ? &csr->t : &r->t);
      zs_json_object_end(&j);
    }
    zs_json_array_end(&j);
    zs_json_object(&j, "auto");
    zs_json_str(&j, "format", plan ? zs_format_name(pc.format) : NULL);
    zs_json_str(&j, "options", plan ? pc.options : NULL);
    zs_json_str(&j, "op_options", plan ? pc.op_options : NULL);
    zs_json_str(&j, "reason", plan ? pi.reason : auto_row.reason);
    zs_json_str(&j, "status", auto_row.status);
    if (auto_row.bytes) {
      zs_json_int(&j, "bytes", (int64_t)auto_row.bytes);
      zs_json_num(&j, "bytes_per_nnz", nnz ? (double)auto_row.bytes / (double)nnz : 0.0);
      zs_json_num(&j, "size_vs_csr", csr_bytes ? (double)auto_row.bytes / (double)csr_bytes : 0.0);
    }
    if (auto_row.n.repeat) json_measure(&j, "spmv", &auto_row.n, csr ? &csr->n : &auto_row.n);
    if (auto_row.t.repeat) json_measure(&j, "spmvt", &auto_row.t, csr ? &csr->t : &auto_row.t);
    zs_json_object_end(&j);
    zs_json_bool(&j, "ok", failures == 0);
    zs_json_end(&j);
  } else {
    printf("\nspeed-up: CSR's median time / the format's, both on %s (above 1: faster than CSR)\n",
           backend);
    if (plan)
      printf("auto: %s%s%s%s%s (zsparse plan: %s)\n", zs_format_name(pc.format),
             pc.options[0] ? " " : "", pc.options, pc.op_options[0] ? " " : "", pc.op_options,
             pi.reason);
    else
      printf("auto: no plan: %s\n", auto_row.reason);
    if (n_notes)
      for (int i = 0; i < n_rows; i++)
        if (gpu_default_note(rows[i].format) && strcmp(rows[i].status, "skipped") != 0) {
          const char *note = gpu_default_note(rows[i].format), *cut = strstr(note, "; ");
          printf("* %.*s\n  %s\n", (int)(cut ? cut + 1 - note : (ptrdiff_t)strlen(note)), note,
                 cut ? cut + 2 : "");
        }
    for (int i = 0; i < n_rows; i++)
      if (strcmp(rows[i].status, "skipped") == 0)
        printf("not run: %s: %s\n", zs_format_name(rows[i].format), rows[i].reason);
    printf("\n%s\n", failures ? "FAILED: see the rows marked FAIL" : "all checks passed");
  }
  zs_plan_destroy(&plan);
  zs_matrix_destroy(&A);
  zs_context_destroy(&ctx);
  return failures ? ZS_CLI_FAIL : ZS_CLI_OK;
}
