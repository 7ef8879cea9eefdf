/* cli_solve.c — `zsparse solve`: CG, BiCG or BiCGSTAB on any format and backend, with timing. */
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "zsparse_solvers.h"

static const char help_text[] =
    "usage: zsparse solve FILE|ZSM|gen:SPEC [--method bicg|bicgstab|cg] [--format F]\n"
    "                     [--backend B] [--tol T] [--maxit N] [--rhs ones|random|known|FILE]\n"
    "                     [--precond none|jacobi] [--dominant MARGIN] [--type f32|f64]\n"
    "                     [--seed S] [--options K=V,...] [--op-options K=V,...] [--every K]\n"
    "                     [--json]\n"
    "\n"
    "Solves A x = b from x = 0 with a Krylov method written on the public API (zs_spmv and the\n"
    "vector BLAS-1), so it runs on every backend and format. A comes from a Matrix Market file,\n"
    "a .zsm container (used as it is) or a generator spec after 'gen:' (docs/generators.md).\n"
    "It stops when the recurrence residual ||r_k||/||b|| <= T or after N iterations, and prints\n"
    "the residual history, the true residual ||b - A x||/||b|| recomputed at the end, and the\n"
    "times: setup (read, encode, upload, preconditioner) and solve (wall time to the last\n"
    "iterate, the backend synchronised). It reports 'converged' only when the true residual\n"
    "meets T too: in finite precision the recurrence can drift below what x achieves, and a\n"
    "T under the value type's unit roundoff (f32 2^-24 = 6e-8, f64 2^-53 = 1.1e-16) cannot be\n"
    "met at all (a warning says so before the solve).\n"
    "\n"
    "Right-hand sides: ones (b = 1), random (uniform in [-1, 1], seeded), known (x* uniform in\n"
    "[-1, 1], b = A x* on the backend; ||x - x*||/||x*|| is reported), or FILE: whitespace-\n"
    "separated numbers, '%' lines skipped, with an optional Matrix Market 'array' size line.\n"
    "\n"
    "exit status: 0 converged (true residual <= T); 1 not converged, breakdown or error;\n"
    "2 usage error.\n"
    "\n"
    "options:\n"
    "  -m, --method M        bicg (one SpMV + one SpMVT per iteration), bicgstab (two SpMVs),\n"
    "                        cg (symmetric positive definite A; one SpMV); default bicgstab\n"
    "  -f, --format F        csr, coo, ... or auto (default auto: `zsparse plan`'s choice for\n"
    "                        the backend, BiCG's pairs or the SpMVs of --maxit iterations,\n"
    "                        with its operator options unless --op-options are given, and\n"
    "                        --options then taking planner options, e.g. tune=trial:200;\n"
    "                        for a .zsm its format)\n"
    "  -b, --backend B       ref, cpu, cuda, hip (default: $ZS_BACKEND, else cuda > hip > cpu)\n"
    "  --tol T               relative residual to reach (default 1e-8 for f64, 1e-5 for f32)\n"
    "  --maxit N             iteration limit (default 1000)\n"
    "  --rhs R               ones (default), random, known or FILE (see above)\n"
    "  --precond P           none (default) or jacobi (diag(A)^-1 as a CSR operator)\n"
    "  --dominant MARGIN     replace each diagonal by sum_j|a_ij| + MARGIN first (makes random\n"
    "                        matrices solvable; the matrix stays nonsymmetric)\n"
    "  --type f32|f64        value type (default f64; for a .zsm its type)\n"
    "  --seed S              seed of random/known right-hand sides (default 1)\n"
    "  --options K=V,...     encoder options of the format\n" ZS_CLI_OP_OPTIONS_HELP
    "  --every K             print every K-th residual of the history (default 1; the last is\n"
    "                        always printed)\n"
    "  --json                one JSON object: matrix, method, format, note (what auto chose and\n"
    "                        why, or \"\"), backend, type, rows, nnz,\n"
    "                        encoded_bytes, precond, rhs, tol, maxit, status, stop_reason,\n"
    "                        converged (the true residual met tol), iterations, rel_residual,\n"
    "                        true_rel_residual, error_vs_known (null\n"
    "                        unless --rhs known), spmv, spmvt, setup_s, solve_s,\n"
    "                        time_per_iter_s, message (why not converged, or \"\"), history\n"
    "                        (every residual)\n";

/* Read b from a text file: n numbers, or "n 1" (a Matrix Market array size line) and n; '%'
 * starts a comment line. Numbers are read token by token, so no line is too long, and the input
 * ends in an error once it holds more numbers or bytes than b can need (/dev/zero, an endless
 * pipe). */
static int read_rhs(const char *path, int64_t n, double *b) {
  FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "r");
  if (!f) {
    fprintf(stderr, "zsparse solve: cannot open --rhs %s: %s\n", path, strerror(errno));
    return -1;
  }
  const uint64_t max_bytes = 256 * ((uint64_t)n + 2) + (UINT64_C(64) << 20);
  uint64_t bytes = 0;
  int64_t got = 0, line_no = 1;
  double head[2] = {0, 0};
  const char *bad = NULL;
  char tok[4097];
  size_t len = 0;
  int c = getc(f), line_start = 1;
  while (c != EOF && !bad) {
    len = 0;
    if (++bytes > max_bytes) {
      bad = "more bytes than the right-hand side can need";
      break;
    }
    if (c == '\n' || c == ' ' || c == '\t' || c == '\r') {
      if (c == '\n') line_no++;
      line_start = c == '\n';
      c = getc(f);
      continue;
    }
    if (c == '%' && line_start) {
      while (c != EOF && c != '\n' && ++bytes <= max_bytes) c = getc(f);
      continue;
    }
    line_start = 0;
    while (c != EOF && c != ' ' && c != '\t' && c != '\r' && c != '\n' && c != '\0' &&
           len < sizeof tok - 1)
      tok[len++] = (char)c, c = getc(f), bytes++;
    tok[len] = '\0';
    char *end = tok;
    const double d = len ? strtod(tok, &end) : 0;
    if (c == '\0')
      bad = "a NUL byte where a number was expected";
    else if (len == sizeof tok - 1)
      bad = "a token longer than 4096 characters";
    else if (*end || strpbrk(tok, "xX"))
      bad = "not a decimal number";
    else if (got >= n + 2)
      bad = "more numbers than the matrix has rows";
    else {
      if (got < 2) head[got] = d;
      /* Two extra slots hold a possible size line until the count is known. */
      if (got >= 2 && got - 2 < n) b[got - 2] = d;
      got++;
    }
  }
  if (bad)
    fprintf(stderr, "zsparse solve: --rhs %s line %lld: %s%s%.40s\n", path, (long long)line_no, bad,
            len ? ": " : "", len ? tok : "");
  if (ferror(f) && !bad) {
    fprintf(stderr, "zsparse solve: --rhs %s: read failed: %s\n", path, strerror(errno));
    bad = "read";
  }
  if (f != stdin) fclose(f);
  if (bad) return -1;
  if (got == n + 2 && head[0] == (double)n && head[1] == 1.0) {
    got = n;
  } else if (got == n) {
    /* No size line: shift the values into place. */
    for (int64_t i = n - 1; i >= 2; i--) b[i] = b[i - 2];
    for (int64_t i = 0; i < 2 && i < n; i++) b[i] = head[i];
  }
  if (got != n) {
    fprintf(stderr, "zsparse solve: --rhs %s holds %lld numbers; the matrix has %lld rows\n", path,
            (long long)got, (long long)n);
    return -1;
  }
  for (int64_t i = 0; i < n; i++)
    if (!isfinite(b[i])) {
      fprintf(stderr, "zsparse solve: --rhs %s: entry %lld is not finite\n", path,
              (long long)i + 1);
      return -1;
    }
  return 0;
}

/* Host values (double) to a vector of any type. */
static zs_status upload_doubles(zs_vector *v, const double *h, zs_type t, int64_t n) {
  if (t == ZS_F64) return zs_vector_upload(v, h);
  float *f = malloc((size_t)(n ? n : 1) * sizeof *f);
  if (!f) return ZS_ERR_OUT_OF_MEMORY;
  for (int64_t i = 0; i < n; i++) f[i] = (float)h[i];
  zs_status s = zs_vector_upload(v, f);
  free(f);
  return s;
}

int zs_cli_solve(int argc, char **argv) {
  zs_cli_opt opts[] = {
      {"method", 'm', 1, NULL}, {"format", 'f', 1, NULL}, {"backend", 'b', 1, NULL},
      {"tol", 0, 1, NULL},      {"maxit", 0, 1, NULL},    {"rhs", 0, 1, NULL},
      {"precond", 0, 1, NULL},  {"dominant", 0, 1, NULL}, {"type", 0, 1, NULL},
      {"seed", 0, 1, NULL},     {"options", 0, 1, NULL},  {"op-options", 0, 1, NULL},
      {"every", 0, 1, NULL},    {"json", 0, 0, NULL}};
  const int n_opts = (int)(sizeof opts / sizeof *opts);
  const char *pos[1];
  int n_pos, help;
  int rc = zs_cli_parse("solve", argc, argv, opts, n_opts, pos, 1, &n_pos, &help);
  if (rc) return rc;
  if (help) {
    fputs(help_text, stdout);
    zs_cli_print_op_options(stdout);
    return ZS_CLI_OK;
  }
  if (n_pos != 1) {
    zs_cli_usage_error("solve", "expected one FILE, ZSM or gen:SPEC");
    return ZS_CLI_USAGE;
  }
  const char *method_s = zs_cli_get(opts, n_opts, "method");
  const char *fmt_s = zs_cli_get(opts, n_opts, "format");
  const char *backend = zs_cli_get(opts, n_opts, "backend");
  const char *tol_s = zs_cli_get(opts, n_opts, "tol");
  const char *maxit_s = zs_cli_get(opts, n_opts, "maxit");
  const char *rhs_s = zs_cli_get(opts, n_opts, "rhs");
  const char *precond_s = zs_cli_get(opts, n_opts, "precond");
  const char *dominant_s = zs_cli_get(opts, n_opts, "dominant");
  const char *type_s = zs_cli_get(opts, n_opts, "type");
  const char *seed_s = zs_cli_get(opts, n_opts, "seed");
  const char *enc_opts = zs_cli_get(opts, n_opts, "options");
  const char *op_opts = zs_cli_get(opts, n_opts, "op-options");
  const char *every_s = zs_cli_get(opts, n_opts, "every");
  const int json = zs_cli_get(opts, n_opts, "json") != NULL;

  zs_solver_options so;
  zs_solver_options_init(&so);
  zs_format format = ZS_FORMAT_AUTO;
  zs_type type = ZS_F64;
  int64_t v, every = 1;
  uint64_t seed = 1;
  double margin = 0.0;
  int jacobi = 0;
  if (method_s && zs_solver_method_from_name(method_s, &so.method) != ZS_OK) {
    zs_cli_usage_error("solve", "--method must be bicg, bicgstab or cg, not '%s'", method_s);
    return ZS_CLI_USAGE;
  }
  if (fmt_s && zs_format_from_name(fmt_s, &format) != ZS_OK) {
    zs_cli_usage_error("solve", "%s", zs_last_error());
    return ZS_CLI_USAGE;
  }
  if (tol_s) {
    char *end;
    so.tol = strtod(tol_s, &end);
    if (*tol_s == '\0' || *end != '\0' || !(so.tol > 0.0) || !isfinite(so.tol)) {
      zs_cli_usage_error("solve", "--tol must be a positive number, not '%s'", tol_s);
      return ZS_CLI_USAGE;
    }
  }
  if (maxit_s) {
    if (zs_cli_parse_int(maxit_s, 0, INT32_MAX, &v)) {
      zs_cli_usage_error("solve", "--maxit must be an integer in [0, 2^31-1], not '%s'", maxit_s);
      return ZS_CLI_USAGE;
    }
    so.max_iter = v;
  }
  if (precond_s) {
    if (strcmp(precond_s, "jacobi") == 0) {
      jacobi = 1;
    } else if (strcmp(precond_s, "none") != 0) {
      zs_cli_usage_error("solve", "--precond must be none or jacobi, not '%s'", precond_s);
      return ZS_CLI_USAGE;
    }
  }
  if (dominant_s) {
    char *end;
    margin = strtod(dominant_s, &end);
    if (*dominant_s == '\0' || *end != '\0' || !(margin > 0.0) || !isfinite(margin)) {
      zs_cli_usage_error("solve", "--dominant must be a positive number, not '%s'", dominant_s);
      return ZS_CLI_USAGE;
    }
  }
  if (type_s && zs_cli_parse_type(type_s, &type)) {
    zs_cli_usage_error("solve", "--type must be f32 or f64, not '%s'", type_s);
    return ZS_CLI_USAGE;
  }
  if (seed_s) {
    if (zs_cli_parse_int(seed_s, 0, INT64_MAX, &v)) {
      zs_cli_usage_error("solve", "--seed must be a non-negative integer, not '%s'", seed_s);
      return ZS_CLI_USAGE;
    }
    seed = (uint64_t)v;
  }
  if (every_s && zs_cli_parse_int(every_s, 1, INT32_MAX, &every)) {
    zs_cli_usage_error("solve", "--every must be a positive integer, not '%s'", every_s);
    return ZS_CLI_USAGE;
  }
  if (!rhs_s) rhs_s = "ones";

  const char *path = pos[0];
  zs_context *ctx = NULL;
  zs_matrix *A = NULL, *Ad = NULL;
  zs_encoded *E = NULL;
  zs_operator *op = NULL, *M = NULL;
  zs_vector *b = NULL, *x = NULL, *xs = NULL;
  double *hb = NULL, *hist = NULL;
  int result = ZS_CLI_FAIL;
  const double t_setup = zs_cli_now();
  zs_status s = zs_context_create(&ctx);
  if (s != ZS_OK) goto lib_error;
  if (zs_cli_is_zsm(path)) {
    if ((s = zs_encoded_load(&E, path)) != ZS_OK) goto lib_error;
    if ((fmt_s && format != ZS_FORMAT_AUTO && format != zs_encoded_format(E)) ||
        (type_s && type != zs_encoded_type(E)) || enc_opts) {
      zs_cli_usage_error("solve", "%s holds %s %s; --format, --type and --options do not apply",
                         path, zs_format_name(zs_encoded_format(E)),
                         zs_type_name(zs_encoded_type(E)));
      result = ZS_CLI_USAGE;
      goto done;
    }
    format = zs_encoded_format(E);
    type = zs_encoded_type(E);
    if ((jacobi || margin > 0.0) && (s = zs_decode(&A, E)) != ZS_OK) goto lib_error;
    if (margin > 0.0) zs_encoded_destroy(&E);
  } else if ((s = zs_cli_read_matrix(&A, path, type)) != ZS_OK) {
    goto lib_error;
  }
  if (margin > 0.0) {
    if ((s = zs_matrix_make_dominant(&Ad, A, margin)) != ZS_OK) goto lib_error;
    zs_matrix_destroy(&A);
    A = Ad, Ad = NULL;
  }
  zs_cli_choice chosen = {"", ""};
  if (!E && format == ZS_FORMAT_AUTO) {
    /* BiCG runs a pair per iteration, the others SpMVs; the encode spread over --maxit */
    char work[48];
    const int64_t calls = so.max_iter < 1 ? 1 : so.max_iter > 400000000 ? 400000000 : so.max_iter;
    if (so.method == ZS_SOLVER_BICG)
      snprintf(work, sizeof work, "solve:%lld", (long long)calls);
    else
      snprintf(work, sizeof work, "spmv:%lld",
               (long long)(so.method == ZS_SOLVER_BICGSTAB ? 2 * calls : calls));
    if ((s = zs_cli_auto_encode(A, backend ? backend : zs_context_default_backend(ctx), work,
                                enc_opts, &E, &chosen)) != ZS_OK)
      goto lib_error;
    if (!op_opts) op_opts = chosen.op_options;
  }
  if (!E && (s = zs_encode(&E, A, format, enc_opts)) != ZS_OK) goto lib_error;
  format = zs_encoded_format(E);
  /* f32 holds ~7 digits: its default stops where the true residual can still follow. */
  if (!tol_s) so.tol = type == ZS_F32 ? 1e-5 : 1e-8;
  const double unit_roundoff = 0.5 * (type == ZS_F32 ? (double)FLT_EPSILON : DBL_EPSILON);
  if (so.tol < unit_roundoff)
    fprintf(stderr,
            "zsparse solve: warning: --tol %.1e is below %s's unit roundoff %.1e; the true "
            "residual cannot be expected to reach it (use a larger --tol%s)\n",
            so.tol, zs_type_name(type), unit_roundoff, type == ZS_F32 ? " or --type f64" : "");
  const int64_t n = zs_encoded_rows(E);
  if (zs_encoded_cols(E) != n) {
    fprintf(stderr, "zsparse solve: %s is %lld x %lld; a solver needs a square matrix\n", path,
            (long long)n, (long long)zs_encoded_cols(E));
    goto done;
  }
  if ((s = zs_operator_create(&op, ctx, E, backend, op_opts)) != ZS_OK) goto lib_error;
  if (jacobi && (s = zs_solver_jacobi(&M, ctx, A, zs_operator_backend(op))) != ZS_OK)
    goto lib_error;
  so.precond = M;
  const char *be = zs_operator_backend(op);
  /* b, x, the solver's work vectors (at most 8 for BiCG), the host copies */
  if (zs_cli_memory_check("solve", "the vectors",
                          (uint64_t)n * (10 * zs_type_size(type) + 3 * sizeof(double))))
    goto done;
  if ((s = zs_vector_create(&b, ctx, be, type, n)) != ZS_OK ||
      (s = zs_vector_create(&x, ctx, be, type, n)) != ZS_OK)
    goto lib_error;
  hb = malloc((size_t)(n ? n : 1) * sizeof *hb);
  so.history_cap = so.max_iter + 1;
  hist = malloc((size_t)so.history_cap * sizeof *hist);
  if (!hb || !hist) {
    /* Name what could not be had: the residual history grows with --maxit, not with n. */
    if (!hist)
      fprintf(stderr,
              "zsparse solve: out of memory for the residual history of --maxit %lld "
              "(%lld doubles, %.3g MB)\n",
              (long long)so.max_iter, (long long)so.history_cap, (double)so.history_cap * 8e-6);
    else
      fprintf(stderr,
              "zsparse solve: out of memory for the right-hand side (%lld doubles, %.3g MB)\n",
              (long long)n, (double)n * 8e-6);
    goto done;
  }
  so.history = hist;
  zs_cli_rng rng = {seed};
  const int known = strcmp(rhs_s, "known") == 0;
  if (strcmp(rhs_s, "ones") == 0) {
    s = zs_vector_fill(b, 1.0);
  } else if (strcmp(rhs_s, "random") == 0 || known) {
    for (int64_t i = 0; i < n; i++) hb[i] = zs_cli_rng_uniform(&rng);
    if (known) {
      /* x* goes to its own vector; b = A x* is formed where the solve runs. */
      if ((s = zs_vector_create(&xs, ctx, be, type, n)) == ZS_OK &&
          (s = upload_doubles(xs, hb, type, n)) == ZS_OK)
        s = zs_spmv(op, ZS_OP_N, 1.0, xs, 0.0, b);
    } else {
      s = upload_doubles(b, hb, type, n);
    }
  } else {
    if (read_rhs(rhs_s, n, hb)) {
      result = ZS_CLI_USAGE;
      goto done;
    }
    s = upload_doubles(b, hb, type, n);
  }
  if (s != ZS_OK || (s = zs_operator_sync(op)) != ZS_OK) goto lib_error;
  const double setup_s = zs_cli_now() - t_setup;

  zs_solver_result res;
  const zs_status solve_status = zs_solve(ctx, op, b, x, &so, &res);
  if (solve_status < 0 && solve_status != ZS_ERR_BREAKDOWN) {
    s = solve_status;
    goto lib_error;
  }
  char solve_msg[512];
  snprintf(solve_msg, sizeof solve_msg, "%s", solve_status != ZS_OK ? zs_last_error() : "");
  /* The true residual, recomputed: the recurrence can drift from it in finite precision. */
  double bnorm, tnorm, err = NAN;
  zs_vector *r = NULL;
  if ((s = zs_vector_create(&r, ctx, be, type, n)) == ZS_OK &&
      (s = zs_vector_copy(r, b)) == ZS_OK && (s = zs_spmv(op, ZS_OP_N, -1.0, x, 1.0, r)) == ZS_OK &&
      (s = zs_vector_nrm2(r, &tnorm)) == ZS_OK)
    s = zs_vector_nrm2(b, &bnorm);
  if (s == ZS_OK && known) {
    double xs_norm;
    if ((s = zs_vector_nrm2(xs, &xs_norm)) == ZS_OK &&
        (s = zs_vector_axpby(1.0, x, -1.0, xs)) == ZS_OK && (s = zs_vector_nrm2(xs, &err)) == ZS_OK)
      err = xs_norm > 0.0 ? err / xs_norm : err;
  }
  zs_vector_destroy(&r);
  if (s != ZS_OK) goto lib_error;
  const double true_rel = bnorm > 0.0 ? tnorm / bnorm : tnorm;
  const double per_iter = res.iterations > 0 ? res.time_s / (double)res.iterations : 0.0;
  /* Converged means x itself meets the tolerance, not only the recurrence. */
  const int converged = solve_status == ZS_OK && true_rel <= so.tol;
  zs_status reported = solve_status;
  const char *stop_reason = res.stop_reason;
  if (solve_status == ZS_OK && !converged) {
    reported = ZS_INFO_NOT_CONVERGED;
    stop_reason = "true residual above tol";
    snprintf(solve_msg, sizeof solve_msg,
             "%s: the recurrence residual %.3e met tol %.1e after %lld iterations, but the true "
             "residual ||b - A x||/||b|| is %.3e%s",
             zs_solver_method_name(so.method), res.rel_residual, so.tol, (long long)res.iterations,
             true_rel, type == ZS_F32 ? " (f32 rounding: try --type f64 or a larger --tol)" : "");
  }
  const char *status_name = zs_status_name(reported);

  if (json) {
    zs_json j;
    zs_json_begin(&j, stdout);
    zs_json_str(&j, "matrix", path);
    zs_json_str(&j, "method", zs_solver_method_name(so.method));
    zs_json_str(&j, "format", zs_format_name(format));
    zs_json_str(&j, "note", zs_encoded_note(E));
    zs_json_str(&j, "backend", be);
    zs_json_str(&j, "type", zs_type_name(type));
    zs_json_int(&j, "rows", n);
    zs_json_int(&j, "nnz", zs_encoded_nnz(E));
    zs_json_int(&j, "encoded_bytes", (int64_t)zs_encoded_bytes(E));
    zs_json_str(&j, "precond", jacobi ? "jacobi" : "none");
    zs_json_str(&j, "rhs", rhs_s);
    zs_json_num(&j, "tol", so.tol);
    zs_json_int(&j, "maxit", so.max_iter);
    zs_json_str(&j, "status", status_name);
    zs_json_str(&j, "stop_reason", stop_reason);
    zs_json_bool(&j, "converged", converged);
    zs_json_int(&j, "iterations", res.iterations);
    zs_json_num(&j, "rel_residual", res.rel_residual);
    zs_json_num(&j, "true_rel_residual", true_rel);
    if (known)
      zs_json_num(&j, "error_vs_known", err);
    else
      zs_json_null(&j, "error_vs_known");
    zs_json_int(&j, "spmv", res.spmv_count);
    zs_json_int(&j, "spmvt", res.spmvt_count);
    zs_json_num(&j, "setup_s", setup_s);
    zs_json_num(&j, "solve_s", res.time_s);
    zs_json_num(&j, "time_per_iter_s", per_iter);
    zs_json_str(&j, "message", solve_msg);
    zs_json_array(&j, "history");
    for (int64_t k = 0; k < res.history_len; k++) zs_json_num(&j, NULL, hist[k]);
    zs_json_array_end(&j);
    zs_json_end(&j);
  } else {
    printf("matrix:   %s: %lld x %lld, %lld nnz\n", path, (long long)n, (long long)n,
           (long long)zs_encoded_nnz(E));
    printf("solver:   %s%s, tol %.1e, maxit %lld; format %s %s (%llu bytes); backend %s\n",
           zs_solver_method_name(so.method), jacobi ? " + jacobi" : "", so.tol,
           (long long)so.max_iter, zs_format_name(format), zs_type_name(type),
           (unsigned long long)zs_encoded_bytes(E), be);
    printf("%8s  %s\n", "iter", "||r||/||b||");
    for (int64_t k = 0; k < res.history_len; k++)
      if (k % every == 0 || k == res.history_len - 1)
        printf("%8lld  %.6e\n", (long long)k, hist[k]);
    printf("result:   %s (%s) after %lld iterations: ||r||/||b|| = %.3e, true %.3e\n", status_name,
           stop_reason, (long long)res.iterations, res.rel_residual, true_rel);
    if (known) printf("error:    ||x - x*||/||x*|| = %.3e\n", err);
    printf("products: %lld SpMV, %lld SpMVT, %lld preconditioner\n", (long long)res.spmv_count,
           (long long)res.spmvt_count, (long long)res.precond_count);
    printf("time:     setup %.3f s, solve %.6f s (%.3f ms per iteration)\n", setup_s, res.time_s,
           1e3 * per_iter);
  }
  if (!converged) fprintf(stderr, "zsparse solve: %s\n", solve_msg);
  result = converged ? ZS_CLI_OK : ZS_CLI_FAIL;
  goto done;
lib_error:
  zs_cli_lib_error("solve", s);
done:
  free(hb);
  free(hist);
  zs_vector_destroy(&b);
  zs_vector_destroy(&x);
  zs_vector_destroy(&xs);
  zs_operator_destroy(&M);
  zs_operator_destroy(&op);
  zs_encoded_destroy(&E);
  zs_matrix_destroy(&A);
  zs_matrix_destroy(&Ad);
  zs_context_destroy(&ctx);
  return result;
}
