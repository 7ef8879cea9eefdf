/* formats.c — the library's table of formats and their names, derived from formats/format_list.h. */
#include <string.h>

#include "core/zs_internal.h"
#include "formats/format_list.h"

/* Each sparse format's operations, defined in its folder. */
#define DECLARE_OPS(ID, name, folder, summary) \
  ZSI_HIDDEN extern const zsi_format_ops zsi_format_##name;
ZSI_FORMAT_LIST(DECLARE_OPS)

#define OPS_SLOT(ID, name, folder, summary) [ZS_FORMAT_##ID] = &zsi_format_##name,
#define NAME_SLOT(ID, name, folder, summary) [ZS_FORMAT_##ID] = #name,
static const zsi_format_ops *const formats[] = {ZSI_FORMAT_LIST(OPS_SLOT)};
static const char *const names[] = {ZSI_FORMAT_LIST(NAME_SLOT) ZSI_LAYER_FORMAT_LIST(NAME_SLOT)};
#define N_OPS (sizeof formats / sizeof *formats)
#define N_NAMES (sizeof names / sizeof *names)

const zsi_format_ops *zsi_format_lookup(zs_format id) {
  return (int)id > 0 && (size_t)id < N_OPS ? formats[id] : NULL;
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
  if (f == ZS_FORMAT_AUTO) return "auto";
  return (int)f > 0 && (size_t)f < N_NAMES ? names[f] : NULL;
}

zs_status zs_format_from_name(const char *name, zs_format *out) {
  if (name && out && strcmp(name, "auto") == 0) return *out = ZS_FORMAT_AUTO, ZS_OK;
  for (size_t i = 1; name && out && i < N_NAMES; i++)
    if (names[i] && strcmp(names[i], name) == 0) {
      *out = (zs_format)i;
      return ZS_OK;
    }
  if (!name || !out)
    return zsi_error(ZS_ERR_INVALID_ARGUMENT, "zs_format_from_name: name or out is NULL");
  return zsi_error(ZS_ERR_INVALID_ARGUMENT, "unknown format '%s' (known:" ZSI_FORMAT_NAMES " auto)",
                   name);
}
