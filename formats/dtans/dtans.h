/* dtans.h — CSR-dtANS: entropy-coded CSR decoded inside the product. */
#ifndef ZS_FORMAT_DTANS_H
#define ZS_FORMAT_DTANS_H

#include "core/zs_internal.h"

ZSI_HIDDEN extern const zsi_format_ops zsi_format_dtans;

#endif
