/* cpu_dtans.c — the cpu backend's CSR-dtANS kernels. */
#include "backends/cpu/cpu_kernels.h"

/* Placeholder until the kernel lands: op_create says so (the backend never falls back). */
static zs_status cpu_dtans_missing(void **state, const zsb_encoded_view *enc,
                                   const zsi_cpu_opts *opts) {
  (void)state, (void)enc, (void)opts;
  return zsi_error(ZS_ERR_UNSUPPORTED, "backend 'cpu' has no CSR-dtANS kernel yet");
}
static void cpu_dtans_destroy(void *state) { (void)state; }
static zs_status cpu_dtans_apply(void *state, zs_op which, double alpha, const void *x, double beta,
                                 void *y) {
  (void)state, (void)which, (void)alpha, (void)x, (void)beta, (void)y;
  return ZS_ERR_UNSUPPORTED;
}

const zsi_cpu_kernel zsi_cpu_dtans = {ZS_FORMAT_DTANS, cpu_dtans_missing, cpu_dtans_destroy,
                                      cpu_dtans_apply};
