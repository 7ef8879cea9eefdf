/* cci.c — CCI: compressed column indices with opcode decode tables. */
#include "formats/cci/cci.h"

/* Placeholder until the format lands: every entry point says so instead of pretending. */
static zs_status cci_missing(void) {
  return zsi_error(ZS_ERR_UNSUPPORTED, "format 'cci' is not implemented yet");
}
static zs_status cci_encode(const zs_matrix *A, const char *options, zs_encoded **out) {
  (void)A, (void)options, (void)out;
  return cci_missing();
}
static zs_status cci_validate(const zs_encoded *E) {
  (void)E;
  return cci_missing();
}
static zs_status cci_decode(const zs_encoded *E, zs_matrix **out) {
  (void)E, (void)out;
  return cci_missing();
}

const zsi_format_ops zsi_format_cci = {ZS_FORMAT_CCI, "cci",      cci_encode,
                                       cci_validate,  cci_decode, NULL};
