/* csr.h — the CSR baseline format: row_ptr (int64), col_idx (int32), values. */
#ifndef ZS_FORMAT_CSR_H
#define ZS_FORMAT_CSR_H

#include "core/zs_internal.h"

ZSI_HIDDEN extern const zsi_format_ops zsi_format_csr;

#endif
