/* csb.c — CSB-baseline and GCSB: blocked formats for SpMV and SpMVT from one copy. */
#include "formats/csb/csb.h"

/* Placeholder until the format lands: every entry point says so instead of pretending. */
static zs_status csb_missing(void) {
  return zsi_error(ZS_ERR_UNSUPPORTED, "format 'csb' is not implemented yet");
}
static zs_status csb_encode(const zs_matrix *A, const char *options, zs_encoded **out) {
  (void)A, (void)options, (void)out;
  return csb_missing();
}
static zs_status csb_validate(const zs_encoded *E) {
  (void)E;
  return csb_missing();
}
static zs_status csb_decode(const zs_encoded *E, zs_matrix **out) {
  (void)E, (void)out;
  return csb_missing();
}

const zsi_format_ops zsi_format_csb = {ZS_FORMAT_CSB, "csb",      csb_encode,
                                       csb_validate,  csb_decode, NULL};
