/* csb.h — CSB-baseline and GCSB: blocked formats for SpMV and SpMVT from one copy. */
#ifndef ZS_FORMAT_CSB_H
#define ZS_FORMAT_CSB_H

#include "core/zs_internal.h"

ZSI_HIDDEN extern const zsi_format_ops zsi_format_csb, zsi_format_gcsb;

#endif
