/* cpu_kernels.h — the cpu backend's kernel table, thread helpers and OpenMP pragma wrapper. */
#ifndef ZS_CPU_KERNELS_H
#define ZS_CPU_KERNELS_H

#include "core/zs_internal.h"

#if defined(_OPENMP)
#include <omp.h>
#define ZSI_PRAGMA(...) _Pragma(#__VA_ARGS__)
#define ZSI_OMP(...) ZSI_PRAGMA(omp __VA_ARGS__)
static inline int zsi_cpu_tid(void) { return omp_get_thread_num(); }
static inline int zsi_cpu_nth(void) { return omp_get_num_threads(); }
#else
/* Built without OpenMP: the pragmas vanish and every loop runs on the calling thread. */
#define ZSI_OMP(...)
static inline int zsi_cpu_tid(void) { return 0; }
static inline int zsi_cpu_nth(void) { return 1; }
#endif

/* gcc 12 at -O3 -march=native turns the in-order f32 CSR sum into AVX-512 gathers plus a
 * lane-by-lane fold, which halved its speed (baselines/cpu.md); keep such loops scalar.
 * (gcc >= 14 has `#pragma GCC novector` for this.) */
#if defined(__GNUC__) && !defined(__clang__)
#define ZSI_NO_VECTORIZE __attribute__((optimize("no-tree-vectorize")))
#else
#define ZSI_NO_VECTORIZE
#endif

/* What op_create hands every format's kernel, parsed once from the option string. */
typedef struct zsi_cpu_opts {
  int threads;          /* team size; the work partition is fixed from it at create */
  int transpose_atomic; /* "transpose=atomic": omp atomic SpMVT, not bitwise reproducible */
} zsi_cpu_opts;

typedef struct zsi_cpu_kernel {
  zs_format format;
  zs_status (*create)(void **state, const zsb_encoded_view *enc, const zsi_cpu_opts *opts);
  void (*destroy)(void *state);
  zs_status (*apply)(void *state, zs_op which, double alpha, const void *x, double beta, void *y);
  /* zs_spmv_pair in one sweep; NULL, or ZS_ERR_UNSUPPORTED for this operator: two products */
  zs_status (*pair)(void *state, double alpha, const void *x, double beta, void *y, double alpha_t,
                    const void *w, double beta_t, void *z);
} zsi_cpu_kernel;

ZSI_HIDDEN extern const zsi_cpu_kernel zsi_cpu_csr, zsi_cpu_coo, zsi_cpu_csb, zsi_cpu_gcsb,
    zsi_cpu_cci, zsi_cpu_dtans;

/* floor(total * c / n) without overflowing int64 (total < 2^63, n <= 2^31). */
ZSI_HIDDEN int64_t zsi_cpu_split_point(int64_t total, int64_t n, int64_t c);
/* Cut rows [0, rows) into n parts of about equal nonzeros + rows (a row costs its offset read and
 * y write even when empty): bounds[0..n] from the row offsets rp. */
ZSI_HIDDEN void zsi_cpu_split_rows(const int64_t *rp, int64_t rows, int n, int64_t *bounds);

/* The thread count set by the context (>= 1). */
ZSI_HIDDEN int zsi_cpu_threads(void);

#endif
