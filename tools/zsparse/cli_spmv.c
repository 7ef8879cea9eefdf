/* cli_spmv.c — `zsparse spmv`: time y = op(A) x on one backend and check it on the host. */
#include <string.h>

#include "cli.h"
#include "formats/format_list.h"

static const char help_text[] =
    "usage: zsparse spmv FILE|ZSM|gen:SPEC [--format F] [--backend B] [--op N|T|pair]\n"
    "                    [--type f32|f64] [--repeat K] [--check] [--json] [--seed S]\n"
    "                    [--options K=V,...] [--op-options K=V,...]\n"
    "\n"
    "Reads a Matrix Market file (or generates gen:SPEC, see zsparse gen --help) and encodes it\n"
    "in format F (or loads a .zsm container as it is), uploads it to backend B, fills x with\n"
    "uniform random values in [-1, 1] (seeded) and y with random values, runs one warm-up\n"
    "product, then times K products y = op(A) x with alpha = 1 and beta = 0 (y is only\n"
    "written), synchronising the backend around each. Reports the median time and GB/s =\n"
    "bytes / median, where bytes = the encoded arrays (zs_encoded_bytes) + x + y, each counted\n"
    "once.\n"
    "\n"
    "--check compares two products with a long double reference computed on the host from the\n"
    "CSR of the same matrix (same value type, same x): y = op(A) x with beta = 0 over a y\n"
    "filled with NaN (unwritten elements fail), and y = 0.75 op(A) x - 1.25 y over a random y.\n"
    "  max_rel_err = max_i |y_i - ref_i| / (|alpha| sum_j |a_ij x_j| + |beta y_i|\n"
    "                                      + floor / tolerance)\n"
    "  tolerance   = 16 * eps(type) * min(len_max + 2, 1024)\n"
    "  floor       = (len_max * max(1, |alpha|) + 3) * min_normal(type)\n"
    "where eps is 2^-23 (f32) or 2^-52 (f64), min_normal 2^-126 (f32) or 2^-1022 (f64), and\n"
    "len_max the longest row of op(A) (the longest column of A for --op T): each output may\n"
    "err by tolerance times its scale plus the floor, which covers products that underflow\n"
    "(subnormal values, or kernels that flush them to zero). NaN or infinite outputs count as\n"
    "an infinite error. The tool exits 1 when max_rel_err > tolerance and prints both.\n"
    "\n"
    "options:\n"
    "  -f, --format F        one of" ZSI_SPARSE_FORMAT_NAMES
    " (default csr; for a .zsm the\n"
    "                        container's format, and a different F is an error; MAT-VANS\n"
    "                        layers run through zsparse vans), or auto: the choice of\n"
    "                        `zsparse plan` for this backend and op, with its encoder and\n"
    "                        operator options (--options then takes planner options such as\n"
    "                        device=h200 or tune=trial:200; --op-options given replace the\n"
    "                        chosen ones)\n"
    "  -b, --backend B       ref, cpu, cuda, hip (default: $ZS_BACKEND, else cuda > hip > cpu)\n"
    "  --op N|T|pair         y = A x (N, default), y = A^T x (T), or BiCG's pair: y = A x and\n"
    "                        z = A^T w in one zs_spmv_pair call (one pass over the matrix where\n"
    "                        the backend fuses them; w and z random like x and y), both outputs\n"
    "                        checked, bytes counting the four vectors, len_max the longer of A's\n"
    "                        rows and columns\n"
    "  --type f32|f64        value type (default f64; for a .zsm its type)\n"
    "  -r, --repeat K        timed repetitions (default 20; 0 runs only the warm-up)\n"
    "  --check               compare with the host reference (see above)\n"
    "  --seed S              seed of x and y (default 1)\n"
    "  --options K=V,...     encoder options of the format\n" ZS_CLI_OP_OPTIONS_HELP
    "  --json                one JSON object: file, format, options, op_options, note (what\n"
    "                        auto chose and why, or \"\"), backend, op, type, rows, cols, nnz,\n"
    "                        encoded_bytes, bytes, bytes_per_nnz, repeat, time_median_s,\n"
    "                        time_min_s, gbps, checked, max_rel_err, tolerance, len_max, ok\n"
    "                        (max_rel_err, tolerance and len_max are null without --check)\n";

int zs_cli_spmv(int argc, char **argv) {
  zs_cli_opt opts[] = {{"format", 'f', 1, NULL}, {"backend", 'b', 1, NULL},
                       {"op", 0, 1, NULL},       {"type", 0, 1, NULL},
                       {"repeat", 'r', 1, NULL}, {"check", 0, 0, NULL},
                       {"json", 0, 0, NULL},     {"seed", 0, 1, NULL},
                       {"options", 0, 1, NULL},  {"op-options", 0, 1, NULL}};
  const int n_opts = (int)(sizeof opts / sizeof *opts);
  const char *pos[1];
  int n_pos, help;
  int rc = zs_cli_parse("spmv", argc, argv, opts, n_opts, pos, 1, &n_pos, &help);
  if (rc) return rc;
  if (help) {
    fputs(help_text, stdout);
    zs_cli_print_op_options(stdout);
    return ZS_CLI_OK;
  }
  if (n_pos != 1) {
    zs_cli_usage_error("spmv", "expected one FILE");
    return ZS_CLI_USAGE;
  }
  const char *fmt_s = zs_cli_get(opts, n_opts, "format");
  const char *backend = zs_cli_get(opts, n_opts, "backend");
  const char *op_s = zs_cli_get(opts, n_opts, "op");
  const char *type_s = zs_cli_get(opts, n_opts, "type");
  const char *repeat_s = zs_cli_get(opts, n_opts, "repeat");
  const char *seed_s = zs_cli_get(opts, n_opts, "seed");
  const char *enc_opts = zs_cli_get(opts, n_opts, "options");
  const char *op_opts = zs_cli_get(opts, n_opts, "op-options");
  const int json = zs_cli_get(opts, n_opts, "json") != NULL;
  zs_cli_measure m = {.op = ZS_OP_N, .repeat = 20, .check = 0, .seed = 1};
  m.check = zs_cli_get(opts, n_opts, "check") != NULL;
  zs_format format = ZS_FORMAT_CSR;
  zs_type type = ZS_F64;
  int64_t v;
  if (fmt_s && zs_format_from_name(fmt_s, &format) != ZS_OK) {
    zs_cli_usage_error("spmv", "%s", zs_last_error());
    return ZS_CLI_USAGE;
  }
  if (op_s) {
    if (strcmp(op_s, "N") == 0 || strcmp(op_s, "n") == 0) {
      m.op = ZS_OP_N;
    } else if (strcmp(op_s, "T") == 0 || strcmp(op_s, "t") == 0) {
      m.op = ZS_OP_T;
    } else if (strcmp(op_s, "pair") == 0) {
      m.pair = 1;
    } else {
      zs_cli_usage_error("spmv", "--op must be N, T or pair, not '%s'", op_s);
      return ZS_CLI_USAGE;
    }
  }
  if (type_s && zs_cli_parse_type(type_s, &type)) {
    zs_cli_usage_error("spmv", "--type must be f32 or f64, not '%s'", type_s);
    return ZS_CLI_USAGE;
  }
  if (repeat_s) {
    if (zs_cli_parse_int(repeat_s, 0, 1000000, &v)) {
      zs_cli_usage_error("spmv", "--repeat must be an integer in [0, 1000000], not '%s'", repeat_s);
      return ZS_CLI_USAGE;
    }
    m.repeat = (int)v;
  }
  if (seed_s) {
    if (zs_cli_parse_int(seed_s, 0, INT64_MAX, &v)) {
      zs_cli_usage_error("spmv", "--seed must be a non-negative integer, not '%s'", seed_s);
      return ZS_CLI_USAGE;
    }
    m.seed = (uint64_t)v;
  }

  const char *path = pos[0];
  zs_context *ctx = NULL;
  zs_matrix *A = NULL;
  zs_encoded *E = NULL;
  zs_operator *op = NULL;
  zs_cli_choice chosen = {"", ""};
  int result = ZS_CLI_FAIL;
  zs_status s = zs_context_create(&ctx);
  if (s != ZS_OK) goto lib_error;
  if (zs_cli_is_zsm(path)) {
    if ((s = zs_encoded_load(&E, path)) != ZS_OK) goto lib_error;
    if (fmt_s && format != ZS_FORMAT_AUTO && format != zs_encoded_format(E)) {
      zs_cli_usage_error("spmv", "%s holds format %s, not %s (convert it instead)", path,
                         zs_format_name(zs_encoded_format(E)), fmt_s);
      result = ZS_CLI_USAGE;
      goto done;
    }
    if (type_s && type != zs_encoded_type(E)) {
      zs_cli_usage_error("spmv", "%s holds %s values, not %s (convert it instead)", path,
                         zs_type_name(zs_encoded_type(E)), type_s);
      result = ZS_CLI_USAGE;
      goto done;
    }
    if (enc_opts) {
      zs_cli_usage_error("spmv", "--options applies when encoding, not to a .zsm input");
      result = ZS_CLI_USAGE;
      goto done;
    }
    format = zs_encoded_format(E);
    type = zs_encoded_type(E);
    if (m.check && (s = zs_decode(&A, E)) != ZS_OK) goto lib_error;
  } else if ((s = zs_cli_read_matrix(&A, path, type)) != ZS_OK) {
    goto lib_error;
  } else if (format == ZS_FORMAT_AUTO) {
    /* the plan for this backend and op; its operator options unless --op-options are given */
    if ((s = zs_cli_auto_encode(A, backend ? backend : zs_context_default_backend(ctx),
                                m.pair            ? "pair"
                                : m.op == ZS_OP_T ? "t"
                                                  : "spmv",
                                enc_opts, &E, &chosen)) != ZS_OK)
      goto lib_error;
    format = zs_encoded_format(E);
    enc_opts = chosen.options;
    if (!op_opts) op_opts = chosen.op_options;
  } else if ((s = zs_encode(&E, A, format, enc_opts)) != ZS_OK) {
    goto lib_error;
  }
  if ((s = zs_operator_create(&op, ctx, E, backend, op_opts)) != ZS_OK) goto lib_error;
  if (zs_cli_measure_run("spmv", ctx, op, E, A, &m) != ZS_OK) goto done;

  const int64_t nnz = zs_encoded_nnz(E);
  const uint64_t enc_bytes = zs_encoded_bytes(E);
  const char *op_name = m.pair ? "pair" : m.op == ZS_OP_N ? "N" : "T";
  if (json) {
    zs_json j;
    zs_json_begin(&j, stdout);
    zs_json_str(&j, "file", path);
    zs_json_str(&j, "format", zs_format_name(format));
    zs_json_str(&j, "options", enc_opts ? enc_opts : "");
    zs_json_str(&j, "op_options", op_opts ? op_opts : "");
    zs_json_str(&j, "note", zs_encoded_note(E));
    zs_json_str(&j, "backend", zs_operator_backend(op));
    zs_json_str(&j, "op", op_name);
    zs_json_str(&j, "type", zs_type_name(type));
    zs_json_int(&j, "rows", zs_encoded_rows(E));
    zs_json_int(&j, "cols", zs_encoded_cols(E));
    zs_json_int(&j, "nnz", nnz);
    zs_json_int(&j, "encoded_bytes", (int64_t)enc_bytes);
    zs_json_int(&j, "bytes", (int64_t)m.bytes);
    zs_json_num(&j, "bytes_per_nnz", nnz ? (double)enc_bytes / (double)nnz : 0.0);
    zs_json_int(&j, "repeat", m.repeat);
    if (m.repeat > 0) {
      zs_json_num(&j, "time_median_s", m.time_median_s);
      zs_json_num(&j, "time_min_s", m.time_min_s);
      zs_json_num(&j, "gbps", m.gbps);
    } else {
      zs_json_null(&j, "time_median_s");
      zs_json_null(&j, "time_min_s");
      zs_json_null(&j, "gbps");
    }
    zs_json_bool(&j, "checked", m.check);
    if (m.check) {
      zs_json_num(&j, "max_rel_err", m.max_rel_err); /* null when infinite (NaN output) */
      zs_json_num(&j, "tolerance", m.tolerance);
      zs_json_int(&j, "len_max", m.len_max);
    } else {
      zs_json_null(&j, "max_rel_err");
      zs_json_null(&j, "tolerance");
      zs_json_null(&j, "len_max");
    }
    zs_json_bool(&j, "ok", m.check_ok);
    zs_json_end(&j);
  } else {
    printf("matrix:   %s: %lld x %lld, %lld nnz\n", path, (long long)zs_encoded_rows(E),
           (long long)zs_encoded_cols(E), (long long)nnz);
    printf("format:   %s %s, %llu bytes (%.3f B/nnz); %llu bytes per call with the vectors\n",
           zs_format_name(format), zs_type_name(type), (unsigned long long)enc_bytes,
           nnz ? (double)enc_bytes / (double)nnz : 0.0, (unsigned long long)m.bytes);
    printf("backend:  %s, op %s\n", zs_operator_backend(op), op_name);
    if (m.repeat > 0)
      printf("time:     median %.6f ms, min %.6f ms over %d runs; %.2f GB/s\n",
             1e3 * m.time_median_s, 1e3 * m.time_min_s, m.repeat, m.gbps);
    if (m.check)
      printf("check:    max_rel_err %.3e %s tolerance %.3e (len_max %lld): %s\n", m.max_rel_err,
             m.check_ok ? "<=" : ">", m.tolerance, (long long)m.len_max,
             m.check_ok ? "ok" : "FAIL");
  }
  if (!m.check_ok)
    fprintf(stderr, "zsparse spmv: check failed: max_rel_err %.3e > tolerance %.3e\n",
            m.max_rel_err, m.tolerance);
  result = m.check_ok ? ZS_CLI_OK : ZS_CLI_FAIL;
  goto done;
lib_error:
  zs_cli_lib_error("spmv", s);
done:
  zs_operator_destroy(&op);
  zs_encoded_destroy(&E);
  zs_matrix_destroy(&A);
  zs_context_destroy(&ctx);
  return result;
}
