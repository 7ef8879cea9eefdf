/* cli_convert.c — `zsparse convert`: Matrix Market or .zsm in, .zsm (encoded) or .mtx out. */
#include <string.h>

#include "cli.h"
#include "formats/format_list.h"

static const char help_text[] =
    "usage: zsparse convert IN -o OUT.zsm [-f FORMAT] [--type f32|f64] [--options K=V,...]\n"
    "       zsparse convert IN.zsm -o OUT.mtx[.gz]\n"
    "\n"
    "IN is a Matrix Market file (.mtx/.mtx.gz), gen:SPEC (a generated matrix: zsparse gen\n"
    "--help) or a .zsm container (a name ending in .zsm, or the magic bytes ZSPARSE). A .zsm\n"
    "input is loaded, validated and decoded back to CSR first (bit for bit).\n"
    "OUT ending in .zsm: the matrix is encoded in FORMAT and saved as a container.\n"
    "Otherwise OUT is written as Matrix Market `coordinate real general` (gzip-compressed when\n"
    "it ends in .gz) with enough digits to read back bit for bit; OUT '-' is standard output.\n"
    "IN '-' is standard input (Matrix Market only: a container must be a regular file).\n"
    "An existing OUT is replaced whole by a rename (its mode kept; a symlink's target is\n"
    "replaced); directories and devices are refused; a pipe or FIFO is written in place.\n"
    "\n"
    "options:\n"
    "  -o, --output OUT     output file (required)\n"
    "  -f, --format FORMAT  one of" ZSI_SPARSE_FORMAT_NAMES
    " (default: csr, or the input\n"
    "                       container's format); formats this build lacks fail with a message\n"
    "                       (MAT-VANS layers are encoded by zsparse vans encode); auto: the\n"
    "                       format and options `zsparse plan` chooses, recorded in the .zsm\n"
    "                       (zsparse info shows it)\n"
    "  --type f32|f64       value type (default: f64, or the input container's type)\n"
    "  --options K=V,...    encoder options of FORMAT (see docs/formats/<format>.md), e.g.\n"
    "                       csb, gcsb: beta= (gcsb also group=); cci: slices=, opcodes=;\n"
    "                       sell: c=, sigma=; dtans: templates=auto|on|off and\n"
    "                       row_kind=templates|packed|auto (stream version 5: template or\n"
    "                       packed rows), values=auto|coded|constant|raw|joint|packed\n"
    "                       (packed: version 5's value ids), columns=, long_rows=, ...; with\n"
    "                       -f auto the planner's: backend=, device=, workload=, tune=\n"
    "                       (docs/auto.md)\n"
    "  --json               print {input, output, format, type, rows, cols, nnz, bytes} as JSON\n";

int zs_cli_convert(int argc, char **argv) {
  zs_cli_opt opts[] = {{"output", 'o', 1, NULL},
                       {"format", 'f', 1, NULL},
                       {"type", 0, 1, NULL},
                       {"options", 0, 1, NULL},
                       {"json", 0, 0, NULL}};
  const int n_opts = 5;
  const char *pos[1];
  int n_pos, help;
  int rc = zs_cli_parse("convert", argc, argv, opts, n_opts, pos, 1, &n_pos, &help);
  if (rc) return rc;
  if (help) {
    fputs(help_text, stdout);
    return ZS_CLI_OK;
  }
  const char *out = zs_cli_get(opts, n_opts, "output");
  const char *fmt_s = zs_cli_get(opts, n_opts, "format");
  const char *type_s = zs_cli_get(opts, n_opts, "type");
  const char *enc_opts = zs_cli_get(opts, n_opts, "options");
  const int json = zs_cli_get(opts, n_opts, "json") != NULL;
  if (n_pos != 1 || !out) {
    zs_cli_usage_error("convert", "expected one input file and -o OUT");
    return ZS_CLI_USAGE;
  }
  const int out_zsm = zs_cli_ends_with(out, ".zsm");
  zs_type type = ZS_F64;
  if (type_s && zs_cli_parse_type(type_s, &type)) {
    zs_cli_usage_error("convert", "--type must be f32 or f64, not '%s'", type_s);
    return ZS_CLI_USAGE;
  }
  zs_format format = ZS_FORMAT_CSR;
  if (fmt_s && zs_format_from_name(fmt_s, &format) != ZS_OK) {
    zs_cli_usage_error("convert", "%s", zs_last_error());
    return ZS_CLI_USAGE;
  }
  const int to_stdout = strcmp(out, "-") == 0;
  if (to_stdout && json) {
    zs_cli_usage_error("convert", "--json and -o - both want standard output");
    return ZS_CLI_USAGE;
  }
  if (!out_zsm && (fmt_s || enc_opts)) {
    zs_cli_usage_error("convert", "-f/--options apply only to a .zsm output, not '%s'", out);
    return ZS_CLI_USAGE;
  }

  zs_matrix *A = NULL;
  zs_encoded *E = NULL;
  zs_status s;
  if (zs_cli_is_zsm(pos[0])) {
    s = zs_encoded_load(&E, pos[0]);
    if (s == ZS_OK) {
      if (!fmt_s) format = zs_encoded_format(E);
      if (!type_s) type = zs_encoded_type(E);
      s = zs_decode(&A, E);
    }
    zs_encoded_destroy(&E);
    if (s == ZS_OK && zs_matrix_type(A) != type) {
      zs_matrix *B = NULL;
      s = zs_matrix_convert(&B, A, type);
      zs_matrix_destroy(&A);
      A = B;
    }
  } else {
    s = zs_cli_read_matrix(&A, pos[0], type);
  }
  uint64_t bytes = 0;
  if (s == ZS_OK) s = zs_cli_save(A, out, out_zsm, &format, enc_opts, &bytes);
  if (s != ZS_OK) {
    zs_cli_lib_error("convert", s);
    zs_matrix_destroy(&A);
    return ZS_CLI_FAIL;
  }
  if (json) {
    zs_json j;
    zs_json_begin(&j, stdout);
    zs_json_str(&j, "input", pos[0]);
    zs_json_str(&j, "output", out);
    zs_json_str(&j, "format", out_zsm ? zs_format_name(format) : "mtx");
    zs_json_str(&j, "type", zs_type_name(type));
    zs_json_int(&j, "rows", zs_matrix_rows(A));
    zs_json_int(&j, "cols", zs_matrix_cols(A));
    zs_json_int(&j, "nnz", zs_matrix_nnz(A));
    if (out_zsm) zs_json_int(&j, "bytes", (int64_t)bytes);
    zs_json_end(&j);
  } else if (to_stdout) {
    /* the matrix itself went to standard output: no summary there */
  } else if (out_zsm) {
    const int64_t nnz = zs_matrix_nnz(A);
    printf("%s -> %s: %s %s, %lld x %lld, %lld nnz, %llu bytes of arrays (%.3f B/nnz)\n", pos[0],
           out, zs_format_name(format), zs_type_name(type), (long long)zs_matrix_rows(A),
           (long long)zs_matrix_cols(A), (long long)nnz, (unsigned long long)bytes,
           nnz ? (double)bytes / (double)nnz : 0.0);
  } else {
    printf("%s -> %s: %lld x %lld, %lld nnz\n", pos[0], out, (long long)zs_matrix_rows(A),
           (long long)zs_matrix_cols(A), (long long)zs_matrix_nnz(A));
  }
  zs_matrix_destroy(&A);
  return ZS_CLI_OK;
}
