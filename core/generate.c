/* generate.c — STUB until the generators land. */
#include "core/zs_internal.h"
zs_status zs_matrix_generate(zs_matrix **out, const char *spec, zs_type type, int progress) {
  (void)out, (void)type, (void)progress;
  return zsi_error(ZS_ERR_UNSUPPORTED, "generator '%s' not implemented yet", spec);
}
