/* ref_kernels.h — the ref backend's per-format kernel table, shared by its source files. */
#ifndef ZS_REF_KERNELS_H
#define ZS_REF_KERNELS_H

#include "core/zs_internal.h"

/* One entry per format the oracle understands. create copies what it needs from the view
 * (the caller may destroy the encoded matrix afterwards). */
typedef struct zsi_ref_kernel {
  zs_format format;
  zs_status (*create)(void **state, const zsb_encoded_view *enc);
  void (*destroy)(void *state);
  zs_status (*apply)(void *state, zs_op which, double alpha, const void *x, double beta, void *y);
} zsi_ref_kernel;

ZSI_HIDDEN extern const zsi_ref_kernel zsi_ref_csr, zsi_ref_coo, zsi_ref_csb, zsi_ref_gcsb,
    zsi_ref_cci, zsi_ref_dtans;

#endif
