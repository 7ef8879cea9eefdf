/* mtx_write.c — STUB until the Matrix Market writer lands. */
#include "core/zs_internal.h"
zs_status zs_matrix_write(const zs_matrix *A, const char *path) {
  (void)A;
  return zsi_error(ZS_ERR_UNSUPPORTED, "%s: writer not implemented yet", path);
}
