/* cpu_csb.c — the cpu backend's CSB/GCSB kernels. */
#include "backends/cpu/cpu_kernels.h"

/* Placeholder until the kernel lands: op_create says so (the backend never falls back). */
static zs_status cpu_csb_missing(void **state, const zsb_encoded_view *enc,
                                 const zsi_cpu_opts *opts) {
  (void)state, (void)enc, (void)opts;
  return zsi_error(ZS_ERR_UNSUPPORTED, "backend 'cpu' has no CSB/GCSB kernel yet");
}
static void cpu_csb_destroy(void *state) { (void)state; }
static zs_status cpu_csb_apply(void *state, zs_op which, double alpha, const void *x, double beta,
                               void *y) {
  (void)state, (void)which, (void)alpha, (void)x, (void)beta, (void)y;
  return ZS_ERR_UNSUPPORTED;
}

const zsi_cpu_kernel zsi_cpu_csb = {ZS_FORMAT_CSB, cpu_csb_missing, cpu_csb_destroy, cpu_csb_apply};
const zsi_cpu_kernel zsi_cpu_gcsb = {ZS_FORMAT_GCSB, cpu_csb_missing, cpu_csb_destroy,
                                     cpu_csb_apply};
