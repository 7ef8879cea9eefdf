/* coo.h — the COO baseline format: row_idx, col_idx (int32, row-major order), values. */
#ifndef ZS_FORMAT_COO_H
#define ZS_FORMAT_COO_H

#include "core/zs_internal.h"

ZSI_HIDDEN extern const zsi_format_ops zsi_format_coo;

#endif
