/* format_kernels.h — the one kernel-table type every backend fills per format: create an operator
 * from a format's view, destroy it, apply it, and optionally BiCG's fused pair. A backend's table
 * has a slot per format of formats/format_list.h; an empty slot (create NULL) means the backend
 * has no kernel for that format and op_create answers ZS_ERR_UNSUPPORTED. Plain C that also
 * compiles as C++ (the GPU modules). */
#ifndef ZS_FORMAT_KERNELS_H
#define ZS_FORMAT_KERNELS_H

#include "zsparse_backend.h"

/* What a backend's op_create hands every format's kernel, parsed once from the option string. */
typedef struct zsi_kernel_opts {
  int threads;          /* team size (host backends); the work partition is fixed at create */
  int transpose_atomic; /* "transpose=atomic": atomic SpMVT, not bitwise reproducible */
} zsi_kernel_opts;

typedef struct zsi_format_kernels {
  /* Reads the view through the format's layout (formats/<fmt>/<fmt>_layout.h); the caller may
   * destroy the view's arrays afterwards. */
  zs_status (*create)(void **state, const zsb_encoded_view *enc, const zsi_kernel_opts *opts);
  void (*destroy)(void *state);
  zs_status (*apply)(void *state, zs_op which, double alpha, const void *x, double beta, void *y);
  /* zs_spmv_pair in one sweep; NULL, or ZS_ERR_UNSUPPORTED for this operator: two products */
  zs_status (*pair)(void *state, double alpha, const void *x, double beta, void *y, double alpha_t,
                    const void *w, double beta_t, void *z);
} zsi_format_kernels;

#endif
