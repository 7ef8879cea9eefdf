/* cpu_cci.c — the cpu backend's CCI kernels. */
#include "backends/cpu/cpu_kernels.h"

/* Placeholder until the kernel lands: op_create says so (the backend never falls back). */
static zs_status cpu_cci_missing(void **state, const zsb_encoded_view *enc,
                                 const zsi_cpu_opts *opts) {
  (void)state, (void)enc, (void)opts;
  return zsi_error(ZS_ERR_UNSUPPORTED, "backend 'cpu' has no CCI kernel yet");
}
static void cpu_cci_destroy(void *state) { (void)state; }
static zs_status cpu_cci_apply(void *state, zs_op which, double alpha, const void *x, double beta,
                               void *y) {
  (void)state, (void)which, (void)alpha, (void)x, (void)beta, (void)y;
  return ZS_ERR_UNSUPPORTED;
}

const zsi_cpu_kernel zsi_cpu_cci = {ZS_FORMAT_CCI, cpu_cci_missing, cpu_cci_destroy, cpu_cci_apply};
