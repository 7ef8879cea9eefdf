/* options.c — "key=value,key=value" option strings for encoders, generators and backends.
 *
 * One rule for every option string: each key at most once, and numbers in decimal only (no
 * 0x hex, no leading-zero octal, no hex floats, no inf or nan), so "n=010" is ten wherever it
 * is written. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/zs_internal.h"

/* The entry starting at p: its key is [p, p + *name_len), its value (NULL when there is no '=')
 * starts at *val; returns where the next entry starts. */
static const char *entry(const char *p, size_t *name_len, const char **val, size_t *val_len) {
  const char *end = strchr(p, ',');
  if (!end) end = p + strlen(p);
  const char *eq = memchr(p, '=', (size_t)(end - p));
  *name_len = eq ? (size_t)(eq - p) : (size_t)(end - p);
  *val = eq ? eq + 1 : end;
  *val_len = eq ? (size_t)(end - eq - 1) : 0;
  return *end ? end + 1 : end;
}

/* Locate key's value in opts: *val points into opts, *len is its length. Returns how many
 * times the key occurs (a second occurrence is an error for the callers). */
static int find_key(const char *opts, const char *key, const char **val, size_t *len) {
  const size_t klen = strlen(key);
  int count = 0;
  for (const char *p = opts; p && *p;) {
    size_t name_len, vlen;
    const char *v;
    const char *next = entry(p, &name_len, &v, &vlen);
    if (name_len == klen && memcmp(p, key, klen) == 0 && count++ == 0) *val = v, *len = vlen;
    p = next;
  }
  return count;
}

zs_status zsi_option_str(const char *opts, const char *key, char *buf, size_t len, int *found) {
  const char *val = NULL;
  size_t n = 0;
  const int count = find_key(opts, key, &val, &n);
  *found = count > 0;
  if (count > 1)
    return zsi_error(ZS_ERR_INVALID_ARGUMENT, "option '%s' is given %d times", key, count);
  if (!*found) return ZS_OK;
  if (n >= len) return zsi_error(ZS_ERR_INVALID_ARGUMENT, "option '%s': value too long", key);
  memcpy(buf, val, n);
  buf[n] = '\0';
  return ZS_OK;
}

/* Digits only, after an optional sign: what strtoll and strtod would read as decimal. */
static int decimal_digits(const char *s, const char *extra) {
  if (*s == '-' || *s == '+') s++;
  if (!(*s >= '0' && *s <= '9') && !(*s == '.' && extra && s[1] >= '0' && s[1] <= '9')) return 0;
  for (; *s; s++)
    if (!(*s >= '0' && *s <= '9') && !(extra && strchr(extra, *s))) return 0;
  return 1;
}

zs_status zsi_option_int(const char *opts, const char *key, int64_t lo, int64_t hi, int64_t *value,
                         int *found) {
  char buf[64], *end;
  zs_status s = zsi_option_str(opts, key, buf, sizeof buf, found);
  if (s != ZS_OK || !*found) return s;
  if (!decimal_digits(buf, NULL))
    return zsi_error(ZS_ERR_INVALID_ARGUMENT,
                     "option '%s': '%s' is not an integer (decimal digits only)", key, buf);
  errno = 0;
  const long long v = strtoll(buf, &end, 10);
  if (*end != '\0' || errno == ERANGE || v < lo || v > hi)
    return zsi_error(ZS_ERR_INVALID_ARGUMENT,
                     "option '%s': %s is outside [%" PRId64 ", %" PRId64 "]", key, buf, lo, hi);
  *value = v;
  return ZS_OK;
}

zs_status zsi_option_double(const char *opts, const char *key, double *value, int *found) {
  char buf[64], *end;
  zs_status s = zsi_option_str(opts, key, buf, sizeof buf, found);
  if (s != ZS_OK || !*found) return s;
  /* The exponent's sign is the only sign after the first character; strtod checks placement. */
  const double v = decimal_digits(buf, ".eE+-") ? strtod(buf, &end) : NAN;
  if (isnan(v) || *end != '\0' || !isfinite(v))
    return zsi_error(ZS_ERR_INVALID_ARGUMENT,
                     "option '%s': '%s' is not a number (finite, in decimal)", key, buf);
  *value = v;
  return ZS_OK;
}

zs_status zsi_option_check(const char *opts, const char *const *known, const char *what) {
  for (const char *p = opts; p && *p;) {
    size_t name_len, vlen;
    const char *v;
    const char *next = entry(p, &name_len, &v, &vlen);
    int ok = 0;
    for (const char *const *k = known; *k && !ok; k++)
      ok = strlen(*k) == name_len && memcmp(*k, p, name_len) == 0;
    if (!ok)
      return zsi_error(ZS_ERR_INVALID_ARGUMENT, "%s: unknown option '%.*s'", what, (int)name_len,
                       p);
    /* A key given twice would leave one of its values silently unused. */
    for (const char *q = opts; q != p;) {
      size_t qlen;
      const char *qnext = entry(q, &qlen, &v, &vlen);
      if (qlen == name_len && memcmp(q, p, name_len) == 0)
        return zsi_error(ZS_ERR_INVALID_ARGUMENT, "%s: option '%.*s' is given more than once", what,
                         (int)name_len, p);
      q = qnext;
    }
    p = next;
  }
  return ZS_OK;
}
