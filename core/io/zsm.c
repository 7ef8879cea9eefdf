/* zsm.c — STUB until the .zsm container lands. */
#include "core/zs_internal.h"
zs_status zs_encoded_save(const zs_encoded *E, const char *path) {
  (void)E;
  return zsi_error(ZS_ERR_UNSUPPORTED, "%s: container not implemented yet", path);
}
zs_status zs_encoded_load(zs_encoded **out, const char *path) {
  (void)out;
  return zsi_error(ZS_ERR_UNSUPPORTED, "%s: container not implemented yet", path);
}
