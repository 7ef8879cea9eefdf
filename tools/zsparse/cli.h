/* cli.h — declarations shared by the zsparse subcommands: argument parsing, JSON, loading. */
#ifndef ZS_CLI_H
#define ZS_CLI_H

#include <stdint.h>
#include <stdio.h>

#include "zsparse.h"

/* The --op-options line of the spmv and solve help texts; the options themselves follow it,
 * from the library's table (zs_operator_options_help). */
#define ZS_CLI_OP_OPTIONS_HELP \
  "  --op-options K=V,...  operator options (the same for every backend; listed at the end)\n"

/* Prints "operator options:" and the library's table of them, indented. */
void zs_cli_print_op_options(FILE *f);

/* Exit codes of every subcommand. */
enum { ZS_CLI_OK = 0, ZS_CLI_FAIL = 1, ZS_CLI_USAGE = 2 };

/* ---- subcommands (cli_<name>.c) ---- */
int zs_cli_devices(int argc, char **argv);
int zs_cli_info(int argc, char **argv);
int zs_cli_convert(int argc, char **argv);
int zs_cli_spmv(int argc, char **argv);
int zs_cli_gen(int argc, char **argv);
int zs_cli_demo(int argc, char **argv);
int zs_cli_solve(int argc, char **argv);
int zs_cli_vans(int argc, char **argv);
int zs_cli_plan(int argc, char **argv);
int zs_cli_calibrate(int argc, char **argv);

/* ---- argument parsing (cli_args.c) ----
 * Options are "--name value", "--name=value", "-x value" or flags without a value. A spec
 * table lists them; everything else that does not start with '-' is a positional argument. */
typedef struct zs_cli_opt {
  const char *long_name; /* "format" for --format */
  char short_name;       /* 'f' for -f, or 0 */
  int takes_value;       /* 1: needs a value; 0: a flag */
  const char *value;     /* filled in: the value, or "1" for a present flag, NULL if absent */
} zs_cli_opt;

/* Parse argv[1..argc-1] (argv[0] is the subcommand name). Positional arguments are collected
 * into pos (at most max_pos). "--help"/"-h" sets *help. Returns 0, or prints
 * "zsparse <cmd>: ..." and returns ZS_CLI_USAGE. */
int zs_cli_parse(const char *cmd, int argc, char **argv, zs_cli_opt *opts, int n_opts,
                 const char **pos, int max_pos, int *n_pos, int *help);
/* The value of option `long_name` (NULL when absent). */
const char *zs_cli_get(const zs_cli_opt *opts, int n_opts, const char *long_name);

/* Print "zsparse <cmd>: <message>" to stderr; usage errors add a hint to --help. */
void zs_cli_usage_error(const char *cmd, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Print "zsparse <cmd>: <zs_last_error()>" (or the status name when the message is empty). */
void zs_cli_lib_error(const char *cmd, zs_status s);

/* Parse "f32"/"f64"; returns 0 or -1. */
int zs_cli_parse_type(const char *s, zs_type *out);
/* Parse a positive integer in [lo, hi]; returns 0 or -1. */
int zs_cli_parse_int(const char *s, int64_t lo, int64_t hi, int64_t *out);

/* ---- inputs (cli_util.c) ---- */
/* 1 when the name ends in ".zsm" or the file begins with the container magic "ZSPARSE"; 0 for
 * gen:SPEC. */
int zs_cli_is_zsm(const char *path);
/* 1 when path ends with suffix. */
int zs_cli_ends_with(const char *path, const char *suffix);
/* 1 when progress lines are wanted (stderr is a terminal). */
int zs_cli_progress(void);
/* A matrix that is not a container: "gen:SPEC" generated (docs/generators.md), anything else
 * read as Matrix Market (a file whose name begins with gen: is reached as ./gen:...). */
zs_status zs_cli_read_matrix(zs_matrix **A, const char *source, zs_type type);
/* Before a large allocation: over 1 GiB, say on stderr what `what` ("the vectors") needs; when
 * that is more than the machine's memory, say so instead and return 1 (the caller fails). */
int zs_cli_memory_check(const char *cmd, const char *what, uint64_t bytes);
/* Write A to `out`: encoded in *format (encoder options `enc_opts`; ZS_FORMAT_AUTO is replaced
 * by the format chosen) as a .zsm when `as_zsm` (*bytes: its arrays' bytes), else as Matrix
 * Market (*bytes = 0). */
zs_status zs_cli_save(const zs_matrix *A, const char *out, int as_zsm, zs_format *format,
                      const char *enc_opts, uint64_t *bytes);

/* ---- the format chooser (cli_plan.c) ---- */
typedef struct zs_plan zs_plan;
/* A plan for A on `backend` (NULL: the library's default) for `workload` (NULL: spmv), with
 * more planner options `extra` (NULL: none). */
zs_status zs_cli_plan_make(zs_plan **out, const zs_matrix *A, const char *backend,
                           const char *workload, const char *extra);
/* The options of a choice. */
typedef struct zs_cli_choice {
  char options[64], op_options[64];
} zs_cli_choice;
/* --format auto: plan, encode A in the choice (E records it) and copy its options into chosen
 * (may be NULL). */
zs_status zs_cli_auto_encode(const zs_matrix *A, const char *backend, const char *workload,
                             const char *extra, zs_encoded **E, zs_cli_choice *chosen);

/* ---- small numerics (cli_util.c) ---- */
double zs_cli_now(void); /* monotonic seconds */
/* A deterministic generator (splitmix64) for test vectors. */
typedef struct zs_cli_rng {
  uint64_t state;
} zs_cli_rng;
uint64_t zs_cli_rng_next(zs_cli_rng *r);
double zs_cli_rng_uniform(zs_cli_rng *r); /* uniform in [-1, 1] */
/* Median of n doubles (sorts them in place). */
double zs_cli_median(double *v, int n);

/* ---- JSON output (cli_json.c) ----
 * One object on stdout. Keys are given at each call; inside arrays pass key = NULL. Non-finite
 * numbers are written as null (JSON has no NaN or infinity). */
typedef struct zs_json {
  FILE *f;
  int depth;
  int count[32]; /* members written so far at each nesting level */
} zs_json;
void zs_json_begin(zs_json *j, FILE *f); /* opens the top-level object */
void zs_json_end(zs_json *j);            /* closes it and writes a newline */
void zs_json_object(zs_json *j, const char *key);
void zs_json_object_end(zs_json *j);
void zs_json_array(zs_json *j, const char *key);
void zs_json_array_end(zs_json *j);
void zs_json_str(zs_json *j, const char *key, const char *value); /* NULL value: null */
void zs_json_int(zs_json *j, const char *key, int64_t value);
void zs_json_num(zs_json *j, const char *key, double value);
void zs_json_bool(zs_json *j, const char *key, int value);
void zs_json_null(zs_json *j, const char *key);
/* Write s as a JSON string literal (quotes, escapes, control characters as \u00XX). */
void zs_json_write_string(FILE *f, const char *s);

/* ---- SpMV measurement shared by `spmv` and `demo` (cli_measure.c) ---- */
typedef struct zs_cli_measure {
  /* inputs */
  zs_op op;
  int pair;   /* zs_spmv_pair instead: y = A x and z = Aᵀ w, both timed and checked (op unused) */
  int repeat; /* timed repetitions after one warm-up */
  int batch;  /* products issued back to back in each repetition, synchronised once (0 or 1: one);
                 its time / batch is the repetition's: a product's issue rate, not its latency */
  int check;  /* compare with the host reference */
  uint64_t seed; /* for x and y */
  /* results */
  uint64_t bytes;       /* encoded bytes + x bytes + y bytes (pair: + w + z) */
  double time_median_s; /* median of the timed runs */
  double time_min_s;
  double gbps;        /* bytes / time_median_s / 1e9 */
  double max_rel_err; /* infinity when a result was NaN or missing; 0 when not checked */
  double tolerance;
  int64_t len_max; /* longest row of op(A) (pair: of A or Aᵀ): what the tolerance scales with */
  int check_ok;    /* 1 when checked and within tolerance, or not checked */
} zs_cli_measure;

/* Tolerance of --check for a value type and op(A)'s longest row (core/check_tolerance.h):
 * 16 * eps(type) * min(len_max + 2, 1024), with an absolute floor for underflowing products. */
double zs_cli_tolerance(zs_type type, int64_t len_max);

/* Create vectors on op's backend, time `repeat` runs of y = op(A) x (alpha 1, beta 0; with
 * pair, zs_spmv_pair's y = A x and z = Aᵀ w together) and, with check, compare two products
 * (beta 0 over a NaN-poisoned y, and alpha 0.75 / beta -1.25 over a random y) against a long
 * double reference computed from A's CSR (A: the same matrix as the operator, in the operator's
 * value type). Returns a status (an error is printed as
 * "zsparse <cmd>: ..."); m holds the results. */
zs_status zs_cli_measure_run(const char *cmd, zs_context *ctx, zs_operator *op, const zs_encoded *E,
                             const zs_matrix *A, zs_cli_measure *m);

#endif /* ZS_CLI_H */
