/* cpu_backend.c — STUB until the cpu kernels land. */
#include <stdio.h>
#include "core/zs_internal.h"
static zs_status stub_init(void *self, zsb_error_fn error, char *why, size_t len) {
  (void)self, (void)error;
  snprintf(why, len, "not implemented yet");
  return ZS_ERR_UNSUPPORTED;
}
static const zsb_backend stub = {.abi_version = ZS_BACKEND_ABI_VERSION, .name = "cpu", .init = stub_init};
const zsb_backend *zsi_backend_cpu(void) { return &stub; }
void zsi_backend_cpu_set_threads(int threads) { (void)threads; }
