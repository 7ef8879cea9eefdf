/* formats.c — the table of built-in formats and their names. */
#include <string.h>

#include "core/zs_internal.h"
#include "formats/cci/cci.h"
#include "formats/coo/coo.h"
#include "formats/csb/csb.h"
#include "formats/csr/csr.h"
#include "formats/dtans/dtans.h"

static const zsi_format_ops *const formats[] = {
    &zsi_format_csr,  &zsi_format_coo, &zsi_format_csb,
    &zsi_format_gcsb, &zsi_format_cci, &zsi_format_dtans,
};

static const char *const names[] = {
    [ZS_FORMAT_CSR] = "csr",   [ZS_FORMAT_COO] = "coo", [ZS_FORMAT_CSB] = "csb",
    [ZS_FORMAT_GCSB] = "gcsb", [ZS_FORMAT_CCI] = "cci", [ZS_FORMAT_DTANS] = "dtans",
    [ZS_FORMAT_VANS] = "vans",
};

const zsi_format_ops *zsi_format_lookup(zs_format id) {
  for (size_t i = 0; i < sizeof formats / sizeof *formats; i++)
    if (formats[i]->id == id) return formats[i];
  return NULL;
}

/* Named where the id has a name. MAT-VANS is named with its own route: its layers are dense int8
 * matrices coded through zs_vans_*, never a zs_encoded, so the table has no entry for it. */
zs_status zsi_format_absent(zs_format id, const char *prefix) {
  const char *name = zs_format_name(id);
  if (id == ZS_FORMAT_VANS)
    return zsi_error(
        ZS_ERR_UNSUPPORTED,
        "%sformat 'vans' codes dense int8 layers through zs_vans_* (zsparse vans), not "
        "sparse matrices",
        prefix);
  if (name) return zsi_error(ZS_ERR_UNSUPPORTED, "%sformat '%s' is not built in", prefix, name);
  return zsi_error(ZS_ERR_UNSUPPORTED, "%sformat %d is not built in", prefix, (int)id);
}

const char *zs_format_name(zs_format f) {
  if ((int)f <= 0 || (size_t)f >= sizeof names / sizeof *names) return NULL;
  return names[f];
}

zs_status zs_format_from_name(const char *name, zs_format *out) {
  for (size_t i = 1; name && i < sizeof names / sizeof *names; i++)
    if (names[i] && strcmp(names[i], name) == 0) {
      *out = (zs_format)i;
      return ZS_OK;
    }
  return zsi_error(ZS_ERR_INVALID_ARGUMENT,
                   "unknown format '%s' (known: csr, coo, csb, gcsb, cci, dtans, vans)",
                   name ? name : "(null)");
}
