/* csr.h — the CSR baseline format: row_ptr (int64), col_idx (int32), values. */
#ifndef ZS_FORMAT_CSR_H
#define ZS_FORMAT_CSR_H

#include "core/zs_internal.h"
#include "formats/csr/csr_layout.h"

ZSI_HIDDEN extern const zsi_format_ops zsi_format_csr;

/* E's layout (csr_layout.h), sizes checked; a failure is recorded for zs_last_error. */
ZSI_HIDDEN zs_status zsi_csr_layout_of(const zs_encoded *E, csr_layout *L);

#endif
