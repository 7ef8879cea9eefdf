/* cli_gen.c — `zsparse gen`: write a generated benchmark matrix as .mtx, .mtx.gz or .zsm. */
#include "cli.h"

static const char help_text[] =
    "usage: zsparse gen SPEC -o FILE [--type f32|f64] [-f FORMAT] [--options K=V,...] [--json]\n"
    "\n"
    "SPEC is KIND:key=value,key=value (passed to zs_matrix_generate; deterministic for a given\n"
    "spec and seed). Kinds, keys and defaults:\n"
    "  stencil2d       n=64 (or nx, ny), points=5|9: 2-D grid stencil, star or 3x3 box\n"
    "  stencil3d       n=32 (or nx, ny, nz), points=7|27: 3-D grid stencil, star or 3x3x3 box\n"
    "  elasticity3d    n=16 (or nx, ny, nz): 3 unknowns per node, each neighbour node in the\n"
    "                  3x3x3 box couples by a full 3x3 block (81 entries per interior row)\n"
    "  erdos_renyi     rows=4096, cols=rows, per_row=16 (or p: edge probability; not both):\n"
    "                  distinct uniformly random columns per row\n"
    "  watts_strogatz  n=4096, k=6 (even, < n), p=0.1: ring lattice of degree k, each edge\n"
    "                  rewired with probability p (symmetric)\n"
    "  barabasi_albert n=4096, m=4 (< n): preferential attachment, m edges per new node\n"
    "                  (symmetric)\n"
    "  rmat            scale=12 (2^scale rows), per_row=16, a=0.57, b=0.19, c=0.19\n"
    "                  (d = 1 - a - b - c): recursive-matrix power-law graph\n"
    "  banded          rows=4096, width=64, per_row=20: per_row distinct random columns within\n"
    "                  width/2 of the diagonal\n"
    "keys of every kind:\n"
    "  seed=S                              random seed (default 1)\n"
    "  values=random|set|pattern|stencil   random values; values from a small set; all ones;\n"
    "                                      or (stencils and elasticity only, their default)\n"
    "                                      the stencil's own coefficients\n"
    "  distinct=D                          size of the set for values=set (default 16)\n"
    "Symmetric kinds (stencils, elasticity3d, watts_strogatz, barabasi_albert) get symmetric\n"
    "values too. See docs/generators.md for the exact definitions.\n"
    "Example: zsparse gen stencil2d:n=1024,points=5 -o lap.mtx.gz\n"
    "\n"
    "FILE ending in .zsm is encoded in FORMAT (default csr) and saved as a container;\n"
    "otherwise it is written as Matrix Market (gzip-compressed when it ends in .gz).\n"
    "\n"
    "options:\n"
    "  -o, --output FILE     output file (required)\n"
    "  --type f32|f64        value type (default f64)\n"
    "  -f, --format FORMAT   format of a .zsm output (default csr)\n"
    "  --options K=V,...     encoder options of FORMAT\n"
    "  --json                print {spec, output, type, rows, cols, nnz} as JSON\n";

int zs_cli_gen(int argc, char **argv) {
  zs_cli_opt opts[] = {{"output", 'o', 1, NULL},
                       {"type", 0, 1, NULL},
                       {"format", 'f', 1, NULL},
                       {"options", 0, 1, NULL},
                       {"json", 0, 0, NULL}};
  const int n_opts = (int)(sizeof opts / sizeof *opts);
  const char *pos[1];
  int n_pos, help;
  int rc = zs_cli_parse("gen", argc, argv, opts, n_opts, pos, 1, &n_pos, &help);
  if (rc) return rc;
  if (help) {
    fputs(help_text, stdout);
    return ZS_CLI_OK;
  }
  const char *out = zs_cli_get(opts, n_opts, "output");
  const char *type_s = zs_cli_get(opts, n_opts, "type");
  const char *fmt_s = zs_cli_get(opts, n_opts, "format");
  const char *enc_opts = zs_cli_get(opts, n_opts, "options");
  const int json = zs_cli_get(opts, n_opts, "json") != NULL;
  if (n_pos != 1 || !out) {
    zs_cli_usage_error("gen", "expected SPEC and -o FILE");
    return ZS_CLI_USAGE;
  }
  zs_type type = ZS_F64;
  if (type_s && zs_cli_parse_type(type_s, &type)) {
    zs_cli_usage_error("gen", "--type must be f32 or f64, not '%s'", type_s);
    return ZS_CLI_USAGE;
  }
  const int out_zsm = zs_cli_ends_with(out, ".zsm");
  zs_format format = ZS_FORMAT_CSR;
  if (fmt_s && zs_format_from_name(fmt_s, &format) != ZS_OK) {
    zs_cli_usage_error("gen", "%s", zs_last_error());
    return ZS_CLI_USAGE;
  }
  if (!out_zsm && (fmt_s || enc_opts)) {
    zs_cli_usage_error("gen", "-f/--options apply only to a .zsm output, not '%s'", out);
    return ZS_CLI_USAGE;
  }
  zs_matrix *A = NULL;
  uint64_t bytes = 0;
  zs_status s = zs_matrix_generate(&A, pos[0], type, zs_cli_progress());
  if (s == ZS_OK) s = zs_cli_save(A, out, out_zsm, &format, enc_opts, &bytes);
  if (s != ZS_OK) {
    zs_cli_lib_error("gen", s);
    zs_matrix_destroy(&A);
    return ZS_CLI_FAIL;
  }
  if (json) {
    zs_json j;
    zs_json_begin(&j, stdout);
    zs_json_str(&j, "spec", pos[0]);
    zs_json_str(&j, "output", out);
    zs_json_str(&j, "type", zs_type_name(type));
    if (out_zsm) zs_json_str(&j, "format", zs_format_name(format));
    if (out_zsm) zs_json_int(&j, "bytes", (int64_t)bytes);
    zs_json_int(&j, "rows", zs_matrix_rows(A));
    zs_json_int(&j, "cols", zs_matrix_cols(A));
    zs_json_int(&j, "nnz", zs_matrix_nnz(A));
    zs_json_end(&j);
  } else {
    printf("%s -> %s: %lld x %lld, %lld nnz (%s%s%s)\n", pos[0], out, (long long)zs_matrix_rows(A),
           (long long)zs_matrix_cols(A), (long long)zs_matrix_nnz(A), zs_type_name(type),
           out_zsm ? ", " : "", out_zsm ? zs_format_name(format) : "");
  }
  zs_matrix_destroy(&A);
  return ZS_CLI_OK;
}
