/* sell.h — the SELL-C-sigma format: slices of c rows, column-major, rows sorted by length inside
 * windows of sigma rows (docs/formats/sell.md). */
#ifndef ZS_FORMAT_SELL_H
#define ZS_FORMAT_SELL_H

#include "core/zs_internal.h"
#include "formats/sell/sell_layout.h"

ZSI_HIDDEN extern const zsi_format_ops zsi_format_sell;

/* E's layout (sell_layout.h), sizes checked; a failure is recorded for zs_last_error. */
ZSI_HIDDEN zs_status zsi_sell_layout_of(const zs_encoded *E, sell_layout *L);

#endif
