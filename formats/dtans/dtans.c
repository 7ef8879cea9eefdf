/* dtans.c — CSR-dtANS: entropy-coded CSR decoded inside the product. */
#include "formats/dtans/dtans.h"

/* Placeholder until the format lands: every entry point says so instead of pretending. */
static zs_status dtans_missing(void) {
  return zsi_error(ZS_ERR_UNSUPPORTED, "format 'dtans' is not implemented yet");
}
static zs_status dtans_encode(const zs_matrix *A, const char *options, zs_encoded **out) {
  (void)A, (void)options, (void)out;
  return dtans_missing();
}
static zs_status dtans_validate(const zs_encoded *E) {
  (void)E;
  return dtans_missing();
}
static zs_status dtans_decode(const zs_encoded *E, zs_matrix **out) {
  (void)E, (void)out;
  return dtans_missing();
}

const zsi_format_ops zsi_format_dtans = {ZS_FORMAT_DTANS, "dtans",      dtans_encode,
                                         dtans_validate,  dtans_decode, NULL};
