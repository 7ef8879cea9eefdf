/* cli_info.c — `zsparse info`: structure, symmetry and entropy statistics of a matrix or .zsm. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const char help_text[] =
    "usage: zsparse info FILE|ZSM|gen:SPEC [--type f32|f64] [--format F[:OPTIONS]] [--json]\n"
    "\n"
    "FILE is a Matrix Market file (.mtx, or gzip-compressed .mtx.gz) or a .zsm container\n"
    "(recognised by the name ending in .zsm or by the magic bytes \"ZSPARSE\"); gen:SPEC a\n"
    "generated matrix (zsparse gen --help).\n"
    "\n"
    "For every input (a .zsm is loaded, validated and decoded first):\n"
    "  rows, cols, nnz        nnz after mirroring symmetric/skew-symmetric files, explicit\n"
    "                         zeros included, duplicates summed\n"
    "  nnz/row                min, mean, max; empty rows\n"
    "  symmetry               as stored in the file header (Matrix Market only) and as computed:\n"
    "                         structurally symmetric (pattern of A equals that of A^T),\n"
    "                         numerically symmetric (A == A^T) or skew-symmetric (A == -A^T)\n"
    "  field                  real / integer / pattern (Matrix Market only)\n"
    "  distinct values        number of distinct numeric values (0.0 and -0.0 count as one)\n"
    "  entropy                Shannon entropy in bits per nonzero of the column deltas (a row's\n"
    "                         first column relative to the row index, then the difference to\n"
    "                         the previous column, as CSR-dtANS codes them) and of the values\n"
    "For a .zsm also: format (with the encoder options it keeps), value type, parameters,\n"
    "bytes per array, total bytes, bytes/nnz, the same matrix's CSR bytes and the ratio, and\n"
    "the format's own figures (zs_encoded_stats: for dtans the cross-entropy, predicted and\n"
    "actual size, table, row length, escape and stream bytes), one line per figure.\n"
    "\n"
    "options:\n"
    "  --type f32|f64  value type the Matrix Market values are read as (default f64); distinct\n"
    "                  values and value entropy are counted after this rounding\n"
    "  -f, --format F[:OPTIONS]\n"
    "                  Matrix Market input only: encode it in format F (csr, coo, csb, gcsb,\n"
    "                  cci, dtans, sell) with the encoder OPTIONS (key=value,...; docs/formats/)\n"
    "                  and print the same block as for a .zsm (format, parameters, arrays,\n"
    "                  bytes, bytes/nnz against CSR, figures)\n"
    "  --json          one JSON object: file, kind (mtx|zsm), rows, cols, nnz,\n"
    "                  nnz_per_row_min, nnz_per_row_mean, nnz_per_row_max, empty_rows,\n"
    "                  symmetry (file header, null for .zsm), symmetric_structural,\n"
    "                  symmetric_numerical, skew_symmetric_numerical, symmetry_computed,\n"
    "                  field (null for .zsm), type, distinct_values, entropy_col_delta_bits,\n"
    "                  entropy_value_bits; for .zsm also format, params{}, arrays[{name,\n"
    "                  elem_size, count, bytes}], bytes, bytes_per_nnz, csr_bytes,\n"
    "                  csr_bytes_per_nnz, bytes_vs_csr, stats{name: value}, options (the\n"
    "                  encoder options the file keeps, null when none); with --format the\n"
    "                  same keys, options being the OPTIONS string\n"
    "\n"
    "Exits 1 with the library's message when the file cannot be read (e.g. a complex matrix).\n";

typedef struct info_stats {
  int64_t rows, cols, nnz;
  int64_t row_min, row_max, empty_rows;
  double row_mean;
  int sym_struct, sym_num, skew_num; /* -1: not computed (not square) */
  int64_t distinct;
  double h_delta, h_value;
} info_stats;

static int cmp_i64(const void *a, const void *b) {
  const int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}
static int cmp_f64(const void *a, const void *b) {
  const double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Shannon entropy, bits per element, of a distribution given as counts of equal elements. */
static double entropy_runs(int64_t n, int64_t run_count, const int64_t *runs) {
  double h = 0.0;
  for (int64_t i = 0; i < run_count; i++) {
    const double p = (double)runs[i] / (double)n;
    h -= p * log2(p);
  }
  return h;
}

static double value_at(zs_type t, const void *v, int64_t i) {
  return t == ZS_F64 ? ((const double *)v)[i] : (double)((const float *)v)[i];
}

/* Compare A with its transpose (both canonical, so equal arrays mean equal matrices). */
static int symmetry(const zs_matrix *A, info_stats *st) {
  st->sym_struct = st->sym_num = st->skew_num = -1;
  if (st->rows != st->cols) return 0;
  const int64_t n = st->rows, nnz = st->nnz;
  const int64_t *rp, *tp;
  const int32_t *ci, *tc;
  const void *vals, *tv;
  zs_matrix *At = NULL;
  if (zs_matrix_transpose(&At, A) != ZS_OK) return -1;
  zs_matrix_csr(A, &rp, &ci, &vals);
  zs_matrix_csr(At, &tp, &tc, &tv);
  const zs_type t = zs_matrix_type(A);
  int s_struct = 1, s_num = 1, s_skew = 1;
  for (int64_t i = 0; i <= n && s_struct; i++) s_struct = tp[i] == rp[i];
  for (int64_t k = 0; k < nnz && s_struct; k++) s_struct = tc[k] == ci[k];
  if (s_struct) {
    for (int64_t k = 0; k < nnz && (s_num || s_skew); k++) {
      const double a = value_at(t, vals, k), b = value_at(t, tv, k);
      if (a != b) s_num = 0;
      if (a != -b) s_skew = 0;
    }
  } else {
    s_num = s_skew = 0;
  }
  st->sym_struct = s_struct, st->sym_num = s_num, st->skew_num = s_skew;
  zs_matrix_destroy(&At);
  return 0;
}

static int compute_stats(const zs_matrix *A, info_stats *st) {
  memset(st, 0, sizeof *st);
  st->rows = zs_matrix_rows(A), st->cols = zs_matrix_cols(A), st->nnz = zs_matrix_nnz(A);
  const int64_t *rp;
  const int32_t *ci;
  const void *vals;
  zs_matrix_csr(A, &rp, &ci, &vals);
  const zs_type t = zs_matrix_type(A);
  st->row_min = st->rows ? INT64_MAX : 0;
  for (int64_t i = 0; i < st->rows; i++) {
    const int64_t len = rp[i + 1] - rp[i];
    if (len < st->row_min) st->row_min = len;
    if (len > st->row_max) st->row_max = len;
    st->empty_rows += len == 0;
  }
  st->row_mean = st->rows ? (double)st->nnz / (double)st->rows : 0.0;
  if (symmetry(A, st)) return -1;

  const size_t n = (size_t)(st->nnz ? st->nnz : 1);
  int64_t *d = malloc(n * sizeof *d), *runs = malloc(n * sizeof *runs);
  double *v = malloc(n * sizeof *v);
  if (!d || !runs || !v) {
    free(d), free(runs), free(v);
    return -1;
  }
  for (int64_t i = 0; i < st->rows; i++)
    for (int64_t k = rp[i]; k < rp[i + 1]; k++)
      d[k] = k == rp[i] ? (int64_t)ci[k] - i : (int64_t)ci[k] - ci[k - 1];
  for (int64_t k = 0; k < st->nnz; k++) v[k] = value_at(t, vals, k);
  qsort(d, (size_t)st->nnz, sizeof *d, cmp_i64);
  qsort(v, (size_t)st->nnz, sizeof *v, cmp_f64);
  int64_t nr = 0;
  for (int64_t k = 0; k < st->nnz; k++) {
    if (k == 0 || d[k] != d[k - 1]) runs[nr++] = 0;
    runs[nr - 1]++;
  }
  st->h_delta = entropy_runs(st->nnz, nr, runs);
  nr = 0;
  for (int64_t k = 0; k < st->nnz; k++) {
    if (k == 0 || v[k] != v[k - 1]) runs[nr++] = 0;
    runs[nr - 1]++;
  }
  st->distinct = nr;
  st->h_value = entropy_runs(st->nnz, nr, runs);
  free(d), free(runs), free(v);
  return 0;
}

static const char *mm_symmetry_name(zs_mm_symmetry s) {
  switch (s) {
  case ZS_MM_GENERAL: return "general";
  case ZS_MM_SYMMETRIC: return "symmetric";
  case ZS_MM_SKEW_SYMMETRIC: return "skew-symmetric";
  }
  return "unknown";
}

static const char *mm_field_name(zs_mm_field f) {
  switch (f) {
  case ZS_MM_REAL: return "real";
  case ZS_MM_INTEGER: return "integer";
  case ZS_MM_PATTERN: return "pattern";
  }
  return "unknown";
}

static const char *computed_symmetry(const info_stats *st) {
  if (st->sym_struct < 0) return "not-square";
  if (st->sym_num && st->nnz) return "symmetric";
  if (st->skew_num && st->nnz) return "skew-symmetric";
  if (st->sym_num) return "symmetric"; /* the empty matrix */
  return st->sym_struct ? "structurally-symmetric" : "general";
}

static const char *yes_no(int v) { return v < 0 ? "n/a" : v ? "yes" : "no"; }

/* The figures of zs_encoded_stats, gathered so that text and JSON print them alike. */
#define INFO_MAX_FIGURES 64
typedef struct figures {
  int n;
  char name[INFO_MAX_FIGURES][48];
  double value[INFO_MAX_FIGURES];
} figures;

static void add_figure(void *ctx, const char *name, double value) {
  figures *f = ctx;
  if (f->n == INFO_MAX_FIGURES) return;
  snprintf(f->name[f->n], sizeof f->name[f->n], "%s", name);
  f->value[f->n++] = value;
}

/* Byte counts print whole; ratios and bits with enough digits to compare. */
static void print_figure(const char *name, double v) {
  if (isfinite(v) && v == floor(v) && fabs(v) < 9007199254740992.0)
    printf("  %-32s %.0f\n", name, v);
  else
    printf("  %-32s %.6g\n", name, v);
}

/* What an encoding costs: its own bytes, the same matrix's CSR bytes and the format's figures. */
typedef struct encoded_info {
  uint64_t bytes, csr_bytes;
  figures fig;
} encoded_info;

static zs_status describe_encoded(const zs_encoded *E, const zs_matrix *A, encoded_info *ei) {
  ei->bytes = zs_encoded_bytes(E);
  ei->fig.n = 0;
  zs_status s = zs_encoded_stats(E, add_figure, &ei->fig);
  if (s != ZS_OK) return s;
  if (zs_encoded_format(E) == ZS_FORMAT_CSR) {
    ei->csr_bytes = ei->bytes;
    return ZS_OK;
  }
  zs_encoded *C = NULL;
  if ((s = zs_encode(&C, A, ZS_FORMAT_CSR, NULL)) != ZS_OK) return s;
  ei->csr_bytes = zs_encoded_bytes(C);
  zs_encoded_destroy(&C);
  return ZS_OK;
}

static double per_nnz(uint64_t bytes, int64_t nnz) {
  return nnz ? (double)bytes / (double)nnz : 0.0;
}

static void json_encoded(zs_json *j, const zs_encoded *E, const encoded_info *ei, int64_t nnz) {
  zs_json_str(j, "format", zs_format_name(zs_encoded_format(E)));
  if (*zs_encoded_note(E)) zs_json_str(j, "note", zs_encoded_note(E)); /* what auto chose, why */
  zs_json_object(j, "params");
  for (int i = 0; i < zs_encoded_param_count(E); i++) {
    const char *name;
    int64_t value;
    if (zs_encoded_param_info(E, i, &name, &value) == ZS_OK) zs_json_int(j, name, value);
  }
  zs_json_object_end(j);
  zs_json_array(j, "arrays");
  for (int i = 0; i < zs_encoded_array_count(E); i++) {
    const char *name;
    size_t es;
    uint64_t count;
    if (zs_encoded_array_info(E, i, &name, &es, &count) != ZS_OK) continue;
    zs_json_object(j, NULL);
    zs_json_str(j, "name", name);
    zs_json_int(j, "elem_size", (int64_t)es);
    zs_json_int(j, "count", (int64_t)count);
    zs_json_int(j, "bytes", (int64_t)(es * count));
    zs_json_object_end(j);
  }
  zs_json_array_end(j);
  zs_json_int(j, "bytes", (int64_t)ei->bytes);
  zs_json_num(j, "bytes_per_nnz", per_nnz(ei->bytes, nnz));
  zs_json_int(j, "csr_bytes", (int64_t)ei->csr_bytes);
  zs_json_num(j, "csr_bytes_per_nnz", per_nnz(ei->csr_bytes, nnz));
  zs_json_num(j, "bytes_vs_csr", ei->csr_bytes ? (double)ei->bytes / (double)ei->csr_bytes : 0.0);
  zs_json_object(j, "stats");
  for (int i = 0; i < ei->fig.n; i++) zs_json_num(j, ei->fig.name[i], ei->fig.value[i]);
  zs_json_object_end(j);
}

static void text_encoded(const zs_encoded *E, const encoded_info *ei, int64_t nnz,
                         const char *options) {
  printf("format:           %s", zs_format_name(zs_encoded_format(E)));
  if (options) printf(" (options %s)", *options ? options : "none");
  printf("\n");
  if (*zs_encoded_note(E)) printf("chosen by auto:   %s\n", zs_encoded_note(E));
  printf("params:          ");
  const int np = zs_encoded_param_count(E);
  for (int i = 0; i < np; i++) {
    const char *name;
    int64_t value;
    if (zs_encoded_param_info(E, i, &name, &value) == ZS_OK)
      printf(" %s=%lld", name, (long long)value);
  }
  printf("%s\n", np ? "" : " (none)");
  printf("arrays:\n");
  for (int i = 0; i < zs_encoded_array_count(E); i++) {
    const char *name;
    size_t es;
    uint64_t count;
    if (zs_encoded_array_info(E, i, &name, &es, &count) != ZS_OK) continue;
    printf("  %-20s %2zu B x %12llu = %14llu B\n", name, es, (unsigned long long)count,
           (unsigned long long)(es * count));
  }
  printf("total:            %llu B, %.3f B/nnz\n", (unsigned long long)ei->bytes,
         per_nnz(ei->bytes, nnz));
  printf("vs CSR:           %llu B, %.3f B/nnz; this format takes %.3f of CSR\n",
         (unsigned long long)ei->csr_bytes, per_nnz(ei->csr_bytes, nnz),
         ei->csr_bytes ? (double)ei->bytes / (double)ei->csr_bytes : 0.0);
  printf("stats:%s\n", ei->fig.n ? "" : "            (none for this format)");
  for (int i = 0; i < ei->fig.n; i++) print_figure(ei->fig.name[i], ei->fig.value[i]);
}

int zs_cli_info(int argc, char **argv) {
  zs_cli_opt opts[] = {{"json", 0, 0, NULL}, {"type", 0, 1, NULL}, {"format", 'f', 1, NULL}};
  const int n_opts = 3;
  const char *pos[1];
  int n_pos, help;
  int rc = zs_cli_parse("info", argc, argv, opts, n_opts, pos, 1, &n_pos, &help);
  if (rc) return rc;
  if (help) {
    fputs(help_text, stdout);
    return ZS_CLI_OK;
  }
  if (n_pos != 1) {
    zs_cli_usage_error("info", "expected one FILE");
    return ZS_CLI_USAGE;
  }
  zs_type type = ZS_F64;
  const char *type_s = zs_cli_get(opts, n_opts, "type");
  if (type_s && zs_cli_parse_type(type_s, &type)) {
    zs_cli_usage_error("info", "--type must be f32 or f64, not '%s'", type_s);
    return ZS_CLI_USAGE;
  }
  const int json = zs_cli_get(opts, n_opts, "json") != NULL;
  const char *path = pos[0];
  const int is_gen = strncmp(path, "gen:", 4) == 0;
  const int is_zsm = zs_cli_is_zsm(path);
  const int is_mtx = !is_gen && !is_zsm; /* what the file itself declares is shown */
  /* --format F[:OPTIONS]: the name before the first ':', the encoder options after it. */
  const char *fmt_arg = zs_cli_get(opts, n_opts, "format");
  char fmt_name[32];
  const char *enc_opts = NULL;
  zs_format enc_format = ZS_FORMAT_CSR;
  if (fmt_arg) {
    const char *colon = strchr(fmt_arg, ':');
    const size_t len = colon ? (size_t)(colon - fmt_arg) : strlen(fmt_arg);
    if (len >= sizeof fmt_name) {
      zs_cli_usage_error("info", "--format: unknown format '%s'", fmt_arg);
      return ZS_CLI_USAGE;
    }
    memcpy(fmt_name, fmt_arg, len);
    fmt_name[len] = 0;
    enc_opts = colon ? colon + 1 : "";
    if (zs_format_from_name(fmt_name, &enc_format) != ZS_OK) {
      zs_cli_usage_error("info", "%s", zs_last_error());
      return ZS_CLI_USAGE;
    }
    if (is_zsm) {
      zs_cli_usage_error("info",
                         "--format applies to Matrix Market input; %s is a container "
                         "(convert it to re-encode)",
                         path);
      return ZS_CLI_USAGE;
    }
  }

  zs_matrix *A = NULL;
  zs_encoded *E = NULL;
  zs_mm_info mm = {0};
  zs_status s;
  if (is_zsm) {
    s = zs_encoded_load(&E, path);
    if (s == ZS_OK) s = zs_decode(&A, E);
  } else if (is_gen) {
    s = zs_cli_read_matrix(&A, path, type);
  } else {
    s = zs_matrix_read(&A, path, type, 0, &mm, zs_cli_progress());
  }
  if (s != ZS_OK) {
    zs_cli_lib_error("info", s);
    zs_encoded_destroy(&E);
    return ZS_CLI_FAIL;
  }
  info_stats st;
  if (compute_stats(A, &st)) {
    fprintf(stderr, "zsparse info: out of memory computing statistics of %s\n", path);
    zs_matrix_destroy(&A);
    zs_encoded_destroy(&E);
    return ZS_CLI_FAIL;
  }
  const zs_type vtype = zs_matrix_type(A);
  /* The encoding to describe: the container itself, or the Matrix Market file encoded. */
  zs_encoded *enc = NULL;
  if (fmt_arg && (s = zs_encode(&enc, A, enc_format, *enc_opts ? enc_opts : NULL)) != ZS_OK) {
    zs_cli_lib_error("info", s);
    zs_matrix_destroy(&A);
    return ZS_CLI_FAIL;
  }
  const zs_encoded *shown = is_zsm ? E : enc;
  encoded_info ei;
  if (shown && (s = describe_encoded(shown, A, &ei)) != ZS_OK) {
    zs_cli_lib_error("info", s);
    zs_matrix_destroy(&A);
    zs_encoded_destroy(&E), zs_encoded_destroy(&enc);
    return ZS_CLI_FAIL;
  }

  if (json) {
    zs_json j;
    zs_json_begin(&j, stdout);
    zs_json_str(&j, "file", path);
    zs_json_str(&j, "kind", is_zsm ? "zsm" : is_gen ? "gen" : "mtx");
    zs_json_int(&j, "rows", st.rows);
    zs_json_int(&j, "cols", st.cols);
    zs_json_int(&j, "nnz", st.nnz);
    zs_json_int(&j, "nnz_per_row_min", st.row_min);
    zs_json_num(&j, "nnz_per_row_mean", st.row_mean);
    zs_json_int(&j, "nnz_per_row_max", st.row_max);
    zs_json_int(&j, "empty_rows", st.empty_rows);
    zs_json_str(&j, "symmetry", is_mtx ? mm_symmetry_name(mm.symmetry) : NULL);
    if (st.sym_struct < 0) {
      zs_json_null(&j, "symmetric_structural");
      zs_json_null(&j, "symmetric_numerical");
      zs_json_null(&j, "skew_symmetric_numerical");
    } else {
      zs_json_bool(&j, "symmetric_structural", st.sym_struct);
      zs_json_bool(&j, "symmetric_numerical", st.sym_num);
      zs_json_bool(&j, "skew_symmetric_numerical", st.skew_num);
    }
    zs_json_str(&j, "symmetry_computed", computed_symmetry(&st));
    zs_json_str(&j, "field", is_mtx ? mm_field_name(mm.field) : NULL);
    if (is_mtx) {
      zs_json_bool(&j, "dense", mm.dense);
      zs_json_int(&j, "entries_stored", mm.entries_stored);
    }
    zs_json_str(&j, "type", zs_type_name(vtype));
    zs_json_int(&j, "distinct_values", st.distinct);
    zs_json_num(&j, "entropy_col_delta_bits", st.h_delta);
    zs_json_num(&j, "entropy_value_bits", st.h_value);
    if (shown) {
      const char *kept = is_zsm ? zs_encoded_options(shown) : enc_opts;
      zs_json_str(&j, "options", *kept ? kept : NULL);
      json_encoded(&j, shown, &ei, st.nnz);
    }
    zs_json_end(&j);
  } else {
    printf("file:             %s (%s)\n", path,
           is_zsm   ? "zsm container"
           : is_gen ? "generated"
                    : "Matrix Market");
    printf("rows x cols:      %lld x %lld\n", (long long)st.rows, (long long)st.cols);
    printf("nnz:              %lld\n", (long long)st.nnz);
    printf("nnz/row:          min %lld, mean %.3f, max %lld\n", (long long)st.row_min, st.row_mean,
           (long long)st.row_max);
    printf("empty rows:       %lld\n", (long long)st.empty_rows);
    if (is_mtx) printf("symmetry (file):  %s\n", mm_symmetry_name(mm.symmetry));
    printf("symmetry (data):  %s (structural %s, A == A^T %s, A == -A^T %s)\n",
           computed_symmetry(&st), yes_no(st.sym_struct), yes_no(st.sym_num), yes_no(st.skew_num));
    if (is_mtx)
      printf("field:            %s%s, %lld entries stored, read as %s\n", mm_field_name(mm.field),
             mm.dense ? " (dense array)" : "", (long long)mm.entries_stored, zs_type_name(vtype));
    else
      printf("value type:       %s\n", zs_type_name(vtype));
    printf("distinct values:  %lld\n", (long long)st.distinct);
    printf("entropy:          column deltas %.3f bits/nnz, values %.3f bits/nnz\n", st.h_delta,
           st.h_value);
    /* a .zsm's kept encoder options, when it has any, on the format line as for --format */
    const char *kept =
        is_zsm && shown && *zs_encoded_options(shown) ? zs_encoded_options(shown) : NULL;
    if (shown) text_encoded(shown, &ei, st.nnz, is_zsm ? kept : enc_opts);
  }
  zs_matrix_destroy(&A);
  zs_encoded_destroy(&E), zs_encoded_destroy(&enc);
  return ZS_CLI_OK;
}
