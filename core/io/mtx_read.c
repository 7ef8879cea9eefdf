/* mtx_read.c — STUB until the Matrix Market reader lands. */
#include "core/zs_internal.h"
zs_status zs_matrix_read(zs_matrix **out, const char *path, zs_type type, unsigned flags,
                         zs_mm_info *info, int progress) {
  (void)out, (void)type, (void)flags, (void)info, (void)progress;
  return zsi_error(ZS_ERR_UNSUPPORTED, "%s: reader not implemented yet", path);
}
