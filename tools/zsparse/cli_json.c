/* cli_json.c — a minimal streaming JSON writer for the tool's --json output. */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>

#include "cli.h"

void zs_json_write_string(FILE *f, const char *s) {
  fputc('"', f);
  for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
    switch (*p) {
    case '"': fputs("\\\"", f); break;
    case '\\': fputs("\\\\", f); break;
    case '\b': fputs("\\b", f); break;
    case '\f': fputs("\\f", f); break;
    case '\n': fputs("\\n", f); break;
    case '\r': fputs("\\r", f); break;
    case '\t': fputs("\\t", f); break;
    default:
      /* Bytes >= 0x80 pass through: file names and messages are taken to be UTF-8. */
      if (*p < 0x20)
        fprintf(f, "\\u%04x", *p);
      else
        fputc(*p, f);
    }
  }
  fputc('"', f);
}

/* Separator and key for the next member at the current level. */
static void member(zs_json *j, const char *key) {
  if (j->count[j->depth]++) fputc(',', j->f);
  if (key) {
    zs_json_write_string(j->f, key);
    fputc(':', j->f);
  }
}

static void open_level(zs_json *j, const char *key, char c) {
  member(j, key);
  fputc(c, j->f);
  if (j->depth + 1 < (int)(sizeof j->count / sizeof *j->count)) j->depth++;
  j->count[j->depth] = 0;
}

static void close_level(zs_json *j, char c) {
  fputc(c, j->f);
  if (j->depth > 0) j->depth--;
}

void zs_json_begin(zs_json *j, FILE *f) {
  j->f = f;
  j->depth = 0;
  j->count[0] = 0;
  fputc('{', f);
  j->depth = 1;
  j->count[1] = 0;
}

void zs_json_end(zs_json *j) {
  fputs("}\n", j->f);
  j->depth = 0;
  fflush(j->f);
}

void zs_json_object(zs_json *j, const char *key) { open_level(j, key, '{'); }
void zs_json_object_end(zs_json *j) { close_level(j, '}'); }
void zs_json_array(zs_json *j, const char *key) { open_level(j, key, '['); }
void zs_json_array_end(zs_json *j) { close_level(j, ']'); }

void zs_json_str(zs_json *j, const char *key, const char *value) {
  member(j, key);
  if (value)
    zs_json_write_string(j->f, value);
  else
    fputs("null", j->f);
}

void zs_json_int(zs_json *j, const char *key, int64_t value) {
  member(j, key);
  fprintf(j->f, "%" PRId64, value);
}

void zs_json_num(zs_json *j, const char *key, double value) {
  member(j, key);
  if (isfinite(value)) {
    /* The shortest of 15..17 digits that reads back to the same double. */
    char buf[40];
    for (int digits = 15; digits <= 17; digits++) {
      snprintf(buf, sizeof buf, "%.*g", digits, value);
      if (strtod(buf, NULL) == value) break;
    }
    fputs(buf, j->f);
  } else
    fputs("null", j->f);
}

void zs_json_bool(zs_json *j, const char *key, int value) {
  member(j, key);
  fputs(value ? "true" : "false", j->f);
}

void zs_json_null(zs_json *j, const char *key) {
  member(j, key);
  fputs("null", j->f);
}
