/* gcsb.c — CSB-baseline and GCSB: blocked formats for SpMV and SpMVT from one copy. */
#include "formats/csb/csb.h"

/* Placeholder until the format lands: every entry point says so instead of pretending. */
static zs_status gcsb_missing(void) {
  return zsi_error(ZS_ERR_UNSUPPORTED, "format 'gcsb' is not implemented yet");
}
static zs_status gcsb_encode(const zs_matrix *A, const char *options, zs_encoded **out) {
  (void)A, (void)options, (void)out;
  return gcsb_missing();
}
static zs_status gcsb_validate(const zs_encoded *E) {
  (void)E;
  return gcsb_missing();
}
static zs_status gcsb_decode(const zs_encoded *E, zs_matrix **out) {
  (void)E, (void)out;
  return gcsb_missing();
}

const zsi_format_ops zsi_format_gcsb = {ZS_FORMAT_GCSB, "gcsb",      gcsb_encode,
                                        gcsb_validate,  gcsb_decode, NULL};
