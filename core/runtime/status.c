/* status.c — status names, per-thread last-error message, version string. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core/zs_internal.h"

#define ZSI_ERROR_LEN 1024

static _Thread_local char last_error[ZSI_ERROR_LEN];

const char *zs_version(void) { return "0.1.0"; }

const char *zs_last_error(void) { return last_error; }

void zsi_error_clear(void) { last_error[0] = '\0'; }

/* Every allocation failure says so in the same words, whatever the site wrote: "out of
 * memory" leads unless the message already has it (zsi_oom's do). */
static void say_out_of_memory(zs_status status) {
  if (status != ZS_ERR_OUT_OF_MEMORY || strstr(last_error, "out of memory")) return;
  char old[ZSI_ERROR_LEN];
  memcpy(old, last_error, sizeof old);
  snprintf(last_error, sizeof last_error, "out of memory: %.1000s", old);
}

zs_status zsi_error(zs_status status, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(last_error, sizeof last_error, fmt, ap);
  va_end(ap);
  say_out_of_memory(status);
  return status;
}

zs_status zsi_oom(const char *what, uint64_t bytes) {
  static const char *const unit[] = {"bytes", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  double v = (double)bytes;
  int u = 0;
  while (v >= 1024.0 && u < 6) v /= 1024.0, u++;
  if (u == 0)
    return zsi_error(ZS_ERR_OUT_OF_MEMORY, "%s: out of memory (%" PRIu64 " bytes)", what, bytes);
  return zsi_error(ZS_ERR_OUT_OF_MEMORY, "%s: out of memory (%.1f %s, %" PRIu64 " bytes)", what, v,
                   unit[u], bytes);
}

zs_status zsi_error_prefix(zs_status status, const char *fmt, ...) {
  char prefix[ZSI_ERROR_LEN], old[ZSI_ERROR_LEN];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(prefix, sizeof prefix, fmt, ap);
  va_end(ap);
  memcpy(old, last_error, sizeof old);
  snprintf(last_error, sizeof last_error, "%.400s: %.600s", prefix, old);
  say_out_of_memory(status);
  return status;
}

void zsi_backend_error(zs_status status, const char *message) {
  snprintf(last_error, sizeof last_error, "%s", message);
  say_out_of_memory(status);
}

const char *zs_status_name(zs_status s) {
  switch (s) {
  case ZS_OK: return "ZS_OK";
  case ZS_INFO_NOT_CONVERGED: return "ZS_INFO_NOT_CONVERGED";
  case ZS_ERR_INVALID_ARGUMENT: return "ZS_ERR_INVALID_ARGUMENT";
  case ZS_ERR_OUT_OF_MEMORY: return "ZS_ERR_OUT_OF_MEMORY";
  case ZS_ERR_OVERFLOW: return "ZS_ERR_OVERFLOW";
  case ZS_ERR_IO: return "ZS_ERR_IO";
  case ZS_ERR_PARSE: return "ZS_ERR_PARSE";
  case ZS_ERR_CORRUPT: return "ZS_ERR_CORRUPT";
  case ZS_ERR_UNSUPPORTED: return "ZS_ERR_UNSUPPORTED";
  case ZS_ERR_BACKEND_UNAVAILABLE: return "ZS_ERR_BACKEND_UNAVAILABLE";
  case ZS_ERR_DEVICE: return "ZS_ERR_DEVICE";
  case ZS_ERR_BREAKDOWN: return "ZS_ERR_BREAKDOWN";
  case ZS_ERR_INTERNAL: return "ZS_ERR_INTERNAL";
  case ZS_ERR_OUT_OF_RANGE: return "ZS_ERR_OUT_OF_RANGE";
  }
  return "ZS_ERR_UNKNOWN";
}

const char *zs_type_name(zs_type t) {
  return t == ZS_F32 ? "f32" : t == ZS_F64 ? "f64" : "invalid";
}

size_t zs_type_size(zs_type t) { return t == ZS_F32 ? 4 : t == ZS_F64 ? 8 : 0; }
