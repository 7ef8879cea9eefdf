/* cci.h — CCI: compressed column indices with opcode decode tables. */
#ifndef ZS_FORMAT_CCI_H
#define ZS_FORMAT_CCI_H

#include "core/zs_internal.h"
#include "formats/cci/cci_layout.h"

ZSI_HIDDEN extern const zsi_format_ops zsi_format_cci;

#endif
