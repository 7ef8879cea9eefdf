/* options.c — "key=value,key=value" option strings for encoders and backends. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "core/zs_internal.h"

/* Locate key's value in opts: *val points into opts, *len is its length. */
static int find_key(const char *opts, const char *key, const char **val, size_t *len) {
  size_t klen = strlen(key);
  for (const char *p = opts; p && *p;) {
    const char *end = strchr(p, ',');
    if (!end) end = p + strlen(p);
    const char *eq = memchr(p, '=', (size_t)(end - p));
    size_t name_len = eq ? (size_t)(eq - p) : (size_t)(end - p);
    if (name_len == klen && memcmp(p, key, klen) == 0) {
      *val = eq ? eq + 1 : end;
      *len = eq ? (size_t)(end - eq - 1) : 0;
      return 1;
    }
    p = *end ? end + 1 : end;
  }
  return 0;
}

zs_status zsi_option_str(const char *opts, const char *key, char *buf, size_t len, int *found) {
  const char *val;
  size_t n;
  *found = find_key(opts, key, &val, &n);
  if (!*found) return ZS_OK;
  if (n >= len) return zsi_error(ZS_ERR_INVALID_ARGUMENT, "option '%s': value too long", key);
  memcpy(buf, val, n);
  buf[n] = '\0';
  return ZS_OK;
}

zs_status zsi_option_int(const char *opts, const char *key, int64_t lo, int64_t hi, int64_t *value,
                         int *found) {
  char buf[64], *end;
  zs_status s = zsi_option_str(opts, key, buf, sizeof buf, found);
  if (s != ZS_OK || !*found) return s;
  errno = 0;
  long long v = strtoll(buf, &end, 0);
  if (buf[0] == '\0' || *end != '\0' || errno == ERANGE)
    return zsi_error(ZS_ERR_INVALID_ARGUMENT, "option '%s': '%s' is not an integer", key, buf);
  if (v < lo || v > hi)
    return zsi_error(ZS_ERR_INVALID_ARGUMENT,
                     "option '%s': %lld is outside [%" PRId64 ", %" PRId64 "]", key, v, lo, hi);
  *value = v;
  return ZS_OK;
}

zs_status zsi_option_check(const char *opts, const char *const *known, const char *what) {
  for (const char *p = opts; p && *p;) {
    const char *end = strchr(p, ',');
    if (!end) end = p + strlen(p);
    const char *eq = memchr(p, '=', (size_t)(end - p));
    size_t name_len = eq ? (size_t)(eq - p) : (size_t)(end - p);
    int ok = 0;
    for (const char *const *k = known; *k && !ok; k++)
      ok = strlen(*k) == name_len && memcmp(*k, p, name_len) == 0;
    if (!ok)
      return zsi_error(ZS_ERR_INVALID_ARGUMENT, "%s: unknown option '%.*s'", what, (int)name_len,
                       p);
    p = *end ? end + 1 : end;
  }
  return ZS_OK;
}
