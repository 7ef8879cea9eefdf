/* coo.h — the COO baseline format: row_idx, col_idx (int32, row-major order), values. */
#ifndef ZS_FORMAT_COO_H
#define ZS_FORMAT_COO_H

#include "core/zs_internal.h"
#include "formats/coo/coo_layout.h"

ZSI_HIDDEN extern const zsi_format_ops zsi_format_coo;

/* E's layout (coo_layout.h), sizes checked; a failure is recorded for zs_last_error. */
ZSI_HIDDEN zs_status zsi_coo_layout_of(const zs_encoded *E, coo_layout *L);

#endif
