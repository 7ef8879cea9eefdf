/* cli_args.c — option parsing and error reporting shared by the zsparse subcommands. */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

void zs_cli_usage_error(const char *cmd, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "zsparse %s: ", cmd);
  vfprintf(stderr, fmt, ap);
  fprintf(stderr, "\n(see 'zsparse %s --help')\n", cmd);
  va_end(ap);
}

void zs_cli_lib_error(const char *cmd, zs_status s) {
  const char *msg = zs_last_error();
  fprintf(stderr, "zsparse %s: %s\n", cmd, msg && *msg ? msg : zs_status_name(s));
}

static zs_cli_opt *find_long(zs_cli_opt *opts, int n, const char *name, size_t len) {
  for (int i = 0; i < n; i++)
    if (strlen(opts[i].long_name) == len && strncmp(opts[i].long_name, name, len) == 0)
      return &opts[i];
  return NULL;
}

/* Values every command checks the same way, before any work: an empty value (an unset shell
 * variable, `-o ""`) names nothing, except for option strings where it means "none"; a backend
 * name must be one the tool knows (one that is known but not usable here is a runtime error). */
static int check_value(const char *cmd, const zs_cli_opt *o, const char *v) {
  const int option_string =
      strcmp(o->long_name, "options") == 0 || strcmp(o->long_name, "op-options") == 0;
  if (v[0] == '\0' && !option_string) {
    zs_cli_usage_error(cmd, "option '--%s' needs a non-empty value", o->long_name);
    return ZS_CLI_USAGE;
  }
  if (strcmp(o->long_name, "backend") == 0) {
    static const char *const known[] = {"ref", "cpu", "cuda", "hip"};
    for (int k = 0; k < 4; k++)
      if (strcmp(v, known[k]) == 0) return 0;
    zs_cli_usage_error(cmd, "unknown backend '%s' (known: ref, cpu, cuda, hip)", v);
    return ZS_CLI_USAGE;
  }
  return 0;
}

int zs_cli_parse(const char *cmd, int argc, char **argv, zs_cli_opt *opts, int n_opts,
                 const char **pos, int max_pos, int *n_pos, int *help) {
  int s;
  *n_pos = 0;
  *help = 0;
  int only_pos = 0; /* after "--" everything is positional */
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (!only_pos && strcmp(a, "--") == 0) {
      only_pos = 1;
      continue;
    }
    if (only_pos || a[0] != '-' || a[1] == '\0') {
      if (a[0] == '\0') {
        zs_cli_usage_error(cmd, "an empty argument names no file or spec");
        return ZS_CLI_USAGE;
      }
      if (*n_pos >= max_pos) {
        zs_cli_usage_error(cmd, "unexpected argument '%s'", a);
        return ZS_CLI_USAGE;
      }
      pos[(*n_pos)++] = a;
      continue;
    }
    if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
      *help = 1;
      continue;
    }
    zs_cli_opt *o = NULL;
    const char *inline_value = NULL;
    if (a[1] == '-') {
      const char *name = a + 2, *eq = strchr(name, '=');
      size_t len = eq ? (size_t)(eq - name) : strlen(name);
      o = find_long(opts, n_opts, name, len);
      if (eq) inline_value = eq + 1;
    } else if (a[2] == '\0') {
      for (int k = 0; k < n_opts; k++)
        if (opts[k].short_name && opts[k].short_name == a[1]) o = &opts[k];
    }
    if (!o) {
      zs_cli_usage_error(cmd, "unknown option '%s'", a);
      return ZS_CLI_USAGE;
    }
    if (!o->takes_value) {
      if (inline_value) {
        zs_cli_usage_error(cmd, "option '--%s' takes no value", o->long_name);
        return ZS_CLI_USAGE;
      }
      o->value = "1";
      continue;
    }
    if (!inline_value) {
      if (i + 1 >= argc) {
        zs_cli_usage_error(cmd, "option '%s' needs a value", a);
        return ZS_CLI_USAGE;
      }
      inline_value = argv[++i];
    }
    if ((s = check_value(cmd, o, inline_value)) != 0) return s;
    o->value = inline_value;
  }
  return 0;
}

const char *zs_cli_get(const zs_cli_opt *opts, int n_opts, const char *long_name) {
  for (int i = 0; i < n_opts; i++)
    if (strcmp(opts[i].long_name, long_name) == 0) return opts[i].value;
  return NULL;
}

int zs_cli_parse_type(const char *s, zs_type *out) {
  if (strcmp(s, "f32") == 0) {
    *out = ZS_F32;
    return 0;
  }
  if (strcmp(s, "f64") == 0) {
    *out = ZS_F64;
    return 0;
  }
  return -1;
}

int zs_cli_parse_int(const char *s, int64_t lo, int64_t hi, int64_t *out) {
  char *end;
  errno = 0;
  long long v = strtoll(s, &end, 10);
  if (errno || end == s || *end || v < lo || v > hi) return -1;
  *out = v;
  return 0;
}

void zs_cli_print_op_options(FILE *f) {
  fputs("\noperator options (--op-options; zs_operator_create):\n", f);
  for (const char *p = zs_operator_options_help(); *p;) {
    const size_t n = strcspn(p, "\n");
    fprintf(f, "  %.*s\n", (int)n, p);
    p += n + (p[n] == '\n');
  }
}
