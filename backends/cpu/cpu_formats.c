/* cpu_formats.c — the cpu backend's kernel table: one slot per line of formats/format_list.h. */
#include "backends/cpu/cpu_kernels.h"
#include "formats/format_list.h"

#define DECLARE(ID, name, folder, summary) \
  ZSI_HIDDEN extern const zsi_format_kernels zsi_cpu_##name;
ZSI_FORMAT_LIST(DECLARE)

#define SLOT(ID, name, folder, summary) [ZS_FORMAT_##ID] = &zsi_cpu_##name,
static const zsi_format_kernels *const table[] = {ZSI_FORMAT_LIST(SLOT)};

const zsi_format_kernels *zsi_cpu_kernels_for(zs_format f) {
  if ((int)f <= 0 || (size_t)f >= sizeof table / sizeof *table) return NULL;
  const zsi_format_kernels *k = table[f];
  return k && k->create ? k : NULL;
}
