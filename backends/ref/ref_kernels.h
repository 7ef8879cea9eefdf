/* ref_kernels.h — the ref backend's kernel table, shared by its source files. */
#ifndef ZS_REF_KERNELS_H
#define ZS_REF_KERNELS_H

#include "backends/format_kernels.h"
#include "core/zs_internal.h"
#include "formats/vans/vans_backend.h"

typedef zsi_format_kernels zsi_ref_kernel;

/* The oracle's kernels of format f: every format of formats/format_list.h is decoded by its
 * reference decoder once and multiplied as CSR, so ref serves each one with no code of its own.
 * NULL for an id that is not a sparse format. */
ZSI_HIDDEN const zsi_format_kernels *zsi_ref_kernels_for(zs_format f);

/* MAT-VANS chains, the extension "vans-v2" (ref_vans.c). */
ZSI_HIDDEN extern const zsb_vans_ops zsi_ref_vans;

#endif
