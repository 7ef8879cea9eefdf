/* cpu_dtans5.h — the cpu backend's CSR-dtANS version 5 operator, reached from cpu_dtans.c. */
#ifndef ZS_CPU_DTANS5_H
#define ZS_CPU_DTANS5_H

#include "backends/cpu/cpu_kernels.h"

typedef struct dtans5_op dtans5_op;

/* An operator for a version 5 view (validated when it was encoded or loaded), with `threads`
 * threads and atomic SpMVT when transpose_atomic; ZS_ERR_OUT_OF_MEMORY or a layout error. */
ZSI_HIDDEN zs_status cpu_dtans5_create(dtans5_op **out, const zsb_encoded_view *enc, int threads,
                                       int transpose_atomic);
ZSI_HIDDEN void cpu_dtans5_destroy(dtans5_op *A);
/* y = alpha op(A) x + beta y (beta 0: y is only written). */
ZSI_HIDDEN zs_status cpu_dtans5_apply(const dtans5_op *A, zs_op which, double alpha, const void *x,
                                      double beta, void *y);
/* y = alpha A x + beta y and z = alpha_t Aᵀ w + beta_t z from one walk of the rows. */
ZSI_HIDDEN zs_status cpu_dtans5_pair(const dtans5_op *A, double alpha, const void *x, double beta,
                                     void *y, double alpha_t, const void *w, double beta_t,
                                     void *z);

#endif
